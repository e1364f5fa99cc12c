package groupwrite

import (
	"io/fs"
	"os"
	"sync"

	"github.com/estuary/schedtool/internal/paths"
	"github.com/estuary/schedtool/internal/safefile"
)

// intr is what a signal needs to know about the writes in flight: every
// temp file that exists, and how many groups are being renamed. It is
// the process's (a signal is), so it is shared by every writer.
var intr = struct {
	mu       sync.Mutex
	temps    map[string]bool
	dirs     []string // made for staged files, removed again by a signal
	inCommit int
	pending  os.Signal
}{temps: map[string]bool{}}

// withTemps runs f with the temp registry locked.
func withTemps(f func() error) error {
	intr.mu.Lock()
	defer intr.mu.Unlock()
	return f()
}

// CreateTemp creates and registers a temp file beside base in dir, in
// one step, so that a signal never misses one. It is created with mode
// (narrowed by the umask) from its first byte (safefile.CreateTemp): a
// temp file is never readable by more people than the file it becomes.
func CreateTemp(dir, base string, mode fs.FileMode) (*os.File, error) {
	var f *os.File
	err := withTemps(func() error {
		var err error
		if f, err = safefile.CreateTemp(dir, tempPattern(base), mode); err == nil {
			intr.temps[f.Name()] = true
		}
		return err
	})
	return f, err
}

// ForgetTemp unregisters a temp name that was renamed into place.
func ForgetTemp(name string) {
	withTemps(func() error { delete(intr.temps, name); return nil })
}

// DropTemp removes and unregisters a temp file ("" does nothing).
func DropTemp(name string) {
	if name == "" {
		return
	}
	withTemps(func() error {
		if intr.temps[name] {
			os.Remove(name)
			delete(intr.temps, name)
		}
		return nil
	})
}

// MkdirRegistered makes a directory to hold temp files and registers
// it in one step, so that a signal removes it when they are all it held.
func MkdirRegistered(d string) error {
	return withTemps(func() error {
		err := os.Mkdir(d, 0o755)
		if err == nil {
			intr.dirs = append(intr.dirs, d)
		}
		return err
	})
}

// ForgetDirs unregisters the directories: their files are in place, or
// they are gone.
func ForgetDirs() {
	withTemps(func() error { intr.dirs = nil; return nil })
}

// BeginCommit marks the start of a group's renames: a signal from now on
// until EndCommit lets the group finish (OnSignal).
func BeginCommit() {
	withTemps(func() error { intr.inCommit++; return nil })
}

// EndCommit marks the end of a group's renames (see BeginCommit).
func EndCommit() {
	withTemps(func() error { intr.inCommit--; return nil })
}

// Interrupted is the signal that arrived while a group was being renamed,
// or nil. The run stops writing once it is set.
func Interrupted() os.Signal {
	intr.mu.Lock()
	defer intr.mu.Unlock()
	return intr.pending
}

// OnSignal handles SIGINT, SIGTERM, SIGHUP or SIGQUIT (the command's signal handler calls
// it). Outside a group's renames, nothing but temp files is in flight: it
// removes them all and calls exit, with the registry still locked so that
// no new temp file can appear before the process ends. During a group's
// renames it records the signal and returns: the group finishes, the run
// stops before the next one (Interrupted), and exits with a summary.
func OnSignal(sig os.Signal, exit func()) {
	intr.mu.Lock()
	if intr.inCommit > 0 {
		intr.pending = sig
		intr.mu.Unlock()
		return
	}
	for name := range intr.temps {
		os.Remove(name)
		delete(intr.temps, name)
	}
	for i := len(intr.dirs) - 1; i >= 0; i-- {
		os.Remove(intr.dirs[i]) // only an empty directory goes
	}
	intr.dirs = nil
	exit()
	intr.mu.Unlock()
}

// ResetInterrupt forgets a recorded signal (a process that runs several
// commands, as the tests do).
func ResetInterrupt() {
	withTemps(func() error { intr.pending = nil; return nil })
}

// IsTemp reports whether a file name is one of schedtool's temp files.
func IsTemp(name string) bool { return paths.IsTemp(name) }
