package catalog

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/estuary/schedtool/catalog/tree"
	"github.com/estuary/schedtool/finding"
	"github.com/estuary/schedtool/internal/paths"
)

// Catalog is what was read from the sources of one or more inputs.
type Catalog struct {
	Materializations []*Materialization
	Problems         []finding.Finding // parse-error findings
	Files            []string          // every file read, sorted
	Docs             map[string]*tree.Doc
	Configs          map[string]*ConfigFile
	// Refs are every reference to a config file the sources make, by
	// the materializations read (selected), captures and derivations,
	// refused ones included: what Users compares files by identity with.
	Refs []ConfigRef
	// Unparsed are the catalog sources (walked, named or imported) that
	// could not be read or parsed: they might use any config file.
	Unparsed []Unparsed
	// Duplicated are the names defined more than once within one
	// catalog (what Flow builds at once: definitions.go): none of their
	// definitions is in Materializations, and each has a problem naming
	// the other places (docs/behaviour.md §2).
	Duplicated map[string]bool
	// Several are, by name, the definitions of a name defined in
	// several catalogs (sorted by file): each is read, validated and
	// migrated as itself; census counts the name once.
	Several map[string][]*Materialization
	// Excluded counts the tasks (distinct names) the project file's
	// exclude left out of the run, ExcludedSources the sources holding them (docs/behaviour.md
	// §13): a run over nothing but excluded tasks must say so.
	Excluded, ExcludedSources int
}

// ConfigRef is one reference to a config file, by a task of a source.
type ConfigRef struct {
	Kind  string // "materialization", "capture" or "derivation"
	Name  string
	Image string
	File  string // the source that holds it
	Line  int
	// Path is the file it names, resolved as Flow reads it (FlowPath):
	// a reference with no identity (no file there) holds back each
	// config file whose name it holds.
	Path  string
	ID    paths.FileID // the file it names; set when it could be stat'ed
	HasID bool
	// Refused is why the reference was refused (it escapes the root):
	// the file was stat'ed for its identity, never read.
	Refused string
}

// Unparsed is a catalog source that could not be read or parsed.
type Unparsed struct {
	File string
	Why  string
	Src  []byte // nil when it could not be read
}

// ConfigFile is a config in a file of its own, and who uses it.
type ConfigFile struct {
	Doc   *tree.Doc
	Users []*Materialization
}

type loader struct {
	opts     Options
	cat      *Catalog
	loaded   map[any]bool // by fileKey: identity, so a file reached by two paths is read once
	visiting map[any]bool
	configs  map[any]string // config files by fileKey, to the path they are known by
	graph    importGraph    // which source imports which (definitions.go)
	// excludedSrc are the sources with an excluded task, excludedName
	// the names excluded.
	excludedSrc, excludedName map[string]bool
	// show gives each file the name outputs show it by (Doc.Shown, and
	// the file of a problem).
	show paths.Displayer
}

// Load reads the sources of the inputs (not their dumps), following
// imports and config files.
func Load(inputs []Input, opts Options) *Catalog {
	if opts.Limits.Expanded == nil {
		opts.Limits.Expanded = new(int) // alias expansion is held to the limit over every file
	}
	l := &loader{opts: opts, cat: &Catalog{Docs: map[string]*tree.Doc{}, Configs: map[string]*ConfigFile{}},
		loaded: map[any]bool{}, visiting: map[any]bool{}, configs: map[any]string{}, graph: newImportGraph()}
	for _, in := range inputs {
		for _, src := range in.Sources {
			// Named on the command line or found by walking, a source
			// that resolves outside the root is never read (nor written).
			if msg := EscapesRoot(in, src); msg != "" {
				l.problem(src, 1, 1, "", msg)
				continue
			}
			l.source(in, src, nil, nil)
		}
	}
	for p := range l.cat.Docs {
		l.cat.Files = append(l.cat.Files, p)
	}
	sort.Strings(l.cat.Files)
	sort.SliceStable(l.cat.Materializations, func(i, j int) bool {
		a, b := l.cat.Materializations[i], l.cat.Materializations[j]
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.Source.File < b.Source.File
	})
	l.duplicates()
	l.several()
	finding.Sort(l.cat.Problems)
	return l.cat
}

