// Package catalog reads Flow catalogs: sources with their imports, config
// files, sealed (sops) configs, and stored-spec (live_specs) dumps, into
// materializations whose every node knows its file, line, column and JSON
// pointer.
package catalog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"schedtool/catalog/tree"
	"schedtool/finding"
)

// Options bound what the loader reads.
type Options struct {
	Limits      tree.Limits
	MaxFileSize int64 // bytes; a larger source or config is refused
	MaxRowSize  int   // bytes; a longer stored-spec row is refused
	Stdin       io.Reader
	// Root, when set (--root), is the containment root of every input;
	// otherwise each input's root is the git work tree enclosing it, or
	// its own directory.
	Root string
	// Select, when set, keeps only the tasks it picks and records which of
	// its values picked one.
	Select *Selection
	// DBTimeout and DBRows go to every database input's Selector (its
	// Timeout and Rows).
	DBTimeout time.Duration
	DBRows    *atomic.Int64
	// Progress, when set, counts the bytes of dump rows read (for a
	// progress line).
	Progress *atomic.Int64
}

// DefaultOptions are the limits schedtool runs with unless told otherwise.
func DefaultOptions() Options {
	return Options{Limits: tree.DefaultLimits, MaxFileSize: 64 << 20, MaxRowSize: 64 << 20, DBTimeout: time.Minute}
}

// UsageError is a PATH the tool cannot work with (exit code 1).
type UsageError struct {
	Msg string
	// Incomplete says that an input failed part way through its rows
	// (a lost database connection, say): what a command wrote from the
	// rows before is a part passing for the whole, and goes.
	Incomplete bool
}

func (e *UsageError) Error() string { return e.Msg }

// Input is one PATH of the command line, resolved.
type Input struct {
	Arg     string // as given
	Root    string // the directory imports and configs must stay inside
	RootWhy string // how Root was chosen, for messages
	Dir     string // the directory searched, for a directory PATH
	// Scanned counts the YAML and JSON files seen while searching a
	// directory (catalog sources or not).
	Scanned int
	Sources []string // catalog source files (display paths)
	Dump    string   // a stored-spec dump file, "-" for standard input, or a database URL without its password
	Stdin   []byte   // standard input, when Arg is "-"
	// DB is the libpq URL of a database PATH (postgres://...), whose
	// live_specs rows are read as a dump, with Select pushed down.
	DB     string
	Select Selector
	// Raw is set when Dump is flowctl raw get output (a JSON array of
	// rows) rather than one row a line.
	Raw bool
	// held holds a database input's rows once read (HoldDB).
	held *os.File
}

