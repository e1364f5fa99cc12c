package groupwrite

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Stream is a file of rows written atomically to a file at Commit.
type Stream struct {
	hooks Hooks
	path  string
	tmp   *os.File
	buf   *bytes.Buffer
	err   error
}

// CreateStream starts writing path (a temp file beside it until Commit),
// created with mode (narrowed by the umask) from its first byte; it keeps
// that mode, whatever file it replaces. path must not be a symlink.
func CreateStream(path string, mode fs.FileMode, h Hooks) (*Stream, error) {
	if st, err := os.Lstat(path); err == nil && (st.Mode()&fs.ModeSymlink != 0 || !st.Mode().IsRegular()) {
		return nil, fmt.Errorf("%s is a symlink or not a regular file; schedtool does not write through one", path)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if err := h.step("create", path); err != nil {
		return nil, err
	}
	tmp, err := CreateTemp(dir, base, mode)
	if err != nil {
		return nil, err
	}
	return &Stream{hooks: h, path: path, tmp: tmp, buf: &bytes.Buffer{}}, nil
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
		if o.err = o.hooks.step("write", o.path); o.err == nil {
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
		if err = o.hooks.step("sync", o.path); err == nil {
			err = o.tmp.Sync()
		}
	}
	if cerr := o.tmp.Close(); err == nil {
		if err = o.hooks.step("close", o.path); err == nil {
			err = cerr
		}
	}
	if err == nil {
		err = o.rename()
	}
	if err != nil {
		DropTemp(o.tmp.Name())
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
	BeginCommit()
	defer EndCommit()
	if err := o.hooks.step("rename", o.path); err != nil {
		return err
	}
	if st, err := os.Lstat(o.path); err == nil && (st.Mode()&fs.ModeSymlink != 0 || !st.Mode().IsRegular()) {
		return errors.New("became a symlink or a special file; schedtool does not write through one")
	}
	if err := os.Rename(o.tmp.Name(), o.path); err != nil {
		return err
	}
	ForgetTemp(o.tmp.Name())
	return nil
}

// Abort removes the temp file.
func (o *Stream) Abort() {
	o.tmp.Close()
	DropTemp(o.tmp.Name())
}
