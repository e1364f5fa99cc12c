package migrate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func noTemps(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".schedtool-") {
			t.Errorf("temp file left behind: %s", e.Name())
		}
	}
}

func TestWriteFileKeepsModeAndReplacesAtomically(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "flow.yaml")
	os.WriteFile(p, []byte("old"), 0o640)
	if err := WriteFile(p, []byte("old"), []byte("new")); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	st, _ := os.Stat(p)
	if string(b) != "new" || st.Mode().Perm() != 0o640 {
		t.Errorf("content %q mode %v", b, st.Mode().Perm())
	}
	noTemps(t, dir)
}

// A file changed after it was read is refused, before the write and in
// the window just before the rename.
func TestWriteFileRefusesAChangedFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "flow.yaml")
	os.WriteFile(p, []byte("someone else's"), 0o644)
	if err := WriteFile(p, []byte("old"), []byte("new")); !errors.Is(err, ErrChanged) {
		t.Errorf("err = %v, want ErrChanged", err)
	}
	os.WriteFile(p, []byte("old"), 0o644)
	beforeRename = func(target string) { os.WriteFile(target, []byte("replaced meanwhile"), 0o644) }
	defer func() { beforeRename = nil }()
	if err := WriteFile(p, []byte("old"), []byte("new")); !errors.Is(err, ErrChanged) {
		t.Errorf("err = %v, want ErrChanged", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "replaced meanwhile" {
		t.Errorf("the other writer's content was lost: %q", b)
	}
	noTemps(t, dir)
}

// A run over a catalog whose file is replaced between read and write:
// that file is reported and kept, the exit is a failure, no temp is left.
func TestRunReportsAFileReplacedBeforeTheWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "flow.yaml")
	os.WriteFile(p, []byte(crashSource(1)), 0o644)
	beforeRename = func(target string) { os.WriteFile(target, []byte("# edited by hand\n"), 0o644) }
	defer func() { beforeRename = nil }()
	sum, err := crashRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 1 || sum.OK() {
		t.Errorf("summary %+v, want one failed file", sum)
	}
	if b, _ := os.ReadFile(p); string(b) != "# edited by hand\n" {
		t.Errorf("content %q", b)
	}
	noTemps(t, dir)
}
