package groupwrite

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/estuary/schedtool/internal/paths"
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
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "flow.yaml")
	os.WriteFile(p, []byte("old"), 0o640)
	if err := WriteFile(p, []byte("old"), []byte("new"), Hooks{}); err != nil {
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
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "flow.yaml")
	os.WriteFile(p, []byte("someone else's"), 0o644)
	if err := WriteFile(p, []byte("old"), []byte("new"), Hooks{}); !errors.Is(err, ErrChanged) {
		t.Errorf("err = %v, want ErrChanged", err)
	}
	os.WriteFile(p, []byte("old"), 0o644)
	replace := Hooks{BeforeRename: func(target string) { os.WriteFile(target, []byte("replaced meanwhile"), 0o644) }}
	if err := WriteFile(p, []byte("old"), []byte("new"), replace); !errors.Is(err, ErrChanged) {
		t.Errorf("err = %v, want ErrChanged", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "replaced meanwhile" {
		t.Errorf("the other writer's content was lost: %q", b)
	}
	noTemps(t, dir)
}

// A group whose second rename fails after the first: the first file is
// restored to its original inode (the backup is a hard link), mode kept.
func TestGroupRollbackRestoresTheOriginal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.WriteFile(a, []byte("a old"), 0o640)
	os.WriteFile(b, []byte("b old"), 0o644)
	ida, _ := paths.Identify(a)
	h := Hooks{Fault: func(step, path string) error {
		if step == "rename" && path == b {
			return errors.New("injected")
		}
		return nil
	}}
	err := WriteGroup([]*Put{{Path: a, Old: []byte("a old"), Data: []byte("a new")}, {Path: b, Old: []byte("b old"), Data: []byte("b new")}}, h)
	var ge *GroupError
	if !errors.As(err, &ge) || ge.Path != b || ge.Stuck != "" {
		t.Fatalf("err = %v", err)
	}
	if got, _ := os.ReadFile(a); string(got) != "a old" {
		t.Errorf("a = %q", got)
	}
	if id, _ := paths.Identify(a); id != ida {
		t.Error("a is not its original inode")
	}
	if st, _ := os.Stat(a); st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v", st.Mode().Perm())
	}
	noTemps(t, dir)
}

// A file that resolves outside the inputs' roots when it is written (a
// symlink swapped in after the read) is not written.
func TestWriteRefusesAFileResolvingOutsideTheRoot(t *testing.T) {
	t.Parallel()
	dir, outside := t.TempDir(), t.TempDir()
	content := []byte("host: a\nsyncSchedule:\n  syncFrequency: 1h\n")
	os.WriteFile(filepath.Join(outside, "a.config.yaml"), content, 0o644)
	cfg := filepath.Join(dir, "a.config.yaml")
	os.Symlink(filepath.Join(outside, "a.config.yaml"), cfg)
	err := WriteGroup([]*Put{{Path: cfg, Old: content, Data: []byte("x"), Within: []string{mustReal(t, dir)}}}, Hooks{})
	if err == nil || !strings.Contains(err.Error(), "outside the root") {
		t.Errorf("err = %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "a.config.yaml")); !bytes.Equal(b, content) {
		t.Errorf("the file outside changed: %s", b)
	}
	noTemps(t, dir)
	noTemps(t, outside)
}

func mustReal(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A fault at any step of a stream (create, write, sync, close, rename)
// leaves no file at its path and no temp file; without one the whole
// content appears. Each writer has its own hooks, so these run at once.
func TestStreamFaultAtEveryStep(t *testing.T) {
	t.Parallel()
	for _, at := range []string{"", "create", "write", "sync", "close", "rename"} {
		t.Run("fault at "+at, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			p := filepath.Join(dir, "rows.ndjson")
			h := Hooks{Fault: func(step, path string) error {
				if step == at {
					return fmt.Errorf("injected fault at %s", step)
				}
				return nil
			}}
			s, err := CreateStream(p, 0o644, h)
			if err == nil {
				s.Write([]byte("row\n"))
				err = s.Commit()
			}
			b, rerr := os.ReadFile(p)
			switch {
			case at == "" && (err != nil || string(b) != "row\n"):
				t.Errorf("err %v, content %q", err, b)
			case at != "" && (err == nil || !strings.Contains(err.Error(), "injected") || rerr == nil):
				t.Errorf("err %v, file left: %v", err, rerr == nil)
			}
			noTemps(t, dir)
		})
	}
}

// A FIFO swapped in for the target just before the rename is refused:
// the last check opened it with os.ReadFile, which waits for a writer
// forever.
func TestWriteFileRefusesAFIFOSwappedIn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "flow.yaml")
	os.WriteFile(p, []byte("old"), 0o644)
	swap := Hooks{BeforeRename: func(target string) {
		os.Remove(target)
		if err := syscall.Mkfifo(target, 0o600); err != nil {
			t.Error(err)
		}
	}}
	done := make(chan error, 1)
	go func() { done <- WriteFile(p, []byte("old"), []byte("new"), swap) }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("written over a FIFO")
		}
	case <-time.After(10 * time.Second):
		// Unblock the reader so the test ends.
		if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatal("still waiting on the FIFO after 10s")
	}
	if st, err := os.Lstat(p); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", st, err)
	}
	noTemps(t, dir)
}
