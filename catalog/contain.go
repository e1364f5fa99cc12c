package catalog

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// contain resolves a path named in file from and checks that it stays
// inside the input's root, symlinks resolved.
func (l *loader) contain(in Input, from, rel, what string) (string, string) {
	if rel == "" {
		return "", what + " path is empty"
	}
	if strings.Contains(rel, "://") || strings.HasPrefix(rel, "file:") {
		return "", fmt.Sprintf("%s %q is a URL; schedtool reads only paths relative to the importing file", what, rel)
	}
	if filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") {
		return "", fmt.Sprintf("%s %q is an absolute path; it must be relative and stay inside %s", what, rel, in.Root)
	}
	dir := "."
	if from != "-" {
		dir = filepath.Dir(from)
	}
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if !within(in.Root, p) {
		return "", fmt.Sprintf("%s %q escapes the root directory %s (%s); give a wider one with --root DIR", what, rel, in.Root, in.RootWhy)
	}
	if real, outside, err := outsideRoot(in.Root, p); outside {
		return "", fmt.Sprintf("%s %q resolves through a symlink to %s, outside the root directory %s (%s; --root DIR sets it)", what, rel, real, in.Root, in.RootWhy)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Sprintf("%s %q: %s", what, rel, describeErr(err))
	}
	return p, ""
}

func within(root, p string) bool {
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
