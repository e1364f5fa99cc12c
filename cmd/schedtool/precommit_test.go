package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/estuary/schedtool/internal/testreq"
)

// TestPreCommitHook runs the schedtool-validate hook of
// .pre-commit-hooks.yaml with the real pre-commit (`pre-commit try-repo`,
// which builds schedtool from this repository as a user's pre-commit
// would, working tree included) in a throwaway git repository: a commit
// of a good catalog source passes, one of a bad source fails, and a YAML
// file that is no catalog source is never given to schedtool (it would
// fail: it does not parse). Without pre-commit or git it skips, unless
// SCHEDTOOL_REQUIRE_PRECOMMIT is set.
func TestPreCommitHook(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short mode: it builds schedtool twice")
	}
	for _, tool := range []string{"pre-commit", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			testreq.Missing(t, testreq.PreCommit, tool+" is not on PATH (Debian: apt-get install pre-commit)")
		}
	}
	top, err := exec.Command("git", "-C", "../..", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		testreq.Missing(t, testreq.PreCommit, "this copy of schedtool is not a git repository, which pre-commit try-repo needs")
	}
	repo := strings.TrimSpace(string(top))

	work := t.TempDir()
	files := map[string]string{
		"good.flow.yaml": "../../fixtures/catalog/acmeCo/flow.yaml",
		"bad.flow.yaml":  "../../fixtures/catalog/estuary/flow.yaml",
	}
	for name, from := range files {
		if err := os.WriteFile(filepath.Join(work, name), mustRead(t, from), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(work, "notes.yaml"), []byte("title: [unclosed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-qm", "a catalog")

	// pre-commit's golang language builds with GOPATH set to its own
	// directory: the module cache is named so that it is the one this
	// build used, and the build needs no network.
	modcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "GOMODCACHE="+strings.TrimSpace(string(modcache)), "NO_COLOR=1",
		"PRE_COMMIT_HOME="+t.TempDir())
	tryRepo := func(t *testing.T, files ...string) (string, int) {
		args := append([]string{"try-repo", repo, "schedtool-validate", "--color", "never", "--files"}, files...)
		cmd := exec.Command("pre-commit", args...)
		cmd.Dir = work
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}

	// Each try-repo builds schedtool in a store of its own: the two run
	// side by side.
	t.Run("good", func(t *testing.T) {
		t.Parallel()
		out, code := tryRepo(t, "good.flow.yaml", "notes.yaml")
		if code != 0 || !strings.Contains(out, "Passed") {
			t.Errorf("the hook on a good catalog source (and a YAML file that is none): exit %d, want 0\n%s", code, out)
		}
	})
	t.Run("bad", func(t *testing.T) {
		t.Parallel()
		out, code := tryRepo(t, "bad.flow.yaml", "notes.yaml")
		if code != 1 || !strings.Contains(out, "Failed") || !strings.Contains(out, "bad.flow.yaml:12:11: error invalid-sync-schedule") {
			t.Errorf("the hook on a bad catalog source: exit %d, want 1 with its finding\n%s", code, out)
		}
		if strings.Contains(out, "notes.yaml") {
			t.Errorf("the hook gave schedtool a file that is no catalog source:\n%s", out)
		}
	})
}