// duplicates takes out of the (sorted) materializations every name
// defined more than once within one catalog, as Flow's build refuses it
// (two files one source imports, or two definitions in one file's
// imports): each definition is a problem naming the others, and none is
// read, counted or migrated. A name defined in several catalogs (one
// per file, say, as the connectors' test catalogs do) is no error here:
// each definition is read as itself (several).
func (l *loader) duplicates() {
	mats := l.cat.Materializations
	clash := l.graph.clashes(mats)
	kept := mats[:0]
	for i := 0; i < len(mats); {
		j := i + 1
		for j < len(mats) && mats[j].Name == mats[i].Name {
			j++
		}
		if j == i+1 || len(clash[mats[i].Name]) == 0 {
			kept = append(kept, mats[i:j]...)
			i = j
			continue
		}
		if l.cat.Duplicated == nil {
			l.cat.Duplicated = map[string]bool{}
		}
		l.cat.Duplicated[mats[i].Name] = true
		for _, c := range clash[mats[i].Name] {
			for k, m := range c.defs {
				var others []string
				for o, other := range c.defs {
					if o != k {
						p := Pos(other.Spec)
						others = append(others, fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column))
					}
				}
				l.cat.Problems = append(l.cat.Problems, finding.Finding{Rule: finding.ParseError, Severity: finding.Error, Task: m.Name, Pos: Pos(m.Spec),
					Message: fmt.Sprintf("materialization %s is defined more than once in the catalog of %s, here and at %s: Flow refuses a name defined twice in what it builds at once; neither definition is read until one is removed", m.Name, c.root, strings.Join(others, ", "))})
			}
		}
		// Every definition of the name is left out (one refused catalog
		// would otherwise make the name's count depend on which); one
		// in no clashing catalog says why it is not read.
		inClash := map[*Materialization]bool{}
		for _, c := range clash[mats[i].Name] {
			for _, m := range c.defs {
				inClash[m] = true
			}
		}
		for _, m := range mats[i:j] {
			if !inClash[m] {
				c := clash[mats[i].Name][0]
				l.cat.Problems = append(l.cat.Problems, finding.Finding{Rule: finding.ParseError, Severity: finding.Error, Task: m.Name, Pos: Pos(m.Spec),
					Message: fmt.Sprintf("materialization %s is not read: it is defined more than once in the catalog of %s (at %s), which Flow refuses; no definition of the name is read until one is removed", m.Name, c.root, c.defs[0].Source.Name())})
			}
			l.unread(m)
		}
		i = j
	}
	clear(mats[len(kept):])
	l.cat.Materializations = kept
}

// unread takes a materialization that is not read (a name defined more
// than once) out of the users of its config file: it is then one of the
// file's holders (Users), since no run migrates it, and a change of the
// file for the others would leave it without pacing.
func (l *loader) unread(m *Materialization) {
	if m.Config == nil || m.Config.File == nil {
		return
	}
	cf := m.Config.File
	cf.Users = slices.DeleteFunc(cf.Users, func(u *Materialization) bool { return u == m })
}

func (l *loader) problem(file string, line, col int, ptr, msg string) {
	l.cat.Problems = append(l.cat.Problems, finding.Finding{Rule: finding.ParseError, Severity: finding.Error,
		Pos: finding.Position{File: l.show.Display(file), Line: line, Column: col, Pointer: ptr}, Message: msg})
}

func (l *loader) problemAt(n *tree.Node, msg string) {
	l.problem(n.Doc.File, n.Line(), n.Col(), n.Pointer(), msg)
}

