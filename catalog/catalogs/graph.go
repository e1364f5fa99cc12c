// Package catalogs says which catalog sources form a catalog: what Flow
// builds at once (docs/behaviour.md §2). A catalog is a source that no
// other source imports, or an import cycle that nothing outside it
// imports, with everything it imports. The loader (package catalog)
// records the imports it follows in a Graph; Roots and Reach give the
// catalogs, from which it tells a name defined twice within one catalog
// (Flow's error) from a name defined in several catalogs (one task of
// several definitions).
package catalogs

// Graph is which source imports which, by a key of file identity, with
// the name each source's document is known by.
type Graph struct {
	name map[any]string // key to document file name
	out  map[any][]any  // importer to imported
	keys []any          // in the order first seen
}

// New returns an empty graph.
func New() *Graph {
	return &Graph{name: map[any]string{}, out: map[any][]any{}}
}

func (g *Graph) add(k any) {
	if _, ok := g.name[k]; !ok {
		g.name[k] = ""
		g.keys = append(g.keys, k)
	}
}

// Node records a source, whose document is named file.
func (g *Graph) Node(k any, file string) {
	g.add(k)
	g.name[k] = file
}

// Edge records that the source from imports the source to.
func (g *Graph) Edge(from, to any) {
	g.add(from)
	g.add(to)
	g.out[from] = append(g.out[from], to)
}

// Roots are the catalogs' roots: each strongly connected component of
// the import graph that no source outside it imports, as its sources (in
// the order they were first seen within it).
func (g *Graph) Roots() [][]any {
	// Tarjan's algorithm, iterative: an import chain may be long.
	index := map[any]int{}
	low := map[any]int{}
	onStack := map[any]bool{}
	comp := map[any]int{}
	var stack []any
	var comps [][]any
	next := 0
	type frame struct {
		k any
		i int
	}
	for _, start := range g.keys {
		if _, seen := index[start]; seen {
			continue
		}
		call := []frame{{k: start}}
		index[start], low[start] = next, next
		next++
		stack = append(stack, start)
		onStack[start] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			if f.i < len(g.out[f.k]) {
				w := g.out[f.k][f.i]
				f.i++
				if _, seen := index[w]; !seen {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					call = append(call, frame{k: w})
				} else if onStack[w] && index[w] < low[f.k] {
					low[f.k] = index[w]
				}
				continue
			}
			v := f.k
			call = call[:len(call)-1]
			if len(call) > 0 {
				if p := call[len(call)-1].k; low[v] < low[p] {
					low[p] = low[v]
				}
			}
			if low[v] == index[v] {
				var c []any
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp[w] = len(comps)
					c = append(c, w)
					if w == v {
						break
					}
				}
				comps = append(comps, c)
			}
		}
	}
	imported := make([]bool, len(comps))
	for a, outs := range g.out {
		for _, b := range outs {
			if comp[a] != comp[b] {
				imported[comp[b]] = true
			}
		}
	}
	var roots [][]any
	for i, c := range comps {
		if !imported[i] {
			roots = append(roots, c)
		}
	}
	return roots
}

// Reach calls visit once for each source of the catalog of root (the
// root's sources and everything they import).
func (g *Graph) Reach(root []any, visit func(k any)) {
	seen := map[any]bool{}
	todo := append([]any{}, root...)
	for _, k := range root {
		seen[k] = true
	}
	for len(todo) > 0 {
		k := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		visit(k)
		for _, w := range g.out[k] {
			if !seen[w] {
				seen[w] = true
				todo = append(todo, w)
			}
		}
	}
}

// RootName names a catalog by its root's first document name in order.
func (g *Graph) RootName(root []any) string {
	n := g.name[root[0]]
	for _, k := range root[1:] {
		if m := g.name[k]; m != "" && (n == "" || m < n) {
			n = m
		}
	}
	return n
}
