// --out DIR over catalog sources: every file read, migrated or not, at
// its place in a new tree.

package migrate

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"schedtool/catalog"
)

// outPaths maps every file of the catalog to its place under the output
// directory, its path relative to its input's root. Two files that would
// land on one output path, an output path through a symlink, or one that
// is a file read, are refused.
func outPaths(out string, inputs []catalog.Input, cat *catalog.Catalog) (map[string]string, error) {
	dst := map[string]string{}
	owner := map[string]string{}
	for _, path := range cat.Files {
		if path == "<stdin>" {
			return nil, &catalog.UsageError{Msg: "--out: standard input has no place in an output tree; give the catalog by its path"}
		}
		rel := ""
		for _, in := range inputs {
			if rp, ok := catalog.Under(in.Root, path); ok {
				rel = rp
				break
			}
		}
		if rel == "" {
			return nil, &catalog.UsageError{Msg: fmt.Sprintf("--out: %s is outside every input root, so it has no place in the output tree", path)}
		}
		d := filepath.Join(out, rel)
		if prev, ok := owner[d]; ok {
			return nil, &catalog.UsageError{Msg: fmt.Sprintf("--out: %s and %s would both be written to %s; migrate them in separate runs", prev, path, d)}
		}
		if err := noSymlinkBelow(out, d); err != nil {
			return nil, &catalog.UsageError{Msg: "--out: " + err.Error()}
		}
		owner[d], dst[path] = path, d
	}
	// An output file that is one of the files read (by identity: a
	// config reached from inside the output directory) is refused.
	read := map[catalog.FileID]string{}
	for _, path := range cat.Files {
		if id, ok := catalog.Identify(path); ok {
			read[id] = path
		}
	}
	for _, path := range cat.Files {
		if id, ok := catalog.Identify(dst[path]); ok && read[id] != "" {
			return nil, &catalog.UsageError{Msg: fmt.Sprintf("--out: %s is the input file %s; name a directory elsewhere", dst[path], read[id])}
		}
	}
	return dst, nil
}

// outDir writes every file of the catalog, migrated, at its place under
// the output directory (outPaths): the files a migration changes in
// groups, as --write does, the others one by one.
func (r *runner) outDir(cat *catalog.Catalog, changed []*File) error {
	dst := r.outPaths
	isChanged := map[string]bool{}
	var outs []*File
	for _, f := range changed {
		isChanged[f.Path] = true
		o := *f
		o.Path, o.Old = dst[f.Path], nil
		outs = append(outs, &o)
	}
	for _, path := range cat.Files {
		if !isChanged[path] {
			outs = append(outs, &File{Path: dst[path], New: cat.Docs[path].Src})
		}
	}
	sort.Slice(outs, func(i, j int) bool { return outs[i].Path < outs[j].Path })
	for _, g := range groups(outs) {
		puts := make([]*Put, len(g.files))
		for i, f := range g.files {
			puts[i] = &Put{Path: f.Path, Data: f.New}
			if err := mkdirBelow(r.opts.Out, filepath.Dir(f.Path)); err != nil && g.err == "" {
				g.err = err.Error()
			}
		}
		r.writeGroup(g, puts)
	}
	return nil
}

// noSymlinkBelow refuses an output path with a symlink (or a file where a
// directory must be) between the output directory and it: nothing is
// written through a symlink.
func noSymlinkBelow(out, path string) error {
	rel, err := filepath.Rel(out, path)
	if err != nil {
		return err
	}
	cur := out
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		st, err := os.Lstat(cur)
		if err != nil {
			return nil // not there yet: created as a directory or a file
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symlink; schedtool does not write through one", cur)
		}
		if cur != path && !st.IsDir() {
			return fmt.Errorf("%s is not a directory", cur)
		}
		if cur == path && !st.Mode().IsRegular() {
			return fmt.Errorf("%s exists and is not a regular file", cur)
		}
	}
	return nil
}

// mkdirBelow creates dir and its parents below out, one at a time,
// refusing a symlink on the way.
func mkdirBelow(out, dir string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	rel, err := filepath.Rel(out, dir)
	if err != nil || rel == "." {
		return err
	}
	at, err := mkdirEach(out, rel, func(d string) error { return os.Mkdir(d, 0o755) })
	if err != nil || at == "" {
		return err
	}
	return fmt.Errorf("%s is not a directory (a symlink?); schedtool does not write through one", at)
}

// mkdirEach creates each directory of rel below base with mkdir, one at a
// time, and returns the first one that exists as something other than a
// plain directory (a symlink would lead elsewhere), or "" when there is
// none.
func mkdirEach(base, rel string, mkdir func(string) error) (notDir string, err error) {
	cur := base
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		if err := mkdir(cur); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", err
		}
		st, err := os.Lstat(cur)
		if err != nil {
			return "", err
		}
		if !st.IsDir() {
			return cur, nil
		}
	}
	return "", nil
}
