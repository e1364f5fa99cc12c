// Package project reads the project file, .schedtool.yaml (docs/behaviour.md
// §13): the choices an operator makes more than once (the root, the
// connectors' registry, default PATHs, what is excluded, the migrate
// decisions and the known exceptions), found as golangci-lint finds its
// own. It is strict: an unknown key, a wrong type or a bad value is an
// error at file:line:col. It sits below the commands and imports nothing
// of schedtool's.
package project

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/estuary/schedtool/internal/suggest"
)

// Names are the file names looked for, in this order, in each directory.
var Names = []string{".schedtool.yaml", ".schedtool.yml", ".schedtool.json"}

// MaxSize bounds the project file: it is a few lines.
const MaxSize = 1 << 20

// Config is the project file. Paths in it are relative to its directory.
type Config struct {
	// Root is the containment root (--root).
	Root string `json:"root,omitempty" jsonschema_description:"The containment root for imports and config files (--root), relative to this file's directory."`
	// Connectors is a registry file (--connectors).
	Connectors string `json:"connectors,omitempty" jsonschema_description:"A registry file (JSON) that extends the builtin table of scheduling images (--connectors), relative to this file's directory."`
	// Paths are the default PATHs, when a command is given none.
	Paths []string `json:"paths,omitempty" jsonschema_description:"The PATHs a command reads when it is given none, relative to this file's directory."`
	// Exclude are paths or globs (** for any depth) whose sources' tasks
	// are not tasks of any run; they are still read for the users of a
	// config file, and an excluded task holds back a config it shares.
	Exclude []string `json:"exclude,omitempty" jsonschema_description:"Paths or globs (relative to this file's directory; ** matches any depth) whose sources' tasks are not tasks of any run. An excluded source is still read to find the users of a config file: an excluded task that uses a shared config still holds it back."`
	// Decisions are the migrate flags an organisation has decided.
	Decisions *Decisions `json:"decisions,omitempty" jsonschema_description:"The migrate flags an organisation has decided, per task name or prefix where they apply to tasks. A flag on the command line wins."`
	// Exceptions are known findings and statuses.
	Exceptions []Exception `json:"exceptions,omitempty" jsonschema_description:"Known findings (rule) or census statuses (status), each with a reason, an owner and an expiry. validate does not count an unexpired one against --fail-on; census never lets one pass the removal gate."`

	// File is the project file read, Dir its directory.
	File string `json:"-"`
	Dir  string `json:"-"`
}

// Decisions are migrate's flags, as the project file decides them.
type Decisions struct {
	EnableRuntimeV2 []string          `json:"enableRuntimeV2,omitempty" jsonschema_description:"Task names or prefixes (ending in /) that migrate moves to the V2 runtime with their schedules (--enable-runtime-v2)."`
	ZeroFileSinks   []string          `json:"zeroFileSinks,omitempty" jsonschema_description:"Task names or prefixes (ending in /) whose file-sink upload interval migrate zeroes (--zero-file-sinks)."`
	Absent          string            `json:"absent,omitempty" jsonschema:"enum=preserve,enum=drop" jsonschema_description:"What migrate does with a schedule key that is absent (--absent)."`
	Resolve         []ResolveDecision `json:"resolve,omitempty" jsonschema_description:"Per task name or prefix, which schedule wins a conflict (--resolve)."`
}

// ResolveDecision is --resolve for a task name or prefix.
type ResolveDecision struct {
	Task    string `json:"task" jsonschema:"minLength=1" jsonschema_description:"A task name, or a prefix ending in /."`
	Resolve string `json:"resolve" jsonschema:"enum=model,enum=connector"`
	Pos     Pos    `json:"-"`
}

// Exception is a known finding (Rule) or census status (Status).
type Exception struct {
	Task    string `json:"task" jsonschema:"minLength=1" jsonschema_description:"A task name, or a prefix ending in /."`
	Rule    string `json:"rule,omitempty" jsonschema_description:"A validate rule id: its findings on the task do not count against --fail-on until the exception expires."`
	Status  string `json:"status,omitempty" jsonschema_description:"A census status: listed apart, still remaining (the removal gate never trusts an exception)."`
	Reason  string `json:"reason" jsonschema:"minLength=1"`
	Owner   string `json:"owner" jsonschema:"minLength=1"`
	Expires string `json:"expires" jsonschema:"format=date,pattern=^[0-9]{4}-[0-9]{2}-[0-9]{2}$" jsonschema_description:"The last day (YYYY-MM-DD, UTC) the exception holds."`
	Pos     Pos    `json:"-"`
	// RulePos and StatusPos are where the rule or the status is written.
	RulePos, StatusPos Pos `json:"-"`
	// Until is Expires as the end of that day, UTC.
	Until time.Time `json:"-"`
}

