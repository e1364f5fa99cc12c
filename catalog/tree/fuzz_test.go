package tree

import (
	"encoding/json"
	"testing"
)

func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}],"c":"\u00e9"}`, "{\n\t\"a\": 1\n}", `[`, `{"a":1,"a":2}`, `"\ud800"`, `-0.5e+3`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := ParseJSON("f", b, DefaultLimits)
		if err != nil {
			return
		}
		if !json.Valid(b) {
			t.Fatalf("accepted invalid JSON %q", b)
		}
		// Every node's byte range is inside the source, and pointers resolve.
		d.Root.Walk(func(n *Node) bool {
			if n.Offset < 0 || n.End > len(b) || n.End < n.Offset {
				t.Fatalf("node %s range [%d,%d) outside %d bytes", n.Pointer(), n.Offset, n.End, len(b))
			}
			if d.Root.Lookup(n.Pointer()) != n {
				t.Fatalf("pointer %s does not resolve to its node", n.Pointer())
			}
			_, _ = n.Line(), n.Col()
			return true
		})
	})
}

func FuzzParseYAML(f *testing.F) {
	for _, s := range []string{"a: 1\nb: [x, {c: d}]\n", "a: &x {b: 1}\nc: *x\nd:\n  <<: *x\n", "a: 1\na: 2\n", "- a\n---\n- b\n", "x: \"17:00\"\ny: 17:00\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := ParseYAML("f.yaml", b, Limits{MaxDepth: 100, MaxNodes: 20_000})
		if err != nil {
			return
		}
		d.Root.Walk(func(n *Node) bool {
			if n.Offset < 0 || n.Offset > len(b) {
				t.Fatalf("node %s offset %d outside %d bytes", n.Pointer(), n.Offset, len(b))
			}
			_, _ = n.Line(), n.Col()
			return true
		})
		_ = d.Root.Interface(nil)
	})
}
