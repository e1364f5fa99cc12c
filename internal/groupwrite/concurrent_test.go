package groupwrite

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Two migrate runs writing one group at once. Run 2 has checked its first
// file and is about to rename it when run 1 writes the whole group; run 2
// then finds its second file changed and rolls back. Its rollback used to
// put its stale backup of the first file back over run 1's result: the
// file adding the model schedule was restored while the file zeroing the
// connector kept run 1's change, and the task ran unpaced. Group writes
// are now serialized between processes (directory locks) and a rollback
// never restores over a file it did not write.
func TestConcurrentGroupWritesNeverUnpace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	names := []string{"b/flow.yaml", "flow.yaml", "shared.yaml"}
	old := map[string]string{
		"b/flow.yaml": "model: none\n",
		"flow.yaml":   "model: none\n# other\n",
		"shared.yaml": "connector: 1h\n",
	}
	newer := map[string]string{
		"b/flow.yaml": "model: 1h\n",
		"flow.yaml":   "model: 1h\n# other\n",
		"shared.yaml": "connector: 0s\n",
	}
	os.MkdirAll(filepath.Join(dir, "b"), 0o755)
	for _, n := range names {
		os.WriteFile(filepath.Join(dir, n), []byte(old[n]), 0o644)
	}
	group := func() []*Put {
		var puts []*Put
		for _, n := range names {
			puts = append(puts, &Put{Path: filepath.Join(dir, n), Old: []byte(old[n]), Data: []byte(newer[n])})
		}
		return puts
	}
	other := make(chan error, 1)
	fired := false
	var run2 Hooks
	run2.AfterCheck = func(string) {
		if fired {
			return
		}
		fired = true
		// Run 1 writes the whole group now (a second process; here a
		// goroutine), given a moment to finish or block.
		go func() { other <- WriteGroup(group(), Hooks{}) }()
		select {
		case err := <-other:
			other <- err
		case <-time.After(300 * time.Millisecond):
		}
	}
	err2 := WriteGroup(group(), run2)
	err1 := <-other
	if err1 != nil && err2 != nil {
		t.Errorf("neither run wrote the group: %v; %v", err1, err2)
	}
	if err1 != nil && !errors.Is(err1, ErrChanged) || err2 != nil && !errors.Is(err2, ErrChanged) {
		t.Errorf("errors: %v; %v", err1, err2)
	}
	for _, n := range names {
		if b, _ := os.ReadFile(filepath.Join(dir, n)); string(b) != newer[n] {
			t.Errorf("%s = %q, want the migrated %q (every file of the group, or the task is unpaced)", n, b, newer[n])
		}
	}
	noTemps(t, dir)
	noTemps(t, filepath.Join(dir, "b"))
}
