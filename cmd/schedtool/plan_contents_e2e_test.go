package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/estuary/schedtool/savedplan"
)

// migrate --plan and -o markdown recorded the PATHs as given: a database
// URL's password went into the plan file (mode 0600, but made to be
// reviewed and shared) and into the pull-request body. The recorder keeps
// a database PATH without its password.
func TestPlanHoldsNoDatabasePassword(t *testing.T) {
	db, _ := pgFixture(t, 20)
	dir := t.TempDir()
	r := schedtoolIn(t, dir, "migrate", "--plan", "p.plan", db.BypassURL)
	if r.code != 2 {
		t.Fatalf("plan: exit %d\n%s", r.code, r.stderr)
	}
	if b := mustRead(t, filepath.Join(dir, "p.plan")); strings.Contains(string(b), db.BypassPassword) || !strings.Contains(string(b), db.Bypass+"@") {
		t.Errorf("the plan holds the password, or not the database:\n%.2000s", b)
	}
	for _, args := range [][]string{{"show", "-o", "markdown", "p.plan"}, {"show", "-o", "json", "p.plan"}, {"migrate", "-o", "markdown", db.BypassURL}} {
		r := schedtoolIn(t, dir, args...)
		if strings.Contains(r.stdout+r.stderr, db.BypassPassword) {
			t.Errorf("%v: the password is in the output", args)
		}
	}
}

// apply and show read the plan with os.ReadFile: apply /dev/zero read
// without end (memory without bound) and show FIFO waited forever for a
// writer. A plan is read as every other file is: a regular file, no
// larger than --max-file-size. A planned input swapped for a FIFO is
// refused without waiting.
func TestPlanReadOnlyRegularFiles(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.plan"), 0o600); err != nil {
		t.Skip(err)
	}
	bounded := func(args ...string) run {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, binary, args...)
		cmd.Dir = dir
		r := execRun(t, cmd)
		if ctx.Err() != nil {
			t.Fatalf("%v: still running after 20s", args)
		}
		return r
	}
	for _, cmd := range []string{"apply", "show"} {
		for _, p := range []string{"/dev/zero", "fifo.plan", "."} {
			r := bounded(cmd, p)
			if r.code != 1 || !strings.Contains(r.stderr, "not a regular file") {
				t.Errorf("%s %s: exit %d\n%s", cmd, p, r.code, r.stderr)
			}
		}
	}
	writeFiles(t, dir, map[string]string{"big.plan": `{"format":"schedtool-plan","version":2}` + strings.Repeat(" ", 2<<10)})
	if r := bounded("apply", "--max-file-size", "1KiB", "big.plan"); r.code != 1 || !strings.Contains(r.stderr, "over the limit") {
		t.Errorf("apply of a plan over --max-file-size: exit %d\n%s", r.code, r.stderr)
	}

	writeFiles(t, dir, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		"flow.yaml": `materializations:
  acmeCo/a:
    shards: {flags: {enable-runtime-v2: "true"}}
    syncSchedule: {baseInterval: 1h}
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config: c.yaml
    bindings: []
`,
		"c.yaml": "host: x\n",
	})
	if r := bounded("migrate", "--plan", "wave.plan", "."); r.code != 2 {
		t.Fatalf("plan: exit %d\n%s", r.code, r.stderr)
	}
	if err := os.Remove(filepath.Join(dir, "c.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "c.yaml"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := bounded("apply", "wave.plan"); r.code != 2 || !strings.Contains(r.stderr, "c.yaml: not written: changed since the plan: it is not a regular file") {
		t.Errorf("apply over a FIFO: exit %d\n%s", r.code, r.stderr)
	}
}

