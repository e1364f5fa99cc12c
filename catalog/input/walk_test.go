package input

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/estuary/schedtool/catalog"
)

// walkSources: by name in any case or by content, symlinked directories
// inside the root followed once (cycles, two links), never out of the
// root, nothing read outside it; hidden directories only when asked,
// .git never.
func TestWalkSources(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	src := "materializations: {}\n"
	files := map[string]string{
		"root/cat/Flow.YAML":           "x: [\n", // by name: read (and refused) whatever it holds
		"root/cat/b/main.yaml":         src,
		"root/cat/b/catalog":           "import: []\n",
		"root/cat/b/notes.yaml":        "title: t\n",
		"root/cat/b/prog.py":           "import os\n",
		"root/cat/.hidden/flow.yaml":   src,
		"root/cat/.git/flow.yaml":      src,
		"root/cat/.x.yaml.schedtool-1": src,
		"root/other/d/prod.flow.yaml":  src,
		"outside/flow.yaml":            src,
		"outside/by-content.yaml":      src,
	}
	for name, text := range files {
		p := filepath.Join(base, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"root/cat/linked":          "../other",
		"root/cat/linked-again":    "../other/d",
		"root/cat/loop":            ".",
		"root/cat/b/up":            "../../..",
		"root/cat/out":             "../../outside",
		"root/cat/out.flow.yaml":   "../../outside/flow.yaml", // by name: taken (the loader refuses it)
		"root/cat/out-content.yml": "../../outside/by-content.yaml",
		"root/cat/dangling":        "nothing",
	} {
		if err := os.Symlink(target, filepath.Join(base, link)); err != nil {
			t.Fatal(err)
		}
	}
	rel := func(fs []Found) (out []string) {
		for _, f := range fs {
			r, _ := filepath.Rel(root, f.Path)
			if f.hidden {
				r += " (hidden)"
			}
			out = append(out, r)
		}
		return out
	}
	got, other, err := WalkSources(filepath.Join(root, "cat"), root, false, catalog.DefaultOptions(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"cat/Flow.YAML", "cat/b/catalog", "cat/b/main.yaml", "cat/linked/d/prod.flow.yaml", "cat/out.flow.yaml"}
	if !slices.Equal(rel(got), want) || other != 2 { // notes.yaml, and the link to outside/by-content.yaml (not read)
		t.Errorf("discovery: %q, %d others; want %q, 2", rel(got), other, want)
	}
	got, _, _ = WalkSources(root, root, true, catalog.DefaultOptions(), func(p string) bool { return filepath.Base(p) == "main.yaml" })
	want = []string{"cat/.hidden/flow.yaml (hidden)", "cat/Flow.YAML", "cat/b/catalog", "cat/out.flow.yaml", "other/d/prod.flow.yaml"}
	if !slices.Equal(rel(got), want) {
		t.Errorf("users walk: %q, want %q", rel(got), want)
	}
}
