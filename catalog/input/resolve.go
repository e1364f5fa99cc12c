package input

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/livespecs"
	"github.com/estuary/schedtool/internal/paths"
)

// Resolve turns command-line PATHs into inputs. An unreadable PATH, or
// nothing to read, is a UsageError.
func Resolve(args []string, opts catalog.Options) ([]catalog.Input, error) {
	if len(args) == 0 {
		return nil, &catalog.UsageError{Msg: "no PATH given: name a catalog source, a directory, a .ndjson dump, or - for standard input"}
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
				return nil, &catalog.UsageError{Msg: "-: no standard input"}
			}
			b, err := io.ReadAll(io.LimitReader(opts.Stdin, opts.MaxFileSize+1))
			if err != nil {
				return nil, &catalog.UsageError{Msg: "-: " + err.Error()}
			}
			if int64(len(b)) > opts.MaxFileSize {
				return nil, &catalog.UsageError{Msg: fmt.Sprintf("-: standard input is larger than %d bytes", opts.MaxFileSize)}
			}
			if len(bytes.TrimSpace(b)) == 0 {
				// Nothing is not zero tasks: a gate must not pass on it.
				return nil, &catalog.UsageError{Msg: "-: standard input is empty: no catalog source and no stored-spec rows"}
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
			return nil, &catalog.UsageError{Msg: livespecs.MissingPath(arg, err)}
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
				return nil, &catalog.UsageError{Msg: fmt.Sprintf("%s: %s", arg, catalog.Describe(err))}
			}
			for _, f := range found {
				in.Sources = append(in.Sources, f.Path)
			}
			if len(in.Sources) == 0 {
				if other > 0 {
					return nil, &catalog.UsageError{Msg: fmt.Sprintf("%s: %d YAML or JSON %s under this directory, but no catalog source: a source is named flow.yaml, flow.yml, flow.json or *.flow.yaml, *.flow.yml, *.flow.json, or is a YAML or JSON mapping with a materializations, captures, collections or import key (give another file by its path)", arg, other, plural(other, "file", "files"))}
				}
				return nil, &catalog.UsageError{Msg: fmt.Sprintf("%s: no catalog source under this directory (flow.yaml, flow.yml, flow.json, *.flow.yaml, *.flow.yml, *.flow.json, or a YAML or JSON mapping with a catalog key)", arg)}
			}
			in.Scanned = len(in.Sources) + other
			out = append(out, in)
			continue
		}
		f, _, err := paths.OpenRegular(arg)
		if err != nil {
			return nil, &catalog.UsageError{Msg: fmt.Sprintf("%s: %s", arg, catalog.Describe(err))}
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
	return &catalog.UsageError{Msg: fmt.Sprintf("%s: %s; %s", arg, what, notInputText)}
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
			return &catalog.UsageError{Msg: fmt.Sprintf("--root %s: %s", root, catalog.Describe(err))}
		}
		if !st.IsDir() {
			return &catalog.UsageError{Msg: fmt.Sprintf("--root %s: not a directory", root)}
		}
		r := sameForm(filepath.Clean(root), dir)
		if !paths.Within(r, dir) && r != dir {
			return &catalog.UsageError{Msg: fmt.Sprintf("%s is outside --root %s", in.Arg, root)}
		}
		in.Root, in.RootWhy = r, "--root"
		return nil
	}
	if top, sub := gitRoot(dir); top != "" {
		in.Root, in.RootWhy = top, "the enclosing git work tree"
		if sub != "" {
			in.RootWhy, in.Submodule = "the work tree of the superproject of the git submodule "+sub, sub
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
// dir's path (in dir's own form): the closest directory at or above dir
// holding .git (a file or a directory); "" when there is none. When that
// is a git submodule's work tree, the top is its superproject's, which
// holds the tasks that may use the submodule's files (../shared/x.yaml),
// and the outermost one for nested submodules; sub is then the
// submodule's directory (the innermost, the PATH's own).
func gitRoot(dir string) (top, sub string) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", ""
	}
	top, topAbs := climbToGit(dir, abs)
	for top != "" {
		parent := filepath.Dir(topAbs)
		if parent == topAbs {
			break
		}
		s, sAbs := climbToGit(filepath.Join(top, ".."), parent)
		if s == "" || !isSubmodule(topAbs, sAbs) {
			break
		}
		if sub == "" {
			sub = top
		}
		top, topAbs = s, sAbs
	}
	return top, sub
}

// climbToGit climbs from cur (abs, absolute) to the closest directory
// holding .git.
func climbToGit(cur, abs string) (string, string) {
	for {
		if _, err := os.Lstat(filepath.Join(abs, ".git")); err == nil {
			return cur, abs
		}
		parent := filepath.Dir(abs)
		if parent == abs {
			return "", ""
		}
		abs, cur = parent, filepath.Join(cur, "..")
	}
}

// isSubmodule reports whether the work tree at dir is a submodule of the
// one at super (both absolute): its .git is a file naming a git
// directory inside super's own, under a modules directory (where git
// absorbs a submodule's repository: super/.git/modules/NAME, or
// .git/worktrees/W/modules/NAME when super is a linked work tree), or
// super's .gitmodules lists its path (a submodule cloned before git
// absorbed them, with a .git directory). A linked work tree of another
// repository (its .git names .../.git/worktrees/W) is not one. This is
// what git rev-parse --show-superproject-working-tree says, without
// running git.
func isSubmodule(dir, super string) bool {
	if gd := gitDirOf(dir); gd != "" && !isDir(filepath.Join(dir, ".git")) {
		if sgd := gitDirOf(super); sgd != "" && paths.Within(sgd, gd) {
			rel, _ := filepath.Rel(sgd, gd)
			if slices.Contains(strings.Split(filepath.ToSlash(rel), "/"), "modules") {
				return true
			}
		}
	}
	rel, err := filepath.Rel(super, dir)
	if err != nil {
		return false
	}
	b, err := paths.ReadRegular(filepath.Join(super, ".gitmodules"), 1<<20, "--max-file-size")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
		if ok && strings.TrimSpace(k) == "path" && filepath.Clean(strings.Trim(strings.TrimSpace(v), `"`)) == filepath.ToSlash(rel) {
			return true
		}
	}
	return false
}

// gitDirOf is the git directory of the work tree at dir (absolute,
// symlinks resolved): dir/.git when it is a directory, else the one its
// .git file names (gitdir: PATH, relative to dir); "" when neither.
func gitDirOf(dir string) string {
	dot := filepath.Join(dir, ".git")
	p := dot
	if !isDir(dot) {
		b, err := paths.ReadRegular(dot, 1<<16, "--max-file-size")
		if err != nil {
			return ""
		}
		gd, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
		if !ok {
			return ""
		}
		p = strings.TrimSpace(gd)
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return ""
	}
	return real
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
