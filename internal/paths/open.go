package paths

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// NotRegularError is a path that is not a regular file: a FIFO, a device,
// a socket or a directory (directly or through a symlink). It is refused
// before it is opened for reading, so a FIFO cannot hang a run and
// /dev/zero cannot fill its memory.
type NotRegularError struct{ Mode fs.FileMode }

func (e *NotRegularError) Error() string {
	return "not a regular file (" + describeMode(e.Mode) + "); only regular files are read"
}

func describeMode(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	}
	return "a special file"
}

// OpenRegular opens path for reading only if it is a regular file,
// symlinks followed. It looks before it opens, then opens without
// blocking (a FIFO swapped in between cannot hang it) and checks that
// what it opened is the regular file it looked at.
func OpenRegular(path string) (*os.File, fs.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, &NotRegularError{st.Mode()}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	fst, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fst.Mode().IsRegular() {
		f.Close()
		return nil, nil, &NotRegularError{fst.Mode()}
	}
	if !os.SameFile(st, fst) {
		f.Close()
		return nil, nil, errors.New("the file changed while it was opened")
	}
	return f, fst, nil
}
