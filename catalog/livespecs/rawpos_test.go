package livespecs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/tree"
	"github.com/google/go-cmp/cmp"
)

// prettyRaw is flowctl raw get output as jq prints it: one field a line.
const prettyRaw = `[
  {
    "catalog_name": "acme/one",
    "spec_type": "materialization",
    "spec": {
      "endpoint": {"connector": {"image": "ghcr.io/estuary/materialize-snowflake:v1", "config": {}}},
      "bindings": []
    },
    "last_pub_id": "12:34:ff:4b:56:80:03:a5"
  },
  {
    "catalog_name": "acme/two",
    "spec_type": "materialization",
    "spec": {
      "endpoint": {
        "connector": {
          "image": "ghcr.io/estuary/materialize-snowflake:v1",
          "config": {
            "note": "é€x",  "syncSchedule": {
              "syncFrequency": "30m"
            }
          }
        }
      },
      "bindings": []
    }
  }
]
`

// rawPositions reads raw output as a dump and gives the line:column of
// each value of each materialization row (row's task and pointer), and
// each row's problem.
func rawPositions(t *testing.T, in string) map[string]string {
	t.Helper()
	got := map[string]string{}
	r := NewRawRows(iotest.HalfReader(strings.NewReader(in)))
	err := ScanDump(r, "raw.json", DumpOptions{Options: catalog.DefaultOptions()}, func(rr *RowResult) []string {
		var out []string
		if rr.Problem != nil {
			out = append(out, fmt.Sprintf("problem@%d\t%d:%d %s", rr.Line, rr.Problem.Pos.Line, rr.Problem.Pos.Column, rr.Problem.Message))
		}
		if rr.Mat != nil {
			var walk func(n *tree.Node)
			walk = func(n *tree.Node) {
				out = append(out, fmt.Sprintf("%s%s\t%d:%d", rr.Mat.Name, n.Pointer(), n.Line(), n.Col()))
				for _, f := range n.Fields {
					walk(f.Value)
				}
				for _, it := range n.Items {
					walk(it)
				}
			}
			walk(rr.Mat.Source.Root)
		}
		return out
	}, func(out []string) {
		for _, s := range out {
			k, v, _ := strings.Cut(s, "\t")
			got[k] = v
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// Positions inside a multi-line element of flowctl raw get output are
// the file's, whatever its line endings, BOM, indentation or characters.
func TestRawRowsPositions(t *testing.T) {
	deep := "acme/two/spec/endpoint/connector/config/syncSchedule/syncFrequency"
	for _, tc := range []struct {
		name string
		in   string
		want map[string]string // key: task+pointer or problem@row line
	}{
		{"jq pretty", prettyRaw, map[string]string{
			"acme/one":               "2:3",
			"acme/one/spec":          "5:13",
			"acme/one/spec/endpoint": "6:19",
			"acme/one/last_pub_id":   "9:20",
			"acme/two":               "11:3",
			"acme/two/catalog_name":  "12:21",
			"acme/two/spec/endpoint": "15:19",
			"acme/two/spec/endpoint/connector/config/note":         "19:21",
			"acme/two/spec/endpoint/connector/config/syncSchedule": "19:45", // after "é€x": characters, not bytes
			deep: "20:32",
		}},
		{"crlf", strings.ReplaceAll(prettyRaw, "\n", "\r\n"), map[string]string{
			"acme/one/last_pub_id": "9:20",
			deep:                   "20:32",
		}},
		{"bom and crlf", "\xef\xbb\xbf" + strings.ReplaceAll(prettyRaw, "\n", "\r\n"), map[string]string{
			"acme/one": "2:3",
			deep:       "20:32",
		}},
		{"tabs", strings.ReplaceAll(prettyRaw, "  ", "\t"), map[string]string{
			"acme/two": "11:2",
			deep:       "20:25", // 7 tabs, then "syncFrequency": (a tab is one column)
		}},
		{"element starts after the bracket", "[{\"catalog_name\": \"acme/two\",\n\"spec_type\": \"materialization\", \"spec\":\n  {\"endpoint\": {\"connector\": {\"image\": \"x\", \"config\": {\"syncSchedule\": {\n    \"syncFrequency\": \"1h\"}}}}}}]", map[string]string{
			"acme/two":      "1:2",
			"acme/two/spec": "3:3",
			deep:            "4:22",
		}},
		{"compact, one a line", "[{\"catalog_name\":\"acme/two\",\"spec_type\":\"materialization\",\"spec\":{\"endpoint\":{\"connector\":{\"image\":\"x\",\"config\":{\"syncSchedule\":{\"syncFrequency\":\"1h\"}}}}}},\n {\"catalog_name\":\"acme/three\",\"spec_type\":\"materialization\",\"spec\":{}}]", map[string]string{
			deep:                      "1:146",
			"acme/three/spec":         "2:68",
			"acme/three/catalog_name": "2:18",
		}},
		{"several on one line", "[{\"catalog_name\":\"acme/one\",\"spec_type\":\"materialization\",\"spec\":{}}, {\"catalog_name\":\"acme/two\",\"spec_type\":\"materialization\",\"spec\":{\n\"endpoint\":{\"connector\":{\"image\":\"x\",\"config\":{\"syncSchedule\":{\"syncFrequency\":\"1h\"}}}}}}, {\"catalog_name\":\"acme/three\",\"spec_type\":\"materialization\",\"spec\":{}}]", map[string]string{
			"acme/one/spec":   "1:66",
			"acme/two":        "1:71",
			"acme/two/spec":   "1:135",
			deep:              "2:80",
			"acme/three/spec": "2:158",
		}},
		{"syntax error deep inside", "[\n  {\n    \"catalog_name\": \"acme/x\",\n    \"spec\": {\n      \"a\": [1,\n        2 3]\n    }\n  }\n]", map[string]string{
			"problem@2": "6:11 row does not parse: unexpected '3', expected ',' or ']'",
		}},
		{"a row's own problem at the element's column", "[\n  {\n    \"catalog_name\": \"a/b\"\n  },\n    [1,\n  2]\n]", map[string]string{
			"problem@2": "2:3 row has no spec_type: unreadable (it may be a materialization)",
			"problem@5": "5:5 row is not a JSON object",
		}},
		{"duplicate key on a later line", "[\n  {\n    \"catalog_name\": \"a/b\",\n    \"spec_type\": \"materialization\",\n    \"catalog_name\": \"a/c\"\n  }\n]", map[string]string{
			"problem@2": "5:5 row does not parse: duplicate key \"catalog_name\" (first at line 3)",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := rawPositions(t, tc.in)
			for k, want := range tc.want {
				if got[k] != want {
					t.Errorf("%s at %q, want %q", k, got[k], want)
				}
			}
		})
	}
}

// rawNodePositions checks every node of every element of raw output
// against the file: its line and column are those of its first byte.
// It reports how many nodes it checked.
func rawNodePositions(t *testing.T, in []byte) int {
	t.Helper()
	text := bytes.TrimPrefix(in, Bom)
	lines := bytes.Split(text, []byte("\n"))
	at := func(line, col int) (byte, bool) {
		if line < 1 || line > len(lines) || col < 1 {
			return 0, false
		}
		l := lines[line-1]
		for c := 1; c < col; c++ {
			if len(l) == 0 {
				return 0, false
			}
			_, size := utf8.DecodeRune(l)
			l = l[size:]
		}
		if len(l) == 0 {
			return 0, false
		}
		return l[0], true
	}
	checked := 0
	var bad []string
	err := ScanDumpRaw(NewRawRows(bytes.NewReader(in)), "raw.json", DumpOptions{Options: catalog.DefaultOptions(), Workers: 2},
		func(w *Worker, line int, row []byte) []string {
			if len(bytes.TrimSpace(row)) == 0 {
				return nil
			}
			if bytes.IndexByte(row, '\r') >= 0 || bytes.IndexByte(row, '\n') >= 0 {
				return []string{fmt.Sprintf("row %d: line marks left in %q", line, row)}
			}
			doc, err := tree.ParseJSONWith("raw.json", row, tree.JSONOptions{Limits: tree.DefaultLimits, LineBase: line - 1, LineStarts: w.lines})
			if err != nil {
				se, ok := err.(*tree.SyntaxError)
				if !ok {
					return []string{err.Error()}
				}
				if se.Line < 1 || se.Line > len(lines) {
					return []string{fmt.Sprintf("error %v outside the file", se)}
				}
				return nil
			}
			var out []string
			var walk func(n *tree.Node)
			walk = func(n *tree.Node) {
				out = append(out, "")
				c, ok := at(n.Line(), n.Col())
				if !ok || c != row[n.Offset] {
					out[len(out)-1] = fmt.Sprintf("row %d %s at %d:%d is %q in the file, %q in the row", line, n.Pointer(), n.Line(), n.Col(), c, row[n.Offset])
				}
				for _, f := range n.Fields {
					walk(f.Value)
				}
				for _, it := range n.Items {
					walk(it)
				}
			}
			walk(doc.Root)
			return out
		}, func(out []string) {
			for _, s := range out {
				checked++
				if s != "" {
					bad = append(bad, s)
				}
			}
		})
	if err != nil {
		t.Fatalf("%q: %v", in, err)
	}
	if len(bad) > 0 {
		t.Fatalf("%q:\n%s", in, strings.Join(bad, "\n"))
	}
	return checked
}

func TestRawRowsNodePositions(t *testing.T) {
	for _, in := range []string{
		prettyRaw,
		strings.ReplaceAll(prettyRaw, "\n", "\r\n"),
		"\xef\xbb\xbf" + prettyRaw,
		strings.ReplaceAll(prettyRaw, "  ", "\t"),
		"[1,\n\"x\" ,\n{\"a\":\n[\n1\n,\n2]}\n\n,  \"é\",{\"é\":\r\n \"€\"}]",
	} {
		if n := rawNodePositions(t, []byte(in)); n < 5 {
			t.Errorf("%q: %d nodes checked", in, n)
		}
	}
}

// FuzzRawRowsPositions: every position of a node of raw output (a valid
// JSON array) lies inside the file, on the node's line, at its column.
func FuzzRawRowsPositions(f *testing.F) {
	for _, s := range []string{prettyRaw, "[\r\n {\"a\":\r\n  [1,\r\n   \"é\"]}]", "\xef\xbb\xbf[\n\t{\"b\":\n\t\t2}\n]", "[1,\n2]", "[{\"a\":1},{\"b\":{\"c\":\"é\"}},\n  {\"d\":\n[2]}]"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		text := bytes.TrimPrefix(in, Bom)
		if !IsRawRows(in) || !json.Valid(text) || !utf8.Valid(text) {
			return
		}
		var elems []json.RawMessage
		if json.Unmarshal(text, &elems) != nil {
			return
		}
		rawNodePositions(t, in)
	})
}

// The line marks of raw output never reach a row's bytes, and a row
// without them is read as before.
func TestWorkerUnmark(t *testing.T) {
	for _, tc := range []struct {
		in, row string
		lines   []int
		up      int
	}{
		{"ab", "ab", nil, 0},
		{"\v3:1\v  {\r}", "  { }", []int{0, 4}, 3},
		{"\v3:5\v{\r}", "{ }", []int{-4, 2}, 3},
		{"\v2:9\v{}", "{}", []int{-8}, 2},
		{"\v3\v{}", "\v3\v{}", nil, 0},     // no column: not rawRows'
		{"\v3:0\v{}", "\v3:0\v{}", nil, 0}, // no column 0
		{"\v3  {}", "\v3  {}", nil, 0},     // not rawRows': left alone
		{"\vx\v{}", "\vx\v{}", nil, 0},
		{"\v", "\v", nil, 0},
		{"\v0:1\v\v9\v", "\v9\v", nil, 0}, // an element's own upMark
		{"a\rb", "a b", []int{0, 2}, 0},
		{"\r\r", "  ", []int{0, 1, 2}, 0},
		{"{\"a\":\r  1,\r  \"b\": 2}", "{\"a\":   1,   \"b\": 2}", []int{0, 6, 11}, 0},
	} {
		w := &Worker{lines: []int{7, 7, 7}}
		row := []byte(tc.in)
		row, up := w.unmark(row)
		if string(row) != tc.row || up != tc.up || !cmp.Equal(w.lines, tc.lines, cmpEmpty) || w.MultiLine() != (tc.lines != nil) {
			t.Errorf("unmark(%q) = %q %d %v, want %q %d %v", tc.in, row, up, w.lines, tc.row, tc.up, tc.lines)
		}
	}
}

var cmpEmpty = cmp.Comparer(func(a, b []int) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return cmp.Equal(a, b)
})

func TestWorkerLineIn(t *testing.T) {
	w := &Worker{}
	row, _ := w.unmark([]byte("{\"a\":\r  1,\r  \"b\": 2}"))
	for off, want := range map[int]int{0: 0, 5: 0, 6: 1, 10: 1, 11: 2, len(row) - 1: 2} {
		if got := w.LineIn(off); got != want {
			t.Errorf("LineIn(%d) = %d, want %d", off, got, want)
		}
	}
	w.unmark([]byte(`{"a": 1}`))
	if got := w.LineIn(5); got != 0 {
		t.Errorf("LineIn on one line = %d", got)
	}
}
