package paths

import (
	"path/filepath"
)

func Within(root, p string) bool {
	if _, err := filepath.Rel(root, p); err != nil {
		// Relative paths Rel cannot relate (a root above the working
		// directory: --root ..) are compared absolute.
		ar, err1 := filepath.Abs(root)
		ap, err2 := filepath.Abs(p)
		if err1 != nil || err2 != nil {
			return false
		}
		root, p = ar, ap
	}
	_, ok := Under(root, p)
	return ok
}
