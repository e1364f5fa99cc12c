// The files a catalog tree is made of, for a complete copy of it
// (migrate --out DIR): every file under the directories given, and every
// file the catalog names from outside them.

package migrate

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/tree"
	"github.com/estuary/schedtool/internal/paths"
)

// TreeFile is one file of a copy of a catalog tree.
type TreeFile struct {
	Path string // as read: in the form of the input's paths
	Root string // the root of the input it belongs to; its place in the copy is relative to it
	// Refused says why the file, which is part of the tree, cannot be
	// copied: it resolves outside the root, or is not a regular file.
	Refused string
	// Left says why a name is left out with nothing to copy: a symlink
	// to nothing or to a directory, a reference outside the root.
	Left string
	// By is where a referenced file is named (file:line:col), "" for a
	// file found by walking a directory.
	By string
}

// TreeFiles lists the files a complete copy of the inputs' catalog
// holds, besides the ones cat read (which it may list again): every
// regular file under each directory PATH, or under a file PATH's own
// directory (hidden directories, and the entries skip names, skipped),
// and every file the sources name from anywhere under the root (see
// Refs). A file is listed once per path.
func TreeFiles(inputs []catalog.Input, cat *catalog.Catalog, opts catalog.Options, skip func(path string, d fs.DirEntry) bool) []TreeFile {
	seen, walked := map[string]bool{}, map[string]bool{}
	var out []TreeFile
	add := func(f TreeFile) {
		if !seen[f.Path] {
			seen[f.Path] = true
			out = append(out, f)
		}
	}
	for _, in := range inputs {
		dir := in.Dir
		if dir == "" && len(in.Sources) == 1 && in.Sources[0] != "-" {
			dir = filepath.Dir(in.Sources[0])
		}
		if dir == "" || walked[dir] {
			continue
		}
		walked[dir] = true
		for _, f := range walkTree(in, dir, skip) {
			add(f)
		}
	}
	for _, f := range Refs(inputs, cat, opts) {
		add(f)
	}
	return out
}

// walkTree lists the files under dir. A symlink is followed only to a
// regular file inside the root (its bytes are the copy's); a symlink to
// a directory is not copied as one: the catalog files discovery reads
// through it are copied at their paths (TreeFiles' callers copy every
// file the catalog read), nothing else under it.
func walkTree(in catalog.Input, dir string, skip func(string, fs.DirEntry) bool) []TreeFile {
	var out []TreeFile
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		p = filepath.Clean(p)
		if err != nil {
			if p != dir || d != nil {
				out = append(out, TreeFile{Path: p, Root: in.Root, Refused: "cannot be read: " + catalog.Describe(err)})
			}
			return nil
		}
		if p != dir && skip != nil && skip(p, d) || d.IsDir() && p != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		f := TreeFile{Path: p, Root: in.Root}
		st, err := os.Stat(p)
		switch {
		case err != nil && d.Type()&fs.ModeSymlink != 0 && errors.Is(err, fs.ErrNotExist):
			f.Left = "a symlink to nothing"
		case err != nil:
			f.Refused = "cannot be read: " + catalog.Describe(err)
		case st.IsDir():
			f.Left = "a symlink to a directory, not copied as one (the catalog files read through it are copied at their paths)"
		case !st.Mode().IsRegular():
			f.Refused = (&paths.NotRegularError{Mode: st.Mode()}).Error()
		default:
			f.Refused = catalog.EscapesRoot(in, p)
		}
		out = append(out, f)
		return nil
	})
	return out
}

// Refs lists the files the catalog sources read name, as Flow's loader
// follows them: imports; the config of every capture, materialization
// and derivation endpoint (connector, local, dekaf) and of their
// bindings' resources; collection schemas (schema, readSchema,
// writeSchema) and, inside them and inside schema files, every $ref to
// another file; derivation modules (typescript, python), sqlite
// migrations and transform lambdas; test documents. A config-like
// string (config, resource, module, migration, lambda) names a file only
// when it holds no whitespace, as in Flow; a URL with a scheme (http:,
// flow:) is not a file. A $ref is resolved against the file it is in
// ($id is not followed). A name that resolves to no file is not listed
// (the build reports it, on the copy as on the original).
func Refs(inputs []catalog.Input, cat *catalog.Catalog, opts catalog.Options) []TreeFile {
	c := &refCollector{inputs: inputs, opts: opts, seen: map[string]bool{}}
	for _, p := range cat.Files {
		if _, isConfig := cat.Configs[p]; isConfig {
			continue
		}
		if d := cat.Docs[p]; d != nil && d.Root != nil {
			if in, ok := c.inputOf(p); ok {
				c.source(in, d)
			}
		}
	}
	sort.SliceStable(c.out, func(i, j int) bool { return c.out[i].Path < c.out[j].Path })
	return c.out
}

type refCollector struct {
	inputs []catalog.Input
	opts   catalog.Options
	seen   map[string]bool
	out    []TreeFile
}

// inputOf is the input whose root holds the file p.
func (c *refCollector) inputOf(p string) (catalog.Input, bool) {
	for _, in := range c.inputs {
		if paths.Within(in.Root, p) {
			return in, true
		}
	}
	return catalog.Input{}, false
}

