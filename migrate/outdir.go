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

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/internal/groupwrite"
	ipaths "github.com/estuary/schedtool/internal/paths"
	"github.com/estuary/schedtool/internal/usage"
)

// outPlan is where each file of an --out DIR tree comes from and goes.
type outPlan struct {
	dst map[string]string // every file written, read or copied, to its output path
	// copies are the files of the tree beyond the ones the catalog read
	// (catalog.TreeFiles), in path order, those that cannot be copied
	// included, to be said.
	copies []TreeFile
}

// outPaths maps every file of the tree (the catalog's and the copies) to
// its place under the output directory, its path relative to its input's
// root. Two files that would land on one output path, an output path
// through a symlink, or one that is a file read, are refused.
func outPaths(out string, inputs []catalog.Input, cat *catalog.Catalog, opts catalog.Options) (*outPlan, error) {
	plan := &outPlan{dst: map[string]string{}}
	owner := map[string]string{}
	place := func(path, rel string) error {
		d := filepath.Join(out, rel)
		if prev, ok := owner[d]; ok && prev != path {
			return &usage.Error{Msg: fmt.Sprintf("--out: %s and %s would both be written to %s; migrate them in separate runs", prev, path, d)}
		}
		if err := noSymlinkBelow(out, d); err != nil {
			return &usage.Error{Msg: "--out: " + err.Error()}
		}
		owner[d], plan.dst[path] = path, d
		return nil
	}
	for _, path := range cat.Files {
		if path == "<stdin>" {
			return nil, &usage.Error{Msg: "--out: standard input has no place in an output tree; give the catalog by its path"}
		}
		rel := ""
		for _, in := range inputs {
			if rp, ok := ipaths.Under(in.Root, path); ok {
				rel = rp
				break
			}
		}
		if rel == "" {
			return nil, &usage.Error{Msg: fmt.Sprintf("--out: %s is outside every input root, so it has no place in the output tree", path)}
		}
		if err := place(path, rel); err != nil {
			return nil, err
		}
	}
	for _, f := range TreeFiles(inputs, cat, opts, skipInTree(out)) {
		if _, read := plan.dst[f.Path]; read {
			continue
		}
		plan.copies = append(plan.copies, f)
		if f.Left != "" {
			continue
		}
		rel, ok := ipaths.Under(f.Root, f.Path)
		if !ok {
			return nil, &usage.Error{Msg: fmt.Sprintf("--out: %s is outside its input's root %s, so it has no place in the output tree", f.Path, f.Root)}
		}
		if err := place(f.Path, rel); err != nil {
			return nil, err
		}
	}
	sort.Slice(plan.copies, func(i, j int) bool { return plan.copies[i].Path < plan.copies[j].Path })
	// An output file that is one of the files read or copied (by
	// identity: a config reached from inside the output directory) is
	// refused.
	read := map[ipaths.FileID]string{}
	for path := range plan.dst {
		if id, ok := ipaths.Identify(path); ok {
			read[id] = path
		}
	}
	paths := make([]string, 0, len(plan.dst))
	for path := range plan.dst {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	for _, path := range paths {
		d := plan.dst[path]
		if id, ok := ipaths.Identify(d); ok && read[id] != "" {
			return nil, &usage.Error{Msg: fmt.Sprintf("--out: %s is the input file %s; name a directory elsewhere", d, read[id])}
		}
	}
	return plan, nil
}

// skipInTree leaves out of the tree's walk schedtool's own temp files (a
// killed run's) and the output directory itself, when it lies inside a
// tree copied (a file PATH's directory holding --out).
func skipInTree(out string) func(string, fs.DirEntry) bool {
	outID, hasOut := ipaths.Identify(out)
	return func(p string, d fs.DirEntry) bool {
		if !d.IsDir() {
			return groupwrite.IsTemp(p)
		}
		id, ok := ipaths.Identify(p)
		return hasOut && ok && id == outID
	}
}

// outDir writes the tree under the output directory (outPaths): the
// files a migration changes in groups, as --write does, the other files
// the catalog read one by one, then every other file of the tree, copied
// (mirror.go). Each keeps its input's mode.
func (r *runner) outDir(cat *catalog.Catalog, changed []*File) error {
	dst := r.outPlan.dst
	isChanged := map[string]bool{}
	var outs []*File
	mode := map[string]fs.FileMode{}
	for _, f := range changed {
		isChanged[f.Path] = true
		o := *f
		o.Path, o.Old = dst[f.Path], nil
		outs = append(outs, &o)
		mode[o.Path] = inputMode(f.Path)
	}
	for _, path := range cat.Files {
		if !isChanged[path] {
			outs = append(outs, &File{Path: dst[path], New: cat.Docs[path].Bytes()}) // a UTF-16 file as it is
			mode[dst[path]] = inputMode(path)
		}
	}
	// A copy that is a changed file under another name (a symlink, a
	// hard link) carries the change, in the same group.
	byID := map[ipaths.FileID]*File{}
	for _, f := range changed {
		if id, ok := ipaths.Identify(f.Path); ok {
			byID[id] = f
		}
	}
	var copies []TreeFile
	for _, c := range r.outPlan.copies {
		if id, ok := ipaths.Identify(c.Path); ok && byID[id] != nil && c.Left == "" && c.Refused == "" {
			o := *byID[id]
			o.Path, o.Old = dst[c.Path], nil
			outs = append(outs, &o)
			mode[o.Path] = inputMode(c.Path)
			continue
		}
		copies = append(copies, c)
	}
	sort.Slice(outs, func(i, j int) bool { return outs[i].Path < outs[j].Path })
	for _, g := range groups(outs) {
		puts := make([]*Put, len(g.files))
		for i, f := range g.files {
			puts[i] = &Put{Path: f.Path, Data: f.New}
		}
		r.putGroup(g, puts, mode)
	}
	for _, c := range copies {
		r.copyFile(c, dst[c.Path])
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