// migrate --plan with no PATH (the project file's paths) recorded no
// PATH in the plan, so apply read no catalog again and zeroed a config
// file a task added since uses. The plan records the PATHs read.
func TestPlanRecordsProjectPaths(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".git/HEAD":       "ref: refs/heads/main\n",
		".schedtool.yaml": "paths: [cat]\n",
		"cat/flow.yaml": `materializations:
  acmeCo/a:
    shards: {flags: {enable-runtime-v2: "true"}}
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config: c.yaml
    bindings: []
`,
		"cat/c.yaml": "host: x\nsyncSchedule: {syncFrequency: 1h}\n",
	})
	if r := schedtoolIn(t, dir, "migrate", "--plan", "wave.plan"); r.code != 2 {
		t.Fatalf("plan: exit %d\n%s", r.code, r.stderr)
	}
	writeFiles(t, dir, map[string]string{"cat/other.flow.yaml": `materializations:
  acmeCo/b:
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config: c.yaml
    bindings: []
`})
	r := schedtoolIn(t, dir, "apply", "wave.plan")
	if r.code != 2 || !strings.Contains(r.stderr, "cat/c.yaml: not written: ") || !strings.Contains(r.stderr, "also used by acmeCo/b (cat/other.flow.yaml:3") {
		t.Errorf("apply: exit %d\n%s", r.code, r.stderr)
	}
	if b := mustReadString(t, filepath.Join(dir, "cat/c.yaml")); !strings.Contains(b, "1h") {
		t.Errorf("the shared config was zeroed:\n%s", b)
	}
}

// The Markdown body of a pull request notifies no one: a file under a
// directory named @someone is named with the mention broken. And a
// command line of many PATHs (a glob) is cut: no part is over GitHub's
// comment limit, whatever one line of the head holds.
func TestMarkdownPlanNoMentionNoHugeLine(t *testing.T) {
	dir := copyFixtures(t)
	cat := filepath.Join(dir, "fixtures/catalog")
	if err := os.Rename(filepath.Join(cat, "acmeCo/lake"), filepath.Join(cat, "@octocat")); err != nil {
		t.Fatal(err)
	}
	root := string(mustRead(t, filepath.Join(cat, "flow.yaml")))
	if !strings.Contains(root, "acmeCo/lake/flow.yaml") {
		t.Fatal("the fixture moved: flow.yaml does not import acmeCo/lake/flow.yaml")
	}
	os.WriteFile(filepath.Join(cat, "flow.yaml"), []byte(strings.ReplaceAll(root, "acmeCo/lake/flow.yaml", `"@octocat/flow.yaml"`)), 0o644)
	// Many PATHs (a glob): a plan holds each relative to the root.
	args := []string{"migrate", "-o", "markdown", "fixtures/catalog"}
	for i := range 20 {
		name := fmt.Sprintf("fixtures/many/%03d-%s.flow.yaml", i, strings.Repeat("x", 200))
		writeFiles(t, dir, map[string]string{name: "materializations: {}\n"})
		args = append(args, name)
	}
	r := schedtoolIn(t, dir, args...)
	if r.code != 2 || !strings.Contains(r.stdout, "## schedtool migrate plan") {
		t.Fatalf("migrate -o markdown: exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "@\u2060octocat/flow.yaml") {
		t.Errorf("the file under @octocat is not named:\n%s", r.stdout)
	}
	for i, line := range strings.Split(r.stdout, "\n") {
		if strings.Contains(line, "@octocat") && !strings.HasPrefix(line, "+") && !strings.HasPrefix(line, "-") && !strings.HasPrefix(line, " ") {
			t.Errorf("line %d mentions @octocat outside the diff block: %s", i+1, line)
		}
	}
	for i, part := range strings.Split(r.stdout, "<!-- schedtool part") {
		if len(part) >= savedplan.CommentLimit {
			t.Errorf("part %d is %d bytes, over GitHub's %d", i, len(part), savedplan.CommentLimit)
		}
	}
	if !strings.Contains(r.stdout, "(cut: ") {
		t.Errorf("the command line of 20 long PATHs is not said to be cut:\n%s", r.stdout)
	}
}

func mustReadString(t *testing.T, p string) string { return string(mustRead(t, p)) }
