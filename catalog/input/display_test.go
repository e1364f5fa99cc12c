package input

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/estuary/schedtool/catalog"
)

// TestLoadShowsPathsRelative (issue 30): a PATH given absolute, under the
// working directory, gives problems, materializations and messages that
// name their files relative to it (paths.Display); the files are still
// read by the paths given.
func TestLoadShowsPathsRelative(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a/flow.yaml": "import: [../b/flow.yaml]\nmaterializations:\n  acmeCo/m:\n    endpoint:\n      connector:\n        image: ghcr.io/estuary/materialize-snowflake:v4\n        config: missing.config.yaml\n    bindings: []\n",
		"b/flow.yaml": "import: [../a/flow.yaml]\n",
		"c/flow.yaml": "materializations: [\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	opts := catalog.DefaultOptions()
	inputs, err := Resolve([]string{dir}, opts)
	if err != nil {
		t.Fatal(err)
	}
	cat := catalog.Load(inputs, opts)
	if len(cat.Materializations) != 1 || cat.Materializations[0].Source.Name() != "a/flow.yaml" || !strings.HasPrefix(cat.Materializations[0].Source.File, dir) {
		t.Fatalf("materializations: %+v", cat.Materializations)
	}
	var got []string
	for _, p := range cat.Problems {
		got = append(got, p.Pos.String()+": "+p.Message)
	}
	text := strings.Join(got, "\n")
	for _, want := range []string{
		"b/flow.yaml:1:10: import cycle: a/flow.yaml -> b/flow.yaml -> a/flow.yaml",
		"a/flow.yaml:7:17: cannot read config file a/missing.config.yaml: no such file or directory",
		"c/flow.yaml:2:1: ",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
	if strings.Contains(text, dir) {
		t.Errorf("a file under the working directory named absolute:\n%s", text)
	}
}
