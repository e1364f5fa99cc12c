package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// reportTree is a catalog whose task reads a config file, and a file
// outside it that a symlink inside may point at.
func reportTree(t *testing.T) (dir, outside string) {
	t.Helper()
	base := t.TempDir()
	dir, outside = filepath.Join(base, "repo"), filepath.Join(base, "outside", "authorized_keys")
	writeFiles(t, base, map[string]string{
		"repo/flow.yaml":          "materializations:\n" + task("acmeCo/a", "a.config.yaml", true),
		"repo/a.config.yaml":      sharedConfig,
		"outside/authorized_keys": "ssh-ed25519 AAAA keep me\n",
	})
	return dir, outside
}

// validate -o sarif=FILE truncated FILE through a symlink before reading
// anything: a symlink committed in a pull request overwrote a file
// outside the repository. A report file that is a symlink is refused,
// exit 1, with nothing written anywhere; so is --plan FILE.
func TestReportFileSymlinkRefused(t *testing.T) {
	dir, outside := reportTree(t)
	if err := os.Symlink(outside, filepath.Join(dir, "schedtool.sarif")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "wave.plan")); err != nil {
		t.Fatal(err)
	}
	before := treeState(t, filepath.Dir(dir))
	for _, args := range [][]string{
		{"validate", "-o", "sarif=schedtool.sarif", "."},
		{"validate", "-o", "github", "-o", "sarif=schedtool.sarif", "."},
		{"validate", "-o", "sarif=schedtool.sarif", "no-such-dir"}, // not even a failure document
		{"migrate", "--plan", "wave.plan", "."},
	} {
		r := schedtoolIn(t, dir, args...)
		flag := strings.Join(args[1:len(args)-1], " ")
		if args[0] == "validate" {
			flag = "-o sarif=schedtool.sarif"
		}
		if r.code != 1 || !strings.Contains(r.stderr, "schedtool: "+flag+" is a symlink; schedtool does not write through one") {
			t.Errorf("%s: exit %d\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
		}
		if strings.Contains(r.stdout, "acmeCo/a") {
			t.Errorf("%s: the catalog was read:\n%s", strings.Join(args, " "), r.stdout)
		}
		sameTree(t, strings.Join(args, " "), treeState(t, filepath.Dir(dir)), before)
	}
}

// validate -o text=flow.yaml truncated the catalog, then read it as empty:
// "0 materializations", exit 0. A report file that is an input of the
// run (a PATH, a source found under one, a config file the loader reads,
// standard input; by identity, a hard link too) is refused, exit 1, the
// input unchanged.
func TestReportFileInputRefused(t *testing.T) {
	dir, _ := reportTree(t)
	if err := os.Link(filepath.Join(dir, "flow.yaml"), filepath.Join(dir, "hard.txt")); err != nil {
		t.Fatal(err)
	}
	before := treeState(t, dir)
	for _, tc := range []struct {
		args  []string
		stdin string
		want  string
	}{
		{[]string{"validate", "-o", "text=flow.yaml", "flow.yaml"}, "", "-o text=flow.yaml is the input flow.yaml: writing it would replace the input"},
		{[]string{"validate", "-o", "text=flow.yaml", "."}, "", "-o text=flow.yaml is the input flow.yaml"},
		{[]string{"validate", "-o", "json=hard.txt", "."}, "", "-o json=hard.txt is the input flow.yaml"},
		{[]string{"validate", "-o", "json=./sub/../a.config.yaml", "."}, "", "-o json=./sub/../a.config.yaml is the input a.config.yaml"},
		{[]string{"validate", "-o", "github", "-o", "sarif=a.config.yaml", "flow.yaml"}, "", "-o sarif=a.config.yaml is the input a.config.yaml"},
		{[]string{"migrate", "--plan", "a.config.yaml", "."}, "", "--plan a.config.yaml is the input a.config.yaml"},
		{[]string{"validate", "-o", "json=flow.yaml", "-"}, "<flow.yaml", "-o json=flow.yaml is the input - (standard input reads it)"},
	} {
		os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
		var r run
		if tc.stdin != "" {
			r = schedtoolStdinFile(t, dir, filepath.Join(dir, strings.TrimPrefix(tc.stdin, "<")), tc.args...)
		} else {
			r = schedtoolIn(t, dir, tc.args...)
		}
		os.Remove(filepath.Join(dir, "sub"))
		what := strings.Join(tc.args, " ")
		if r.code != 1 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%s: exit %d, want 1 and %q\n%s%s", what, r.code, tc.want, r.stdout, r.stderr)
		}
		sameTree(t, what, treeState(t, dir), before)
	}
}

// schedtoolStdinFile runs the binary in dir with standard input
// redirected from the file stdin (not a pipe: the file itself).
func schedtoolStdinFile(t *testing.T, dir, stdin string, args ...string) run {
	t.Helper()
	f, err := os.Open(stdin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(binary, args...)
	cmd.Dir, cmd.Stdin = dir, f
	return execRun(t, cmd)
}

// A run that fails leaves no report file and no temp file, and a report
// file it would have replaced as it was; the formats with a failure
// document (json, sarif) get that document instead. A run that succeeds
// replaces the file, and a report left under a directory PATH by the
// last run is not taken for an input.
func TestReportFileFailedRun(t *testing.T) {
	dir, _ := reportTree(t)
	before := treeState(t, dir)
	r := schedtoolIn(t, dir, "validate", "-o", "text=out.txt", "--name", "acmeCo/nosuch", ".")
	if r.code != 1 || !strings.Contains(r.stderr, "acmeCo/nosuch") {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	sameTree(t, "a failed run", treeState(t, dir), before)

	writeFiles(t, dir, map[string]string{"out.txt": "the last report\n"})
	before = treeState(t, dir)
	r = schedtoolIn(t, dir, "validate", "-o", "text=out.txt", "no-such-dir")
	if r.code != 1 {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	sameTree(t, "a failed run over a report", treeState(t, dir), before)

	r = schedtoolIn(t, dir, "validate", "-o", "sarif=out.sarif", "--name", "acmeCo/nosuch", ".")
	if b, err := os.ReadFile(filepath.Join(dir, "out.sarif")); r.code != 1 || err != nil || !strings.Contains(string(b), `"executionSuccessful": false`) {
		t.Errorf("exit %d, out.sarif %v:\n%s", r.code, err, b)
	}

	for i := 0; i < 2; i++ {
		r = schedtoolIn(t, dir, "validate", "-o", "text=out.txt", "-o", "json=out.json", "-o", "sarif=out.sarif", ".")
		if r.code != 0 {
			t.Fatalf("run %d: exit %d\n%s%s", i, r.code, r.stdout, r.stderr)
		}
		for _, f := range []string{"out.txt", "out.json", "out.sarif"} {
			b, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil || !strings.Contains(string(b), "materialization") || strings.Contains(string(b), "last report") || strings.Contains(string(b), "executionSuccessful\": false") {
				t.Errorf("run %d: %s: %v\n%s", i, f, err, b)
			}
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), "schedtool-") {
			t.Errorf("a temp file is left: %s", e.Name())
		}
	}
}
