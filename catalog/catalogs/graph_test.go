package catalogs

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// Roots: sources nothing imports, and cycles nothing outside imports.
func TestRoots(t *testing.T) {
	for _, tc := range []struct {
		edges string // "a>b c>d": a imports b
		nodes string
		want  string // roots, each sorted, "|" between
	}{
		{"", "a b", "a|b"},
		{"a>b", "a b", "a"},
		{"a>b b>a", "a b", "a b"},
		{"c>a a>b b>a", "a b c", "c"},
		{"a>s b>s", "a b s", "a|b"},
		{"a>b b>c c>b d>d", "a b c d", "a|d"},
	} {
		g := New()
		for _, n := range strings.Fields(tc.nodes) {
			g.Node(n, n+".flow.yaml")
		}
		for _, e := range strings.Fields(tc.edges) {
			a, b, _ := strings.Cut(e, ">")
			g.Edge(a, b)
		}
		var got []string
		for _, r := range g.Roots() {
			var names []string
			for _, k := range r {
				names = append(names, fmt.Sprint(k))
			}
			sort.Strings(names)
			got = append(got, strings.Join(names, " "))
		}
		sort.Strings(got)
		if strings.Join(got, "|") != tc.want {
			t.Errorf("%q: roots %v, want %s", tc.edges, got, tc.want)
		}
	}
}

// A long import chain is no deep recursion.
func TestRootsLongChain(t *testing.T) {
	g := New()
	const n = 200000
	for i := 0; i < n; i++ {
		g.Edge(i, i+1)
	}
	r := g.Roots()
	if len(r) != 1 || r[0][0] != 0 {
		t.Fatalf("roots %v", r)
	}
	count := 0
	g.Reach(r[0], func(any) { count++ })
	if count != n+1 {
		t.Errorf("reached %d, want %d", count, n+1)
	}
}
