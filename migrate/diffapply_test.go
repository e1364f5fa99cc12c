package migrate

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
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
