package input

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/sniff"
	"github.com/estuary/schedtool/catalog/tree"
)

// exactSource is the answer of reading the document whole and parsing it.
func exactSource(t *testing.T, doc string) bool {
	d, err := tree.Parse("x.json", []byte(doc), tree.DefaultLimits)
	if err != nil {
		d, err = tree.ParseYAML("x.yaml", []byte(doc), tree.DefaultLimits)
	}
	if err == nil {
		err = tree.MergeKeys(d) // as the loader reads a source
	}
	if err != nil || d.Root.Kind != tree.Object {
		return false
	}
	for _, k := range userSourceKeys {
		if d.Root.Get(k) != nil {
			return true
		}
	}
	return false
}

var sniffCases = []struct {
	doc  string
	want bool
}{
	{`{"materializations": {}}`, true},
	{`{"data": {"materializations": {}}, "x": 1}`, false},
	{`{"data": "\"materializations\": {}", "collections": null}`, true},
	{`{"a\"b": "materializations", "c": [{"import": 1}]}`, false},
	{`{"x": "\\", "import": []}`, true},
	{"\ufeff{\"captures\": {}}", true},
	{`[{"materializations": {}}]`, false},
	{`{"mat\u0065rializations": {}}`, true}, // an escape in a key: decoded, as Flow's readers do
	{"\"mat\\x65rializations\": {}\n", true},
	{"? materializations\n: {}\n", true},
	{"&a import: []\n", true},
	{"<<:\n  materializations: {}\n", true},
	{"materializations:\n  a: {}\n", true},
	{"data:\n  materializations: {}\n", false},
	{"# comment\n---\n\"collections\": {}\n", true},
	{"%YAML 1.2\n---\nimport: [a.yaml]\n", true},
	{"'captures' : {}\n", true},
	{"materializationsx: 1\n", false},
	{"text: |\n  materializations:\n", false},
	{"{materializations: {a: 1}}", true},
	{"{a: don't, import: []}", true},
	{"{a: {import: []}}", false},
	{"", false},
	{"- materializations\n", false},
}

func TestSniff(t *testing.T) {
	for _, tc := range sniffCases {
		for _, size := range []int{1, 2, 3, 7, 64, sniff.Buffer} {
			if got := sniff.SourceBuffer(strings.NewReader(tc.doc), userSourceKeys, size); got != tc.want {
				t.Errorf("sniff(%q) with a %d-byte buffer = %v, want %v", tc.doc, size, got, tc.want)
			}
		}
		if tc.want != exactSource(t, tc.doc) {
			t.Errorf("the case %q disagrees with the parser", tc.doc)
		}
	}
}

// Random JSON documents: the stream agrees with the parser, whatever the
// buffer size.
func TestSniffAgreesWithParser(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	keys := append([]string{"data", "x", "mat", "import\\\"", "colle\\nctions"}, userSourceKeys...)
	var value func(depth int) string
	value = func(depth int) string {
		switch n := rng.Intn(6); {
		case depth > 3 || n == 0:
			return fmt.Sprintf("%q", keys[rng.Intn(len(keys))]+"{[\\]}'")
		case n == 1:
			return fmt.Sprint(rng.Intn(100))
		case n == 2:
			var items []string
			for range rng.Intn(4) {
				items = append(items, value(depth+1))
			}
			return "[" + strings.Join(items, ", ") + "]"
		default:
			var fields []string
			for _, k := range rng.Perm(len(keys))[:rng.Intn(4)] { // no key twice
				fields = append(fields, fmt.Sprintf("%q: %s", keys[k], value(depth+1)))
			}
			return "{" + strings.Join(fields, ",") + "}"
		}
	}
	for i := 0; i < 2000; i++ {
		doc := value(0)
		if !strings.HasPrefix(doc, "{") {
			continue
		}
		want := exactSource(t, doc)
		for _, size := range []int{1, 5, 4096} {
			if got := sniff.SourceBuffer(strings.NewReader(doc), userSourceKeys, size); got != want {
				t.Fatalf("sniff(%s) with a %d-byte buffer = %v, the parser says %v", doc, size, got, want)
			}
		}
	}
}

// A large file is judged by the stream, in bounded memory: 64 MiB of
// unrelated JSON that mentions every key allocates about one buffer.
func TestSniffLargeFileBoundedMemory(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "data.json")
	var b bytes.Buffer
	b.WriteString(`{"rows": [`)
	row := `{"materializations": {"import": "collections"}, "captures": [1, 2, "x\"y"]},`
	for b.Len() < 16<<20 {
		b.WriteString(row)
	}
	b.WriteString(`{}], "import2": 1}`)
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got := looksLikeSource(p, catalog.DefaultOptions())
	runtime.ReadMemStats(&after)
	if got {
		t.Error("unrelated JSON taken for a source")
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2<<20 {
		t.Errorf("judging a 16 MiB file allocated %d bytes, want about one buffer (%d)", alloc, sniff.Buffer)
	}
	// The same file with a top-level key of ours is a source.
	os.WriteFile(p, append([]byte(`{"import": [], `), b.Bytes()[1:]...), 0o644)
	if !looksLikeSource(p, catalog.DefaultOptions()) {
		t.Error("a large source not taken for one")
	}
}

func FuzzSniffSource(f *testing.F) {
	for _, tc := range sniffCases {
		f.Add(tc.doc, 3)
	}
	f.Fuzz(func(t *testing.T, doc string, size int) {
		size = 1 + (size&0xffff)%4096
		got := sniff.SourceBuffer(strings.NewReader(doc), userSourceKeys, size)
		if got != sniff.SourceBuffer(strings.NewReader(doc), userSourceKeys, sniff.Buffer) {
			t.Errorf("the answer depends on the buffer size (%d)", size)
		}
	})
}
