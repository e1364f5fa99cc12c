package main

import (
	binenc "encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
)

// Issue 24 §2: routes to an unpaced task, or to a gate that passes
// wrongly, through what the walk and the reader see. Each failed on
// main before: the shared config was zeroed under a task nobody saw, or
// census passed with tasks it did not read.

// utf16Text is s in UTF-16 with a byte order mark, as Windows editors
// and PowerShell 5's `>` save it.
func utf16Text(s string, big bool) string {
	units := utf16.Encode([]rune(s))
	b := make([]byte, 2+2*len(units))
	order := binenc.ByteOrder(binenc.LittleEndian)
	if big {
		order = binenc.BigEndian
	}
	order.PutUint16(b, 0xFEFF)
	for i, u := range units {
		order.PutUint16(b[2+2*i:], u)
	}
	return string(b)
}

// A catalog source saved as UTF-16 that uses a shared config is a user:
// migrating the other user alone holds the file back (it zeroed it, and
// left the UTF-16 task unpaced). A source that cannot be decoded holds
// every config file back, whether its bytes name the file or not.
func TestUTF16SourceIsAUser(t *testing.T) {
	b := "materializations:\n" + task("acmeCo/b", "../shared.config.yaml", true)
	for _, tc := range []struct {
		name, b, holder string
	}{
		{"UTF-16LE", utf16Text(b, false), "acmeCo/b (b/flow.yaml:"},
		{"UTF-16BE", utf16Text(b, true), "acmeCo/b (b/flow.yaml:"},
		{"UTF-16 by another name", utf16Text(b, false), "acmeCo/b (b/catalog.yml:"},
		{"UTF-16 cut in a character", utf16Text(b, false) + "x", "b/flow.yaml (a catalog source that cannot be decoded"},
		{"UTF-16 with an unpaired surrogate", utf16Text(b, false) + "\x00\xd8", "b/flow.yaml (a catalog source that cannot be decoded"},
		{"UTF-32", "\xff\xfe\x00\x00" + strings.Join(strings.Split(b, ""), "\x00\x00\x00") + "\x00\x00\x00", "b/flow.yaml (a catalog source that cannot be decoded"},
		{"invalid UTF-8, naming another file", "materializations: {}\n# \xff other.config.yaml\n", "b/flow.yaml (a catalog source that cannot be decoded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			name := "b/flow.yaml"
			if strings.Contains(tc.name, "another name") {
				name = "b/catalog.yml"
			}
			writeFiles(t, dir, map[string]string{
				".git/HEAD":          "ref: refs/heads/main\n",
				"a/flow.yaml":        "materializations:\n" + task("acmeCo/a", "../shared.config.yaml", true),
				"shared.config.yaml": sharedConfig,
				name:                 tc.b,
			})
			before := treeState(t, dir)
			r := schedtoolIn(t, dir, "migrate", "--write", "a")
			heldBack(t, r, 2, before, treeState(t, dir), []string{"acmeCo/a"}, []string{tc.holder})
		})
	}
	// The whole root: the UTF-16 task is read (census counts it, findings
	// point at its own lines and columns) and needs review, since its
	// file is not rewritten in another encoding; the shared file stays.
	t.Run("whole root", func(t *testing.T) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{
			".git/HEAD":          "ref: refs/heads/main\n",
			"a/flow.yaml":        "materializations:\n" + task("acmeCo/a", "../shared.config.yaml", true),
			"shared.config.yaml": sharedConfig,
			"b/flow.yaml":        utf16Text(b, false),
			"c/flow.yaml":        b,
		})
		c := schedtoolIn(t, dir, "census", "-o", "wide", "b")
		if c.code != 0 || !strings.Contains(c.stdout, "acmeCo/b") || !strings.Contains(c.stdout, "4h") {
			t.Errorf("census of the UTF-16 source: exit %d\n%s%s", c.code, c.stdout, c.stderr)
		}
		v16, v8 := schedtoolIn(t, dir, "validate", "b"), schedtoolIn(t, dir, "validate", "c")
		if want := strings.ReplaceAll(v8.stdout, "c/flow.yaml", "b/flow.yaml"); v16.stdout != want || v16.code != v8.code {
			t.Errorf("validate of the UTF-16 source differs from its UTF-8 copy:\n%s\nwant\n%s", v16.stdout, want)
		}
		os.Remove(filepath.Join(dir, "c/flow.yaml"))
		before := treeState(t, dir)
		r := schedtoolIn(t, dir, "migrate", "--write", "--enable-runtime-v2", ".")
		// Refused as an alias edit is: exit 1, the task needs review.
		if r.code != 1 || !strings.Contains(reviewReason(r.stderr, "acmeCo/b"), "UTF-16LE text") {
			t.Errorf("exit %d, want 1 with acmeCo/b needing review for its encoding\n%s%s", r.code, r.stdout, r.stderr)
		}
		sameTree(t, "migrate --write .", treeState(t, dir), before)
		if line := reviewReason(r.stderr, "acmeCo/a"); !strings.Contains(line, "acmeCo/b") {
			t.Errorf("acmeCo/a is not held back by acmeCo/b:\n%s", r.stderr)
		}
	})
}

