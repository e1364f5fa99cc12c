package catalog

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/estuary/schedtool/catalog/tree"
	"github.com/estuary/schedtool/finding"
	"github.com/estuary/schedtool/internal/paths"
	"github.com/estuary/schedtool/schedule/connector"
	"github.com/estuary/schedtool/schemas"
)

// Materialization is one materialization spec, wherever it was read.
type Materialization struct {
	Name   string
	Source *tree.Doc  // the source file or dump row it is defined in
	Spec   *tree.Node // the materialization object

	Image     string     // endpoint.connector.image, "" when none
	ImageNode *tree.Node // nil when none
	Endpoint  string     // "connector", "local", "dekaf" or ""
	Config    *Config    // nil when the endpoint has no connector config
	Row       *Row       // set for stored specs
}

// Row is the stored-spec row a materialization came from.
type Row struct {
	Line      int
	LastPubID string
	ImageName string
	ImageTag  string
}

// Config is a connector config: inline, or in a file of its own.
type Config struct {
	Doc     *tree.Doc  // the document the config lives in
	Node    *tree.Node // the config object as written
	RefNode *tree.Node // the path string naming the file, for a config file
	File    *ConfigFile

	Sealed  bool       // a sops stanza is present
	Sops    *tree.Node // the sops stanza
	Overlay *tree.Node // sops.overlay, when present
	Suffix  string     // sops encrypted_suffix, when set

	// Effective is what the connector sees: sops removed, the encrypted
	// suffix stripped from keys, sops.overlay merge-patched over it. Its
	// leaves are the nodes as written, so they point where they were read.
	Effective *tree.Node
	// Err is set when the config cannot be read; the materialization's
	// schedule is then unknown.
	Err string
}

// V2 reports whether the task runs on the V2 runtime: shards.flags
// enable-runtime-v2 is exactly the string "true". flag is that node.
func (m *Materialization) V2() (v2 bool, flag *tree.Node) {
	flag = m.Spec.Path("shards", "flags", "enable-runtime-v2")
	s, ok := flag.Str()
	return ok && s == "true", flag
}

// Deleted reports whether the spec is a deletion (delete: true): not a
// task, skipped everywhere.
func (m *Materialization) Deleted() bool {
	d := m.Spec.Get("delete")
	return d != nil && d.Kind == tree.Bool && d.Value == "true"
}

// Disabled reports whether the task's shards are disabled
// (shards.disable: true). It is still a user of its schedule: it paces
// again when enabled.
func (m *Materialization) Disabled() bool {
	d := m.Spec.Path("shards", "disable")
	return d != nil && d.Kind == tree.Bool && d.Value == "true"
}

// SpecProblem is a value of a materialization spec whose type Flow's
// model refuses (schemas.Task): delete or shards.disable not a boolean,
// shards not an object, shards.flags not an object of strings. Flow's
// build fails on it.
type SpecProblem struct {
	Node *tree.Node // the value at fault
	Path []string   // its keys from the spec
}

// RuntimeFlag reports whether the problem is the enable-runtime-v2 flag's
// own value (not a string): what --enable-runtime-v2 rewrites.
func (p SpecProblem) RuntimeFlag() bool {
	return len(p.Path) == 3 && p.Path[0] == "shards" && p.Path[1] == "flags" && p.Path[2] == "enable-runtime-v2"
}

// Flag reports whether the problem is in shards.flags (the object or one
// of its values).
func (p SpecProblem) Flag() bool {
	return len(p.Path) >= 2 && p.Path[0] == "shards" && p.Path[1] == "flags"
}

// Describe says what is wrong, without the task's name:
// `shards.disable must be a boolean, not the string "true"`.
func (p SpecProblem) Describe() string {
	want := "a boolean"
	switch {
	case len(p.Path) == 1 && p.Path[0] == "shards":
		want = "an object"
	case len(p.Path) == 2 && p.Flag():
		want = "an object of string values"
	case len(p.Path) == 3 && p.Flag():
		want = "a string"
	}
	return fmt.Sprintf("%s must be %s, not %s", strings.Join(p.Path, "."), want, describeValue(p.Node))
}

