package migrate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrChanged is a file whose content changed after it was read.
var ErrChanged = errors.New("the file changed since schedtool read it; not written (run migrate again)")

// WriteFile replaces the content of path by data, atomically: a temp
// file in the same directory, written, synced, given path's mode, then
// renamed over path. With old set, a file whose content is no longer old
// is refused. On any failure path keeps its content and no temp file is
// left behind.
func WriteFile(path string, old, data []byte) error {
	target := path
	if real, err := filepath.EvalSymlinks(path); err == nil {
		target = real
	}
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(target); err == nil {
		mode = st.Mode().Perm()
	} else if old != nil {
		return err
	}
	if old != nil {
		if cur, err := os.ReadFile(target); err != nil {
			return err
		} else if !bytes.Equal(cur, old) {
			return ErrChanged
		}
	}
	return atomicWrite(target, mode, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}, func() error {
		if old == nil {
			return nil
		}
		if cur, err := os.ReadFile(target); err != nil || !bytes.Equal(cur, old) {
			return ErrChanged
		}
		return nil
	})
}

// beforeRename, when set (by tests), runs just before a temp file is
// checked and renamed into place: the window in which another process
// could replace the target.
var beforeRename func(target string)

// atomicWrite writes a file through fill into a temp file beside target
// and renames it there once check (if any) still passes.
func atomicWrite(target string, mode fs.FileMode, fill func(io.Writer) error, check func() error) (err error) {
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".schedtool-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(name)
		}
	}()
	if err = fill(tmp); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Chmod(mode); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if beforeRename != nil {
		beforeRename(target)
	}
	if check != nil {
		if err = check(); err != nil {
			return err
		}
	}
	if err = os.Rename(name, target); err != nil {
		return err
	}
	if d, derr := os.Open(dir); derr == nil {
		d.Sync() // the rename itself survives a crash
		d.Close()
	}
	return nil
}

// Stream is a file of rows written atomically to a file at Close.
type Stream struct {
	path string
	tmp  *os.File
	buf  *bytes.Buffer
	err  error
}

// CreateStream starts writing path (a temp file beside it until Commit).
func CreateStream(path string) (*Stream, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".schedtool-*")
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
		_, o.err = o.tmp.Write(o.buf.Bytes())
		o.buf.Reset()
	}
}

// Commit makes the file appear at its path, complete; on an error the
// temp file is removed and the path is left as it was.
func (o *Stream) Commit() error {
	o.flush()
	err := o.err
	if err == nil {
		err = o.tmp.Sync()
	}
	if err == nil {
		err = o.tmp.Chmod(0o644)
	}
	if cerr := o.tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(o.tmp.Name(), o.path)
	}
	if err != nil {
		os.Remove(o.tmp.Name())
		return fmt.Errorf("writing %s: %w", o.path, err)
	}
	return nil
}

// Abort removes the temp file.
func (o *Stream) Abort() {
	o.tmp.Close()
	os.Remove(o.tmp.Name())
}