// Pos is where a value is in the project file.
type Pos struct {
	File         string
	Line, Column int
}

func (p Pos) String() string { return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column) }

// Error is a project file that cannot be used, at file:line:col.
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// Matches reports whether a task name is picked by a name or a prefix
// (a value ending in /).
func Matches(pattern, name string) bool {
	if strings.HasSuffix(pattern, "/") {
		return strings.HasPrefix(name, pattern)
	}
	return pattern == name
}

// MatchesAny reports whether any of the names or prefixes picks name.
func MatchesAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if Matches(p, name) {
			return true
		}
	}
	return false
}

// Find looks for the project file from dir up: in dir, then each parent,
// stopping after the top of the git work tree (a directory holding .git)
// or at the file system's root. "" when there is none.
func Find(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for {
		for _, n := range Names {
			p := filepath.Join(abs, n)
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				return p
			}
		}
		if _, err := os.Lstat(filepath.Join(abs, ".git")); err == nil {
			return ""
		}
		up := filepath.Dir(abs)
		if up == abs {
			return ""
		}
		abs = up
	}
}

// Load reads and checks the project file at path.
func Load(path string) (*Config, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	if st.Size() > MaxSize {
		return nil, fmt.Errorf("%s: %d bytes, over the project file's limit of %d", path, st.Size(), MaxSize)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, b)
}

// Parse checks the project file's bytes; file names it in errors and is
// the directory relative paths are taken from.
func Parse(file string, b []byte) (*Config, error) {
	c := &Config{File: file, Dir: filepath.Dir(file)}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&doc); err != nil && err != io.EOF {
		return nil, syntaxError(file, err)
	}
	// One document: a second one (after ---) would be read by no one,
	// its keys silently unchecked and unused.
	var more yaml.Node
	if err := dec.Decode(&more); err == nil {
		return nil, &Error{Pos{file, more.Line, more.Column}, "a second YAML document: the project file is one document (remove the --- and merge its keys)"}
	} else if err != io.EOF {
		return nil, syntaxError(file, err)
	}
	d := &decoder{file: file}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return c, nil // an empty file decides nothing
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return c, nil
	}
	err := d.object(root, "the project file", map[string]func(*yaml.Node) error{
		"root":       func(n *yaml.Node) error { return d.str(n, "root", &c.Root, false) },
		"connectors": func(n *yaml.Node) error { return d.str(n, "connectors", &c.Connectors, false) },
		"paths":      func(n *yaml.Node) error { return d.strs(n, "paths", &c.Paths) },
		"exclude": func(n *yaml.Node) error {
			if err := d.strs(n, "exclude", &c.Exclude); err != nil {
				return err
			}
			for i, g := range c.Exclude {
				if _, err := globRegexp(g); err != nil {
					return d.at(n.Content[i], "exclude: %v", err)
				}
			}
			return nil
		},
		"decisions": func(n *yaml.Node) error {
			c.Decisions = &Decisions{}
			return d.decisions(n, c.Decisions)
		},
		"exceptions": func(n *yaml.Node) error { return d.exceptions(n, &c.Exceptions) },
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

func syntaxError(file string, err error) error {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "yaml: ")
	line := 1
	if m := regexp.MustCompile(`^line (\d+): (.*)$`).FindStringSubmatch(msg); m != nil {
		fmt.Sscan(m[1], &line)
		msg = m[2]
	}
	return &Error{Pos{file, line, 1}, "does not parse: " + msg}
}

type decoder struct{ file string }

func (d *decoder) at(n *yaml.Node, format string, args ...any) error {
	return &Error{Pos{d.file, n.Line, n.Column}, fmt.Sprintf(format, args...)}
}

func (d *decoder) pos(n *yaml.Node) Pos { return Pos{d.file, n.Line, n.Column} }

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "an object"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	switch n.Tag {
	case "!!null":
		return "null"
	case "!!bool":
		return "a boolean"
	case "!!int", "!!float":
		return "a number"
	case "!!str":
		return "a string"
	}
	return "a " + n.Tag + " value"
}