// describeValue names a value for a message: its type, and a scalar's text.
func describeValue(n *tree.Node) string {
	switch n.Kind {
	case tree.String:
		return "the string " + strconv.Quote(n.Value)
	case tree.Bool, tree.Number:
		return "the " + n.Kind.String() + " " + n.Value
	case tree.Null:
		return "null"
	}
	return tree.Article(n.Kind)
}

// SpecProblems checks delete, shards, shards.disable and shards.flags
// against the types of Flow's model (schemas.CheckTask), in path order.
func (m *Materialization) SpecProblems() []SpecProblem {
	del, shards := m.Spec.Get("delete"), m.Spec.Get("shards")
	if del == nil && shards == nil {
		return nil
	}
	v := make(map[string]any, 2)
	if del != nil {
		v["delete"] = del.Interface(nil)
	}
	if shards != nil {
		v["shards"] = shards.Interface(nil)
	}
	ps := schemas.CheckTask(v)
	if len(ps) == 0 {
		return nil
	}
	out := make([]SpecProblem, 0, len(ps))
	for _, p := range ps {
		n := m.Spec.Path(p.Path...)
		if n == nil || len(p.Path) == 0 {
			continue // not a value of the spec: cannot happen with Task's schema
		}
		out = append(out, SpecProblem{Node: n, Path: p.Path})
	}
	return out
}

// ModelSchedule is the materialization's syncSchedule, nil when absent or null.
func (m *Materialization) ModelSchedule() *tree.Node {
	n := m.Spec.Get("syncSchedule")
	if n.IsNull() {
		return nil
	}
	return n
}

// Where is how the task's connector config reaches the control plane,
// which decides whether its schedule values must be in the image's
// published enum (docs/behaviour.md §4.1): a stored spec, a sealed (sops)
// config, or a plaintext one (also when there is no config yet).
func (m *Materialization) Where() connector.Where {
	switch {
	case m.Row != nil:
		return connector.Stored
	case m.Config != nil && m.Config.Sealed:
		return connector.Sealed
	}
	return connector.Plaintext
}

// Tag is the image's tag ("" for a digest alone or none).
func (m *Materialization) Tag() string {
	_, tag := connector.SplitImage(m.Image)
	return tag
}

// Pos is the position of a node, as findings carry it.
func Pos(n *tree.Node) finding.Position {
	if n == nil {
		return finding.Position{}
	}
	return finding.Position{File: n.Doc.Name(), Line: n.Line(), Column: n.Col(), Pointer: n.Pointer()}
}

// materialization reads one materialization of a source.
func (l *loader) materialization(in Input, doc *tree.Doc, f *tree.Field) {
	if f.Value.Kind != tree.Object {
		l.problemAt(f.Value, fmt.Sprintf("materialization %s must be an object, not %s", f.Key, tree.Article(f.Value.Kind)))
		return
	}
	m := &Materialization{Name: f.Key, Source: doc, Spec: f.Value}
	if m.Deleted() {
		return // a deletion, not a task
	}
	if l.opts.Exclude != nil && l.opts.Exclude(doc.File) {
		// Not a task of the run; Users still finds it. Counted, so that a
		// run whose tasks are all excluded says so (docs/behaviour.md §13):
		// by name, as every count of tasks is (one defined in two
		// excluded sources is one task).
		if !l.excludedName[m.Name] {
			if l.excludedName == nil {
				l.excludedName = map[string]bool{}
			}
			l.excludedName[m.Name] = true
			l.cat.Excluded++
		}
		if !l.excludedSrc[doc.File] {
			if l.excludedSrc == nil {
				l.excludedSrc = map[string]bool{}
			}
			l.excludedSrc[doc.File] = true
			l.cat.ExcludedSources++
		}
		return
	}
	probs := Extract(m, l.opts)
	if !l.opts.Select.Take(m.Name, m.Image) {
		return
	}
	l.cat.Problems = append(l.cat.Problems, probs...)
	if m.Config != nil && m.Config.RefNode != nil {
		l.configFile(in, doc, m)
	}
	l.cat.Materializations = append(l.cat.Materializations, m)
}

