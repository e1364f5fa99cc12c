package input

import (
	"strings"
	"testing"

	"github.com/estuary/schedtool/catalog"
)

func TestNotASource(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"flow.yaml", "materializations: {}\n", ""},
		{"flow.yaml", "", ""},
		{"flow.yaml", "# a comment\n---\n...\n", ""},
		{"flow.yaml", "%YAML 1.2\n---\n", ""},
		{"flow.json", "{}", ""},
		{"flow.yaml", "$schema: x\nimport: [a.yaml]\n", ""},
		{"flow.yaml", "storageMappings: {}\n", ""},
		{"flow.yaml", "collections: {}\nendpoints: {}\n", ""}, // one key Flow knows
		{"flow.yaml", "materializations: [\n", ""},            // does not parse: the loader says why
		{"flow.yaml", "null\n", "it holds null"},
		{"flow.yaml", "--- ~ # nothing\n", "it holds null"},
		{"flow.yaml", "42\n", "it holds a number"},
		{"flow.yaml", "- a\n", "it is a YAML list"},
		{"x.json", `{"catalog_name": "a", "spec": {}}`, "one stored-spec row written over several lines"},
		{"x.json", `{"spec_type": "capture"}`, "one stored-spec row"},
		{"x.json", `{"data": [{"catalog_name": "a"}], "count": 1}`, `whose "data" holds stored-spec rows`},
		{"x.json", `{"data": [1]}`, "keys (data) are none"},
		{"x.yaml", "a: 1\nb: 2\nc: 3\nd: 4\ne: 5\nf: 6\ng: 7\n", "keys (a, b, c, d, e and 2 more) are none"},
	} {
		got := notASource(tc.name, []byte(tc.text), catalog.DefaultOptions().Limits)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("notASource(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

func TestNotRows(t *testing.T) {
	for in, want := range map[string]string{
		`[{"a":1}]`: "", "[]": "", " \n[\n  ": "", "\xef\xbb\xbf [ {": "",
		"[1]": "a number", "[-1]": "a number", `["x"]`: "a string", "[[": "a list",
		"[null]": "null", "[true]": "a boolean", "[x": "a value",
	} {
		got := notRows([]byte(in))
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("notRows(%q) = %q, want %q", in, got, want)
		}
	}
}

// A stored-spec row is known by its keys, also when the dump reader will
// refuse it (a duplicate key, a row cut short): the rows after it are then
// still read as rows, not the whole input as one bad catalog source.
func TestLooksLikeDump(t *testing.T) {
	for in, want := range map[string]bool{
		`{"catalog_name":"a/b","spec_type":"materialization","spec":{}}`:    true,
		`{"spec_type":"materialization"}` + "\n" + `{"catalog_name":"a/b"}`: true,
		"\xef\xbb\xbf  \n" + `{"catalog_name":"a/b"}`:                       true,
		`{"catalog_name":"a/b","spec":{"x":1,"x":2}}`:                       true, // a duplicate key
		`{"catalog_name":"a/b","catalog_name":"c/d"}`:                       true,
		`{"catalog_name":"a/b","spec":{"endpoint":`:                         true, // cut short
		`{ "spec_type" : "materialization", "spec": nul`:                    true,
		`{"materializations":{"a/b":{}}}`:                                   false,
		"{\n  \"catalog_name\": \"a/b\"\n}":                                 false, // pretty-printed: a catalog source or raw rows decide
		`{"import":["x.yaml"],"note":"catalog_name"}`:                       false,
		`{"catalog_names":"a/b"}`:                                           false,
		`{"catalog_name" "a/b"`:                                             false,
		`["catalog_name"]`:                                                  false,
		`materializations: {}`:                                              false,
	} {
		if got := looksLikeDump([]byte(in)); got != want {
			t.Errorf("looksLikeDump(%q) = %v, want %v", in, got, want)
		}
	}
}
