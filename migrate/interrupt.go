package migrate

import (
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
)

// intr is what a signal needs to know about the writes in flight: every
// temp file that exists, and whether a group is being renamed.
var intr = struct {
	mu       sync.Mutex
	temps    map[string]bool
	dirs     []string // made for staged files, removed again by a signal
	inCommit bool
	pending  os.Signal
}{temps: map[string]bool{}}

// withTemps runs f with the temp registry locked.
func withTemps(f func() error) error {
	intr.mu.Lock()
	defer intr.mu.Unlock()
	return f()
}

// createTemp creates and registers a temp file beside base in dir, in
// one step, so that a signal never misses one.
func createTemp(dir, base string) (*os.File, error) {
	var f *os.File
	err := withTemps(func() error {
		var err error
		if f, err = os.CreateTemp(dir, tempPattern(base)); err == nil {
			intr.temps[f.Name()] = true
		}
		return err
	})
	return f, err
}

// forgetTemp unregisters a temp name that was renamed into place.
func forgetTemp(name string) {
	withTemps(func() error { delete(intr.temps, name); return nil })
}

// dropTemp removes and unregisters a temp file ("" does nothing).
func dropTemp(name string) {
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

// mkdirRegistered makes a directory to hold temp files and registers
// it in one step, so that a signal removes it when they are all it held.
func mkdirRegistered(d string) error {
	return withTemps(func() error {
		err := os.Mkdir(d, 0o755)
		if err == nil {
			intr.dirs = append(intr.dirs, d)
		}
		return err
	})
}

// forgetDirs unregisters the directories: their files are in place, or
// they are gone.
func forgetDirs() {
	withTemps(func() error { intr.dirs = nil; return nil })
}

func beginCommit() {
	withTemps(func() error { intr.inCommit = true; return nil })
}

func endCommit() {
	withTemps(func() error { intr.inCommit = false; return nil })
}

// Interrupted is the signal that arrived while a group was being renamed,
// or nil. The run stops writing once it is set.
func Interrupted() os.Signal {
	intr.mu.Lock()
	defer intr.mu.Unlock()
	return intr.pending
}

// OnSignal handles SIGINT or SIGTERM (the command's signal handler calls
// it). Outside a group's renames, nothing but temp files is in flight: it
// removes them all and calls exit, with the registry still locked so that
// no new temp file can appear before the process ends. During a group's
// renames it records the signal and returns: the group finishes, the run
// stops before the next one (Interrupted), and exits with a summary.
func OnSignal(sig os.Signal, exit func()) {
	intr.mu.Lock()
	if intr.inCommit {
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
func IsTemp(name string) bool {
	ok, _ := filepath.Match(".*.schedtool-*", filepath.Base(name))
	return ok
}

// written counts the files written so far in this process, for the
// message of a signal that ends it.
var written atomic.Int64

// Written is the number of files written so far (see OnSignal).
func Written() int64 { return written.Load() }

// SignalName is SIGINT or SIGTERM (or the signal's own name).
func SignalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}