// readFile reads a file within the limits; problems are reported at ref
// (the node that named the file), or at the file itself.
func (l *loader) readFile(in Input, path string) ([]byte, error) {
	if path == "-" {
		return in.Stdin, nil
	}
	if l.opts.Reading != nil {
		l.opts.Reading(path)
	}
	if l.opts.Overlay != nil {
		if b, ok := l.opts.Overlay(path); ok {
			return b, nil
		}
	}
	b, err := paths.ReadRegular(path, l.opts.MaxFileSize, "--max-file-size")
	if err != nil {
		var nr *paths.NotRegularError
		if errors.As(err, &nr) && nr.Mode.IsDir() {
			return nil, errors.New("is a directory")
		}
		return nil, errors.New(Describe(err))
	}
	return b, nil
}

func (l *loader) parse(file string, src []byte) (*tree.Doc, error) {
	d, err := tree.Parse(file, src, l.opts.Limits)
	if err != nil {
		return nil, err
	}
	return d, nil
}

func (l *loader) syntaxProblem(file string, src []byte, err error) {
	var se *tree.SyntaxError
	if errors.As(err, &se) {
		l.problem(se.File, se.Line, se.Col, "", se.Msg)
		l.cat.Problems[len(l.cat.Problems)-1].Excerpt = se.WithLine(src).Text
		return
	}
	l.problem(file, 1, 1, "", err.Error())
}

// source loads one catalog source and what it imports. chain is the
// import chain to it, for cycle messages; ref the import's node.
func (l *loader) source(in Input, path string, chain []string, ref *tree.Node) {
	key := paths.Key(path)
	if l.visiting[key] {
		l.problemAt(ref, "import cycle: "+cycleText(chain, path, l.show.Display))
		return
	}
	if l.loaded[key] {
		return
	}
	l.loaded[key] = true
	src, err := l.readFile(in, path)
	if err != nil {
		if ref != nil {
			l.problemAt(ref, fmt.Sprintf("cannot read import %s: %v", l.show.Display(path), err))
		} else {
			l.problem(path, 1, 1, "", "cannot read: "+err.Error())
		}
		if st, serr := os.Stat(path); serr == nil && !st.IsDir() {
			// A file there that cannot be read (permissions, size, a
			// FIFO a generator feeds) might hold anything; a directory or
			// a missing import holds nothing.
			l.unparsed(path, "cannot be read: "+err.Error(), nil)
		}
		return
	}
	text, enc, terr := tree.DecodeText(src)
	if terr != nil {
		l.problem(path, terr.Line, terr.Col, "", terr.Msg)
		// Bytes that cannot be decoded cannot be searched for a name
		// either: the source might use any config file.
		l.unparsed(path, "cannot be decoded ("+terr.Msg+")", nil)
		return
	}
	doc, err := tree.ParseSource(DisplayName(path), text, l.opts.Limits)
	if err != nil {
		l.syntaxProblem(path, text, err)
		l.unparsed(path, "does not parse: "+syntaxMsg(err), text)
		return
	}
	doc.Encoding = enc
	if enc != "" {
		doc.Orig = src
	}
	doc.Shown = l.show.Display(doc.File)
	l.cat.Docs[doc.File] = doc
	l.graph.node(path, doc.File)
	root := doc.Root
	if root.Kind == tree.Null {
		if path == "-" {
			// Standard input of nothing but a `---`, a comment or `null`
			// is as empty as no bytes: never zero tasks for a gate.
			l.problemAt(root, "standard input holds an empty YAML document: no catalog source and no stored-spec rows")
		}
		return // an empty source
	}
	if root.Kind != tree.Object {
		l.problemAt(root, "a catalog source must be an object, not "+tree.Article(root.Kind))
		l.unparsed(path, "is not a catalog source (it holds "+tree.Article(root.Kind)+")", src)
		return
	}
	l.visiting[key] = true
	defer delete(l.visiting, key)
	if imp := root.Get("import"); imp != nil {
		l.imports(in, path, imp, append(chain, path))
	}
	l.captures(in, doc)
	if mats := root.Get("materializations"); mats != nil {
		if mats.Kind != tree.Object {
			if mats.Kind != tree.Null {
				l.problemAt(mats, "materializations must be an object of materialization names to specs")
			}
		} else {
			for i := range mats.Fields {
				l.materialization(in, doc, &mats.Fields[i])
			}
		}
	}
}

