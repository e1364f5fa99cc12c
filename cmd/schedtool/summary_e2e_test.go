package main

import (
	"os/exec"
	"strings"
	"testing"
)

// summaryTree has acmeCo/a and acmeCo/c to migrate (their connectors
// hold commits up to 4h and 1h) and acmeCo/b, which needs review (a
// model schedule beside a configured connector one).
func summaryTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	b := strings.Replace(task("acmeCo/b", "b.config.yaml", true), "    endpoint:", "    syncSchedule: {syncFrequency: 1h}\n    endpoint:", 1)
	writeFiles(t, dir, map[string]string{
		"flow.yaml":     "materializations:\n" + task("acmeCo/a", "a.config.yaml", true) + b + task("acmeCo/c", "c.config.yaml", true),
		"a.config.yaml": sharedConfig,
		"b.config.yaml": sharedConfig,
		"c.config.yaml": "host: h\nsyncSchedule:\n  syncFrequency: 1h\n",
	})
	return dir
}

// migrate's summary says when a published change takes effect: once
// the connector has acknowledged the transactions in flight, up to twice
// its longest delay (Flow's docs), which sync-now cannot shorten; and
// one task "needs review", not "need review".
func TestMigrateSummaryHoldAndGrammar(t *testing.T) {
	dir := summaryTree(t)
	r := schedtoolIn(t, dir, "migrate", ".")
	for _, want := range []string{
		"migrate: 3 materializations: 2 to migrate, 1 needs review;",
		"after publishing: a task takes on its change only once its connector has acknowledged the transactions in flight, up to twice its longest delay (8h for acmeCo/a, whose connector holds a commit up to 4h), and sync-now cannot shorten that; to apply a change at once, disable the task and enable it again",
		"schedtool: 1 task needs review",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("missing %q:\n%s", want, r.stderr)
		}
	}
	if r.code != 2 {
		t.Errorf("exit %d", r.code)
	}
	// Nothing to migrate: nothing to wait for.
	r = schedtoolIn(t, dir, "migrate", "--name", "acmeCo/b", ".")
	if strings.Contains(r.stderr, "after publishing") {
		t.Errorf("a hold without a task to migrate:\n%s", r.stderr)
	}
}

// migrate --dry-run was an unknown flag (exit 1): it is accepted, the
// run is the dry run it would have been, and stderr says it is the
// default; beside --write it is refused, nothing written.
func TestMigrateDryRunFlag(t *testing.T) {
	dir := summaryTree(t)
	plain := schedtoolIn(t, dir, "migrate", ".")
	r := schedtoolIn(t, dir, "migrate", "--dry-run", ".")
	if r.code != plain.code || r.stdout != plain.stdout || !strings.HasPrefix(r.stderr, "schedtool: migrate is a dry run by default: --dry-run changes nothing") {
		t.Errorf("exit %d (plain %d)\n%s%s", r.code, plain.code, r.stdout, r.stderr)
	}
	before := treeState(t, dir)
	r = schedtoolIn(t, dir, "migrate", "--dry-run", "--write", ".")
	if r.code != 1 || !strings.Contains(r.stderr, "--dry-run: migrate is a dry run by default") {
		t.Errorf("--dry-run --write: exit %d\n%s", r.code, r.stderr)
	}
	sameTree(t, "--dry-run --write", treeState(t, dir), before)
}

// apply's note on the tasks a plan leaves to a person names the plan's
// own path, not PLAN.
func TestApplyNamesPlanPath(t *testing.T) {
	dir := summaryTree(t)
	writeFiles(t, dir, map[string]string{"plans/.keep": ""})
	if r := schedtoolIn(t, dir, "migrate", "--plan", "plans/w1.plan", "."); r.code != 2 {
		t.Fatalf("migrate --plan: exit %d\n%s", r.code, r.stderr)
	}
	r := schedtoolIn(t, dir, "apply", "plans/w1.plan")
	if !strings.Contains(r.stderr, "the plan leaves 1 task to a person (needs review or skipped): schedtool show plans/w1.plan lists them") {
		t.Errorf("exit %d\n%s", r.code, r.stderr)
	}
}

// A second migrate --write --limit N over files the first wave changed
// and git has not committed says so before writing: one git diff would
// hold both waves.
func TestMigrateWriteOverUncommittedWave(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("skipped: git is not on PATH")
	}
	dir := summaryTree(t)
	gitIn(t, dir, "init", "-q")
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "-qm", "catalog")
	r := schedtoolIn(t, dir, "migrate", "--write", "--limit", "1", ".")
	if strings.Contains(r.stderr, "git has not committed") || !strings.Contains(r.stderr, "written: a.config.yaml") {
		t.Fatalf("wave 1: exit %d\n%s", r.code, r.stderr)
	}
	r = schedtoolIn(t, dir, "migrate", "--write", "--limit", "1", ".")
	want := "schedtool: --write: flow.yaml holds changes git has not committed (an earlier wave's?)"
	i, w := strings.Index(r.stderr, want), strings.Index(r.stderr, "written: c.config.yaml")
	if i < 0 || w < 0 || i > w {
		t.Errorf("wave 2 does not say so before writing: exit %d\n%s", r.code, r.stderr)
	}
	gitIn(t, dir, "commit", "-qam", "waves 1 and 2")
	writeFiles(t, dir, map[string]string{"flow.yaml": "materializations:\n" + task("acmeCo/d", "d.config.yaml", true), "d.config.yaml": sharedConfig})
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "-qm", "catalog 2")
	if r = schedtoolIn(t, dir, "migrate", "--write", "."); strings.Contains(r.stderr, "git has not committed") {
		t.Errorf("a committed tree:\n%s", r.stderr)
	}
}