// Resolve turns command-line PATHs into inputs. An unreadable PATH, or
// nothing to read, is a UsageError.
func Resolve(args []string, opts Options) ([]Input, error) {
	if len(args) == 0 {
		return nil, &UsageError{Msg: "no PATH given: name a catalog source, a directory, a .ndjson dump, or - for standard input"}
	}
	var out []Input
	for _, arg := range args {
		if IsDBURL(arg) {
			in := Input{Arg: RedactURL(arg), Root: ".", RootWhy: "the working directory", Dump: RedactURL(arg), DB: arg}
			if opts.Select != nil {
				in.Select = opts.Select.Selector
			}
			in.Select.MaxSpec = opts.MaxRowSize
			in.Select.Timeout, in.Select.Rows = opts.DBTimeout, opts.DBRows
			out = append(out, in)
			continue
		}
		if arg == "-" {
			if opts.Stdin == nil {
				return nil, &UsageError{Msg: "-: no standard input"}
			}
			b, err := io.ReadAll(io.LimitReader(opts.Stdin, opts.MaxFileSize+1))
			if err != nil {
				return nil, &UsageError{Msg: "-: " + err.Error()}
			}
			if int64(len(b)) > opts.MaxFileSize {
				return nil, &UsageError{Msg: fmt.Sprintf("-: standard input is larger than %d bytes", opts.MaxFileSize)}
			}
			if len(bytes.TrimSpace(b)) == 0 {
				// Nothing is not zero tasks: a gate must not pass on it.
				return nil, &UsageError{Msg: "-: standard input is empty: no catalog source and no stored-spec rows"}
			}
			in := Input{Arg: arg, Root: ".", RootWhy: "the working directory", Stdin: b}
			if opts.Root != "" {
				in.Root, in.RootWhy = filepath.Clean(opts.Root), "--root"
			}
			if IsRawRows(b) {
				in.Dump, in.Raw = "-", true
			} else if looksLikeDump(b) {
				in.Dump = "-"
			} else {
				in.Sources = []string{"-"}
			}
			out = append(out, in)
			continue
		}
		st, err := os.Stat(arg)
		if err != nil {
			return nil, &UsageError{Msg: missingPath(arg, err)}
		}
		if st.IsDir() {
			srcs, other, err := findSources(arg)
			if err != nil {
				return nil, &UsageError{Msg: fmt.Sprintf("%s: %s", arg, describeErr(err))}
			}
			if len(srcs) == 0 {
				if other > 0 {
					return nil, &UsageError{Msg: fmt.Sprintf("%s: %d YAML or JSON %s under this directory, but no catalog source: sources are named flow.yaml, flow.yml, flow.json or *.flow.yaml, *.flow.yml, *.flow.json (give another file by its path)", arg, other, plural(other, "file", "files"))}
				}
				return nil, &UsageError{Msg: fmt.Sprintf("%s: no catalog source under this directory (flow.yaml, flow.yml, flow.json, *.flow.yaml, *.flow.yml, *.flow.json)", arg)}
			}
			in := Input{Arg: arg, Dir: filepath.Clean(arg), Sources: srcs, Scanned: len(srcs) + other}
			if err := setRoot(&in, filepath.Clean(arg), opts.Root); err != nil {
				return nil, err
			}
			out = append(out, in)
			continue
		}
		f, _, err := OpenRegular(arg)
		if err != nil {
			return nil, &UsageError{Msg: fmt.Sprintf("%s: %s", arg, describeErr(err))}
		}
		// The content tells flowctl raw get output (a JSON array) from a
		// source; only a regular file is read ahead (reading a pipe would
		// consume what the command reads later).
		head := make([]byte, 512)
		n := 0
		if st.Mode().IsRegular() {
			n, _ = io.ReadFull(f, head)
		}
		f.Close()
		in := Input{Arg: arg}
		if err := setRoot(&in, filepath.Dir(filepath.Clean(arg)), opts.Root); err != nil {
			return nil, err
		}
		if IsRawRows(head[:n]) {
			in.Dump, in.Raw = filepath.Clean(arg), true
		} else if IsDumpPath(arg) || st.Mode().IsRegular() && firstLineIsRow(arg, head[:n], opts.MaxRowSize) {
			in.Dump = filepath.Clean(arg)
		} else {
			in.Sources = []string{filepath.Clean(arg)}
		}
		out = append(out, in)
	}
	return out, nil
}

// IsDumpPath reports whether a file name is a stored-spec dump.
func IsDumpPath(p string) bool {
	ext := strings.ToLower(filepath.Ext(p))
	return ext == ".ndjson" || ext == ".jsonl"
}

// firstLineIsRow reports whether a file not named as a dump holds one
// anyway: its first line is a live_specs row (a one-row dump saved as
// .json, a dump under another name). Read as a catalog source, such a
// file is a catalog with no materializations: a false zero.
func firstLineIsRow(path string, head []byte, maxRow int) bool {
	h := bytes.TrimLeft(bytes.TrimPrefix(head, bom), " \t\r\n")
	if len(h) == 0 || h[0] != '{' {
		return false // not JSON: a YAML source is not read twice
	}
	f, _, err := OpenRegular(path)
	if err != nil {
		return false // said when the file is read as a source
	}
	defer f.Close()
	if maxRow <= 0 {
		maxRow = 64 << 20
	}
	line, err := bufio.NewReader(io.LimitReader(f, int64(maxRow)+1)).ReadSlice('\n')
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return false
	}
	if errors.Is(err, bufio.ErrBufferFull) {
		// A first line longer than the buffer: read it whole, up to the
		// row limit.
		f.Seek(0, io.SeekStart)
		b, _ := io.ReadAll(io.LimitReader(f, int64(maxRow)+1))
		line, _, _ = bytes.Cut(b, []byte("\n"))
	}
	return looksLikeDump(line)
}

var bom = []byte("\xef\xbb\xbf")

// skipBOM drops a UTF-8 byte order mark at the start of a dump.
func skipBOM(r io.Reader) io.Reader { return dropBOM(bufio.NewReader(r)) }

