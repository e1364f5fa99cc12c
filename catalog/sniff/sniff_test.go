package sniff

import (
	"bytes"
	"strings"
	"testing"
)

var keys = []string{"materializations", "captures", "collections", "import"}

// Each case and a near miss, whatever the buffer size (the parser's
// agreement is tested in package catalog, which has one).
func TestSource(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want bool
	}{
		{`{"materializations": {}}`, true},
		{`{"data": {"materializations": {}}}`, false},
		{`{"note": "{\"import\": 1}", "x": [{"captures": 2}]}`, false},
		{`{"note": "\\", "import": []}`, true},
		{`[{"import": []}]`, false},
		{"import: [a.yaml]\n", true},
		{"data:\n  import: [a.yaml]\n", false},
		{"{a: 'x}', import: []}", true},
		{"{a: 'x', b: {import: []}}", false},
		// Keys spelt as Flow's readers decode them (attack2): escapes,
		// an explicit key, a tag, an anchor; and their near misses.
		{`{"materi\u0061lizations": {}}`, true},
		{`{"\u0069\u006d\u0070\u006f\u0072\u0074": []}`, true},
		{`{"materi\u0061lizationz": {}}`, false},
		{`{"data": {"materi\u0061lizations": {}}}`, false},
		{`{"a\"b": 1, "imp\x6frt": []}`, true},
		{"\"materi\\x61lizations\": {}\n", true},
		{"\"\\U0000006dmaterializations\": {}\n", false},
		{"\"materiali\\U0000007Aations\": {}\n", true},
		{"? materializations\n: {}\n", true},
		{"? \"imp\\u006Frt\"\n: []\n", true},
		{"? data\n: {materializations: {}}\n", false},
		{"!!str materializations: {}\n", true},
		{"&k import: []\n", true},
		{"&k data:\n  import: []\n", false},
		{"!!map {import: []}\n", true},
		{"<<: {materializations: {}}\n", true},
		{"{<<: {import: []}}", true},
		{"data:\n  <<: {import: []}\n", false},
	} {
		for _, size := range []int{1, 3, 16, Buffer} {
			if got := SourceBuffer(strings.NewReader(tc.doc), keys, size); got != tc.want {
				t.Errorf("%q with a %d-byte buffer: %v, want %v", tc.doc, size, got, tc.want)
			}
		}
	}
}

// FuzzSource: never a panic, and the answer never depends on where the
// reads cut the bytes.
func FuzzSource(f *testing.F) {
	f.Add(`{"materializations": {}}`, 3)
	f.Add("# c\n---\nimport: []\n", 1)
	f.Add(`{"a\"b": 'c', "captures": 1}`, 2)
	f.Fuzz(func(t *testing.T, doc string, size int) {
		size = 1 + (size&0xffff)%4096
		if SourceBuffer(strings.NewReader(doc), keys, size) != Source(strings.NewReader(doc), keys) {
			t.Errorf("the answer depends on the buffer size (%d)", size)
		}
	})
}

func BenchmarkSource(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString(`{"rows": [`)
	for buf.Len() < 32<<20 {
		buf.WriteString(`{"id": 12345, "collections": {"materializations": [1, 2, 3], "import": "a \"quoted\" {value}"}, "note": "lorem ipsum dolor sit amet"},`)
	}
	buf.WriteString(`{}]}`)
	b.SetBytes(int64(buf.Len()))
	for b.Loop() {
		Source(bytes.NewReader(buf.Bytes()), keys)
	}
}

// Mentions finds a key wherever the reads cut it.
func TestMentions(t *testing.T) {
	pad := strings.Repeat("x", Buffer-5)
	for _, tc := range []struct {
		doc  string
		want bool
	}{
		{pad + "materializations", true},
		{pad + "materializationz", false},
		{strings.Repeat(pad, 3) + "import", true},
		{"", false},
		{"captures", true},
		{pad + `materi\u0061lizations`, true},
		{pad + `"a\\b\"c"`, false},
		{pad + "\"materi\\\nalizations\"", true},
	} {
		if got := Mentions(strings.NewReader(tc.doc), keys); got != tc.want {
			t.Errorf("Mentions(...%q) = %v, want %v", tc.doc[max(0, len(tc.doc)-20):], got, tc.want)
		}
	}
}

func BenchmarkMentions(b *testing.B) {
	var buf bytes.Buffer
	for buf.Len() < 32<<20 {
		buf.WriteString(`{"id": 12345, "kind": {"events": [1, 2, 3], "source": "a \"quoted\" {value}"}, "note": "lorem ipsum dolor sit amet"},`)
	}
	b.SetBytes(int64(buf.Len()))
	for b.Loop() {
		Mentions(bytes.NewReader(buf.Bytes()), keys)
	}
}
