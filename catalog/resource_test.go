package catalog_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
)

func loadDir(t *testing.T, dir string, opts catalog.Options) *catalog.Catalog {
	t.Helper()
	in, err := input.Resolve([]string{dir}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return catalog.Load(in, opts)
}

// Import-cycle messages stay short however long the chain: n files each
// importing the next and the first make n cycles, whose messages once
// held the whole chain each (quadratic: 69 KB of input, 2.5 GB).
func TestImportCycleMessagesBounded(t *testing.T) {
	dir := t.TempDir()
	const n = 2000
	for i := 0; i < n; i++ {
		src := fmt.Sprintf("import: [f%d.yaml, f0.yaml]\n", i+1)
		if i == n-1 {
			src = "import: [f0.yaml]\n"
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.yaml", i)), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts := catalog.DefaultOptions()
	in, err := input.Resolve([]string{filepath.Join(dir, "f0.yaml")}, opts)
	if err != nil {
		t.Fatal(err)
	}
	cat := catalog.Load(in, opts)
	total := 0
	for _, p := range cat.Problems {
		if !strings.Contains(p.Message, "import cycle: ") {
			t.Fatalf("unexpected problem %s", p.Message)
		}
		total += len(p.Message)
	}
	if len(cat.Problems) != n {
		t.Errorf("%d cycles reported, want %d", len(cat.Problems), n)
	}
	if max := n * 1000; total > max {
		t.Errorf("cycle messages hold %d bytes for %d files, want at most %d (bounded per message)", total, n, max)
	}
}

// The alias-expansion limit holds over every file a load reads, not per
// file: files that each stay under it are refused once their sum is over.
func TestAliasLimitAcrossFiles(t *testing.T) {
	dir := t.TempDir()
	// Each file expands its aliases to 400 values: under 1,000 alone.
	bomb := "x: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\ny: [" + strings.Repeat("*a, ", 19) + "*a]\n"
	files := map[string]string{
		"flow.yaml": "import: [a.yaml, b.yaml, c.yaml]\n",
		"a.yaml":    bomb, "b.yaml": bomb, "c.yaml": bomb,
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts := catalog.DefaultOptions()
	opts.Limits.MaxNodes = 1000
	cat := loadDir(t, dir, opts)
	var msgs []string
	for _, p := range cat.Problems {
		msgs = append(msgs, filepath.Base(p.Pos.File)+": "+p.Message)
	}
	want := "c.yaml: YAML aliases expand to more than 1000 values over all the files read (an alias bomb spread over files?)"
	if len(msgs) != 1 || msgs[0] != want {
		t.Errorf("problems %q, want [%q]", msgs, want)
	}
	// One file alone is under the limit.
	opts.Limits.Expanded = nil
	one := t.TempDir()
	os.WriteFile(filepath.Join(one, "flow.yaml"), []byte(bomb), 0o644)
	if cat := loadDir(t, one, opts); len(cat.Problems) != 0 {
		t.Errorf("one file of 400 expanded values: %v", cat.Problems)
	}
}