// dropBOM discards a UTF-8 byte order mark at the start of br.
func dropBOM(br *bufio.Reader) *bufio.Reader {
	if b, _ := br.Peek(len(bom)); bytes.Equal(b, bom) {
		br.Discard(len(bom))
	}
	return br
}

// looksLikeDump reports whether b begins with a stored-spec row: a line
// holding one JSON object with a catalog_name or spec_type key. The row
// need not be one the dump reader takes (a duplicate key, a bad value),
// nor even complete (a row cut short): that is said of it, as a row, and
// the rows after it are still read.
func looksLikeDump(b []byte) bool {
	b = bytes.TrimPrefix(b, bom)
	line, _, _ := bytes.Cut(bytes.TrimLeft(b, " \t\r\n"), []byte("\n"))
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return false
	}
	// encoding/json takes duplicate keys (the last wins).
	var row map[string]json.RawMessage
	if json.Unmarshal(line, &row) == nil {
		// A row without spec_type is still a row (an unreadable one).
		_, name := row["catalog_name"]
		_, typ := row["spec_type"]
		return name || typ
	}
	// Not JSON: a row if it begins as one does.
	rest := bytes.TrimLeft(line[1:], " \t")
	for _, key := range []string{`"catalog_name"`, `"spec_type"`} {
		if k, ok := bytes.CutPrefix(rest, []byte(key)); ok {
			return bytes.HasPrefix(bytes.TrimLeft(k, " \t"), []byte(":"))
		}
	}
	return false
}

