// --out DIR's copies: the files of the tree the migration does not
// change, with their bytes and mode, through the group writer (write.go);
// a large file streamed, never read whole.

package migrate

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/internal/groupwrite"
	"github.com/estuary/schedtool/internal/paths"
	"github.com/estuary/schedtool/report"
)

// copyInMemory is the size up to which a copy is read whole and written
// as a group of one; a larger file is streamed (a variable for the
// tests).
var copyInMemory int64 = 8 << 20

// putGroup writes one group of output files, each with its input's mode
// (Put.Mode, narrowed by the umask): the group writer creates each file
// with that mode from its first byte, so that a copy of a private file (a
// sealed config, 0600) is never readable by more people than its input,
// not even for a moment.
func (r *runner) putGroup(g group, puts []*Put, mode map[string]fs.FileMode) {
	for _, p := range puts {
		if g.err != "" {
			break
		}
		if err := mkdirBelow(r.opts.Out, filepath.Dir(p.Path)); err != nil {
			g.err = err.Error()
			break
		}
		if m, ok := mode[p.Path]; ok {
			p.Mode = m
		}
	}
	r.writeGroup(g, puts)
}

// copyFile writes one file of the tree that the migration does not
// change to its output path, or says why it cannot be copied.
func (r *runner) copyFile(c TreeFile, dst string) {
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
	f, st, err := paths.OpenRegular(c.Path)
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
// beside dst, created with the input's mode and renamed into place
// complete): never readable by more people than its input.
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
		s, err = groupwrite.CreateStream(dst, mode, r.opts.Hooks)
	}
	if err == nil {
		if _, err = io.Copy(s, src); err != nil {
			s.Abort()
		} else {
			err = s.Commit()
		}
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

// inputMode is the permission bits of a file read; 0600 when they
// cannot be had (standard input, a file gone since): what is unknown may
// be private.
func inputMode(path string) fs.FileMode {
	if st, err := os.Stat(path); err == nil && path != "-" {
		return st.Mode().Perm()
	}
	return 0o600
}