// object decodes a mapping whose keys are among fields, each once.
func (d *decoder) object(n *yaml.Node, what string, fields map[string]func(*yaml.Node) error) error {
	if n.Kind != yaml.MappingNode {
		return d.at(n, "%s must be an object, not %s", what, kindName(n))
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		f, ok := fields[k.Value]
		if !ok || k.Kind != yaml.ScalarNode {
			known := make([]string, 0, len(fields))
			for name := range fields {
				known = append(known, name)
			}
			sort.Strings(known)
			// The closest first, as for every other name that matches
			// nothing (docs/behaviour.md §9: exlude is exclude).
			near := ""
			if l := suggest.Closest(k.Value, known, 3); len(l) > 0 {
				near = "closest: " + strings.Join(l, ", ") + "; "
			}
			return d.at(k, "unknown key %q in %s (%sknown: %s)", k.Value, what, near, strings.Join(known, ", "))
		}
		if seen[k.Value] {
			return d.at(k, "%s is given twice in %s", k.Value, what)
		}
		seen[k.Value] = true
		if err := f(v); err != nil {
			return err
		}
	}
	return nil
}

func (d *decoder) str(n *yaml.Node, what string, dst *string, empty bool) error {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		return d.at(n, "%s must be a string, not %s", what, kindName(n))
	}
	if !empty && strings.TrimSpace(n.Value) == "" {
		return d.at(n, "%s must not be empty", what)
	}
	*dst = n.Value
	return nil
}

func (d *decoder) strs(n *yaml.Node, what string, dst *[]string) error {
	if n.Kind != yaml.SequenceNode {
		return d.at(n, "%s must be a list of strings, not %s", what, kindName(n))
	}
	for _, it := range n.Content {
		var s string
		if err := d.str(it, what+" entry", &s, false); err != nil {
			return err
		}
		*dst = append(*dst, s)
	}
	return nil
}

func (d *decoder) enum(n *yaml.Node, what string, dst *string, values ...string) error {
	if err := d.str(n, what, dst, false); err != nil {
		return err
	}
	for _, v := range values {
		if *dst == v {
			return nil
		}
	}
	return d.at(n, "%s: %q is not one of %s", what, *dst, strings.Join(values, ", "))
}

func (d *decoder) decisions(n *yaml.Node, ds *Decisions) error {
	return d.object(n, "decisions", map[string]func(*yaml.Node) error{
		"enableRuntimeV2": func(v *yaml.Node) error { return d.strs(v, "decisions.enableRuntimeV2", &ds.EnableRuntimeV2) },
		"zeroFileSinks":   func(v *yaml.Node) error { return d.strs(v, "decisions.zeroFileSinks", &ds.ZeroFileSinks) },
		"absent":          func(v *yaml.Node) error { return d.enum(v, "decisions.absent", &ds.Absent, "preserve", "drop") },
		"resolve": func(v *yaml.Node) error {
			if v.Kind != yaml.SequenceNode {
				return d.at(v, "decisions.resolve must be a list of {task, resolve}, not %s", kindName(v))
			}
			for _, it := range v.Content {
				r := ResolveDecision{Pos: d.pos(it)}
				if err := d.object(it, "a decisions.resolve entry", map[string]func(*yaml.Node) error{
					"task":    func(x *yaml.Node) error { return d.str(x, "task", &r.Task, false) },
					"resolve": func(x *yaml.Node) error { return d.enum(x, "resolve", &r.Resolve, "model", "connector") },
				}); err != nil {
					return err
				}
				if r.Task == "" || r.Resolve == "" {
					return d.at(it, "a decisions.resolve entry needs task and resolve")
				}
				ds.Resolve = append(ds.Resolve, r)
			}
			return nil
		},
	})
}

