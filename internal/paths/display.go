package paths

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Display is how every output shows a file's path (docs/behaviour.md §2,
// "Paths in output"): relative to the working directory when the file is
// under it, whether its PATH was typed relative, typed absolute or came
// from the project file's paths; any other path as it is (an absolute
// path outside the working directory stays absolute, a relative one going
// up stays as the commands derived it). A path relative to the working
// directory that does not go up is already shown as it is and is returned
// unchanged, as is "" and anything that is not a path of this machine
// (<stdin>, a database URL without its password). Under is judged
// lexically first, then with symlinks resolved, so that a working
// directory reached through a symlink still sees its files.
//
// Display asks the system for the working directory each time; a writer
// showing many rows uses a Displayer, which asks once.
func Display(p string) string {
	if !needsWd(p) {
		return p
	}
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	return display(wd, p)
}

// Displayer is Display with the working directory read once and the
// answers kept, for a writer that shows the same few files on many rows.
// Safe for concurrent use. The zero value is ready.
type Displayer struct {
	once sync.Once
	wd   string
	mu   sync.Mutex
	seen map[string]string
}

// Display is Display(p), remembered.
func (d *Displayer) Display(p string) string {
	if !needsWd(p) {
		return p
	}
	d.once.Do(func() { d.wd, _ = os.Getwd() })
	if d.wd == "" {
		return p
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if s, ok := d.seen[p]; ok {
		return s
	}
	if d.seen == nil {
		d.seen = map[string]string{}
	}
	s := display(d.wd, p)
	d.seen[p] = s
	return s
}

// needsWd reports whether showing p needs the working directory: an
// absolute path, or a relative one that goes up (../x).
func needsWd(p string) bool {
	if p == "" {
		return false
	}
	if filepath.IsAbs(p) {
		return true
	}
	c := filepath.Clean(p)
	return c == ".." || strings.HasPrefix(c, ".."+string(filepath.Separator))
}

// display is p relative to wd when the file is under it, else p.
func display(wd, p string) string {
	if filepath.IsAbs(p) {
		if rel, ok := Under(wd, filepath.Clean(p)); ok {
			return rel
		}
	}
	// Symlinks resolved: the working directory's own path, and the
	// file's directory (its last element is kept: a symlink named as a
	// PATH is shown by its own name). A relative path is joined to the
	// resolved working directory, where ".." means what the system
	// makes of it.
	rwd, err := filepath.EvalSymlinks(wd)
	if err != nil {
		return p
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(rwd, abs)
	}
	abs = filepath.Clean(abs)
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return p
	}
	if rel, ok := Under(rwd, filepath.Join(dir, filepath.Base(abs))); ok {
		return rel
	}
	return p
}
