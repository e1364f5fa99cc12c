package input

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/livespecs"
	"github.com/estuary/schedtool/internal/paths"
	"github.com/estuary/schedtool/internal/usage"
)

// Resolve turns command-line PATHs into inputs. An unreadable PATH, or
// nothing to read, is a UsageError.
func Resolve(args []string, opts catalog.Options) ([]catalog.Input, error) {
	if len(args) == 0 {
		return nil, &usage.Error{Msg: "no PATH given: name a catalog source, a directory, a .ndjson dump, or - for standard input"}
	}
	var out []catalog.Input
	for _, arg := range args {
		if livespecs.IsDBURL(arg) {
			in := catalog.Input{Arg: livespecs.RedactURL(arg), Root: ".", RootWhy: "the working directory", Dump: livespecs.RedactURL(arg), DB: arg, OpenDB: opts.OpenDB}
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
				return nil, &usage.Error{Msg: "-: no standard input"}
			}
			b, err := io.ReadAll(io.LimitReader(opts.Stdin, opts.MaxFileSize+1))
			if err != nil {
				return nil, &usage.Error{Msg: "-: " + err.Error()}
			}
			if int64(len(b)) > opts.MaxFileSize {
				return nil, &usage.Error{Msg: fmt.Sprintf("-: standard input is larger than %d bytes", opts.MaxFileSize)}
			}
			if len(bytes.TrimSpace(b)) == 0 {
				// Nothing is not zero tasks: a gate must not pass on it.
				return nil, &usage.Error{Msg: "-: standard input is empty: no catalog source and no stored-spec rows"}
			}
			in := catalog.Input{Arg: arg, Root: ".", RootWhy: "the working directory", Stdin: b}
			if opts.Root != "" {
				in.Root, in.RootWhy = filepath.Clean(opts.Root), "--root"
			}
			if livespecs.IsRawRows(b) {
				in.Dump, in.Raw = "-", true
			} else if looksLikeDump(b) {
				in.Dump = "-"
			} else {
				in.Sources = []string{"-"}
			}
			if err := notInput(arg, in, b, opts); err != nil {
				return nil, err
			}
			out = append(out, in)
			continue
		}
		st, err := os.Stat(arg)
		if err != nil {
			return nil, &usage.Error{Msg: livespecs.MissingPath(arg, err)}
		}
		if st.IsDir() {
			in := catalog.Input{Arg: arg, Dir: filepath.Clean(arg)}
			if err := setRoot(&in, filepath.Clean(arg), opts.Root); err != nil {
				return nil, err
			}
			// The one walk (walkSources), as the users of a config file
			// are found: by name or by content, links followed.
			found, other, err := WalkSources(in.Dir, in.Root, false, opts, nil)
			if err != nil {
				return nil, &usage.Error{Msg: fmt.Sprintf("%s: %s", arg, catalog.Describe(err))}
			}
			for _, f := range found {
				in.Sources = append(in.Sources, f.Path)
			}
			if len(in.Sources) == 0 {
				if other > 0 {
					return nil, &usage.Error{Msg: fmt.Sprintf("%s: %d YAML or JSON %s under this directory, but no catalog source: a source is named flow.yaml, flow.yml, flow.json or *.flow.yaml, *.flow.yml, *.flow.json, or is a YAML or JSON mapping with a materializations, captures, collections or import key (give another file by its path)", arg, other, plural(other, "file", "files"))}
				}
				return nil, &usage.Error{Msg: fmt.Sprintf("%s: no catalog source under this directory (flow.yaml, flow.yml, flow.json, *.flow.yaml, *.flow.yml, *.flow.json, or a YAML or JSON mapping with a catalog key)", arg)}
			}
			in.Scanned = len(in.Sources) + other
			out = append(out, in)
			continue
		}
		f, _, err := paths.OpenRegular(arg)
		if err != nil {
			return nil, &usage.Error{Msg: fmt.Sprintf("%s: %s", arg, catalog.Describe(err))}
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
		in := catalog.Input{Arg: arg}
		if err := setRoot(&in, filepath.Dir(filepath.Clean(arg)), opts.Root); err != nil {
			return nil, err
		}
		if livespecs.IsRawRows(head[:n]) {
			in.Dump, in.Raw = filepath.Clean(arg), true
		} else if IsDumpPath(arg) || st.Mode().IsRegular() && firstLineIsRow(arg, head[:n], opts.MaxRowSize) {
			in.Dump = filepath.Clean(arg)
		} else {
			in.Sources = []string{filepath.Clean(arg)}
		}
		if st.Mode().IsRegular() {
			b := head[:n]
			if len(in.Sources) > 0 {
				// Unreadable or too large: the loader says so.
				b, _ = paths.ReadRegular(arg, opts.MaxFileSize, "--max-file-size")
			}
			if err := notInput(arg, in, b, opts); err != nil {
				return nil, err
			}
		}
		out = append(out, in)
	}
	return out, nil
}