// gitIn runs git in dir, with an identity and file:// submodules allowed.
func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "protocol.file.allow=always", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// A PATH inside a git submodule has the superproject's work tree as its
// root (outermost, for nested ones), where a task may use the
// submodule's files: migrate shared zeroed shared/x.config.yaml under
// the superproject's app task, and census called that task unaffected.
func TestSubmoduleRoot(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("skipped: git is not on PATH")
	}
	base := t.TempDir()
	inner, sharedRepo, super := filepath.Join(base, "inner"), filepath.Join(base, "sharedrepo"), filepath.Join(base, "super")
	for _, d := range []string{inner, sharedRepo, super} {
		os.MkdirAll(d, 0o755)
		gitIn(t, d, "init", "-q")
	}
	writeFiles(t, inner, map[string]string{"README": "inner\n"})
	gitIn(t, inner, "add", ".")
	gitIn(t, inner, "commit", "-qm", "inner")
	writeFiles(t, sharedRepo, map[string]string{
		"flow.yaml":     "materializations:\n" + task("acmeCo/shared", "x.config.yaml", true),
		"x.config.yaml": sharedConfig,
	})
	gitIn(t, sharedRepo, "add", ".")
	gitIn(t, sharedRepo, "submodule", "add", "-q", "file://"+inner, "nested")
	gitIn(t, sharedRepo, "commit", "-qm", "shared")
	writeFiles(t, super, map[string]string{"app/flow.yaml": "materializations:\n" + task("acmeCo/app", "../shared/x.config.yaml", true)})
	gitIn(t, super, "submodule", "add", "-q", "file://"+sharedRepo, "shared")
	gitIn(t, super, "submodule", "update", "--init", "--recursive", "-q")
	gitIn(t, super, "add", ".")
	gitIn(t, super, "commit", "-qm", "super")
	if _, err := os.Stat(filepath.Join(super, "shared/nested/README")); err != nil {
		t.Fatal("the nested submodule is not checked out")
	}
	before := treeState(t, super)
	r := schedtoolIn(t, super, "migrate", "--write", "shared")
	heldBack(t, r, 2, before, treeState(t, super), []string{"acmeCo/shared"}, []string{"acmeCo/app (app/flow.yaml:"})
	if !strings.Contains(r.stderr, "schedtool: shared is in the git work tree shared, inside another: the root is ., the outermost work tree") {
		t.Errorf("the root used is not said:\n%s", r.stderr)
	}
	// Nested: from inside the submodule's own submodule, the root is
	// the outermost work tree, and an escape names it.
	writeFiles(t, super, map[string]string{"shared/nested/flow.yaml": "materializations:\n" + task("acmeCo/nested", "../../../outside.yaml", true)})
	r = schedtoolIn(t, super, "validate", "shared/nested")
	if !strings.Contains(r.stderr, "the root is ., the outermost work tree") || !strings.Contains(r.stdout, "escapes the root directory . (the outermost git work tree, which encloses the one at shared/nested)") {
		t.Errorf("nested submodule:\n%s%s", r.stdout, r.stderr)
	}
	// A linked work tree (git worktree add) is not a submodule: its own
	// top is the root.
	wt := filepath.Join(base, "wt")
	gitIn(t, super, "worktree", "add", "-q", wt)
	writeFiles(t, wt, map[string]string{"app/flow.yaml": "materializations:\n" + task("acmeCo/app", "../../outside.yaml", true)})
	r = schedtoolIn(t, wt, "validate", "app")
	if strings.Contains(r.stderr, "submodule") || !strings.Contains(r.stdout, "(the enclosing git work tree)") {
		t.Errorf("linked work tree:\n%s%s", r.stdout, r.stderr)
	}
	// The gate: the superproject's task still relies on its connector.
	c := schedtoolIn(t, super, "census", "--fail-if-remaining", "app")
	if c.code == 0 || strings.Contains(c.stdout, "unaffected") {
		t.Errorf("census after: exit %d\n%s%s", c.code, c.stdout, c.stderr)
	}
}

