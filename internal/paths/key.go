package paths

import (
	"path/filepath"
)

// Key is the key a file is known by while loading: its identity when
// it can be had, else its cleaned path.
func Key(path string) any {
	if path == "-" {
		return path
	}
	if id, ok := Identify(path); ok {
		return id
	}
	return filepath.Clean(path)
}
