package catalog

import (
	"sort"

	"github.com/estuary/schedtool/catalog/catalogs"
	"github.com/estuary/schedtool/finding"
	"github.com/estuary/schedtool/internal/paths"
)

// A catalog is what Flow builds at once (docs/behaviour.md §2; the graph
// and its roots are in catalog/catalogs): a source that no other source
// under the root imports, or an import cycle that nothing outside it
// imports, with everything it imports. A directory may hold several (the
// connectors' test catalogs define one task in apply.flow.yaml,
// materialize.flow.yaml and migrate.flow.yaml; a team keeps
// prod.flow.yaml beside staging.flow.yaml). A name defined twice
// within one catalog is Flow's error; a name defined in several catalogs
// is one task with several definitions, each read as itself.

// importGraph is the imports the loader follows (catalog/catalogs), with
// the key of each source's document name.
type importGraph struct {
	*catalogs.Graph
	keyOf map[string]any // document file name to its key
}

func newImportGraph() importGraph {
	return importGraph{Graph: catalogs.New(), keyOf: map[string]any{}}
}

// node records a source read from path, whose document is named file.
func (g *importGraph) node(path, file string) {
	k := paths.Key(path)
	g.Node(k, file)
	g.keyOf[file] = k
}

// edge records that the source at from imports the one at to.
func (g *importGraph) edge(from, to string) { g.Edge(paths.Key(from), paths.Key(to)) }

// clash is a name defined more than once within one catalog.
type clash struct {
	root string             // the catalog's root source
	defs []*Materialization // the definitions in it, by file
}

// clashes finds, for each name defined by more than one of mats, the
// catalogs that hold two or more of its definitions.
func (g *importGraph) clashes(mats []*Materialization) map[string][]clash {
	byName := map[string][]*Materialization{}
	for _, m := range mats {
		byName[m.Name] = append(byName[m.Name], m)
	}
	// Only the files defining a name with several definitions matter.
	defsIn := map[any][]*Materialization{}
	for _, ms := range byName {
		if len(ms) < 2 {
			continue
		}
		for _, m := range ms {
			k, ok := g.keyOf[m.Source.File]
			if !ok {
				k = m.Source.File // not a walked source (a dump row): its own catalog
			}
			defsIn[k] = append(defsIn[k], m)
		}
	}
	if len(defsIn) == 0 {
		return nil
	}
	out := map[string][]clash{}
	for _, root := range g.Roots() {
		found := map[string][]*Materialization{}
		g.Reach(root, func(k any) {
			for _, m := range defsIn[k] {
				found[m.Name] = append(found[m.Name], m)
			}
		})
		names := make([]string, 0, len(found))
		for n, ms := range found {
			if len(ms) > 1 {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		rootName := g.RootName(root)
		for _, n := range names {
			ms := found[n]
			sort.SliceStable(ms, func(i, j int) bool { return ms[i].Source.File < ms[j].Source.File })
			out[n] = append(out[n], clash{root: rootName, defs: ms})
		}
	}
	return out
}

// several records the names whose definitions (each in its own
// catalog, after duplicates) are more than one.
func (l *loader) several() {
	mats := l.cat.Materializations
	for i := 0; i < len(mats); {
		j := i + 1
		for j < len(mats) && mats[j].Name == mats[i].Name {
			j++
		}
		if j > i+1 {
			if l.cat.Several == nil {
				l.cat.Several = map[string][]*Materialization{}
			}
			l.cat.Several[mats[i].Name] = mats[i:j:j]
		}
		i = j
	}
}

// Definitions are the definitions of name read by this run: one, or
// several when the name is defined in several catalogs.
func (c *Catalog) Definitions(name string) []*Materialization {
	if ds, ok := c.Several[name]; ok {
		return ds
	}
	for _, m := range c.Materializations {
		if m.Name == name {
			return []*Materialization{m}
		}
	}
	return nil
}

// Unreadable are the problems of the sources as every command counts
// them (unreadable inputs): each problem once, except that a name
// defined more than once within one catalog is one unreadable task,
// counted at its first place (whose message names the others).
func (c *Catalog) Unreadable() []*finding.Finding {
	var out []*finding.Finding
	seen := map[string]bool{}
	for i := range c.Problems {
		p := &c.Problems[i]
		if c.Duplicated[p.Task] {
			if seen[p.Task] {
				continue
			}
			seen[p.Task] = true
		}
		out = append(out, p)
	}
	return out
}

// Names is how many names the materializations read have: a name
// defined in several catalogs is one task of several definitions.
func (c *Catalog) Names() int {
	n := len(c.Materializations)
	for _, ds := range c.Several {
		n -= len(ds) - 1
	}
	return n
}