// A .git file whose gitdir leads nowhere (a submodule whose
// superproject's .git/modules is gone, a copied tree) made its directory
// the root: migrate --write shared zeroed shared/snowflake.config.yaml,
// exit 0, while the enclosing work tree's task using it was left
// unpaced. The root is the outermost work tree, and stderr says so.
func TestBrokenGitFileRoot(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("skipped: git is not on PATH")
	}
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q")
	writeFiles(t, dir, map[string]string{
		"shared/.git":                  "gitdir: ../.git/modules/shared\n",
		"shared/flow.yaml":             "materializations:\n" + task("acmeCo/shared", "snowflake.config.yaml", true),
		"shared/snowflake.config.yaml": sharedConfig,
		"app/flow.yaml":                "materializations:\n" + task("acmeCo/app", "../shared/snowflake.config.yaml", true),
	})
	before := treeState(t, dir)
	r := schedtoolIn(t, dir, "migrate", "--write", "shared")
	heldBack(t, r, 2, before, treeState(t, dir), []string{"acmeCo/shared"}, []string{"acmeCo/app (app/flow.yaml:"})
	if !strings.Contains(r.stderr, "schedtool: shared is in the git work tree shared, inside another: the root is ., the outermost work tree") {
		t.Errorf("the root used is not said:\n%s", r.stderr)
	}
	// The gate: the enclosing tree's task still relies on its connector.
	c := schedtoolIn(t, dir, "census", "--fail-if-remaining", "app")
	if c.code != 2 || strings.Contains(c.stdout, "unaffected") {
		t.Errorf("census after: exit %d\n%s%s", c.code, c.stdout, c.stderr)
	}
}

