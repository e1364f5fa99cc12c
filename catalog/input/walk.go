package input

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/internal/paths"
)

// Found is a catalog source a walk found.
type Found struct {
	Path   string
	hidden bool // under a hidden directory (below the walked one)
}

// WalkSources is the one walk that finds catalog sources
// (docs/behaviour.md §2): every command's discovery under a directory
// PATH and the search of a root for the users of a config file
// (userSources) go through it, so no command reads fewer sources than
// another under the same directory.
//
// Under dir, a file is a catalog source by its name (IsSourceName, in
// any letter case) or by what it holds (looksLikeSource: a YAML or JSON
// mapping with a catalog key, whatever the file's name), never a temp
// file a killed run left. Symlinked directories are followed when they
// resolve inside root, once each: a directory reached twice (a cycle,
// two links, a link to a directory walked anyway) is walked once, under
// its own path when it has one (links are followed after the walk of
// real directories). A file that resolves outside root is taken by its
// name only (the loader refuses it, saying so), never read here. .git is
// never entered; other hidden directories only with hidden set (the
// users walk), their sources marked hidden. skip, when set, is asked
// first of every file: true leaves it out (the users walk takes the
// config files out). other counts the YAML and JSON files that are not
// sources.
func WalkSources(dir, root string, hidden bool, opts catalog.Options, skip func(p string) bool) (srcs []Found, other int, err error) {
	rootReal, rerr := filepath.EvalSymlinks(root)
	if rerr != nil {
		rootReal = ""
	}
	inside := func(p string) bool {
		if rootReal == "" {
			return true // a root that cannot be resolved holds everything
		}
		real, err := filepath.EvalSymlinks(p)
		return err == nil && paths.Within(rootReal, real)
	}
	visited := map[paths.FileID]bool{}
	type link struct {
		path   string
		hidden bool
	}
	var links []link
	// Files not named as sources: their content says, judged after the
	// walk (judgeSources).
	var maybe []Found
	// in says that a file's directory resolves inside the root (so the
	// file does, unless it is a symlink): resolving every path would
	// cost a walk of each one's components.
	file := func(p string, hid, in, link bool) {
		if skip != nil && skip(p) {
			return
		}
		name := filepath.Base(p)
		switch {
		case paths.IsTemp(name):
		case IsSourceName(name):
			srcs = append(srcs, Found{filepath.Clean(p), hid})
		case in && (!link || inside(p)):
			maybe = append(maybe, Found{filepath.Clean(p), hid})
		case isYAMLOrJSON(name):
			other++ // outside the root: not read
		}
	}
	var walk func(d string, hid, in bool) error
	walk = func(d string, hid, in bool) error {
		if id, ok := paths.Identify(d); ok {
			if visited[id] {
				return nil
			}
			visited[id] = true
		}
		ents, err := os.ReadDir(d)
		if err != nil {
			return err
		}
		for _, e := range ents {
			p := filepath.Join(d, e.Name())
			h := hid || strings.HasPrefix(e.Name(), ".")
			switch {
			case e.Type()&os.ModeSymlink != 0:
				if st, err := os.Stat(p); err == nil && st.IsDir() {
					if e.Name() != ".git" && (hidden || !h) {
						links = append(links, link{p, h})
					}
					continue
				}
				file(p, hid, in, true) // a link to a file (or to nothing: said when read)
			case e.IsDir():
				if e.Name() == ".git" || h && !hidden {
					continue
				}
				if err := walk(p, h, in); err != nil {
					return err
				}
			default:
				file(p, hid, in, false)
			}
		}
		return nil
	}
	if err := walk(dir, false, inside(dir)); err != nil {
		return nil, 0, err
	}
	for len(links) > 0 {
		// The shallowest link first: a directory reached by several
		// links is read under the shortest way to it (cat/linked, not
		// cat/b/up/other).
		sort.SliceStable(links, func(i, j int) bool {
			return strings.Count(links[i].path, string(filepath.Separator)) < strings.Count(links[j].path, string(filepath.Separator))
		})
		l := links[0]
		links = links[1:]
		if real, err := filepath.EvalSymlinks(l.path); err != nil || filepath.Base(real) == ".git" || !inside(l.path) {
			continue // outside the root: never read
		}
		if err := walk(l.path, l.hidden, true); err != nil {
			return nil, 0, err
		}
	}
	is := judgeSources(maybe, opts)
	for i, f := range maybe {
		if is[i] {
			srcs = append(srcs, f)
		} else if isYAMLOrJSON(f.Path) {
			other++
		}
	}
	sort.Slice(srcs, func(i, j int) bool { return srcs[i].Path < srcs[j].Path })
	return srcs, other, nil
}
