package pgsource_test

import (
	"bufio"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/estuary/schedtool/catalog/pgsource"
	"github.com/estuary/schedtool/catalog/selection"
)

// A reader slower than --db-timeout is not a stalled server: while the
// rows wait for it to take them, the watchdog does not count. Every row
// comes, and the selector's counter counts them.
func TestSlowReaderIsNotAStall(t *testing.T) {
	db, dump := load(t, 10000) // more than the queue and the socket hold
	var rows atomic.Int64
	rc, err := pgsource.Open(db.BypassURL, selection.Selector{Timeout: 300 * time.Millisecond, Rows: &rows})
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	// Take a few rows, then nothing for several timeouts: the queue
	// fills and the read waits on this reader, not on the server.
	br := bufio.NewReader(rc)
	lines := 0
	for ; lines < 50; lines++ {
		if _, err := br.ReadBytes('\n'); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(1500 * time.Millisecond)
	for {
		_, err := br.ReadBytes('\n')
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("a slow reader failed the read after %d rows: %v", lines, err)
		}
		lines++
	}
	want := len(materializations(t, dump))
	if n := rows.Load(); lines != want || n != int64(want) {
		t.Errorf("read %d rows, counted %d, want %d", lines, n, want)
	}
}