// Every command reads the sources migrate's users walk reads: a source
// by another name or letter case, and one under a symlinked directory.
// With one unrelated flow.yaml beside them, census --fail-if-remaining
// passed with 0 tasks.
func TestOneWalkForEveryCommand(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".git/HEAD":             "ref: refs/heads/main\n",
		"cat/flow.yaml":         "collections: {}\n",
		"cat/b/main.yaml":       "materializations:\n" + snowflake("acmeCo/b", sfImage),
		"cat/c/Flow.yaml":       "materializations:\n" + snowflake("acmeCo/c", sfImage),
		"cat/d/prod.flow.YAML":  "materializations:\n" + snowflake("acmeCo/d", sfImage),
		"elsewhere/e/flow.yaml": "materializations:\n" + snowflake("acmeCo/e", sfImage),
		"cat/notes.yaml":        "title: not a catalog\n",
		"cat/.hidden/flow.yaml": "materializations:\n" + snowflake("acmeCo/hidden", sfImage),
	})
	if err := os.Symlink("../elsewhere", filepath.Join(dir, "cat/linked")); err != nil {
		t.Fatal(err)
	}
	os.Symlink(".", filepath.Join(dir, "cat/loop"))             // a cycle: walked once
	os.Symlink("../../cat", filepath.Join(dir, "cat/b/up"))     // another
	os.Symlink("/nonexistent-dir", filepath.Join(dir, "cat/x")) // dangling
	tasks := []string{"acmeCo/b", "acmeCo/c", "acmeCo/d", "acmeCo/e"}
	r := schedtoolIn(t, dir, "census", "--fail-if-remaining", "-o", "wide", "cat")
	expect(t, r, 2, append(tasks[:4:4], "4 tasks on scheduling images"), nil)
	if strings.Contains(r.stdout, "acmeCo/hidden") {
		t.Errorf("census read a hidden directory:\n%s", r.stdout)
	}
	r = schedtoolIn(t, dir, "validate", "cat")
	expect(t, r, 0, []string{"in 4 materializations"}, nil)
	for _, tk := range tasks {
		if r := schedtoolIn(t, dir, "explain", tk, "cat"); r.code != 0 {
			t.Errorf("explain %s: exit %d\n%s%s", tk, r.code, r.stdout, r.stderr)
		}
	}
	r = schedtoolIn(t, dir, "migrate", "--write", "cat")
	if r.code != 0 {
		t.Fatalf("migrate: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, f := range []string{"cat/b/main.yaml", "cat/c/Flow.yaml", "cat/d/prod.flow.YAML", "elsewhere/e/flow.yaml"} {
		if b, _ := os.ReadFile(filepath.Join(dir, f)); !strings.Contains(string(b), "syncSchedule:\n      baseInterval") && !strings.Contains(string(b), "baseInterval: 1h") {
			t.Errorf("%s not migrated:\n%s", f, b)
		}
	}
	expect(t, schedtoolIn(t, dir, "census", "--fail-if-remaining", "cat"), 0, []string{"4 tasks on scheduling images"}, nil)
}

// Merge keys as Flow reads them (every catalog source, after parsing:
// a quoted "<<" in YAML, any "<<" in JSON): a 2h schedule reached that
// way was read as the 30m default, migrate wrote a 30m model schedule and
// --verify said identical. It is read as 2h, and an edit through the
// merge is refused: the task needs review.
func TestMergeKeysAsFlowReadsThem(t *testing.T) {
	for _, tc := range []struct{ name, src string }{
		{"quoted in YAML", "materializations:\n" + v2Materialization("acmeCo/m", sfImage, "\n          \"<<\": {syncSchedule: {syncFrequency: 2h}}\n          host: h")},
		{"anchor, quoted", "materializations:\n" + v2Materialization("acmeCo/n", sfImage, " &c {host: h, syncSchedule: {syncFrequency: 2h}}") + v2Materialization("acmeCo/m", sfImage, " {\"<<\": *c, host: h2}")},
		{"JSON", `{"materializations": {"acmeCo/m": {"shards": {"flags": {"enable-runtime-v2": "true"}}, "<<": {"endpoint": {"connector": {"image": "` + sfImage + `", "config": {"host": "h", "syncSchedule": {"syncFrequency": "2h"}}}}}, "bindings": []}}}`},
		{"list, earlier wins", "materializations:\n" + v2Materialization("acmeCo/m", sfImage, "\n          \"<<\": [{syncSchedule: {syncFrequency: 2h}}, {syncSchedule: {syncFrequency: 5m}}]\n          host: h")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"flow.yaml": tc.src})
			r := schedtoolIn(t, dir, "census", "-o", "wide", "--name", "acmeCo/m", ".")
			if !strings.Contains(r.stdout, " 2h ") {
				t.Errorf("census does not read 2h:\n%s%s", r.stdout, r.stderr)
			}
			before := treeState(t, dir)
			r = schedtoolIn(t, dir, "migrate", "--write", "--verify", ".")
			// Refused as an alias edit is: exit 1, the task needs review.
			if r.code != 1 || !strings.Contains(reviewReason(r.stderr, "acmeCo/m"), "comes from a merge key (<<") {
				t.Errorf("exit %d, want 1 with acmeCo/m needing review for the merge\n%s%s", r.code, r.stdout, r.stderr)
			}
			sameTree(t, "migrate --write", treeState(t, dir), before)
		})
	}
}
