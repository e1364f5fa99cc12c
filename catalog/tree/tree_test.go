package tree

import (
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestJSONPositions(t *testing.T) {
	src := "{\n\t\"a\": {\n\t\t\"b\": [1, \"x\\ny\", true, null],\n\t\t\"é\": \"ü\"\n\t}\n}\n"
	d, err := ParseJSON("f.json", []byte(src), DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ptr       string
		line, col int
		value     string
	}{
		{"/a", 2, 7, ""},
		{"/a/b", 3, 8, ""},
		{"/a/b/0", 3, 9, "1"},
		{"/a/b/1", 3, 12, "x\ny"},
		{"/a/b/2", 3, 20, "true"},
		{"/a/é", 4, 8, "ü"},
	} {
		n := d.Root.Lookup(tc.ptr)
		if n == nil {
			t.Errorf("%s: not found", tc.ptr)
			continue
		}
		if n.Line() != tc.line || n.Col() != tc.col || n.Value != tc.value || n.Pointer() != tc.ptr {
			t.Errorf("%s: at %d:%d value %q pointer %s; want %d:%d %q", tc.ptr, n.Line(), n.Col(), n.Value, n.Pointer(), tc.line, tc.col, tc.value)
		}
		if string(d.Src[n.Offset:n.End]) == "" {
			t.Errorf("%s: empty byte range", tc.ptr)
		}
	}
	if got := string(d.Src[d.Root.Lookup("/a/b").Offset:d.Root.Lookup("/a/b").End]); got != `[1, "x\ny", true, null]` {
		t.Errorf("byte range of /a/b: %s", got)
	}
}

func TestJSONErrors(t *testing.T) {
	for src, want := range map[string]string{
		`{"a":1,}`:               "f.json:1:8: unexpected '}', expected a string key",
		`{"a":1 "b":2}`:          "f.json:1:8: unexpected '\"', expected ',' or '}'",
		"{\n\"a\": tru}":         "f.json:2:6: invalid literal, expected true, false or null",
		`{"a":1,"a":2}`:          `f.json:1:8: duplicate key "a" (first at line 1)`,
		`[1,2`:                   "f.json:1:5: unexpected end of input, expected ',' or ']'",
		`"abc`:                   "f.json:1:5: unexpected end of input in a string",
		`{"a":"\q"}`:             `f.json:1:7: invalid escape '\q'`,
		`01`:                     "f.json:1:2: unexpected '1' after the top-level value",
		`1.`:                     "f.json:1:3: invalid number: digits expected after '.'",
		"\"a\x01\"":              "f.json:1:3: control character U+0001 in a string",
		"\"\xff\"":               "f.json:1:2: invalid UTF-8 in string",
		``:                       "f.json:1:1: unexpected end of input, expected a value",
		`{} {}`:                  "f.json:1:4: unexpected '{' after the top-level value",
		strings.Repeat("[", 300): "f.json:1:201: nesting deeper than 200 levels",
	} {
		_, err := ParseJSON("f.json", []byte(src), DefaultLimits)
		if err == nil || err.Error() != want {
			t.Errorf("ParseJSON(%q) = %v\nwant %s", src, err, want)
		}
	}
}

// The tree decodes to what encoding/json decodes.
func TestJSONAgreesWithEncodingJSON(t *testing.T) {
	src := `{"a":[1,2.5e3,-0,"\u00e9\ud83d\ude00",{"b":null}],"c":true,"d":"\"\\\/\b\f\n\r\t"}`
	d, err := ParseJSON("f", []byte(src), DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	var want any
	dec := json.NewDecoder(strings.NewReader(src))
	dec.UseNumber()
	if err := dec.Decode(&want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, d.Root.Interface(nil)); diff != "" {
		t.Errorf("(-encoding/json +tree):\n%s", diff)
	}
}

func TestYAML(t *testing.T) {
	src := "# head\nbase: &b\n  x: 1\n  y: \"two\"\nother:\n  <<: *b\n  y: three\nflag: true\nquoted: \"true\"\nclock: 17:00\nlist: [a, {k: v}]\nempty:\nint: 0x1F\n"
	d, err := ParseYAML("f.yaml", []byte(src), DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"base": map[string]any{"x": json.Number("1"), "y": "two"},
		// A merge key is a key here (serde_yaml reads it so); Flow
		// merges catalog sources after parsing (MergeKeys).
		"other":  map[string]any{"<<": map[string]any{"x": json.Number("1"), "y": "two"}, "y": "three"},
		"flag":   true,
		"quoted": "true",
		"clock":  "17:00",
		"list":   []any{"a", map[string]any{"k": "v"}},
		"empty":  nil,
		"int":    json.Number("31"),
	}
	if diff := cmp.Diff(want, d.Root.Interface(nil)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if n := d.Root.Get("flag"); n.Kind != Bool || n.Line() != 8 || n.Col() != 7 {
		t.Errorf("flag: %v at %d:%d", n.Kind, n.Line(), n.Col())
	}
	if n := d.Root.Get("quoted"); n.Kind != String || n.Style != '"' {
		t.Errorf("quoted: %v %c", n.Kind, n.Style)
	}
	if n := d.Root.Path("list", "1", "k"); n == nil || n.Pointer() != "/list/1/k" || n.Line() != 11 || src[n.Offset:n.Offset+1] != "v" {
		t.Errorf("list/1/k: %+v", n)
	}
}

func TestYAMLErrors(t *testing.T) {
	for src, want := range map[string]string{
		"a: 1\na: 2\n":      `f.yaml:2:1: duplicate key "a" (first at line 1)`,
		"a: [1\n":           "f.yaml:2:1: did not find expected ',' or ']' (while parsing a flow sequence started at line 1 column 4)",
		"a: 1\n---\nb: 2\n": "f.yaml:2:1: several YAML documents in one file; a catalog source or config is a single document",
		"? [a]\n: 1\n":      "f.yaml:1:3: a mapping key must be a scalar",
		"a: *nope\n":        "f.yaml:1:4: unknown anchor 'nope' referenced",
		"a: &x [*x]\n":      "",
		"\tkey: value\n":    "f.yaml:1:1: found character that cannot start any token (a tab in the indentation: YAML indents with spaces)",
	} {
		_, err := ParseYAML("f.yaml", []byte(src), DefaultLimits)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if want == "" {
			continue // must only not panic or hang (a self-referencing alias)
		}
		if got != want {
			t.Errorf("ParseYAML(%q) = %q\nwant %q", src, got, want)
		}
	}
}

func TestAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 9; i++ {
		prev := "*a" + string(rune('0'+i-1))
		b.WriteString("a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [" + strings.Repeat(prev+", ", 9) + prev + "]\n")
	}
	_, err := ParseYAML("bomb.yaml", []byte(b.String()), Limits{MaxDepth: 200, MaxNodes: 100_000})
	if err == nil || !strings.Contains(err.Error(), "alias bomb") {
		t.Errorf("alias bomb: %v", err)
	}
}

func TestMergePatch(t *testing.T) {
	base, _ := ParseJSON("b", []byte(`{"a":1,"s":{"f":"x","t":"UTC","d":"M-F"},"k":[1]}`), DefaultLimits)
	patch, _ := ParseJSON("p", []byte(`{"s":{"f":"0s","t":null,"n":{"z":null,"y":1}},"k":null,"new":"v"}`), DefaultLimits)
	got := MergePatch(base.Root, patch.Root).Interface(nil)
	want := map[string]any{"a": json.Number("1"), "s": map[string]any{"f": "0s", "d": "M-F", "n": map[string]any{"y": json.Number("1")}}, "new": "v"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// The inputs are unchanged, and merged leaves keep their origin.
	if base.Root.Lookup("/s/t") == nil || base.Root.Get("k") == nil {
		t.Error("MergePatch changed its base")
	}
	if n := MergePatch(base.Root, patch.Root).Lookup("/s/f"); n.Doc.File != "p" || n.Pointer() != "/s/f" {
		t.Errorf("merged leaf from %s at %s", n.Doc.File, n.Pointer())
	}
}

func TestPointerEscapes(t *testing.T) {
	d, _ := ParseJSON("f", []byte(`{"a/b":{"c~d":1}}`), DefaultLimits)
	n := d.Root.Lookup("/a~1b/c~0d")
	if n == nil || n.Pointer() != "/a~1b/c~0d" {
		t.Errorf("escaped pointer: %v", n)
	}
}

// plainWord answers for eight bytes what plainByte answers for each.
func TestPlainWord(t *testing.T) {
	check := func(b [8]byte) {
		want := true
		for _, c := range b {
			want = want && plainByte[c]
		}
		if got := plainWord(binary.LittleEndian.Uint64(b[:])); got != want {
			t.Fatalf("plainWord(%q) = %v, want %v", b, got, want)
		}
	}
	for c := 0; c < 256; c++ {
		for pos := 0; pos < 8; pos++ {
			b := [8]byte{'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'}
			b[pos] = byte(c)
			check(b)
			for d := 0; d < 256; d += 7 { // pairs, for carries between bytes
				b2 := b
				b2[(pos+1)%8] = byte(d)
				check(b2)
			}
		}
	}
}
