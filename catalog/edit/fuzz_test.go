package edit

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/estuary/schedtool/catalog/tree"
)

// FuzzEdit patches every object of a fuzzed YAML or JSON document the way
// migrate does (insert a key before another, replace a value, remove a
// key, merge a nested object). The editor may refuse, but never panics,
// never returns a text that does not re-parse to the intended tree, and
// never changes a byte outside its edits.
func FuzzEdit(f *testing.F) {
	seeds, _ := filepath.Glob("../../migrate/testdata/golden/*/in/*")
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil && len(b) < 8000 {
			f.Add(b, filepath.Ext(s) == ".json")
		}
	}
	f.Add([]byte("a: {b: 1}\n"), false)
	f.Add([]byte(`{"a": {"b": [1, {"c": null}]}}`), true)
	f.Fuzz(func(t *testing.T, src []byte, isJSON bool) {
		lim := tree.Limits{MaxDepth: 50, MaxNodes: 5000}
		file := "f.yaml"
		if isJSON {
			file = "f.json"
		}
		parse := func(file string, b []byte) (*tree.Doc, error) {
			if isJSON {
				return tree.ParseJSON(file, b, lim)
			}
			return tree.ParseYAML(file, b, lim)
		}
		doc, err := parse(file, src)
		if err != nil {
			return
		}
		var patches []Patch
		n := 0
		doc.Root.Walk(func(x *tree.Node) bool {
			if x.Kind != tree.Object || n >= 4 {
				return n < 4
			}
			n++
			ch := Map{{Key: "syncSchedule", Value: Replace{Map{{Key: "baseInterval", Value: "1h"}}}, Before: "endpoint"}}
			if len(x.Fields) > 0 {
				k := x.Fields[len(x.Fields)-1].Key
				switch n % 3 {
				case 0:
					ch = append(ch, KV{Key: k, Value: Quoted("0s")})
				case 1:
					ch = append(ch, KV{Key: k, Value: Remove})
				default:
					ch = append(ch, KV{Key: k, Value: Map{{Key: "syncFrequency", Value: nil}}})
				}
			}
			patches = append(patches, Patch{Target: x, Changes: ch})
			return true
		})
		res, err := Do(doc, patches, parse)
		if err != nil || len(res.Edits) == 0 {
			return
		}
		// Outside the edits, the bytes are the original's.
		at, out := 0, 0
		for _, e := range res.Edits {
			if e.Start < at || e.End < e.Start || e.End > len(src) {
				t.Fatalf("bad edit %+v", e)
			}
			gap := e.Start - at
			if !bytes.Equal(src[at:e.Start], res.New[out:out+gap]) {
				t.Fatalf("bytes outside the edits changed")
			}
			out += gap + len(e.NewText)
			at = e.End
		}
		if !bytes.Equal(src[at:], res.New[out:]) {
			t.Fatalf("bytes after the last edit changed")
		}
		// Do checked the tree; check it again independently.
		again, err := parse(file, res.New)
		if err != nil {
			t.Fatalf("accepted an edit that does not parse: %v\n%s", err, res.New)
		}
		want := doc.Root.Interface(nil)
		for _, p := range patches {
			want = Intended(want, tree.SplitPointer(p.Target.Pointer()), p.Changes)
		}
		if !reflect.DeepEqual(normalize(again.Root.Interface(nil)), normalize(want)) {
			t.Fatalf("accepted an edit with another tree:\n%s", res.New)
		}
	})
}
