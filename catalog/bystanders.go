package catalog

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// Bystanders finds, for each config file of cat, the materializations
// that use it (the same file, by identity) from catalog sources under the
// inputs' roots that were not read: a run given a/ would otherwise zero a
// config that b/flow.yaml also reads, and b's task would lose its pacing
// at its next publication. Keyed by the config's path as cat knows it;
// each bystander is "name (file:line)". Files that cannot be read are
// ignored here (they are not the run's inputs).
func Bystanders(inputs []Input, cat *Catalog, opts Options) map[string][]string {
	if cat == nil || len(cat.Configs) == 0 {
		return nil
	}
	ids := map[FileID]string{}
	var names [][]byte
	for p := range cat.Configs {
		if id, ok := Identify(p); ok {
			ids[id] = p
			names = append(names, []byte(filepath.Base(p)))
		}
	}
	type key struct {
		name string
		src  any
	}
	known := map[key]bool{}
	for _, m := range cat.Materializations {
		known[key{m.Name, fileKey(m.Source.File)}] = true
	}
	read := map[any]bool{}
	for _, f := range cat.Files {
		read[fileKey(f)] = true
	}
	var extra []Input
	roots := map[any]bool{}
	for _, in := range inputs {
		if in.Stdin != nil || in.Root == "" {
			continue
		}
		rk := fileKey(in.Root)
		if roots[rk] {
			continue
		}
		roots[rk] = true
		found, _, err := findSources(in.Root)
		if err != nil {
			continue
		}
		names := append(names, aliases(in.Root, ids)...)
		// Sources already read hold no bystander: only the others are
		// read (a run over its whole root reads nothing more).
		walked := Input{Arg: in.Root, Dir: in.Root, Root: in.Root, RootWhy: in.RootWhy}
		var srcs []string
		for _, src := range found {
			// Containment first: a source that resolves outside the root
			// is never read, not even to look for a name.
			if escapesRoot(walked, src) != "" {
				continue
			}
			if !read[fileKey(src)] && mentions(src, names, opts.MaxFileSize) {
				srcs = append(srcs, src)
			}
		}
		if len(srcs) == 0 {
			continue
		}
		walked.Sources = srcs
		extra = append(extra, walked)
	}
	if len(extra) == 0 {
		return nil
	}
	all := Load(extra, opts)
	out := map[string][]string{}
	seen := map[string]bool{}
	for p2, cf := range all.Configs {
		id, ok := Identify(p2)
		if !ok {
			continue
		}
		p, ok := ids[id]
		if !ok {
			continue
		}
		for _, u := range cf.Users {
			if known[key{u.Name, fileKey(u.Source.File)}] {
				continue
			}
			pos := Pos(u.Spec)
			s := fmt.Sprintf("%s (%s:%d)", u.Name, u.Source.File, pos.Line)
			if !seen[p+"\x00"+s] {
				seen[p+"\x00"+s] = true
				out[p] = append(out[p], s)
			}
		}
	}
	for p := range out {
		sort.Strings(out[p])
	}
	return out
}

// mentions reports whether the source at path names one of the config
// files (its base name appears in it): only those are worth reading in
// full, so a run given one directory of a large root stays cheap. A
// source that cannot be read is not mentioned.
func mentions(path string, names [][]byte, limit int64) bool {
	f, _, err := OpenRegular(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if limit <= 0 {
		limit = 64 << 20
	}
	b, err := io.ReadAll(io.LimitReader(f, limit))
	if err != nil {
		return false
	}
	for _, n := range names {
		if bytes.Contains(b, n) {
			return true
		}
	}
	return false
}

// aliases are the base names of the other paths under root to the config
// files ids holds: symlinks to them, and hard links (YAML or JSON names),
// hidden directories skipped as when looking for sources. A source that
// names a config by an alias is then read too.
func aliases(root string, ids map[FileID]string) [][]byte {
	var out [][]byte
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
		case d.Type().IsRegular() && isYAMLOrJSON(d.Name()):
			info, err := d.Info()
			if err != nil {
				return nil
			}
			if st, ok := info.Sys().(*syscall.Stat_t); !ok || st.Nlink < 2 {
				return nil
			}
		default:
			return nil
		}
		if id, ok := Identify(p); ok {
			if _, ok := ids[id]; ok {
				out = append(out, []byte(d.Name()))
			}
		}
		return nil
	})
	return out
}
