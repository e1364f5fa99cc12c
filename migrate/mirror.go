// --out DIR's copies: the files of the tree the migration does not
// change, with their bytes and mode, through the group writer (write.go);
// a large file streamed, never read whole.

package migrate

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/internal/groupwrite"
	"github.com/estuary/schedtool/report"
)

// copyInMemory is the size up to which a copy is read whole and written
// as a group of one; a larger file is streamed (a variable for the
// tests).
var copyInMemory int64 = 8 << 20

// putGroup writes one group of output files, each with its input's mode:
// an output file that is not there yet is first created empty with that
// mode, which the group writer keeps, so that a copy of a private file
// (a sealed config, 0600) is never readable by more people than its
// input, not even for a moment. Such an empty file is removed again when
// the group is not written.
func (r *runner) putGroup(g group, puts []*Put, mode map[string]fs.FileMode) {
	var created []string
	for _, p := range puts {
		if g.err != "" {
			break
		}
		if err := mkdirBelow(r.opts.Out, filepath.Dir(p.Path)); err != nil {
			g.err = err.Error()
			break
		}
		if m, ok := mode[p.Path]; ok {
			made, err := chmodNoFollow(p.Path, m, m != 0o644)
			if made {
				created = append(created, p.Path)
			}
			if err != nil {
				g.err = err.Error()
			}
		}
	}
	failed, untouched := r.sum.Failed, r.sum.Untouched
	r.writeGroup(g, puts)
	if r.sum.Failed != failed || r.sum.Untouched != untouched {
		for _, p := range created {
			if st, err := os.Lstat(p); err == nil && st.Mode().IsRegular() && st.Size() == 0 {
				os.Remove(p)
			}
		}
	}
}

// copyFile writes one file of the tree that the migration does not
// change to its output path, or says why it cannot be copied.
func (r *runner) copyFile(c catalog.TreeFile, dst string) {
	switch {
	case c.Left != "":
		by := ""
		if c.By != "" {
			by = " (named at " + report.Escape(c.By) + ")"
		}
		r.note("schedtool: %s: not copied%s: %s", report.Escape(c.Path), by, report.Escape(c.Left))
		return
	case c.Refused != "":
		r.fail(c.Path, c.Refused)
		return
	}
	f, st, err := catalog.OpenRegular(c.Path)
	if err != nil {
		r.fail(c.Path, "cannot be read: "+catalog.Describe(err))
		return
	}
	defer f.Close()
	mode := st.Mode().Perm()
	if st.Size() > copyInMemory {
		r.stream(f, dst, mode)
		return
	}
	data, err := io.ReadAll(io.LimitReader(f, copyInMemory+1))
	switch {
	case err != nil:
		r.fail(c.Path, "cannot be read: "+catalog.Describe(err))
	case int64(len(data)) > copyInMemory: // it grew meanwhile
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			r.fail(c.Path, "cannot be read: "+catalog.Describe(err))
			return
		}
		r.stream(f, dst, mode)
	default:
		r.putGroup(group{files: []*File{{Path: dst}}}, []*Put{{Path: dst, Data: data}}, map[string]fs.FileMode{dst: mode})
	}
}

// stream copies a large file through the writer's stream (a temp file
// beside dst, renamed into place complete), then gives it its mode. The
// stream writes its file 0644, so a large file whose mode is narrower is
// readable by others between the rename and the chmod.
func (r *runner) stream(src io.Reader, dst string, mode fs.FileMode) {
	if r.stopped != nil {
		r.sum.Untouched++
		if r.json != nil {
			r.json.file(dst, "interrupted", "left as it was: the run was interrupted before it")
		}
		return
	}
	err := mkdirBelow(r.opts.Out, filepath.Dir(dst))
	var s *groupwrite.Stream
	if err == nil {
		s, err = groupwrite.CreateStream(dst, r.opts.Hooks)
	}
	if err == nil {
		if _, err = io.Copy(s, src); err != nil {
			s.Abort()
		} else {
			err = s.Commit()
		}
	}
	if err == nil && mode != 0o644 {
		_, err = chmodNoFollow(dst, mode, false)
	}
	if err != nil {
		r.fail(dst, err.Error())
	} else {
		written.Add(1)
	}
	if sig := groupwrite.Interrupted(); sig != nil {
		r.stopped = sig
	}
}

// inputMode is the permission bits of a file read (0644 when it cannot
// be had: standard input, a file gone since).
func inputMode(path string) fs.FileMode {
	if st, err := os.Stat(path); err == nil {
		return st.Mode().Perm()
	}
	return 0o644
}

// chmodNoFollow gives the regular file at path the mode, never through a
// symlink; with create, a missing file is created empty (made), without
// it a missing file is left missing.
func chmodNoFollow(path string, mode fs.FileMode, create bool) (made bool, err error) {
	flags := os.O_RDONLY | syscall.O_NOFOLLOW | syscall.O_NONBLOCK
	var f *os.File
	if create {
		f, err = os.OpenFile(path, flags|os.O_CREATE|os.O_EXCL, 0o600)
		made = err == nil
	}
	if !made {
		f, err = os.OpenFile(path, flags, 0)
	}
	if err != nil {
		if !create && errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		if errors.Is(err, syscall.ELOOP) {
			return false, fmt.Errorf("%s is a symlink; schedtool does not write through one", path)
		}
		return false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file", path)
	}
	if err == nil {
		err = f.Chmod(mode)
	}
	return made, err
}