// notInput refuses a file named as a PATH (or standard input) that is
// nothing schedtool reads, saying what it looks like (docs/behaviour.md §2): a gate
// must never pass on `null`, one pretty-printed row or an unrelated
// YAML file as on a catalog with no tasks. b is the file (a source's
// whole text, a raw array's head).
func notInput(arg string, in catalog.Input, b []byte, opts catalog.Options) error {
	what := ""
	switch {
	case in.Raw:
		what = notRows(b)
	case len(in.Sources) > 0 && b != nil:
		what = notASource(catalog.DisplayName(arg), b, opts.Limits)
	}
	if what == "" {
		return nil
	}
	return &usage.Error{Msg: fmt.Sprintf("%s: %s; %s", arg, what, notInputText)}
}

// IsSourceName reports whether a file name is a catalog source's, in any
// letter case: flow.yaml|yml|json, or a name ending in .flow.yaml|yml|json
// (as Estuary's examples name them: snowflake.flow.yaml).
func IsSourceName(name string) bool {
	name = strings.ToLower(name)
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
func setRoot(in *catalog.Input, dir, root string) error {
	if root != "" {
		st, err := os.Stat(root)
		if err != nil {
			return &usage.Error{Msg: fmt.Sprintf("--root %s: %s", root, catalog.Describe(err))}
		}
		if !st.IsDir() {
			return &usage.Error{Msg: fmt.Sprintf("--root %s: not a directory", root)}
		}
		r := sameForm(filepath.Clean(root), dir)
		if !paths.Within(r, dir) && r != dir {
			return &usage.Error{Msg: fmt.Sprintf("%s is outside --root %s", in.Arg, root)}
		}
		in.Root, in.RootWhy = r, "--root"
		return nil
	}
	if top, inner := gitRoot(dir); top != "" {
		in.Root, in.RootWhy = top, "the enclosing git work tree"
		if inner != "" {
			in.RootWhy, in.Inner = "the outermost git work tree, which encloses the one at "+inner, inner
		}
		return nil
	}
	in.Root, in.RootWhy = dir, RootOwnDir
	return nil
}

// RootOwnDir is the RootWhy of a root that is the PATH's own directory
// (no --root, no git work tree): the users of a config file seen under
// it may not be all of them.
const RootOwnDir = "the PATH's own directory"

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

// InGitWorkTree reports whether dir is inside a git work tree (a
// directory holding .git at or above it).
func InGitWorkTree(dir string) bool {
	top, _ := gitRoot(dir)
	return top != ""
}

// gitRoot finds the top of the git work tree enclosing dir, by climbing
// dir's path (in dir's own form): the outermost directory at or above
// dir holding .git. Every .git on the way is passed, a directory or a
// file (a submodule's, a linked work tree's), whether or not it names a
// git directory that exists: the tasks of a superproject or of an
// enclosing clone may use the inner tree's files (../shared/x.yaml).
// inner is then the closest work tree holding dir (the PATH's own),
// which is not the root; "" when the two are one.
func gitRoot(dir string) (top, inner string) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", ""
	}
	cur := dir
	for {
		if _, err := os.Lstat(filepath.Join(abs, ".git")); err == nil {
			if top != "" && inner == "" {
				inner = top
			}
			top = cur
		}
		parent := filepath.Dir(abs)
		if parent == abs {
			return top, inner
		}
		abs, cur = parent, filepath.Join(cur, "..")
	}
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
