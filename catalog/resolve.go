package catalog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/estuary/schedtool/catalog/tree"
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
	// Exclude, when set, says which sources' tasks are not tasks of the
	// run (the project file's exclude, docs/behaviour.md §13): they are
	// not read as tasks, yet they stay users of the config files they
	// name (Users reads them, and they hold a shared file back).
	Exclude func(file string) bool
	// Overlay, when set, gives the bytes Load reads for a source or
	// config file instead of the file's own (apply's check of what a
	// plan's edits would leave, before writing them).
	Overlay func(path string) ([]byte, bool)
	// Reading, when set, is told of every source, import and config file
	// Load reads, before it is read (from several goroutines at once):
	// the command's outputs are refused when one of them is an input.
	Reading func(path string)
	// OpenDB, when set, reads a database PATH (a libpq URL) as a stream
	// of dump rows with sel pushed down (pgsource.Open, which
	// cmd/schedtool wires in); without it a database PATH cannot be read.
	OpenDB func(url string, sel Selector) (io.ReadCloser, error)
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
	// Inner is the git work tree a PATH is in when the root is an
	// outer one enclosing it (said on standard error: the root is not
	// the PATH's own work tree).
	Inner string
	Dir   string // the directory searched, for a directory PATH
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
	// OpenDB reads DB (Options.OpenDB; once HoldDB has read the rows,
	// the file it holds them in).
	OpenDB func(url string, sel Selector) (io.ReadCloser, error)
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
			in := Input{Arg: RedactURL(arg), Root: ".", RootWhy: "the working directory", Dump: RedactURL(arg), DB: arg, OpenDB: opts.OpenDB}
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
			if err := notInput(arg, in, b, opts); err != nil {
				return nil, err
			}
			out = append(out, in)
			continue
		}
		st, err := os.Stat(arg)
		if err != nil {
			return nil, &UsageError{Msg: missingPath(arg, err)}
		}
		if st.IsDir() {
			in := Input{Arg: arg, Dir: filepath.Clean(arg)}
			if err := setRoot(&in, filepath.Clean(arg), opts.Root); err != nil {
				return nil, err
			}
			// The one walk (walkSources), as the users of a config file
			// are found: by name or by content, links followed.
			found, other, err := walkSources(in.Dir, in.Root, false, opts, nil)
			if err != nil {
				return nil, &UsageError{Msg: fmt.Sprintf("%s: %s", arg, Describe(err))}
			}
			for _, f := range found {
				in.Sources = append(in.Sources, f.path)
			}
			if len(in.Sources) == 0 {
				if other > 0 {
					return nil, &UsageError{Msg: fmt.Sprintf("%s: %d YAML or JSON %s under this directory, but no catalog source: a source is named flow.yaml, flow.yml, flow.json or *.flow.yaml, *.flow.yml, *.flow.json, or is a YAML or JSON mapping with a materializations, captures, collections or import key (give another file by its path)", arg, other, plural(other, "file", "files"))}
				}
				return nil, &UsageError{Msg: fmt.Sprintf("%s: no catalog source under this directory (flow.yaml, flow.yml, flow.json, *.flow.yaml, *.flow.yml, *.flow.json, or a YAML or JSON mapping with a catalog key)", arg)}
			}
			in.Scanned = len(in.Sources) + other
			out = append(out, in)
			continue
		}
		f, _, err := OpenRegular(arg)
		if err != nil {
			return nil, &UsageError{Msg: fmt.Sprintf("%s: %s", arg, Describe(err))}
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
		if st.Mode().IsRegular() {
			b := head[:n]
			if len(in.Sources) > 0 {
				// Unreadable or too large: the loader says so.
				b, _ = ReadRegular(arg, opts.MaxFileSize, "--max-file-size")
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
func notInput(arg string, in Input, b []byte, opts Options) error {
	what := ""
	switch {
	case in.Raw:
		what = notRows(b)
	case len(in.Sources) > 0 && b != nil:
		what = notASource(displayName(arg), b, opts.Limits)
	}
	if what == "" {
		return nil
	}
	return &UsageError{Msg: fmt.Sprintf("%s: %s; %s", arg, what, notInputText)}
}

// Describe says what went wrong with a file in a few words, without
// repeating its path.
func Describe(err error) string {
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
func setRoot(in *Input, dir, root string) error {
	if root != "" {
		st, err := os.Stat(root)
		if err != nil {
			return &UsageError{Msg: fmt.Sprintf("--root %s: %s", root, Describe(err))}
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
