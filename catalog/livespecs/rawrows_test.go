package livespecs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/estuary/schedtool/bench/gen"
	"github.com/estuary/schedtool/catalog"
	"github.com/google/go-cmp/cmp"
)

func TestRawRows(t *testing.T) {
	for _, tc := range []struct {
		name, in, want, err string
	}{
		{"postgrest", "[{\"a\":1}, \n {\"a\":2}]\n", " {\"a\":1}\n {\"a\":2}\n", ""},
		// An element on the line of the one before: \vN:C\v, N lines up, at column C.
		{"compact", `[{"a":1},{"b":[1,2,{"c":"]"}]}]`, " {\"a\":1}\n\v1:10\v{\"b\":[1,2,{\"c\":\"]\"}]}\n", ""},
		// Far right on a line of its own: marked, not padded.
		{"far right", "[" + strings.Repeat(" ", maxPad) + "{}]", "\v0:258\v{}\n", ""},
		{"just padded", "[" + strings.Repeat(" ", maxPad-2) + "{}]", strings.Repeat(" ", maxPad-1) + "{}\n", ""},
		{"strings with separators", `[{"s":"a,b]\"}"}]`, " {\"s\":\"a,b]\\\"}\"}\n", ""},
		// Each element on the line where it starts, at its column.
		{"pretty", "[\n  {\n    \"a\": 1,\n    \"b\": [2]\n  },\n  {\"c\": 3}\n]\n",
			"\n  {\r    \"a\": 1,\r    \"b\": [2]\r  }\n\n\n\n  {\"c\": 3}\r\n", ""},
		// A line break inside an element is marked '\r'; a '\r' of the file is a space.
		{"crlf", "[{\"a\":\r\n1},\r\n{\"b\":2}]", " {\"a\": \r1}\n\n{\"b\":2}\n", ""},
		{"lone cr", "[{\"a\":\r1}]", " {\"a\": 1}\n", ""},
		{"empty", " [ ] ", "", ""},
		{"an element's own upMark", "[\n\v9\v]", "\n\v0:1\v\v9\v\n", ""},
		{"bom", "\xef\xbb\xbf[{}]", " {}\n", ""},
		{"scalars pass through", `[1, "x", null]`, " 1\n\v1:5\v\"x\"\n\v2:10\vnull\n", ""},
		{"not an array", `{"a":1}`, "", `line 1, column 1: '{' where the array should start`},
		{"nothing", "  \n", "", "line 2, column 1: no JSON array"},
		{"unclosed", `[{"a":1}`, " {\"a\":1}\n", "the input ends inside the array"},
		{"unclosed element", `[{"a":[1`, " {\"a\":[1\n", "the input ends inside the array"},
		{"after the end", `[{}] x`, " {}\n", `line 1, column 6: 'x' after the end of the array`},
		{"two commas", `[{},,{}]`, " {}\n", `line 1, column 5: ',' where an element should be`},
		{"trailing comma", `[{}, ]`, " {}\n", `line 1, column 6: ']' where an element should be`},
		{"leading comma", `[,{}]`, "", `line 1, column 2: ',' where an element should be`},
		{"line break in a string", "[{\"a\":\"x\ny\"}]", " {\"a\":\"x\n", "line 1, column 9: a raw line break inside a string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, r := range []io.Reader{strings.NewReader(tc.in), iotest.OneByteReader(strings.NewReader(tc.in))} {
				got, err := io.ReadAll(NewRawRows(r))
				if diff := cmp.Diff(tc.want, string(got)); diff != "" {
					t.Errorf("output (-want +got):\n%s", diff)
				}
				switch {
				case tc.err == "" && err != nil:
					t.Errorf("error %v", err)
				case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
					t.Errorf("error %v, want %q", err, tc.err)
				}
			}
		})
	}
}

