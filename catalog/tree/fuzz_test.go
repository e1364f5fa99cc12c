package tree

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}],"c":"\u00e9"}`, "{\n\t\"a\": 1\n}", `[`, `{"a":1,"a":2}`, `"\ud800"`, `-0.5e+3`} {
		f.Add([]byte(s))
	}
	for _, s := range []string{`{"a":{"b":[{"c":1,"d":2,"c":3}]}}`, `{"a":{"\u0062":1,"b":2}}`, `{"a":{"b":1,"B":2,"b ":3}}`} {
		f.Add([]byte(s))
	}
	all := func([]string, string) bool { return true }
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := ParseJSON("f", b, DefaultLimits)
		// Skipping the root's values (as the dump reader skips the
		// bindings) checks them as strictly, duplicate keys included,
		// and a duplicate is reported at the same place.
		_, skipErr := ParseJSONWith("f", b, JSONOptions{Limits: DefaultLimits, Skip: all})
		if (err == nil) != (skipErr == nil) || (err == nil) != Valid(b, DefaultLimits) {
			t.Fatalf("%q: ParseJSON: %v; skipping: %v; Valid: %v", b, err, skipErr, Valid(b, DefaultLimits))
		}
		if err != nil && strings.Contains(err.Error(), "duplicate key") && err.Error() != skipErr.Error() {
			t.Fatalf("%q: ParseJSON: %v; skipping: %v", b, err, skipErr)
		}
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
	for _, s := range []string{"a: 1\nb: [x, {c: d}]\n", "a: &x {b: 1}\nc: *x\nd:\n  <<: *x\n", "a: &x {b: {<<: {c: 1}}}\nd: {\"<<\": [*x, {e: 2}], b: 0}\n", "a: 1\na: 2\n", "- a\n---\n- b\n", "x: \"17:00\"\ny: 17:00\n", "%YAML 1.2\n---\na: 1\n", "# c\n%YAML 1.1\r\n---\r\n- 1\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := ParseYAML("f.yaml", b, Limits{MaxDepth: 100, MaxNodes: 20_000})
		if se := (*SyntaxError)(nil); errors.As(err, &se) {
			// The position is in the source (one past its last line at most).
			if lines := yamlLines(b); se.Line < 1 || se.Line > lines || se.Col < 1 {
				t.Fatalf("error at %d:%d outside %d lines: %v", se.Line, se.Col, lines, err)
			}
		}
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
		// Merge keys as Flow applies them: no panic, no "<<" left, and
		// every merged node's pointer is where it now is.
		if err := MergeKeys(d); err != nil {
			return
		}
		d.Root.Walk(func(n *Node) bool {
			if n.Kind == Object && n.Get("<<") != nil {
				t.Fatalf("a merge key left at %s", n.Pointer())
			}
			if d.Root.Lookup(n.Pointer()) != n {
				t.Fatalf("pointer %s does not resolve to its node after merging", n.Pointer())
			}
			return true
		})
	})
}

// yamlLines is the number of lines of b as YAML counts them: a line ends
// at CR LF, a lone CR, LF, or NEL, LS or PS (so "0\r---" has two).
func yamlLines(b []byte) int {
	n := 1 + bytes.Count(b, []byte("\n")) + bytes.Count(b, []byte("\r")) - bytes.Count(b, []byte("\r\n"))
	for _, br := range []string{"\u0085", "\u2028", "\u2029"} {
		n += bytes.Count(b, []byte(br))
	}
	return n
}
