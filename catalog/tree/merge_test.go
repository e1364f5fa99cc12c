package tree

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// MergeKeys as yaml_merge_keys (Flow's loader) applies them: own keys
// win, earlier list items win, shallow, inside out, quoted or not, JSON
// too; a scalar to merge is an error.
func TestMergeKeys(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      string // JSON
		err       string
	}{
		{"plain", "a: &a {x: 1, y: 2}\nb: {<<: *a, y: 3}\n", `{"a":{"x":1,"y":2},"b":{"y":3,"x":1}}`, ""},
		{"quoted", "a: &a {x: 1}\nb: {\"<<\": *a}\n", `{"a":{"x":1},"b":{"x":1}}`, ""},
		{"single quoted, inline map", "b: {'<<': {x: 1}, z: 0}\n", `{"b":{"z":0,"x":1}}`, ""},
		{"list: earlier wins", "b:\n  <<: [{x: 1}, {x: 2, y: 2}]\n", `{"b":{"x":1,"y":2}}`, ""},
		{"shallow", "b:\n  <<: {s: {x: 1, y: 1}}\n  s: {x: 2}\n", `{"b":{"s":{"x":2}}}`, ""},
		{"nested in the merged map first", "b:\n  <<: {<<: {x: 1, y: 1}, y: 2}\n", `{"b":{"y":2,"x":1}}`, ""},
		{"deep", "m:\n  t:\n    e:\n      <<: {c: {s: 2h}}\n", `{"m":{"t":{"e":{"c":{"s":"2h"}}}}}`, ""},
		{"in a list", "l:\n  - <<: {x: 1}\n", `{"l":[{"x":1}]}`, ""},
		{"empty list", "b: {<<: [], x: 1}\n", `{"b":{"x":1}}`, ""},
		{"JSON", `{"b": {"<<": {"x": 1}, "y": 2}}`, `{"b":{"y":2,"x":1}}`, ""},
		{"scalar", "b:\n  <<: 5\n", "", "f:2:7: a merge key (<<) needs a mapping"},
		{"list of scalars", "b:\n  <<: [{x: 1}, 5]\n", "", "f:2:7: a merge key (<<) needs a mapping"},
		{"null", "b:\n  <<:\n", "", "merge key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var d *Doc
			var err error
			if strings.HasPrefix(tc.src, "{") {
				d, err = ParseJSON("f", []byte(tc.src), DefaultLimits)
			} else {
				d, err = ParseYAML("f", []byte(tc.src), DefaultLimits)
			}
			if err != nil {
				t.Fatal(err)
			}
			err = MergeKeys(d)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var want any
			dec := json.NewDecoder(strings.NewReader(tc.want))
			dec.UseNumber()
			dec.Decode(&want)
			if diff := cmp.Diff(want, d.Root.Interface(nil)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			// Keys keep their order: own keys, then merged ones.
			if tc.name == "plain" {
				var keys []string
				for _, f := range d.Root.Get("b").Fields {
					keys = append(keys, f.Key)
				}
				if strings.Join(keys, ",") != "y,x" {
					t.Errorf("keys %v", keys)
				}
			}
		})
	}
	// A merged value knows it was merged, and where it is written.
	d, _ := ParseYAML("f", []byte("a: &a\n  s: {f: 2h}\nb:\n  <<: *a\n  own: {f: 1h}\n"), DefaultLimits)
	if err := MergeKeys(d); err != nil {
		t.Fatal(err)
	}
	f, own := d.Root.Path("b", "s", "f"), d.Root.Path("b", "own", "f")
	if !ThroughMerge(f) || ThroughMerge(own) || ThroughMerge(d.Root.Path("a", "s", "f")) {
		t.Errorf("ThroughMerge: merged %v, own %v", ThroughMerge(f), ThroughMerge(own))
	}
	if f.Pointer() != "/b/s/f" || f.Line() != 2 {
		t.Errorf("merged value at %s line %d", f.Pointer(), f.Line())
	}
}
