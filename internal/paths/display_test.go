package paths

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDisplay: a file under the working directory is shown relative to
// it however it was named (absolute, going up and back, through a
// symlinked directory); anything else as it is.
func TestDisplay(t *testing.T) {
	top := t.TempDir()
	top, _ = filepath.EvalSymlinks(top)
	repo := filepath.Join(top, "repo")
	other := filepath.Join(top, "other")
	for _, d := range []string{filepath.Join(repo, "sub"), other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(repo, filepath.Join(top, "link")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(repo)
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"flow.yaml", "flow.yaml"},
		{"./flow.yaml", "./flow.yaml"}, // as typed: under, never rewritten
		{"<stdin>", "<stdin>"},
		{"postgres://ops@db/postgres", "postgres://ops@db/postgres"},
		{repo, "."},
		{repo + "/sub/flow.yaml", "sub/flow.yaml"},
		{repo + "/./sub/../flow.yaml", "flow.yaml"},
		{"../repo/sub/flow.yaml", "sub/flow.yaml"},
		{top + "/link/sub/flow.yaml", "sub/flow.yaml"}, // through a symlink
		{other + "/flow.yaml", other + "/flow.yaml"},   // outside: absolute
		{"../other/flow.yaml", "../other/flow.yaml"},   // outside: as given
		{top + "/repo2/flow.yaml", top + "/repo2/flow.yaml"},
	} {
		var d Displayer
		if got := Display(c.in); got != c.want {
			t.Errorf("Display(%q) = %q, want %q", c.in, got, c.want)
		}
		for range 2 {
			if got := d.Display(c.in); got != c.want {
				t.Errorf("Displayer.Display(%q) = %q, want %q", c.in, got, c.want)
			}
		}
	}
	// From a subdirectory, a file above it stays absolute.
	t.Chdir(filepath.Join(repo, "sub"))
	if got := Display(repo + "/flow.yaml"); got != repo+"/flow.yaml" {
		t.Errorf("from sub: %q", got)
	}
	if got := Display(repo + "/sub/x/flow.yaml"); got != "x/flow.yaml" {
		t.Errorf("from sub: %q", got)
	}
}