// Extract reads the endpoint and inline config of a materialization whose
// Spec is set. A config given as a path is left for the loader (Config.RefNode).
func Extract(m *Materialization, opts Options) []finding.Finding {
	var probs []finding.Finding
	add := func(n *tree.Node, msg string) {
		probs = append(probs, finding.Finding{Rule: finding.ParseError, Severity: finding.Error, Task: m.Name, Pos: Pos(n), Message: msg})
	}
	ep := m.Spec.Get("endpoint")
	if ep == nil || ep.Kind != tree.Object {
		return probs
	}
	for _, kind := range []string{"connector", "local", "dekaf"} {
		if ep.Get(kind) != nil {
			m.Endpoint = kind
			break
		}
	}
	conn := ep.Get("connector")
	if conn == nil || conn.Kind != tree.Object {
		return probs
	}
	if img := conn.Get("image"); img != nil {
		if s, ok := img.Str(); ok {
			m.Image, m.ImageNode = s, img
		} else {
			add(img, "endpoint.connector.image must be a string")
		}
	}
	cfg := conn.Get("config")
	switch {
	case cfg == nil || cfg.Kind == tree.Null:
		return probs
	case cfg.Kind == tree.Object:
		m.Config = &Config{Doc: m.Source, Node: cfg}
		m.Config.prepare()
	case cfg.Kind == tree.String && cfg.Value != "":
		m.Config = &Config{Doc: m.Source, RefNode: cfg}
	default:
		add(cfg, fmt.Sprintf("materialization %s: endpoint.connector.config must be an object or a relative path to a config file, not %s", m.Name, tree.Article(cfg.Kind)))
	}
	return probs
}

func (l *loader) configFile(in Input, doc *tree.Doc, m *Materialization) {
	c := m.Config
	l.ref(in, ConfigRef{Kind: "materialization", Name: m.Name, Image: m.Image, File: doc.File, Line: c.RefNode.Line()}, c.RefNode.Value)
	p, msg := ContainRef(in, doc.File, c.RefNode.Value, "config file")
	if msg != "" {
		c.Err = msg
		l.problemAt(c.RefNode, msg)
		return
	}
	// One file reached by two paths (a symlink) is one config file with
	// every user, so the shared-file guard sees them all.
	key := paths.Key(p)
	if known, ok := l.configs[key]; ok {
		p = known
	} else {
		l.configs[key] = p
	}
	if cf, ok := l.cat.Configs[p]; ok {
		cf.Users = append(cf.Users, m)
		if cf.Doc == nil {
			c.Err = "config file " + l.show.Display(p) + " cannot be read"
			return
		}
		c.Doc, c.Node, c.File = cf.Doc, cf.Doc.Root, cf
		c.prepare()
		return
	}
	cf := &ConfigFile{Users: []*Materialization{m}}
	l.cat.Configs[p] = cf
	src, err := l.readFile(in, p)
	if err != nil {
		c.Err = fmt.Sprintf("cannot read config file %s: %v", l.show.Display(p), err)
		l.problemAt(c.RefNode, c.Err)
		return
	}
	text, enc, terr := tree.DecodeText(src)
	if terr != nil {
		c.Err = l.show.Display(p) + ": " + terr.Msg
		l.problem(p, terr.Line, terr.Col, "", terr.Msg)
		return
	}
	d, err := l.parse(p, text)
	if err != nil {
		c.Err = "config file " + l.show.Display(p) + " does not parse"
		l.syntaxProblem(p, text, err)
		return
	}
	d.Encoding = enc
	if enc != "" {
		d.Orig = src
	}
	d.Shown = l.show.Display(p)
	l.cat.Docs[p] = d
	if d.Root.Kind != tree.Object {
		c.Err = fmt.Sprintf("config file %s must hold an object, not %s", l.show.Display(p), tree.Article(d.Root.Kind))
		l.problemAt(d.Root, c.Err)
		return
	}
	cf.Doc = d
	c.Doc, c.Node, c.File = d, d.Root, cf
	c.prepare()
}

// prepare computes the effective config of a readable config.
func (c *Config) prepare() {
	eff := c.Node
	if sops := c.Node.Get("sops"); sops != nil && sops.Kind == tree.Object {
		c.Sealed, c.Sops = true, sops
		eff = eff.Without("sops")
		if s, ok := sops.Get("encrypted_suffix").Str(); ok && s != "" {
			c.Suffix = s
			eff = stripSuffix(eff, s)
		}
		if ov := sops.Get("overlay"); ov != nil && ov.Kind == tree.Object {
			c.Overlay = ov
			eff = tree.MergePatch(eff, ov)
		}
	}
	c.Effective = eff
}

