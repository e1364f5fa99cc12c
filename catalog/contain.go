package catalog

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/estuary/schedtool/internal/paths"
)

// ContainRef resolves a path named in file from as Flow's loader does (see
// FlowPath) and checks that the file it names stays inside the input's
// root, symlinks resolved. It returns the resolved path, and why it is
// refused ("" when it is not); the path is set even when refused, so a
// refused reference can still be identified (stat'ed, never read), and
// is "" only for an empty reference or a URL that names no file.
func ContainRef(in Input, from, rel, what string) (string, string) {
	if rel == "" {
		return "", what + " path is empty"
	}
	fp, abs, ok := paths.FlowPath(rel)
	if !ok {
		return "", fmt.Sprintf("%s %q is a URL; schedtool reads only paths relative to the importing file", what, rel)
	}
	if fp == "" {
		return "", what + " path is empty"
	}
	var p string
	if abs {
		p = filepath.Clean(filepath.FromSlash(fp))
		if !paths.Within(in.Root, p) {
			return p, fmt.Sprintf("%s %q is an absolute path; it must be relative and stay inside %s", what, rel, in.Root)
		}
	} else {
		dir := "."
		if from != "-" {
			dir = filepath.Dir(from)
		}
		p = filepath.Join(dir, filepath.FromSlash(fp))
		if !paths.Within(in.Root, p) {
			return p, fmt.Sprintf("%s %q escapes the root directory %s (%s); give a wider one with --root DIR", what, rel, in.Root, in.RootWhy)
		}
	}
	if real, outside, err := outsideRoot(in.Root, p); outside {
		return p, fmt.Sprintf("%s %q resolves through a symlink to %s, outside the root directory %s (%s; --root DIR sets it)", what, rel, real, in.Root, in.RootWhy)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return p, fmt.Sprintf("%s %q: %s", what, rel, Describe(err))
	}
	return p, ""
}
