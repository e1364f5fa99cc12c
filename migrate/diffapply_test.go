package migrate

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/estuary/schedtool/catalog/edit"
	"github.com/estuary/schedtool/finding"
)

// TestGoldenDiffApplies: each golden dry-run diff of catalog files, whose
// hidden context lines are left out, is still one git apply takes, and
// applying it gives the golden migrated tree.
func TestGoldenDiffApplies(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git on PATH")
	}
	dirs, _ := filepath.Glob("testdata/golden/*")
	for _, dir := range dirs {
		patch, _ := filepath.Abs(filepath.Join(dir, "want.diff"))
		t.Run(filepath.Base(dir), func(t *testing.T) {
			tmp := t.TempDir()
			copyTree(t, filepath.Join(dir, "in"), filepath.Join(tmp, "in"))
			// The rows of a dump are text git apply passes over.
			cmd := exec.Command(git, "apply", "--allow-empty", "-p1", patch)
			cmd.Dir = tmp
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git apply %s: %v\n%s", patch, err, out)
			}
			want := readTree(t, filepath.Join(dir, "want"))
			got := readTree(t, filepath.Join(tmp, "in"))
			for rel := range got {
				if _, ok := want[rel]; !ok {
					delete(got, rel) // an input migrate leaves alone
				}
			}
			if filepath.Base(dir) == "dump" {
				return // rows are shown by field, not as a patch
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("the tree git apply made differs from the golden (-want +got):\n%s", d)
			}
		})
	}
}

// Two changes with a hidden line between them are two hunks that do not
// overlap, each with the context git apply needs, and git apply takes
// them.
func TestDiffSplitsAtHiddenLine(t *testing.T) {
	old := "host: h\nsyncSchedule:\n  syncFrequency: 1h\npassword: x\nuploadInterval: 5m\nuser: y\nregion: z\n"
	starts := lineStarts([]byte(old))
	edits := []finding.TextEdit{
		{Start: starts[2], End: starts[3], NewText: []byte("  syncFrequency: \"0s\"\n")},
		{Start: starts[4], End: starts[5], NewText: []byte("uploadInterval: \"0s\"\n")},
	}
	var b bytes.Buffer
	if err := Diff(&b, "c.config.yaml", []byte(old), edits, 3); err != nil {
		t.Fatal(err)
	}
	want := "--- a/c.config.yaml\n+++ b/c.config.yaml\n" +
		"@@ -2,3 +2,3 @@\n syncSchedule:\n-  syncFrequency: 1h\n+  syncFrequency: \"0s\"\n password: x\n" +
		"@@ -5,3 +5,3 @@\n-uploadInterval: 5m\n+uploadInterval: \"0s\"\n user: y\n region: z\n"
	if b.String() != want {
		t.Fatalf("diff:\n%s\nwant:\n%s", b.String(), want)
	}
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git on PATH")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "c.config.yaml"), []byte(old), 0o644)
	cmd := exec.Command(git, "apply", "-")
	cmd.Dir, cmd.Stdin = dir, &b
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git apply: %v\n%s", err, out)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "c.config.yaml")); string(got) != string(edit.Apply([]byte(old), edits)) {
		t.Errorf("git apply gives\n%s", got)
	}
}
