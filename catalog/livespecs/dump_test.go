package livespecs

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/estuary/schedtool/catalog"
	"github.com/google/go-cmp/cmp"
)

type rowSeen struct {
	Line    int
	Task    string
	Type    string
	Problem string
}

func scan(t *testing.T, r io.Reader, maxRow int) []rowSeen {
	t.Helper()
	opts := DumpOptions{Options: catalog.DefaultOptions()}
	opts.MaxRowSize = maxRow
	var got []rowSeen
	err := ScanDump(r, "d.ndjson", opts, func(rr *RowResult) rowSeen {
		s := rowSeen{Line: rr.Line, Type: rr.SpecType}
		if rr.Mat != nil {
			s.Task = rr.Mat.Name
		}
		if rr.Problem != nil {
			s.Problem = fmt.Sprintf("%d:%d %s", rr.Problem.Pos.Line, rr.Problem.Pos.Column, rr.Problem.Message)
		}
		return s
	}, func(s rowSeen) { got = append(got, s) })
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func matRow(name string) string {
	return `{"catalog_name":"` + name + `","spec_type":"materialization","spec":{"endpoint":{"connector":{"image":"x","config":{}}},"bindings":[{"a":1}]}}`
}

func TestScanDumpLines(t *testing.T) {
	in := matRow("a/one") + "\r\n" +
		"\n" +
		`{"catalog_name":"a/c","spec_type":"collection","spec":{}}` + "\n" +
		`{"catalog_name":"a/bad","spec_type":"materialization","spec":{` + "\n" +
		`[1,2]` + "\n" +
		`{"catalog_name":"a/x","spec_type":"materialization","spec":{"bindings":[1,}}` + "\n" +
		matRow("a/last") // no final newline
	want := []rowSeen{
		{Line: 1, Task: "a/one", Type: "materialization"},
		{Line: 2},
		{Line: 3, Type: "other"},
		{Line: 4, Problem: "4:63 row does not parse: unexpected end of input, expected a string key"},
		{Line: 5, Problem: "5:1 row is not a JSON object"},
		{Line: 6, Problem: "6:75 row does not parse: unexpected '}', expected a value"},
		{Line: 7, Task: "a/last", Type: "materialization"},
	}
	for name, r := range map[string]io.Reader{
		"whole":   strings.NewReader(in),
		"bytes":   iotest.OneByteReader(strings.NewReader(in)),
		"halting": iotest.HalfReader(strings.NewReader(in)),
	} {
		if diff := cmp.Diff(want, scan(t, r, 1<<20)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}

// Rows over the limit are reported with their line; the rest go on, and
// line numbers stay right, wherever the long row falls.
func TestScanDumpLongRows(t *testing.T) {
	long := `{"catalog_name":"a/long","spec_type":"materialization","spec":{"x":"` + strings.Repeat("y", 3000) + `"}}`
	huge := `{"x":"` + strings.Repeat("z", 3*blockSize) + `"}`
	for _, tc := range []struct {
		name string
		rows []string
	}{
		{"first", []string{long, matRow("a/1"), matRow("a/2")}},
		{"middle", []string{matRow("a/1"), long, matRow("a/2")}},
		{"last", []string{matRow("a/1"), matRow("a/2"), long}},
		{"beyond a block", []string{matRow("a/1"), huge, matRow("a/2")}},
		{"two in a row", []string{long, huge, matRow("a/1")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := scan(t, strings.NewReader(strings.Join(tc.rows, "\n")+"\n"), 2048)
			if len(got) != len(tc.rows) {
				t.Fatalf("%d rows seen, want %d: %+v", len(got), len(tc.rows), got)
			}
			for i, row := range tc.rows {
				g := got[i]
				if g.Line != i+1 {
					t.Errorf("row %d reported at line %d", i+1, g.Line)
				}
				if tooLong := len(row) > 2048; tooLong != strings.Contains(g.Problem, "longer than 2 KiB") {
					t.Errorf("row %d (%d bytes): %+v", i+1, len(row), g)
				}
			}
		})
	}
}

// Many rows across many blocks arrive in order.
func TestScanDumpOrder(t *testing.T) {
	var b strings.Builder
	n := 20000
	for i := 0; i < n; i++ {
		b.WriteString(matRow(fmt.Sprintf("a/%d", i)) + "\n")
	}
	got := scan(t, strings.NewReader(b.String()), 1<<20)
	if len(got) != n {
		t.Fatalf("%d rows", len(got))
	}
	for i, g := range got {
		if g.Line != i+1 || g.Task != fmt.Sprintf("a/%d", i) {
			t.Fatalf("row %d: %+v", i, g)
		}
	}
}

// Rows longer than a block each grow the reader's buffer; the block they
// grew from goes back to the pool, so any number of them is read (more
// than the pool's 2*workers+2 once hung the reader).
func TestScanDumpManyRowsBeyondABlock(t *testing.T) {
	huge := `{"spec_type":"capture","x":"` + strings.Repeat("z", blockSize+blockSize/2) + `"}`
	n := 4*maxInFlight(runtime.GOMAXPROCS(0)) + 3
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(huge + "\n")
		if i%3 == 0 {
			b.WriteString(matRow(fmt.Sprintf("a/%d", i)) + "\n")
		}
	}
	done := make(chan []rowSeen)
	go func() { done <- scan(t, strings.NewReader(b.String()), 1<<20) }()
	select {
	case got := <-done:
		if want := n + (n+2)/3; len(got) != want {
			t.Fatalf("%d rows seen, want %d", len(got), want)
		}
		for i, g := range got {
			if g.Line != i+1 || g.Problem != "" {
				t.Fatalf("row %d: %+v", i+1, g)
			}
		}
	case <-time.After(time.Minute):
		t.Fatal("the reader hangs")
	}
}

// Whatever the row size, the results held at once (processed, not yet
// emitted) are bounded by the batches in flight times the rows a batch
// holds, even while the first batch is slow and the rest wait for it.
func TestScanDumpResultsInFlightBounded(t *testing.T) {
	const workers, per = 2, 4
	bound := maxInFlight(workers) * per
	for _, tc := range []struct {
		name string
		row  string
	}{
		{"garbage", "x"},
		{"blank", ""},
		{"rows", matRow("a/b")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 50 * bound
			in := strings.Repeat(tc.row+"\n", n)
			var held, most atomic.Int64
			release := make(chan struct{})
			maxTokens := 0
			opts := DumpOptions{Options: catalog.DefaultOptions(), Workers: workers, BatchRows: per,
				inFlight: func(k int) { maxTokens = max(maxTokens, k) }}
			lines := 0
			err := ScanDumpRaw(strings.NewReader(in), "d.ndjson", opts, func(w *Worker, line int, row []byte) int {
				if line == 1 {
					// Hold the first batch until the others have filled
					// every other place in flight (or run out).
					<-release
				}
				for h := held.Add(1); ; {
					m := most.Load()
					if h <= m || most.CompareAndSwap(m, h) {
						break
					}
				}
				if line != 1 && held.Load() >= int64(bound-per) {
					select {
					case <-release:
					default:
						close(release)
					}
				}
				return line
			}, func(line int) {
				held.Add(-1)
				lines++
				if line != lines {
					t.Fatalf("row %d emitted as line %d", lines, line)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if lines != n {
				t.Fatalf("%d rows emitted, want %d", lines, n)
			}
			if m := most.Load(); m > int64(bound) {
				t.Errorf("%d results held at once, want at most %d", m, bound)
			}
			if maxTokens > maxInFlight(workers) {
				t.Errorf("%d batches in flight, want at most %d", maxTokens, maxInFlight(workers))
			}
		})
	}
}
