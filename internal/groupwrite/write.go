// Package groupwrite writes a group of files all or nothing: each new
// content staged in a synced temp file beside its target and each
// original kept before the first rename, the renames in the caller's
// order, a failed rename rolled back in reverse. It is renameio's
// PendingFile for several files at once, plus what a signal needs to
// know (temps.go) so that an interrupted run leaves no temp file.
package groupwrite

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/estuary/schedtool/internal/paths"
	"github.com/estuary/schedtool/internal/words"
)

// ErrChanged is a file whose content changed after it was read.
var ErrChanged = errors.New("the file changed since schedtool read it; not written (run migrate again)")

// Put is one file of a group to write.
type Put struct {
	Path string // as displayed, and as opened
	Old  []byte // the content read, for a file changed in place; nil for an output file
	Data []byte // the new content
	// Mode is an output file's mode (0: 0644), narrowed by the umask; the
	// file is created with it, and never has a wider one, whatever file
	// it replaces. A file changed in place keeps its own mode instead.
	Mode fs.FileMode
	// Within, when set, are the directories (symlinks resolved) the file
	// written must resolve inside: the inputs' roots.
	Within []string

	real   string      // the file written: Path with symlinks resolved (in place), or Path (output)
	mode   fs.FileMode // kept from the file replaced (in place), or Mode (output)
	tmp    string      // the staged new content
	backup string      // the original, kept for a rollback; "" when there was none
	// written is the file renamed into place, for a rollback to know it
	// still holds what this run wrote.
	written fs.FileInfo
}

// GroupError is a group that was not written, or not completely.
type GroupError struct {
	Path string // the file whose step failed
	Err  error
	// Stuck is set when a rollback could not be completed: the files
	// renamed before it keep their new content (a prefix of the group's
	// order, so every task stays paced) and Stuck says which.
	Stuck string
}

func (e *GroupError) Error() string {
	msg := e.Err.Error()
	if e.Stuck != "" {
		msg += "; " + e.Stuck
	}
	return msg
}

func (e *GroupError) Unwrap() error { return e.Err }

// Hooks are the points at which tests inject faults and races; the zero
// value has none, which is what every caller outside tests passes.
type Hooks struct {
	// Fault runs before each step of a write (create, write, sync, close,
	// backup, rename, restore) of the file at path; an error it returns
	// is that step's error.
	Fault func(step, path string) error
	// BeforeRename runs just before a temp file is checked and renamed
	// into place: the window in which another process could replace the
	// target.
	BeforeRename func(target string)
	// AfterCheck runs after a file was found unchanged and before the
	// temp file is renamed over it: the window in which another migrate
	// run could write the same group.
	AfterCheck func(target string)
}

func (h Hooks) step(name, path string) error {
	if h.Fault != nil {
		return h.Fault(name, path)
	}
	return nil
}

// WriteFile replaces the content of path by data, atomically: a group of
// one file (see WriteGroup). With old set the file is changed in place and
// a file whose content is no longer old is refused; with old nil path is
// an output file.
func WriteFile(path string, old, data []byte, h Hooks) error {
	return WriteGroup([]*Put{{Path: path, Old: old, Data: data}}, h)
}

// WriteGroup writes the files of one group all or nothing, renaming them
// in the order given (the caller orders them so that every prefix leaves
// every task paced: the file that adds a model schedule before the file
// that zeroes the connector).
//
// Every file's new content is first written to a temp file beside it and
// synced, and every original is kept (a hard link, else a copy), before
// the first rename. If a file cannot be staged, nothing is renamed. If a
// rename fails, the files already renamed are restored in reverse order;
// a restore that fails stops the rollback there, so the files left new
// are still a prefix of the order. No temp file is left behind, and a
// signal that arrives during the renames waits for the group to finish.
func WriteGroup(puts []*Put, h Hooks) error {
	// Another migrate run writing the same files waits for this group:
	// a check for a changed file and the rename after it are one step
	// between schedtool processes.
	unlock := lockDirs(puts)
	defer unlock()
	defer func() {
		for _, p := range puts {
			DropTemp(p.tmp)
			DropTemp(p.backup)
			p.tmp, p.backup = "", ""
		}
	}()
	for _, p := range puts {
		if err := stage(p, h); err != nil {
			return &GroupError{Path: p.Path, Err: err}
		}
	}
	BeginCommit()
	defer EndCommit()
	return commit(puts, h)
}

