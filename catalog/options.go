package catalog

import (
	"errors"
	"io"
	"io/fs"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/estuary/schedtool/catalog/selection"
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
	Select *selection.Selection
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
	OpenDB func(url string, sel selection.Selector) (io.ReadCloser, error)
}

// DefaultOptions are the limits schedtool runs with unless told otherwise.
func DefaultOptions() Options {
	return Options{Limits: tree.DefaultLimits, MaxFileSize: 64 << 20, MaxRowSize: 64 << 20, DBTimeout: time.Minute}
}

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
	Select selection.Selector
	// Raw is set when Dump is flowctl raw get output (a JSON array of
	// rows) rather than one row a line.
	Raw bool
	// OpenDB reads DB (Options.OpenDB; once HoldDB has read the rows,
	// the file it holds them in).
	OpenDB func(url string, sel selection.Selector) (io.ReadCloser, error)
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
