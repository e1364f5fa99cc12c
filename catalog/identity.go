package catalog

import (
	"os"
	"path/filepath"
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
	return idOf(st)
}

// IdentifyInfo is the identity of an already opened or stat'ed file
// (standard input, say).
func IdentifyInfo(st os.FileInfo) (FileID, bool) { return idOf(st) }

func idOf(st os.FileInfo) (FileID, bool) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return FileID{}, false
	}
	return FileID{Dev: uint64(sys.Dev), Ino: uint64(sys.Ino)}, true //nolint:unconvert // Dev is int32 on some platforms
}

// fileKey is the key a file is known by while loading: its identity when
// it can be had, else its cleaned path.
func fileKey(path string) any {
	if path == "-" {
		return path
	}
	if id, ok := Identify(path); ok {
		return id
	}
	return filepath.Clean(path)
}