// stage writes p's temp file and keeps its original.
func stage(p *Put, h Hooks) error {
	p.real = p.Path
	if p.Old != nil {
		real, err := filepath.EvalSymlinks(p.Path)
		if err != nil {
			return err
		}
		p.real = real
		if err := inside(real, p.Within); err != nil {
			return err
		}
	}
	p.mode = p.Mode.Perm()
	if p.mode == 0 {
		p.mode = 0o644
	}
	st, err := os.Lstat(p.real)
	switch {
	case err == nil && st.Mode()&fs.ModeSymlink != 0:
		return errors.New("is a symlink; schedtool does not write through one")
	case err == nil && !st.Mode().IsRegular():
		return errors.New("is not a regular file")
	case err == nil:
		if p.Old != nil {
			p.mode = st.Mode().Perm()
		}
	case p.Old != nil || !errors.Is(err, fs.ErrNotExist):
		return err
	}
	if p.Old != nil {
		if n := otherLinks(p.real, st); n > 0 {
			return fmt.Errorf("has %d other hard %s: replacing it would leave %s with the old content; not written (give each name its own file)", n, words.Plural(n, "link", "links"), words.Plural(n, "that name", "those names"))
		}
	}
	if p.Old != nil {
		if err := unchanged(p); err != nil {
			return err
		}
	}
	dir, base := filepath.Split(p.real)
	if dir == "" {
		dir = "."
	}
	if err := h.step("create", p.Path); err != nil {
		return err
	}
	tmp, err := CreateTemp(dir, base, p.mode)
	if err != nil {
		return err
	}
	p.tmp = tmp.Name()
	err = h.step("write", p.Path)
	if err == nil {
		_, err = tmp.Write(p.Data)
	}
	if err == nil {
		if err = h.step("sync", p.Path); err == nil {
			err = tmp.Sync()
		}
	}
	if err == nil && p.Old != nil {
		// A file changed in place keeps its mode exactly, umask or not:
		// set once the content is written, never wider than the file
		// it replaces.
		err = tmp.Chmod(p.mode)
	}
	if cerr := tmp.Close(); err == nil {
		if err = h.step("close", p.Path); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return err
	}
	if st != nil {
		return keep(p, dir, base, h)
	}
	return nil
}

