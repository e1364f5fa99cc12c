package catalog

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/estuary/schedtool/internal/paths"
)

// EscapesRoot says why a file found by walking an input's directory may
// not be read: it resolves (symlinks followed) outside the input's root.
// "" when it stays inside, or when it cannot be resolved (the read then
// says why).
func EscapesRoot(in Input, p string) string {
	real, outside, err := outsideRoot(in.Root, p)
	if err != nil || !outside {
		return ""
	}
	return fmt.Sprintf("resolves through a symlink to %s, outside the root directory %s (%s; --root DIR sets it); not read", real, in.Root, in.RootWhy)
}

// outsideRoot resolves p, symlinks followed, and says whether it lands
// outside root (resolved too). err is why p cannot be resolved; a root
// that cannot be resolved holds everything.
func outsideRoot(root, p string) (real string, outside bool, err error) {
	real, err = filepath.EvalSymlinks(p)
	if err != nil {
		return "", false, err
	}
	rootReal, err := filepath.EvalSymlinks(root)
	if err != nil {
		return real, false, nil
	}
	return real, !paths.Within(rootReal, real), nil
}

// cycleShown is how many files of an import cycle a message names at
// each end; the ones between are counted.
const cycleShown = 4

// cycleText names an import cycle: from path's place in the chain back to
// path, with at most 2*cycleShown files named. A message never holds a
// whole long chain, so a catalog of many cycles cannot make many long
// messages (69 KB of imports made 2.5 GB of them). show gives the form
// a file is named in (paths.Display), for the files named only.
func cycleText(chain []string, path string, show func(string) string) string {
	start := 0
	for i, p := range chain {
		if p == path {
			start = i
			break
		}
	}
	cycle := chain[start:]
	var b strings.Builder
	for i := 0; i < len(cycle); i++ {
		if len(cycle) > 2*cycleShown && i == cycleShown {
			fmt.Fprintf(&b, "(%d more) -> ", len(cycle)-2*cycleShown)
			i = len(cycle) - cycleShown
		}
		b.WriteString(show(cycle[i]))
		b.WriteString(" -> ")
	}
	b.WriteString(show(path))
	return b.String()
}
