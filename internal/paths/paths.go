// Package paths holds the few facts about file names and files that the
// catalog reader and the writer (internal/groupwrite) both need: a file's
// identity, schedtool's temp-file names, lexical containment, and opening
// a regular file without blocking (OpenRegular, NotRegularError). It is a
// leaf (standard library only) so that the writer need not import catalog.
package paths

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// FileID is a file's identity: its device and inode. Two paths name the
// same file (a symlink, a hard link, a/../b) exactly when their
// identities are equal; paths are never compared as strings for that.
type FileID struct{ Dev, Ino uint64 }

// Identify is the identity of the file path names, symlinks followed.
func Identify(path string) (FileID, bool) {
	st, err := os.Stat(path)
	if err != nil {
		return FileID{}, false
	}
	return IdentifyInfo(st)
}

// IdentifyInfo is the identity of an already opened or stat'ed file
// (standard input, say).
func IdentifyInfo(st os.FileInfo) (FileID, bool) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return FileID{}, false
	}
	return FileID{Dev: uint64(sys.Dev), Ino: uint64(sys.Ino)}, true //nolint:unconvert // Dev is int32 on some platforms
}

// IsTemp reports whether a file name is one of schedtool's temp files
// (internal/groupwrite writes them beside the files it replaces).
func IsTemp(name string) bool {
	ok, _ := filepath.Match(".*.schedtool-*", filepath.Base(name))
	return ok
}

// Under reports whether the path p is dir or below it, lexically (no
// symlink is resolved), and gives p relative to dir. Paths Rel cannot
// relate (one absolute, one not) are not under.
func Under(dir, p string) (rel string, ok bool) {
	r, err := filepath.Rel(dir, p)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
		return "", false
	}
	return r, true
}