func (d *decoder) exceptions(n *yaml.Node, dst *[]Exception) error {
	if n.Kind != yaml.SequenceNode {
		return d.at(n, "exceptions must be a list, not %s", kindName(n))
	}
	for _, it := range n.Content {
		e := Exception{Pos: d.pos(it)}
		var expNode *yaml.Node
		if err := d.object(it, "an exception", map[string]func(*yaml.Node) error{
			"task": func(x *yaml.Node) error { return d.str(x, "task", &e.Task, false) },
			"rule": func(x *yaml.Node) error {
				e.RulePos = d.pos(x)
				return d.str(x, "rule", &e.Rule, false)
			},
			"status": func(x *yaml.Node) error {
				e.StatusPos = d.pos(x)
				return d.str(x, "status", &e.Status, false)
			},
			"reason": func(x *yaml.Node) error { return d.str(x, "reason", &e.Reason, false) },
			"owner":  func(x *yaml.Node) error { return d.str(x, "owner", &e.Owner, false) },
			"expires": func(x *yaml.Node) error {
				expNode = x
				// An unquoted 2027-01-31 is a YAML timestamp: take its text.
				if x.Kind != yaml.ScalarNode || (x.Tag != "!!str" && x.Tag != "!!timestamp") {
					return d.at(x, "expires must be a date (YYYY-MM-DD), not %s", kindName(x))
				}
				e.Expires = x.Value
				return nil
			},
		}); err != nil {
			return err
		}
		var missing []string
		for _, f := range [][2]string{{"task", e.Task}, {"reason", e.Reason}, {"owner", e.Owner}, {"expires", e.Expires}} {
			if f[1] == "" {
				missing = append(missing, f[0])
			}
		}
		if len(missing) > 0 {
			return d.at(it, "an exception needs %s", strings.Join(missing, ", "))
		}
		if (e.Rule == "") == (e.Status == "") {
			return d.at(it, "an exception names a rule (a validate finding) or a status (a census status), one of them")
		}
		day, err := time.Parse("2006-01-02", e.Expires)
		if err != nil {
			return d.at(expNode, "expires %q is not a date (YYYY-MM-DD)", e.Expires)
		}
		e.Until = day.Add(24*time.Hour - time.Nanosecond)
		*dst = append(*dst, e)
	}
	return nil
}

// CheckNames refuses an exception whose rule or status is not one of
// these (the command knows them; the file does not).
func (c *Config) CheckNames(rules, statuses []string) error {
	for _, e := range c.Exceptions {
		if e.Rule != "" && !contains(rules, e.Rule) {
			return &Error{e.RulePos, fmt.Sprintf("exception: unknown rule %q (rules: %s)", e.Rule, strings.Join(rules, ", "))}
		}
		if e.Status != "" && !contains(statuses, e.Status) {
			return &Error{e.StatusPos, fmt.Sprintf("exception: unknown status %q (statuses: %s)", e.Status, strings.Join(statuses, ", "))}
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Path resolves a path of the file (relative to its directory).
func (c *Config) Path(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.Dir, p)
}

// Excluder is the exclude list as a function of a source's path (as the
// commands name it, relative to the working directory or absolute):
// nil when nothing is excluded.
func (c *Config) Excluder() func(file string) bool {
	if c == nil || len(c.Exclude) == 0 {
		return nil
	}
	dir, err := filepath.Abs(c.Dir)
	if err != nil {
		return nil
	}
	res := make([]*regexp.Regexp, 0, len(c.Exclude))
	for _, g := range c.Exclude {
		re, err := globRegexp(g)
		if err != nil {
			continue // Parse refused it already
		}
		res = append(res, re)
	}
	return func(file string) bool {
		abs, err := filepath.Abs(file)
		if err != nil {
			return false
		}
		rel, err := filepath.Rel(dir, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			return false
		}
		rel = filepath.ToSlash(rel)
		for _, re := range res {
			if re.MatchString(rel) {
				return true
			}
		}
		return false
	}
}

// globRegexp turns an exclude entry into a regexp over slash-separated
// paths relative to the file's directory: * is any run of characters but
// /, ? one such character, ** any number of directories, and a path
// without a wildcard is that file or everything under that directory.
func globRegexp(g string) (*regexp.Regexp, error) {
	g = filepath.ToSlash(g)
	if !strings.HasPrefix(g, "/") && g != "" {
		// "./", "." and "a/./b" name what they name cleaned: "." is the
		// file's own directory, so everything under it.
		g = path.Clean(g)
		if g == "." {
			g = "**"
		}
	}
	if g == "" || strings.HasPrefix(g, "/") || g == ".." || strings.HasPrefix(g, "../") {
		return nil, errors.New("give a path or glob under this file's directory (relative, no leading / or ..)")
	}
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(g); i++ {
		switch ch := g[i]; ch {
		case '*':
			if i+1 < len(g) && g[i+1] == '*' {
				i++
				if i+1 < len(g) && g[i+1] == '/' {
					i++
					b.WriteString("(?:.*/)?")
				} else {
					b.WriteString(".*")
				}
			} else {
				b.WriteString("[^/]*")
			}
		case '?':
			b.WriteString("[^/]")
		case '[', ']':
			return nil, fmt.Errorf("%q: character classes are not supported; use * and **", g)
		default:
			b.WriteString(regexp.QuoteMeta(string(ch)))
		}
	}
	b.WriteString("(?:/.*)?$") // a directory: everything under it
	return regexp.Compile(b.String())
}