// unparsed records a source that might use any config file (never
// standard input, which has no place under a root).
func (l *loader) unparsed(path, why string, src []byte) {
	if path != "-" {
		l.cat.Unparsed = append(l.cat.Unparsed, Unparsed{File: path, Why: why, Src: src})
	}
}

// syntaxMsg is a parse error as "line:col: message".
func syntaxMsg(err error) string {
	var se *tree.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%d:%d: %s", se.Line, se.Col, se.Msg)
	}
	return err.Error()
}

// captures records the config files that the captures, derivations and
// local-endpoint materializations of a source name, on any endpoint:
// each is a user of a config file it shares with migrated
// materializations, and schedtool never migrates it.
func (l *loader) captures(in Input, doc *tree.Doc) {
	for _, k := range []struct {
		key, kind string
		path      []string
	}{
		{"captures", "capture", []string{"endpoint", "connector"}},
		{"captures", "capture", []string{"endpoint", "local"}},
		{"captures", "capture", []string{"endpoint", "dekaf"}},
		{"collections", "derivation", []string{"derive", "using", "connector"}},
		{"collections", "derivation", []string{"derive", "using", "local"}},
		// A materialization on a local endpoint runs the connector's own
		// code, which reads the schedule in its config all the same.
		{"materializations", "local materialization", []string{"endpoint", "local"}},
	} {
		specs := doc.Root.Get(k.key)
		if specs == nil || specs.Kind != tree.Object {
			continue
		}
		for _, f := range specs.Fields {
			conn := f.Value.Path(k.path...)
			cfg := conn.Get("config")
			if s, ok := cfg.Str(); ok && s != "" {
				img, _ := conn.Get("image").Str()
				l.ref(in, ConfigRef{Kind: k.kind, Name: f.Key, Image: img, File: doc.File, Line: cfg.Line()}, s)
			}
		}
	}
}

// ref records a reference to the config file rel (relative to the
// source), resolved as Flow reads it, with the identity of the file it
// names. A reference that escapes the root is recorded as refused, its
// target stat'ed (for its identity) but never read.
func (l *loader) ref(in Input, r ConfigRef, rel string) {
	p, msg := ContainRef(in, r.File, rel, "config file")
	r.Refused = msg
	r.Path = p
	if p == "" {
		// A URL: what it names, as Flow spells it, for Users to match.
		r.Path, _, _ = paths.FlowPath(rel)
		if r.Path == "" {
			r.Path = rel
		}
	}
	if p != "" {
		r.ID, r.HasID = paths.Identify(p)
	}
	l.cat.Refs = append(l.cat.Refs, r)
}

func DisplayName(path string) string {
	if path == "-" {
		return "<stdin>"
	}
	return path
}

func (l *loader) imports(in Input, from string, imp *tree.Node, chain []string) {
	var items []*tree.Node
	switch imp.Kind {
	case tree.Array:
		items = imp.Items
	case tree.Null:
		return
	default:
		l.problemAt(imp, "import must be a list of relative paths")
		return
	}
	for _, it := range items {
		s, ok := it.Str()
		if !ok {
			l.problemAt(it, "an import must be a string: a path relative to the importing file")
			continue
		}
		p, msg := ContainRef(in, from, s, "import")
		if msg == "" {
			l.graph.edge(from, p)
		}
		if msg != "" {
			l.problemAt(it, msg)
			// Flow reads it (through a symlink, say): what it holds is
			// unknown here, so it might use any config file.
			l.unparsed(fmt.Sprintf("%s (imported by %s)", s, from), "is refused: "+msg, nil)
			continue
		}
		l.source(in, p, chain, it)
	}
}
