package catalog

import (
	"os"
	"path/filepath"

	"github.com/estuary/schedtool/internal/paths"
)

// FileID is a file's identity: its device and inode. Two paths name the
// same file (a symlink, a hard link, a/../b) exactly when their
// identities are equal; paths are never compared as strings for that.
// It is internal/paths's, which internal/groupwrite shares.
type FileID = paths.FileID

// Identify is the identity of the file path names, symlinks followed.
func Identify(path string) (FileID, bool) { return paths.Identify(path) }

// IdentifyInfo is the identity of an already opened or stat'ed file
// (standard input, say).
func IdentifyInfo(st os.FileInfo) (FileID, bool) { return paths.IdentifyInfo(st) }

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
