// Package safefile is the one way schedtool creates a file: a new name,
// created exclusively with its final mode at open. The kernel narrows the
// mode by the umask, so a file is never readable by more people than its
// mode and the umask allow, not even between its creation and a chmod
// (there is none). Every writer (internal/groupwrite's temp files, hence
// --write, --out FILE and --out DIR; the spools of standard output and of
// a database's rows) creates its files here.
package safefile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// CreateTemp creates a new file in dir (the system's temp directory when
// dir is "") named by pattern, its last "*" replaced by random hex,
// opened for reading and writing. It is created with O_CREAT|O_EXCL and
// mode at open (narrowed by the umask): never over an existing file or
// through a symlink, and never wider than mode from its first byte.
func CreateTemp(dir, pattern string, mode fs.FileMode) (*os.File, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	prefix, suffix := pattern, ""
	if i := strings.LastIndex(pattern, "*"); i >= 0 {
		prefix, suffix = pattern[:i], pattern[i+1:]
	}
	for range 100 {
		var b [6]byte
		rand.Read(b[:])
		name := filepath.Join(dir, prefix+hex.EncodeToString(b[:])+suffix)
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, mode.Perm())
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, &fs.PathError{Op: "createtemp", Path: filepath.Join(dir, pattern), Err: fs.ErrExist}
}
