package migrate

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	dumpgen "github.com/estuary/schedtool/bench/gen"
	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/schedule/connector"
)

// liveHeap migrates a generated dump of rows rows into a file, as
// migrate --out FILE does, and returns the live heap (the heap right
// after a collection) taken every few milliseconds through the run.
func liveHeap(t *testing.T, rows int) []uint64 {
	t.Helper()
	var dump bytes.Buffer
	if err := dumpgen.Write(&dump, rows, 1); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "dump.ndjson")
	if err := os.WriteFile(path, dump.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dump = bytes.Buffer{}
	reg := connector.Builtin()
	opts := catalog.DefaultOptions()
	mg := &Migrator{Planner: &plan.Planner{Registry: reg}, Registry: reg}
	inputs, err := input.Resolve([]string{path}, opts)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	done := make(chan struct{})
	samples := make(chan []uint64)
	go func() {
		var live []uint64
		var ms runtime.MemStats
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				samples <- live
				return
			case <-tick.C:
				runtime.GC()
				runtime.ReadMemStats(&ms)
				live = append(live, ms.HeapAlloc)
			}
		}
	}()
	sum, err := mg.Run(inputs, RunOptions{Load: opts, Mode: OutFile, Out: filepath.Join(dir, "out.ndjson"), Quiet: true}, io.Discard, io.Discard)
	close(done)
	if err != nil || sum.Written == 0 {
		t.Fatalf("%v %+v", err, sum)
	}
	return <-samples
}

// floor is the smallest sample from fraction a to b of the run: what the
// run keeps only grows, while the rows in flight come and go.
func floor(live []uint64, a, b float64) uint64 {
	n := float64(len(live))
	return slices.Min(live[int(n*a):max(int(n*b), int(n*a)+1)])
}

// migrate --out FILE keeps next to nothing per row (issue 18, "At fleet
// scale"): over 100,000 rows, what the run keeps grows by at most a few
// dozen bytes a row from a fifth of the way to four fifths (the
// duplicate-name check keeps 16; a merge of its sorted part briefly
// doubles that). The samples are noisy (about 25 bytes a row either
// way), so this is a coarse guard: a map of names and places measured
// 40 to 90 here, and anything keeping a row's bytes fails it for sure.
// TestNameSetBytesPerName is the exact one; bench/migrate-rss.sh
// measures the resident memory at a million rows.
func TestMigrateOutFileMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("migrates 100,000 rows")
	}
	const rows = 100000
	live := liveHeap(t, rows)
	if len(live) < 50 {
		t.Skipf("only %d samples of the heap", len(live))
	}
	early, late := floor(live, 0.15, 0.3), floor(live, 0.75, 0.9)
	perRow := (float64(late) - float64(early)) / (0.6 * rows)
	t.Logf("%d samples; kept %.1f MiB a fifth of the way, %.1f MiB four fifths: %.0f bytes a row", len(live), float64(early)/(1<<20), float64(late)/(1<<20), perRow)
	if perRow > 64 {
		t.Errorf("what the run keeps grows by %.0f bytes a row (at most 64)", perRow)
	}
}

// The duplicate-name check keeps 16 bytes a name, whatever its length,
// and finds every repeat with its first place.
func TestNameSetBytesPerName(t *testing.T) {
	const n = 200000
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("materialize-acmeCo/some/rather/long/prefix/team%d/entity%d", i%97, i)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := newNameSet()
	for i, name := range names {
		if _, dup := s.add(name, rowPlace(i%3, i+1)); dup {
			t.Fatalf("%s: a repeat at its first sight", name)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	perName := (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / n
	if perName > 24 {
		t.Errorf("%.1f bytes a name (at most 24)", perName)
	}
	for _, i := range []int{0, 1, n / 2, n - 1} {
		first, dup := s.add(names[i], rowPlace(7, 1))
		if in, line := unplace(first); !dup || in != i%3 || line != i+1 {
			t.Errorf("%s again: %v, first at input %d line %d; want input %d line %d", names[i], dup, in, line, i%3, i+1)
		}
	}
	if _, dup := s.add("materialize-acmeCo/new", rowPlace(0, 1)); dup {
		t.Error("a new name taken for a repeat")
	}
	runtime.KeepAlive(s)
}