// keep saves the original of p for a rollback: a hard link to it, or,
// where the file system has none, a copy.
func keep(p *Put, dir, base string, h Hooks) error {
	if err := h.step("backup", p.Path); err != nil {
		return err
	}
	name, err := linkTemp(p.real, dir, base)
	if err == nil {
		p.backup = name
		return nil
	}
	old := p.Old
	if old == nil {
		if old, err = os.ReadFile(p.real); err != nil {
			return err
		}
	}
	f, err := CreateTemp(dir, base, p.mode)
	if err != nil {
		return err
	}
	p.backup = f.Name()
	_, err = f.Write(old)
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		// The original's own mode, set once its content is there.
		err = f.Chmod(p.mode)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Fill writes data to the temp file f, syncs it and closes it. Its mode
// is the one it was created with (CreateTemp).
func Fill(f *os.File, data []byte) error {
	_, err := f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// inside refuses a resolved path outside every one of roots.
func inside(real string, roots []string) error {
	if len(roots) == 0 {
		return nil
	}
	abs, err := filepath.Abs(real)
	if err != nil {
		return err
	}
	for _, r := range roots {
		if _, ok := paths.Under(r, abs); ok {
			return nil
		}
	}
	return fmt.Errorf("resolves to %s, outside the root %s; not written", abs, strings.Join(roots, ", "))
}

func unchanged(p *Put) error {
	// A regular file, opened without blocking, read no further than
	// what could still equal Old: a FIFO or a huge file swapped in since
	// the read neither hangs nor fills memory.
	f, _, err := paths.OpenRegular(p.real)
	if err != nil {
		return err
	}
	defer f.Close()
	cur, err := io.ReadAll(io.LimitReader(f, int64(len(p.Old))+1))
	if err != nil {
		return err
	}
	if !bytes.Equal(cur, p.Old) {
		return ErrChanged
	}
	return nil
}

// commit renames the staged files in order, and rolls back on a failure.
func commit(puts []*Put, h Hooks) error {
	for i, p := range puts {
		err := h.step("rename", p.Path)
		if err == nil {
			if h.BeforeRename != nil {
				h.BeforeRename(p.real)
			}
			if p.Old != nil {
				err = unchanged(p)
			} else if st, lerr := os.Lstat(p.real); lerr == nil && (st.Mode()&fs.ModeSymlink != 0 || !st.Mode().IsRegular()) {
				err = errors.New("became a symlink or a special file; schedtool does not write through one")
			}
		}
		if err == nil && h.AfterCheck != nil {
			h.AfterCheck(p.real)
		}
		if err == nil {
			err = os.Rename(p.tmp, p.real)
		}
		if err != nil {
			return &GroupError{Path: p.Path, Err: err, Stuck: rollback(puts[:i], h)}
		}
		ForgetTemp(p.tmp)
		p.written, _ = os.Lstat(p.real)
		p.tmp = ""
	}
	syncDirs(puts)
	return nil
}

// lockDirs takes an exclusive advisory lock on the directory of every
// file of the group changed in place (in sorted order, so two runs never
// wait on each other crosswise) and returns the function that releases
// them. A directory that cannot be opened or locked is skipped: the
// check before each rename still refuses a changed file.
func lockDirs(puts []*Put) func() {
	seen := map[string]bool{}
	var dirs []string
	for _, p := range puts {
		if p.Old == nil {
			continue
		}
		dir := filepath.Dir(p.Path)
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
		}
		if !seen[dir] {
			seen[dir] = true
			dirs = append(dirs, dir)
		}
	}
	sort.Strings(dirs)
	var held []*os.File
	for _, dir := range dirs {
		d, err := os.Open(dir)
		if err != nil {
			continue
		}
		if err := flock(d); err != nil {
			d.Close()
			continue
		}
		held = append(held, d)
	}
	return func() {
		for _, d := range held {
			d.Close() // releases the lock
		}
	}
}

// rollback restores the files renamed, last first. It stops at the first
// file it cannot restore and says which files keep their new content.
func rollback(done []*Put, h Hooks) (stuck string) {
	for i := len(done) - 1; i >= 0; i-- {
		p := done[i]
		err := h.step("restore", p.Path)
		if err == nil {
			// Never restore over a file this run did not write.
			if cur, lerr := os.Lstat(p.real); lerr != nil || p.written == nil || !os.SameFile(cur, p.written) {
				err = errors.New("it was replaced by another writer meanwhile")
			}
		}
		if err == nil {
			if p.backup != "" {
				err = os.Rename(p.backup, p.real)
			} else {
				err = os.Remove(p.real)
			}
		}
		if err != nil {
			var kept []string
			for _, q := range done[:i+1] {
				kept = append(kept, q.Path)
			}
			syncDirs(done)
			return fmt.Sprintf("could not restore %s (%v): %s keep their new content, which leaves every task paced; run migrate again to finish", p.Path, err, strings.Join(kept, ", "))
		}
		ForgetTemp(p.backup)
		p.backup = ""
	}
	syncDirs(done)
	return ""
}

// syncDirs makes the renames survive a crash.
func syncDirs(puts []*Put) {
	seen := map[string]bool{}
	for _, p := range puts {
		dir := filepath.Dir(p.real)
		if seen[dir] {
			continue
		}
		seen[dir] = true
		if d, err := os.Open(dir); err == nil {
			d.Sync()
			d.Close()
		}
	}
}

// tempPattern is the name of every temp file beside base: the signal
// handler and the tests find them by it.
func tempPattern(base string) string { return "." + base + ".schedtool-*" }

// TempsBeside are the temp files of schedtool runs beside path.
func TempsBeside(path string) []string {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	left, _ := filepath.Glob(filepath.Join(dir, tempPattern(base)))
	return left
}

// linkTemp makes a hard link to target under a fresh temp name.
func linkTemp(target, dir, base string) (string, error) {
	for range 10 {
		var b [6]byte
		rand.Read(b[:])
		name := filepath.Join(dir, strings.Replace(tempPattern(base), "*", hex.EncodeToString(b[:]), 1))
		err := withTemps(func() error {
			if err := os.Link(target, name); err != nil {
				return err
			}
			intr.temps[name] = true
			return nil
		})
		if !errors.Is(err, fs.ErrExist) {
			if err != nil {
				return "", err
			}
			return name, nil
		}
	}
	return "", errors.New("no free temp name")
}

// otherLinks is how many names besides path the file st has (hard links),
// not counting the backups an interrupted run left beside it.
func otherLinks(path string, st fs.FileInfo) int {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok || sys.Nlink < 2 {
		return 0
	}
	n := int(sys.Nlink) - 1
	for _, t := range TempsBeside(path) {
		if lst, err := os.Lstat(t); err == nil && os.SameFile(lst, st) {
			n--
		}
	}
	return n
}