func describeErr(err error) string {
	switch {
	case errors.Is(err, syscall.ELOOP) || strings.Contains(err.Error(), "too many links"):
		return "a symlink loop (too many levels of symbolic links)"
	case errors.Is(err, fs.ErrNotExist):
		return "no such file or directory"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// IsSourceName reports whether a file name is a catalog source's:
// flow.yaml|yml|json, or a name ending in .flow.yaml|yml|json (as
// Estuary's examples name them: snowflake.flow.yaml).
func IsSourceName(name string) bool {
	for _, ext := range []string{".yaml", ".yml", ".json"} {
		if name == "flow"+ext || (strings.HasSuffix(name, ".flow"+ext) && len(name) > len(".flow"+ext)) {
			return true
		}
	}
	return false
}

func isYAMLOrJSON(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// findSources lists the catalog sources under dir, hidden directories
// skipped, and counts the other YAML and JSON files it saw.
func findSources(dir string) (srcs []string, other int, err error) {
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != dir && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		if IsSourceName(d.Name()) {
			srcs = append(srcs, filepath.Clean(p))
		} else if isYAMLOrJSON(d.Name()) {
			other++
		}
		return nil
	})
	sort.Strings(srcs)
	return srcs, other, err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// setRoot chooses the containment root of an input whose own directory
// is dir: --root when given (the input must be inside it), else the top
// of the git work tree enclosing dir (a .git file or directory), else dir.
// The root is written in the same form as the input's paths (relative or
// absolute), so that paths can be compared with it.
func setRoot(in *Input, dir, root string) error {
	if root != "" {
		st, err := os.Stat(root)
		if err != nil {
			return &UsageError{Msg: fmt.Sprintf("--root %s: %s", root, describeErr(err))}
		}
		if !st.IsDir() {
			return &UsageError{Msg: fmt.Sprintf("--root %s: not a directory", root)}
		}
		r := sameForm(filepath.Clean(root), dir)
		if !within(r, dir) && r != dir {
			return &UsageError{Msg: fmt.Sprintf("%s is outside --root %s", in.Arg, root)}
		}
		in.Root, in.RootWhy = r, "--root"
		return nil
	}
	if top := gitTop(dir); top != "" {
		in.Root, in.RootWhy = top, "the enclosing git work tree"
		return nil
	}
	in.Root, in.RootWhy = dir, "the PATH's own directory"
	return nil
}

// sameForm writes p relative to the working directory when like is
// relative, absolute when like is absolute.
func sameForm(p, like string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if filepath.IsAbs(like) {
		return abs
	}
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	if rel, err := filepath.Rel(wd, abs); err == nil {
		return rel
	}
	return p
}

// gitTop finds the closest directory at or above dir holding .git, by
// climbing dir's path (in dir's own form); "" when there is none.
func gitTop(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	cur := dir
	for {
		if _, err := os.Lstat(filepath.Join(abs, ".git")); err == nil {
			return cur
		}
		parent := filepath.Dir(abs)
		if parent == abs {
			return ""
		}
		abs, cur = parent, filepath.Join(cur, "..")
	}
}

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
	// Holders are, by config path, the users of the file that this run
	// does not migrate with the others (see Users); set by migrate.
	Holders map[string][]Holder
}

// ConfigRef is one reference to a config file, by a task of a source.
type ConfigRef struct {
	Kind  string // "materialization", "capture" or "derivation"
	Name  string
	Image string
	File  string // the source that holds it
	Line  int
	ID    FileID // the file it names; set when it could be stat'ed
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
	opts    Options
	cat     *Catalog
	loaded  map[any]bool // by fileKey: identity, so a file reached by two paths is read once
	visitng map[any]bool
	configs map[any]string // config files by fileKey, to the path they are known by
}

// Load reads the sources of the inputs (not their dumps), following
// imports and config files.
func Load(inputs []Input, opts Options) *Catalog {
	if opts.Limits.Expanded == nil {
		opts.Limits.Expanded = new(int) // alias expansion is held to the limit over every file
	}
	l := &loader{opts: opts, cat: &Catalog{Docs: map[string]*tree.Doc{}, Configs: map[string]*ConfigFile{}},
		loaded: map[any]bool{}, visitng: map[any]bool{}, configs: map[any]string{}}
	for _, in := range inputs {
		for _, src := range in.Sources {
			// Named on the command line or found by walking, a source
			// that resolves outside the root is never read (nor written).
			if msg := escapesRoot(in, src); msg != "" {
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
	finding.Sort(l.cat.Problems)
	return l.cat
}

func (l *loader) problem(file string, line, col int, ptr, msg string) {
	l.cat.Problems = append(l.cat.Problems, finding.Finding{Rule: finding.ParseError, Severity: finding.Error,
		Pos: finding.Position{File: file, Line: line, Column: col, Pointer: ptr}, Message: msg})
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
	b, err := ReadRegular(path, l.opts.MaxFileSize, "--max-file-size")
	if err != nil {
		var nr *NotRegularError
		if errors.As(err, &nr) && nr.Mode.IsDir() {
			return nil, errors.New("is a directory")
		}
		return nil, errors.New(describeErr(err))
	}
	return b, nil
}

// Parse parses a document by its file name: .json with the JSON parser,
// anything else as YAML (a JSON document given another name is read by
// the JSON parser too, so tab indentation loads).
func Parse(file string, src []byte, lim tree.Limits) (*tree.Doc, error) {
	if strings.EqualFold(filepath.Ext(file), ".json") || looksJSON(src) {
		return tree.ParseJSON(file, src, lim)
	}
	return tree.ParseYAML(file, src, lim)
}

func looksJSON(src []byte) bool {
	t := bytes.TrimLeft(src, " \t\r\n")
	return len(t) > 0 && (t[0] == '{' || t[0] == '[')
}

func (l *loader) parse(file string, src []byte) (*tree.Doc, error) {
	d, err := Parse(file, src, l.opts.Limits)
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
	key := fileKey(path)
	if l.visitng[key] {
		l.problemAt(ref, "import cycle: "+cycleText(chain, path))
		return
	}
	if l.loaded[key] {
		return
	}
	l.loaded[key] = true
	src, err := l.readFile(in, path)
	if err != nil {
		if ref != nil {
			l.problemAt(ref, fmt.Sprintf("cannot read import %s: %v", path, err))
		} else {
			l.problem(path, 1, 1, "", "cannot read: "+err.Error())
		}
		if st, serr := os.Stat(path); serr == nil && st.Mode().IsRegular() {
			// A file there that cannot be read (permissions, size) might
			// hold anything; a directory or a missing import holds nothing.
			l.unparsed(path, "cannot be read: "+err.Error(), nil)
		}
		return
	}
	if line, col, problem := checkText(src); problem != "" {
		l.problem(path, line, col, "", problem)
		l.unparsed(path, problem, src)
		return
	}
	doc, err := l.parse(displayName(path), src)
	if err != nil {
		l.syntaxProblem(path, src, err)
		l.unparsed(path, "does not parse: "+syntaxMsg(err), src)
		return
	}
	l.cat.Docs[doc.File] = doc
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
		l.problemAt(root, "a catalog source must be an object, not "+article(root.Kind))
		l.unparsed(path, "is not a catalog source (it holds "+article(root.Kind)+")", src)
		return
	}
	l.visitng[key] = true
	defer delete(l.visitng, key)
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

// captures records the config files the captures and derivations of a
// source name: each is a user of a config file it shares with
// materializations, and schedtool never migrates it.
func (l *loader) captures(in Input, doc *tree.Doc) {
	for _, k := range []struct {
		key, kind string
		path      []string
	}{
		{"captures", "capture", []string{"endpoint", "connector"}},
		{"collections", "derivation", []string{"derive", "using", "connector"}},
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
// source), with the identity of the file it names. A reference that
// escapes the root is recorded as refused, its target stat'ed (for its
// identity) but never read.
func (l *loader) ref(in Input, r ConfigRef, rel string) {
	p, msg := l.contain(in, r.File, rel, "config file")
	if msg != "" {
		r.Refused = msg
		if !filepath.IsAbs(rel) && !strings.Contains(rel, "://") && r.File != "-" {
			p = filepath.Join(filepath.Dir(r.File), filepath.FromSlash(rel))
		} else {
			p = rel
		}
	}
	if p != "" {
		r.ID, r.HasID = Identify(p)
	}
	l.cat.Refs = append(l.cat.Refs, r)
}

func displayName(path string) string {
	if path == "-" {
		return "<stdin>"
	}
	return path
}

// checkText refuses input that is not text: NUL bytes or invalid UTF-8,
// with where the first one is.
func checkText(b []byte) (line, col int, problem string) {
	at := func(i int) (int, int) {
		start := bytes.LastIndexByte(b[:i], '\n') + 1
		return bytes.Count(b[:i], []byte("\n")) + 1, utf8.RuneCount(b[start:i]) + 1
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		line, col = at(i)
		return line, col, fmt.Sprintf("not a text file (a NUL byte at offset %d)", i)
	}
	if !utf8.Valid(b) {
		i := 0
		for i < len(b) {
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			i += size
		}
		line, col = at(i)
		return line, col, fmt.Sprintf("not UTF-8 text (an invalid byte 0x%02x at offset %d)", b[i], i)
	}
	return 0, 0, ""
}

func article(k tree.Kind) string {
	switch k {
	case tree.Object, tree.Array:
		return "an " + k.String()
	}
	return "a " + k.String()
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
		p, msg := l.contain(in, from, s, "import")
		if msg != "" {
			l.problemAt(it, msg)
			continue
		}
		l.source(in, p, chain, it)
	}
}

// contain resolves a path named in file from and checks that it stays
// inside the input's root, symlinks resolved.
func (l *loader) contain(in Input, from, rel, what string) (string, string) {
	if rel == "" {
		return "", what + " path is empty"
	}
	if strings.Contains(rel, "://") || strings.HasPrefix(rel, "file:") {
		return "", fmt.Sprintf("%s %q is a URL; schedtool reads only paths relative to the importing file", what, rel)
	}
	if filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") {
		return "", fmt.Sprintf("%s %q is an absolute path; it must be relative and stay inside %s", what, rel, in.Root)
	}
	dir := "."
	if from != "-" {
		dir = filepath.Dir(from)
	}
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if !within(in.Root, p) {
		return "", fmt.Sprintf("%s %q escapes the root directory %s (%s); give a wider one with --root DIR", what, rel, in.Root, in.RootWhy)
	}
	if real, outside, err := outsideRoot(in.Root, p); outside {
		return "", fmt.Sprintf("%s %q resolves through a symlink to %s, outside the root directory %s (%s; --root DIR sets it)", what, rel, real, in.Root, in.RootWhy)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Sprintf("%s %q: %s", what, rel, describeErr(err))
	}
	return p, ""
}

func within(root, p string) bool {
	if _, err := filepath.Rel(root, p); err != nil {
		// Relative paths Rel cannot relate (a root above the working
		// directory: --root ..) are compared absolute.
		ar, err1 := filepath.Abs(root)
		ap, err2 := filepath.Abs(p)
		if err1 != nil || err2 != nil {
			return false
		}
		root, p = ar, ap
	}
	_, ok := Under(root, p)
	return ok
}

// Under reports whether the path p is dir or below it, lexically (no
// symlink is resolved), and gives p relative to dir. Paths Rel cannot
// relate (one absolute, one not) are not under.
func Under(dir, p string) (rel string, ok bool) {
	r, err := filepath.Rel(dir, p)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
		return "", false
	}
	return r, true
}

// HoldDB reads the rows of each database input once, in its one
// snapshot, into an unlinked temp file, which EachDump reads from then
// on: a command that makes two passes over its inputs (migrate's first
// pass for --limit or for --out DIR's case clashes) sees the same rows
// in both, and the server is read once. release closes the files.
func HoldDB(inputs []Input) (release func(), err error) {
	var held []*os.File
	release = func() {
		for _, f := range held {
			f.Close()
		}
	}
	for i := range inputs {
		in := &inputs[i]
		if in.DB == "" || in.held != nil {
			continue
		}
		if OpenDB == nil {
			release()
			return func() {}, noDB(in)
		}
		f, err := holdRows(in)
		if err != nil {
			release()
			return func() {}, err
		}
		held = append(held, f)
		in.held = f
	}
	return release, nil
}

func holdRows(in *Input) (*os.File, error) {
	f, err := os.CreateTemp("", "schedtool-rows-*")
	if err != nil {
		return nil, &UsageError{Msg: in.Dump + ": holding its rows: " + err.Error()}
	}
	os.Remove(f.Name()) // unlinked: gone with the process, however it ends
	rc, err := OpenDB(in.DB, in.Select)
	if err == nil {
		w := bufio.NewWriterSize(f, 256<<10)
		_, err = io.Copy(w, rc)
		rc.Close()
		if err == nil {
			err = w.Flush()
		}
	}
	if err != nil {
		f.Close()
		return nil, dbError(in, err)
	}
	return f, nil
}

// dbError is a failed read of a database input, without its password:
// what was read of it is incomplete.
func dbError(in *Input, err error) error {
	return &UsageError{Msg: in.Dump + ": " + Scrub(err.Error(), URLSecrets(in.DB)...), Incomplete: true}
}

// noDB is the error for a database input in a build without OpenDB.
func noDB(in *Input) error {
	return &UsageError{Msg: in.Dump + ": this build of schedtool cannot read a database"}
}

// EachDump calls scan with the reader and display name of each input's
// dump (a file, or standard input), in order. An error from scan is
// reported with the dump's name; the first one ends the walk.
func EachDump(inputs []Input, scan func(r io.Reader, name string) error) error {
	for _, in := range inputs {
		if in.Dump == "" {
			continue
		}
		if in.held != nil {
			if _, err := in.held.Seek(0, io.SeekStart); err != nil {
				return &UsageError{Msg: in.Dump + ": " + err.Error()}
			}
			if err := scan(bufio.NewReaderSize(in.held, 256<<10), in.Dump); err != nil {
				return dbError(&in, err)
			}
			continue
		}
		if in.DB != "" {
			if OpenDB == nil {
				return noDB(&in)
			}
			rc, err := OpenDB(in.DB, in.Select)
			if err == nil {
				err = scan(rc, in.Dump)
				rc.Close()
			}
			if err != nil {
				return dbError(&in, err)
			}
			continue
		}
		rows := func(r io.Reader) io.Reader {
			if in.Raw {
				return NewRawRows(r)
			}
			return skipBOM(r)
		}
		if in.Dump == "-" {
			// Standard input is not empty (Inputs refused that), but a
			// flowctl raw get array can still hold no rows: `[]` on
			// standard input is no more zero tasks than in a file.
			seen := &textSeen{r: rows(bytes.NewReader(in.Stdin))}
			if err := scan(seen, "<stdin>"); err != nil {
				return &UsageError{Msg: "<stdin>: " + err.Error(), Incomplete: true}
			}
			if !seen.text {
				return &UsageError{Msg: "<stdin>: the dump has no rows: an empty dump is an error, not zero tasks"}
			}
			continue
		}
		f, _, err := OpenRegular(in.Dump)
		if err != nil {
			return &UsageError{Msg: in.Dump + ": " + describeErr(err)}
		}
		seen := &textSeen{r: rows(f)}
		err = scan(seen, in.Dump)
		f.Close()
		if err != nil {
			return &UsageError{Msg: in.Dump + ": " + err.Error(), Incomplete: true}
		}
		if !seen.text {
			return &UsageError{Msg: in.Dump + ": the dump has no rows: an empty dump is an error, not zero tasks"}
		}
	}
	return nil
}