// Value is the effective config as a generic value, encrypted values as
// connector.Encrypted. With keys, only the top-level keys that match one of
// them as encoding/json matches keys (case-insensitively, what a schedule
// classification reads) are converted, as a connector.Object: objects keep
// their keys in document order, since the connectors' decoding reports the
// first defect it meets and lets the last of repeated keys win.
func (c *Config) Value(keys ...string) any {
	if len(keys) == 0 {
		return c.ValueOf(nil)
	}
	return c.ValueOf(func(k string) bool {
		for _, want := range keys {
			if strings.EqualFold(k, want) {
				return true
			}
		}
		return false
	})
}

// ValueOf is Value with the top-level keys that keep chosen by a function
// (all of them when keep is nil).
func (c *Config) ValueOf(keep func(string) bool) any {
	sealed := c.Sealed
	leaf := func(n *tree.Node) (any, bool) {
		if sealed && n.Kind == tree.String && IsEncrypted(n.Value) {
			return connector.Encrypted{Text: n.Value}, true
		}
		return nil, false
	}
	if keep == nil || c.Effective.Kind != tree.Object {
		return c.Effective.Interface(leaf)
	}
	var obj connector.Object
	for _, f := range c.Effective.Fields {
		if keep(f.Key) {
			obj = append(obj, connector.Field{Key: f.Key, Value: ordered(f.Value, leaf)})
		}
	}
	return obj
}

// ordered converts a node as Interface does, but objects become
// connector.Objects in document order.
func ordered(n *tree.Node, leaf func(*tree.Node) (any, bool)) any {
	switch n.Kind {
	case tree.Object:
		o := make(connector.Object, len(n.Fields))
		for i, f := range n.Fields {
			o[i] = connector.Field{Key: f.Key, Value: ordered(f.Value, leaf)}
		}
		return o
	case tree.Array:
		l := make([]any, len(n.Items))
		for i, x := range n.Items {
			l[i] = ordered(x, leaf)
		}
		return l
	}
	return n.Interface(leaf)
}

// IsEncrypted reports whether a value is a sops ciphertext.
func IsEncrypted(s string) bool { return strings.HasPrefix(s, "ENC[") && strings.HasSuffix(s, "]") }

// stripSuffix renames keys ending in the encrypted suffix, as Flow does
// after decryption.
func stripSuffix(n *tree.Node, suffix string) *tree.Node {
	switch n.Kind {
	case tree.Object:
		c := *n
		c.Fields = make([]tree.Field, len(n.Fields))
		for i, f := range n.Fields {
			if strings.HasSuffix(f.Key, suffix) && len(f.Key) > len(suffix) {
				f.Key = strings.TrimSuffix(f.Key, suffix)
			}
			f.Value = stripSuffix(f.Value, suffix)
			c.Fields[i] = f
		}
		return &c
	case tree.Array:
		c := *n
		c.Items = make([]*tree.Node, len(n.Items))
		for i, x := range n.Items {
			c.Items[i] = stripSuffix(x, suffix)
		}
		return &c
	}
	return n
}

// ConnectorSchedule classifies the materialization's connector schedule:
// its registry entry (nil when not a scheduling image), tag, and result.
// An unreadable config gives an invalid schedule whose problem says why.
func (m *Materialization) ConnectorSchedule(reg *connector.Registry) (*connector.Entry, string, connector.Result) {
	if m.Image == "" {
		return nil, "", connector.Result{}
	}
	entry, tag, ok := reg.Lookup(m.Image)
	if !ok {
		return nil, tag, connector.Result{}
	}
	if m.Config != nil && m.Config.Err != "" {
		return entry, tag, connector.Result{Family: entry.Family, Kind: connector.KindInvalid,
			Problems: []connector.Problem{{Kind: connector.ProblemInvalid, Msg: m.Config.Err}}}
	}
	var value any = connector.Object{}
	if m.Config != nil {
		value = m.Config.ValueOf(func(k string) bool { return reg.Reads(entry, k) })
	}
	return entry, tag, reg.Classify(entry, tag, value)
}
