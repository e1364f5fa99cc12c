package migrate

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"schedtool/catalog"
	"schedtool/report"
)

// ErrChanged is a file whose content changed after it was read.
var ErrChanged = errors.New("the file changed since schedtool read it; not written (run migrate again)")

// Put is one file of a group to write.
type Put struct {
	Path string // as displayed, and as opened
	Old  []byte // the content read, for a file changed in place; nil for an output file
	Data []byte // the new content
	// Within, when set, are the directories (symlinks resolved) the file
	// written must resolve inside: the inputs' roots.
	Within []string

	real   string      // the file written: Path with symlinks resolved (in place), or Path (output)
	mode   fs.FileMode // kept from the file replaced
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

// fault, when set (by tests), runs before each step of a write (create,
// write, sync, close, backup, rename, restore) of the file at path; an
// error it returns is that step's error.
var fault func(step, path string) error

func step(name, path string) error {
	if fault != nil {
		return fault(name, path)
	}
	return nil
}

// beforeRename, when set (by tests), runs just before a temp file is
// checked and renamed into place: the window in which another process
// could replace the target.
var beforeRename func(target string)

// afterCheck, when set (by tests), runs after a file was found unchanged
// and before the temp file is renamed over it: the window in which
// another migrate run could write the same group.
var afterCheck func(target string)

// WriteFile replaces the content of path by data, atomically: a group of
// one file (see WriteGroup). With old set the file is changed in place and
// a file whose content is no longer old is refused; with old nil path is
// an output file.
func WriteFile(path string, old, data []byte) error {
	return WriteGroup([]*Put{{Path: path, Old: old, Data: data}})
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
func WriteGroup(puts []*Put) error {
	// Another migrate run writing the same files waits for this group:
	// a check for a changed file and the rename after it are one step
	// between schedtool processes.
	unlock := lockDirs(puts)
	defer unlock()
	defer func() {
		for _, p := range puts {
			dropTemp(p.tmp)
			dropTemp(p.backup)
			p.tmp, p.backup = "", ""
		}
	}()
	for _, p := range puts {
		if err := stage(p); err != nil {
			return &GroupError{Path: p.Path, Err: err}
		}
	}
	beginCommit()
	defer endCommit()
	return commit(puts)
}

// stage writes p's temp file and keeps its original.
func stage(p *Put) error {
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
	p.mode = 0o644
	st, err := os.Lstat(p.real)
	switch {
	case err == nil && st.Mode()&fs.ModeSymlink != 0:
		return errors.New("is a symlink; schedtool does not write through one")
	case err == nil && !st.Mode().IsRegular():
		return errors.New("is not a regular file")
	case err == nil:
		p.mode = st.Mode().Perm()
	case p.Old != nil || !errors.Is(err, fs.ErrNotExist):
		return err
	}
	if p.Old != nil {
		if n := otherLinks(p.real, st); n > 0 {
			return fmt.Errorf("has %d other hard %s: replacing it would leave %s with the old content; not written (give each name its own file)", n, report.Plural(n, "link", "links"), report.Plural(n, "that name", "those names"))
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
	if err := step("create", p.Path); err != nil {
		return err
	}
	tmp, err := createTemp(dir, base)
	if err != nil {
		return err
	}
	p.tmp = tmp.Name()
	err = step("write", p.Path)
	if err == nil {
		_, err = tmp.Write(p.Data)
	}
	if err == nil {
		if err = step("sync", p.Path); err == nil {
			err = tmp.Sync()
		}
	}
	if err == nil {
		err = tmp.Chmod(p.mode)
	}
	if cerr := tmp.Close(); err == nil {
		if err = step("close", p.Path); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return err
	}
	if st != nil {
		return keep(p, dir, base)
	}
	return nil
}

// keep saves the original of p for a rollback: a hard link to it, or,
// where the file system has none, a copy.
func keep(p *Put, dir, base string) error {
	if err := step("backup", p.Path); err != nil {
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
	f, err := createTemp(dir, base)
	if err != nil {
		return err
	}
	p.backup = f.Name()
	return fill(f, old, p.mode)
}

// fill writes data to the temp file f, syncs it, gives it mode and
// closes it.
func fill(f *os.File, data []byte, mode fs.FileMode) error {
	_, err := f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		err = f.Chmod(mode)
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
		if _, ok := catalog.Under(r, abs); ok {
			return nil
		}
	}
	return fmt.Errorf("resolves to %s, outside the root %s; not written", abs, strings.Join(roots, ", "))
}

func unchanged(p *Put) error {
	cur, err := os.ReadFile(p.real)
	if err != nil {
		return err
	}
	if !bytes.Equal(cur, p.Old) {
		return ErrChanged
	}
	return nil
}

// commit renames the staged files in order, and rolls back on a failure.
func commit(puts []*Put) error {
	for i, p := range puts {
		err := step("rename", p.Path)
		if err == nil {
			if beforeRename != nil {
				beforeRename(p.real)
			}
			if p.Old != nil {
				err = unchanged(p)
			} else if st, lerr := os.Lstat(p.real); lerr == nil && (st.Mode()&fs.ModeSymlink != 0 || !st.Mode().IsRegular()) {
				err = errors.New("became a symlink or a special file; schedtool does not write through one")
			}
		}
		if err == nil && afterCheck != nil {
			afterCheck(p.real)
		}
		if err == nil {
			err = os.Rename(p.tmp, p.real)
		}
		if err != nil {
			return &GroupError{Path: p.Path, Err: err, Stuck: rollback(puts[:i])}
		}
		forgetTemp(p.tmp)
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
func rollback(done []*Put) (stuck string) {
	for i := len(done) - 1; i >= 0; i-- {
		p := done[i]
		err := step("restore", p.Path)
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
		forgetTemp(p.backup)
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

// tempsBeside are the temp files of schedtool runs beside path.
func tempsBeside(path string) []string {
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

// Stream is a file of rows written atomically to a file at Commit.
type Stream struct {
	path string
	tmp  *os.File
	buf  *bytes.Buffer
	err  error
}

// CreateStream starts writing path (a temp file beside it until Commit).
// path must not be a symlink.
func CreateStream(path string) (*Stream, error) {
	if st, err := os.Lstat(path); err == nil && (st.Mode()&fs.ModeSymlink != 0 || !st.Mode().IsRegular()) {
		return nil, fmt.Errorf("%s is a symlink or not a regular file; schedtool does not write through one", path)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if err := step("create", path); err != nil {
		return nil, err
	}
	tmp, err := createTemp(dir, base)
	if err != nil {
		return nil, err
	}
	return &Stream{path: path, tmp: tmp, buf: &bytes.Buffer{}}, nil
}

// Write buffers a little, then writes to the temp file.
func (o *Stream) Write(b []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	o.buf.Write(b)
	if o.buf.Len() >= 1<<20 {
		o.flush()
	}
	return len(b), o.err
}

func (o *Stream) flush() {
	if o.err == nil && o.buf.Len() > 0 {
		if o.err = step("write", o.path); o.err == nil {
			_, o.err = o.tmp.Write(o.buf.Bytes())
		}
		o.buf.Reset()
	}
}

// Commit makes the file appear at its path, complete; on an error the
// temp file is removed and the path is left as it was.
func (o *Stream) Commit() error {
	o.flush()
	err := o.err
	if err == nil {
		if err = step("sync", o.path); err == nil {
			err = o.tmp.Sync()
		}
	}
	if err == nil {
		err = o.tmp.Chmod(0o644)
	}
	if cerr := o.tmp.Close(); err == nil {
		if err = step("close", o.path); err == nil {
			err = cerr
		}
	}
	if err == nil {
		err = o.rename()
	}
	if err != nil {
		dropTemp(o.tmp.Name())
		return fmt.Errorf("writing %s: %w", o.path, err)
	}
	if d, derr := os.Open(filepath.Dir(o.path)); derr == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// rename puts the complete file in place, refusing a symlink or special
// file that appeared at its path meanwhile.
func (o *Stream) rename() error {
	beginCommit()
	defer endCommit()
	if err := step("rename", o.path); err != nil {
		return err
	}
	if st, err := os.Lstat(o.path); err == nil && (st.Mode()&fs.ModeSymlink != 0 || !st.Mode().IsRegular()) {
		return errors.New("became a symlink or a special file; schedtool does not write through one")
	}
	if err := os.Rename(o.tmp.Name(), o.path); err != nil {
		return err
	}
	forgetTemp(o.tmp.Name())
	return nil
}

// Abort removes the temp file.
func (o *Stream) Abort() {
	o.tmp.Close()
	dropTemp(o.tmp.Name())
}

// otherLinks is how many names besides path the file st has (hard links),
// not counting the backups an interrupted run left beside it.
func otherLinks(path string, st fs.FileInfo) int {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok || sys.Nlink < 2 {
		return 0
	}
	n := int(sys.Nlink) - 1
	for _, t := range tempsBeside(path) {
		if lst, err := os.Lstat(t); err == nil && os.SameFile(lst, st) {
			n--
		}
	}
	return n
}