func TestIsRawRows(t *testing.T) {
	for in, want := range map[string]bool{
		"[{}]": true, " \n\t[": true, "\xef\xbb\xbf [": true,
		"{}": false, "": false, "import:\n  - a.yaml": false, "- [a]": false,
	} {
		if got := IsRawRows([]byte(in)); got != want {
			t.Errorf("IsRawRows(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestNormalizePubID(t *testing.T) {
	for in, want := range map[string]string{
		"12:34:ff:4b:56:80:03:a5": "1234ff4b568003a5",
		"1234ff4b568003a5":        "1234ff4b568003a5",
		"12:34:ff":                "12:34:ff",
		"12:34:ff:4b:56:80:03:zz": "12:34:ff:4b:56:80:03:zz",
		"":                        "",
	} {
		if got := NormalizePubID(in); got != want {
			t.Errorf("NormalizePubID(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzRawRows: no panic; a valid JSON array comes out as its elements,
// one a line, each equal to the element it came from.
func FuzzRawRows(f *testing.F) {
	for _, s := range []string{"[{\"a\":1}, \n {\"a\":2}]", "[\n {\"b\": [1, \"]\"]}\n]", "[]", "[1,\"x\\\"\",null]", "[{}", "x"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := io.ReadAll(NewRawRows(bytes.NewReader(in)))
		var elems []json.RawMessage
		if !IsRawRows(in) || json.Unmarshal(in, &elems) != nil || bytes.HasPrefix(in, []byte("\xef\xbb\xbf")) {
			return
		}
		if err != nil {
			t.Fatalf("valid array %q: %v", in, err)
		}
		var lines [][]byte
		for _, l := range bytes.Split(out, []byte("\n")) {
			l, _ = (&Worker{}).unmark(l)
			if len(bytes.TrimSpace(l)) > 0 {
				lines = append(lines, l)
			}
		}
		if len(lines) != len(elems) {
			t.Fatalf("%q: %d lines for %d elements: %q", in, len(lines), len(elems), out)
		}
		for i := range elems {
			var a, b any
			if err := json.Unmarshal(elems[i], &a); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(lines[i], &b); err != nil {
				t.Fatalf("line %q: %v", lines[i], err)
			}
			if !cmp.Equal(a, b) {
				t.Fatalf("element %d: %v, line gives %v", i, a, b)
			}
		}
	})
}

// A one-line array is read in memory linear in its size: its rows are
// not padded to their columns (2,000 rows of 475 bytes took 3.5 GB).
func TestRawRowsOneLineBounded(t *testing.T) {
	const rows = 20_000
	in := gen.OneLineRaw(rows)
	// The rows handed to the dump reader: the file's bytes and a mark
	// each, not the bytes of every row before.
	limit := int64(len(in)) + 32*rows
	n, err := io.Copy(io.Discard, io.LimitReader(NewRawRows(bytes.NewReader(in)), limit+1))
	if err != nil || n > limit {
		t.Fatalf("%d bytes of rows from %d bytes of input (%v)", n, len(in), err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got, last := 0, ""
	err = ScanDump(NewRawRows(bytes.NewReader(in)), "raw.json", DumpOptions{Options: catalog.DefaultOptions(), Lean: true},
		func(rr *RowResult) string {
			if rr.Mat == nil || rr.Problem != nil {
				return ""
			}
			return fmt.Sprintf("%s@%d:%d", rr.Mat.Name, rr.Mat.Spec.Line(), rr.Mat.Spec.Col())
		}, func(s string) {
			if s != "" {
				got++
				last = s
			}
		})
	runtime.ReadMemStats(&after)
	if err != nil || got != rows {
		t.Fatalf("%d rows of %d (%v)", got, rows, err)
	}
	// The last row's spec is where it is on the file's one line.
	want := fmt.Sprintf("acmeCo/t%06d/materialize-snowflake@1:%d", rows-1, bytes.LastIndex(in, []byte(`"spec":{`))+len(`"spec":`)+1)
	if last != want {
		t.Errorf("last row %s, want %s", last, want)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(16*len(in)) {
		t.Errorf("reading %d bytes allocated %d bytes (over 16 times the input)", len(in), alloc)
	}
}

func BenchmarkRawRowsOneLine(b *testing.B) {
	in := gen.OneLineRaw(20_000)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		rows := 0
		err := ScanDump(NewRawRows(bytes.NewReader(in)), "raw.json", DumpOptions{Options: catalog.DefaultOptions(), Lean: true},
			func(rr *RowResult) bool { return rr.Mat != nil }, func(ok bool) {
				if ok {
					rows++
				}
			})
		if err != nil || rows != 20_000 {
			b.Fatalf("%d rows (%v)", rows, err)
		}
	}
}
