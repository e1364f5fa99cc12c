package catalog

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/estuary/schedtool/internal/paths"
)

// NotRegularError is a path that is not a regular file: a FIFO, a device,
// a socket or a directory (directly or through a symlink). It is refused
// before it is opened for reading, so a FIFO cannot hang a run and
// /dev/zero cannot fill its memory. It is internal/paths's, which
// internal/groupwrite shares.
type NotRegularError = paths.NotRegularError

// OpenRegular opens path for reading only if it is a regular file,
// symlinks followed (internal/paths.OpenRegular: it looks before it opens,
// then opens without blocking and checks what it opened).
func OpenRegular(path string) (*os.File, fs.FileInfo, error) { return paths.OpenRegular(path) }

// tooLargeError is a file over its size limit.
type tooLargeError struct{ msg string }

func (e *tooLargeError) Error() string { return e.msg }

// ReadRegular reads a regular file of at most max bytes. The size is
// checked on the open file before anything is read, and the read stops
// one byte past the limit whatever the file does meanwhile.
func ReadRegular(path string, max int64, flag string) ([]byte, error) {
	f, st, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > max {
		return nil, &tooLargeError{fmt.Sprintf("file is %s, over the limit of %s (see %s)", FormatSize(st.Size()), FormatSize(max), flag)}
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, &tooLargeError{fmt.Sprintf("file is over the limit of %s (see %s)", FormatSize(max), flag)}
	}
	return b, nil
}

// escapesRoot says why a file found by walking an input's directory may
// not be read: it resolves (symlinks followed) outside the input's root.
// "" when it stays inside, or when it cannot be resolved (the read then
// says why).
func escapesRoot(in Input, p string) string {
	real, outside, err := outsideRoot(in.Root, p)
	if err != nil || !outside {
		return ""
	}
	return fmt.Sprintf("resolves through a symlink to %s, outside the root directory %s (%s; --root DIR sets it); not read", real, in.Root, in.RootWhy)
}

// outsideRoot resolves p, symlinks followed, and says whether it lands
// outside root (resolved too). err is why p cannot be resolved; a root
// that cannot be resolved holds everything.
func outsideRoot(root, p string) (real string, outside bool, err error) {
	real, err = filepath.EvalSymlinks(p)
	if err != nil {
		return "", false, err
	}
	rootReal, err := filepath.EvalSymlinks(root)
	if err != nil {
		return real, false, nil
	}
	return real, !within(rootReal, real), nil
}

// textSeen notes whether anything but whitespace went through a reader:
// a dump with no rows at all is an error, not zero tasks.
type textSeen struct {
	r    io.Reader
	text bool
}

func (t *textSeen) Read(b []byte) (int, error) {
	n, err := t.r.Read(b)
	if !t.text && len(bytes.TrimSpace(b[:n])) > 0 {
		t.text = true
	}
	return n, err
}

func (t *textSeen) marksLines() bool { return marksLines(t.r) }

// cycleShown is how many files of an import cycle a message names at
// each end; the ones between are counted.
const cycleShown = 4

// cycleText names an import cycle: from path's place in the chain back to
// path, with at most 2*cycleShown files named. A message never holds a
// whole long chain, so a catalog of many cycles cannot make many long
// messages (69 KB of imports made 2.5 GB of them). show gives the form
// a file is named in (paths.Display), for the files named only.
func cycleText(chain []string, path string, show func(string) string) string {
	start := 0
	for i, p := range chain {
		if p == path {
			start = i
			break
		}
	}
	cycle := chain[start:]
	var b strings.Builder
	for i := 0; i < len(cycle); i++ {
		if len(cycle) > 2*cycleShown && i == cycleShown {
			fmt.Fprintf(&b, "(%d more) -> ", len(cycle)-2*cycleShown)
			i = len(cycle) - cycleShown
		}
		b.WriteString(show(cycle[i]))
		b.WriteString(" -> ")
	}
	b.WriteString(show(path))
	return b.String()
}

// FormatSize writes a byte count as the size flags take it: whole KiB,
// MiB or GiB as such (64 MiB), other sizes of a KiB or more to a tenth
// with the exact count (1.0 KiB (1025 bytes): over a limit of 1 KiB must
// not read as equal to it), and smaller ones in bytes.
func FormatSize(n int64) string {
	units := []struct {
		name string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}}
	for _, u := range units {
		if n >= u.size {
			if n%u.size == 0 {
				return strconv.FormatInt(n/u.size, 10) + " " + u.name
			}
			return strconv.FormatFloat(float64(n)/float64(u.size), 'f', 1, 64) + " " + u.name + " (" + strconv.FormatInt(n, 10) + " bytes)"
		}
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
