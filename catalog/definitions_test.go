package catalog_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
)

// Catalogs: a name twice within what one source imports is Flow's error
// (Duplicated), a name in several catalogs is read once per definition
// (Several); an import cycle nothing outside imports is one catalog, and
// one a source outside imports belongs to that source's catalog.
func TestCatalogs(t *testing.T) {
	task := "materializations:\n  acmeCo/t:\n    endpoint:\n      connector:\n        image: ghcr.io/estuary/materialize-snowflake:v4\n        config: {}\n    bindings: []\n"
	for _, tc := range []struct {
		name    string
		files   map[string]string
		dup     bool
		several int // definitions read of acmeCo/t
	}{
		{"one file", map[string]string{"a.flow.yaml": task}, false, 1},
		{"two catalogs", map[string]string{"a.flow.yaml": task, "b.flow.yaml": task}, false, 2},
		{"two catalogs import one source", map[string]string{"a.flow.yaml": "import: [s.yaml]\n", "b.flow.yaml": "import: [s.yaml]\n", "s.yaml": task}, false, 1},
		{"one catalog imports two definitions", map[string]string{"flow.yaml": "import: [a.yaml, b.yaml]\n", "a.yaml": task, "b.yaml": task}, true, 0},
		{"diamond: one definition reached twice", map[string]string{"flow.yaml": "import: [a.yaml, b.yaml]\n", "a.yaml": "import: [s.yaml]\n", "b.yaml": "import: [s.yaml]\n", "s.yaml": task}, false, 1},
		{"a cycle nothing imports is one catalog", map[string]string{"a.flow.yaml": "import: [b.flow.yaml]\n" + task, "b.flow.yaml": "import: [a.flow.yaml]\n" + task}, true, 0},
		{"a cycle imported from outside belongs to the importer", map[string]string{"flow.yaml": "import: [a.yaml]\n", "a.yaml": "import: [b.yaml]\n", "b.yaml": "import: [a.yaml]\n" + task, "other.flow.yaml": task}, false, 2},
		{"one clash refuses every definition of the name", map[string]string{"flow.yaml": "import: [a.yaml, b.yaml]\n", "a.yaml": task, "b.yaml": task, "c.flow.yaml": task}, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, text := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			inputs, err := input.Resolve([]string{dir}, catalog.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			cat := catalog.Load(inputs, catalog.DefaultOptions())
			if cat.Duplicated["acmeCo/t"] != tc.dup {
				t.Errorf("Duplicated = %v, want %v; problems %v", cat.Duplicated, tc.dup, cat.Problems)
			}
			if got := len(cat.Definitions("acmeCo/t")); got != tc.several {
				t.Errorf("%d definitions read, want %d", got, tc.several)
			}
			if tc.several > 1 && len(cat.Several["acmeCo/t"]) != tc.several {
				t.Errorf("Several = %v", cat.Several)
			}
			if got, want := cat.Names(), min(tc.several, 1); got != want {
				t.Errorf("Names() = %d, want %d", got, want)
			}
			var dups []string
			for _, p := range cat.Problems {
				if strings.Contains(p.Message, "defined more than once") || strings.Contains(p.Message, "is not read: it is defined more than once") {
					dups = append(dups, filepath.Base(p.Pos.File))
				}
			}
			sort.Strings(dups)
			if tc.dup && len(dups) < 2 {
				t.Errorf("a name twice in one catalog reported at %v, want both places", dups)
			}
			if tc.dup && len(cat.Unreadable()) != 1 && !strings.Contains(tc.name, "cycle") {
				t.Errorf("a name twice in one catalog counts %d unreadable inputs, want 1", len(cat.Unreadable()))
			}
			if !tc.dup && len(dups) > 0 {
				t.Errorf("no clash, yet reported at %v", dups)
			}
		})
	}
}