// source collects the names of one catalog source.
func (c *refCollector) source(in catalog.Input, d *tree.Doc) {
	root := d.Root
	for _, it := range items(root.Get("import")) {
		c.name(in, it, false, "import")
	}
	for _, f := range fields(root.Get("captures")) {
		c.endpoint(in, f.Value.Get("endpoint"))
		c.bindings(in, f.Value)
	}
	for _, f := range fields(root.Get("materializations")) {
		c.endpoint(in, f.Value.Get("endpoint"))
		c.bindings(in, f.Value)
	}
	for _, f := range fields(root.Get("collections")) {
		for _, key := range []string{"schema", "readSchema", "writeSchema"} {
			c.schema(in, f.Value.Get(key))
		}
		c.derive(in, f.Value.Get("derive"))
	}
	for _, f := range fields(root.Get("tests")) {
		steps := f.Value
		if steps.Kind == tree.Object {
			steps = steps.Get("steps")
		}
		for _, step := range items(steps) {
			for _, kind := range []string{"ingest", "verify"} {
				c.name(in, step.Get(kind).Get("documents"), false, "test documents")
			}
		}
	}
}

func (c *refCollector) endpoint(in catalog.Input, ep *tree.Node) {
	for _, kind := range []string{"connector", "local", "dekaf"} {
		c.name(in, ep.Get(kind).Get("config"), true, "config file")
	}
}

func (c *refCollector) bindings(in catalog.Input, task *tree.Node) {
	for _, b := range items(task.Get("bindings")) {
		c.name(in, b.Get("resource"), true, "resource config file")
	}
}

func (c *refCollector) derive(in catalog.Input, d *tree.Node) {
	using := d.Get("using")
	for _, kind := range []string{"connector", "local"} {
		c.name(in, using.Get(kind).Get("config"), true, "config file")
	}
	for _, m := range items(using.Get("sqlite").Get("migrations")) {
		c.name(in, m, true, "sqlite migration")
	}
	for _, kind := range []string{"typescript", "python"} {
		c.name(in, using.Get(kind).Get("module"), true, kind+" module")
	}
	for _, t := range items(d.Get("transforms")) {
		c.name(in, t.Get("lambda"), true, "lambda")
		c.name(in, t.Get("shuffle").Get("lambda"), true, "shuffle lambda")
	}
}

// schema collects a collection's schema: a file named (whose own $refs
// are followed), or an inline schema's $refs.
func (c *refCollector) schema(in catalog.Input, n *tree.Node) {
	if n == nil {
		return
	}
	if n.Kind == tree.String {
		if p := c.name(in, n, false, "schema"); p != "" {
			c.schemaFile(in, p)
		}
		return
	}
	c.schemaRefs(in, n)
}

// schemaRefs collects the $refs to other files inside a schema, and the
// $refs of those files.
func (c *refCollector) schemaRefs(in catalog.Input, n *tree.Node) {
	n.Walk(func(x *tree.Node) bool {
		if x.Kind != tree.Object {
			return true
		}
		if ref := x.Get("$ref"); ref != nil && ref.Kind == tree.String && !strings.HasPrefix(ref.Value, "#") {
			if p := c.name(in, ref, false, "$ref"); p != "" {
				c.schemaFile(in, p)
			}
		}
		return true
	})
}

// schemaFile reads a schema file named, once, for its $refs. One that
// cannot be read or parsed is copied all the same, and names nothing.
func (c *refCollector) schemaFile(in catalog.Input, p string) {
	key := "schema\x00" + p
	if c.seen[key] {
		return
	}
	c.seen[key] = true
	src, err := paths.ReadRegular(p, c.opts.MaxFileSize, "--max-file-size")
	if err != nil {
		return
	}
	src, _, terr := tree.DecodeText(src) // as Flow's reader decodes it
	if terr != nil {
		return
	}
	d, err := tree.Parse(p, src, c.opts.Limits)
	if err != nil {
		return
	}
	c.schemaRefs(in, d.Root)
}

// name lists the file a string node names (what it is, for messages),
// relative to its document, and returns its path when it is a regular file inside the root. With
// config set the string names a file only when it has no whitespace (an
// inline config, module or lambda is text).
func (c *refCollector) name(in catalog.Input, n *tree.Node, config bool, what string) string {
	if n == nil || n.Kind != tree.String || n.Doc == nil || n.Doc.File == "<stdin>" {
		return ""
	}
	s := n.Value
	if config && strings.IndexFunc(s, unicode.IsSpace) >= 0 {
		return ""
	}
	// The path as Flow reads it (FlowPath): escapes decoded, '\' as '/'.
	p, msg := catalog.ContainRef(in, n.Doc.File, s, what)
	if p == "" {
		return "" // a URL, or nothing: no file to copy
	}
	by := fmt.Sprintf("%s:%d:%d", n.Doc.Name(), n.Line(), n.Col())
	if msg != "" {
		c.add(TreeFile{Path: p, Root: in.Root, Left: msg, By: by})
		return ""
	}
	st, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "" // the build says so, on the copy as on the original
	case err != nil:
		c.add(TreeFile{Path: p, Root: in.Root, Refused: "cannot be read: " + catalog.Describe(err), By: by})
		return ""
	case !st.Mode().IsRegular():
		c.add(TreeFile{Path: p, Root: in.Root, Left: (&paths.NotRegularError{Mode: st.Mode()}).Error(), By: by})
		return ""
	}
	c.add(TreeFile{Path: p, Root: in.Root, By: by})
	return p
}

// items and fields are an array's items and an object's fields, none
// for a node of another kind or none.
func items(n *tree.Node) []*tree.Node {
	if n == nil || n.Kind != tree.Array {
		return nil
	}
	return n.Items
}

func fields(n *tree.Node) []tree.Field {
	if n == nil || n.Kind != tree.Object {
		return nil
	}
	return n.Fields
}

func (c *refCollector) add(f TreeFile) {
	if !c.seen[f.Path] {
		c.seen[f.Path] = true
		c.out = append(c.out, f)
	}
}
