package census

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/schedule/connector"
)

type countBad struct {
	collect
	listed int
}

func (c *countBad) Unreadable(*Unreadable) { c.listed++ }

func garbageDump(t testing.TB, n int) []catalog.Input {
	t.Helper()
	p := filepath.Join(t.TempDir(), "d.ndjson")
	if err := os.WriteFile(p, bytes.Repeat([]byte("x\n"), n), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := input.Resolve([]string{p}, catalog.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// Unreadable rows are all counted, but only the first
// MaxUnreadableListed reach the writer (a 40 MB dump of garbage lines
// once kept every one: 8.8 GB).
func TestUnreadableRowsCountedNotKept(t *testing.T) {
	for _, n := range []int{1, MaxUnreadableListed, 50_000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var rows []Row
			w := &countBad{collect: collect{rows: &rows}}
			c := &Census{Planner: &plan.Planner{Registry: connector.Builtin()}}
			tot, err := c.Run(garbageDump(t, n), catalog.DefaultOptions(), w)
			if err != nil {
				t.Fatal(err)
			}
			if tot.Unreadable != n {
				t.Errorf("%d unreadable counted, want %d", tot.Unreadable, n)
			}
			if want := min(n, MaxUnreadableListed); w.listed != want {
				t.Errorf("%d unreadable listed, want %d", w.listed, want)
			}
		})
	}
}

// Every format says how many are unreadable and that only the first are listed.
func TestUnreadableListCapped(t *testing.T) {
	const n = 250
	for _, format := range []string{"table", "wide", "markdown", "json", "csv", "html"} {
		var out, errb bytes.Buffer
		w, _ := NewWriter(format, &out, &errb, Options{})
		c := &Census{Planner: &plan.Planner{Registry: connector.Builtin()}}
		tot, err := c.Run(garbageDump(t, n), catalog.DefaultOptions(), w)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.End(tot); err != nil {
			t.Fatal(err)
		}
		s := out.String()
		if format == "csv" {
			// The CSV is one row per task; its unreadable inputs are
			// listed on standard error.
			if strings.Contains(s, "row does not parse") {
				t.Errorf("csv: unreadable inputs among the rows:\n%.300s", s)
			}
			s = errb.String()
			if !strings.HasPrefix(s, "schedtool: census: 250 unreadable inputs, counted but not rows of the CSV") {
				t.Errorf("csv: standard error begins %.100q", s)
			}
		} else if errb.Len() > 0 {
			t.Errorf("%s wrote to standard error: %.100q", format, errb.String())
		}
		got := strings.Count(s, "row does not parse")
		switch format {
		case "html":
			// Grouped by problem: the message once, each place in full.
			got = strings.Count(s, "<li>")
		case "markdown":
			got = strings.Count(s, "\n- ")
		}
		if got != MaxUnreadableListed {
			t.Errorf("%s: %d rows listed, want %d", format, got, MaxUnreadableListed)
		}
		want := "... and 150 more (the first 100 are listed)"
		if format == "json" {
			want = `"unreadable":250`
		}
		if !strings.Contains(s, want) {
			t.Errorf("%s: no %q in\n%s", format, want, s[max(0, len(s)-600):])
		}
	}
}

// Memory per unreadable row stays flat: the allocations of a census of a
// garbage dump grow with the rows read (a few per row, reused), not with
// what is kept. B/op divided by rows is the figure to watch.
func BenchmarkUnreadableRows(b *testing.B) {
	for _, n := range []int{100_000, 400_000, 1_600_000} {
		in := garbageDump(b, n)
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			peak := peakHeap()
			for i := 0; i < b.N; i++ {
				var rows []Row
				c := &Census{Planner: &plan.Planner{Registry: connector.Builtin()}}
				if _, err := c.Run(in, catalog.DefaultOptions(), &countBad{collect: collect{rows: &rows}}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(peak())/(1<<20), "peak-heap-MiB")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/row")
		})
	}
}

// peakHeap samples the heap in use every millisecond until the function
// it returns is called, which returns the most seen: it stays flat as
// the rows of a dump grow when memory does not grow with them.
func peakHeap() func() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	stop, done := make(chan struct{}), make(chan uint64)
	go func() {
		var most uint64
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			most = max(most, s[0].Value.Uint64())
			select {
			case <-stop:
				done <- most
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 { close(stop); return <-done }
}
