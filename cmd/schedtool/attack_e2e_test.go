package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Regression tests from a hostile pass over main after issues 23 §4, 24
// and 26.

// apply checked only the hashes of the files its plan edits: a source
// added after the plan, whose V1 task uses the config file the plan
// zeroes, was never read, and apply zeroed that task's connector while it
// has no model schedule (unpaced, and census passed the gate). apply
// reads the plan's catalog again and refuses the group.
func TestApplyRefusesConfigFileNewlyShared(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		"flow.yaml": `materializations:
  acmeCo/a:
    shards:
      flags:
        enable-runtime-v2: "true"
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config: c.yaml
    bindings: []
`,
		"c.yaml": "host: x\nsyncSchedule:\n  syncFrequency: 1h\n",
	})
	if r := schedtoolIn(t, dir, "migrate", "--plan", "wave.plan", "."); r.code != 2 {
		t.Fatalf("plan: exit %d\n%s", r.code, r.stderr)
	}
	writeFiles(t, dir, map[string]string{"other.flow.yaml": `materializations:
  acmeCo/b:
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config: c.yaml
    bindings: []
`})
	// --out DIR copies the new source into the tree beside the zeroed file.
	out := filepath.Join(t.TempDir(), "out")
	r := schedtoolIn(t, dir, "apply", "--out", out, "wave.plan")
	if r.code != 2 || !strings.Contains(r.stderr, "c.yaml: would not be written: ") || !strings.Contains(r.stderr, "also used by acmeCo/b (other.flow.yaml:3") || !strings.Contains(r.stderr, "nothing written under") {
		t.Errorf("apply --out: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("apply --out wrote a tree")
	}
	r = schedtoolIn(t, dir, "apply", "wave.plan")
	if r.code != 2 || !strings.Contains(r.stderr, "c.yaml: not written: ") || !strings.Contains(r.stderr, "a decision no longer holds") || !strings.Contains(r.stderr, "also used by acmeCo/b (other.flow.yaml:3") {
		t.Errorf("apply: exit %d\n%s", r.code, r.stderr)
	}
	if b := mustRead(t, filepath.Join(dir, "c.yaml")); !strings.Contains(string(b), "syncFrequency: 1h") {
		t.Errorf("the shared config was zeroed:\n%s", b)
	}
	if r := schedtoolIn(t, dir, "census", "--fail-if-remaining", "."); r.code != 2 {
		t.Errorf("census: exit %d\n%s", r.code, r.stderr)
	}
}

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

// A stacked task (a model schedule already, the connector still delaying)
// is finished by zeroing its connector alone: the plan's group is the
// config file, and its source, where the model schedule and the V2 flag
// are, was never hashed. Removing either after the plan left apply
// zeroing the connector of a task with no working model schedule on the
// V2 runtime (unpaced; the gate passed). apply asks the one decision of
// the task again.
func TestApplyRefusesStackedTaskChangedInUneditedSource(t *testing.T) {
	const src = `materializations:
  acmeCo/a:
    shards: {flags: {enable-runtime-v2: "true"}}
    syncSchedule: {baseInterval: 1h}
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config: c.yaml
    bindings: []
`
	for _, tc := range []struct{ name, old, new string }{
		{"model removed", "    syncSchedule: {baseInterval: 1h}\n", ""},
		{"flag removed", `    shards: {flags: {enable-runtime-v2: "true"}}` + "\n", ""},
		{"model broken", "{baseInterval: 1h}", "{baseInterval: 1h, timezone: UTC}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "flow.yaml": src, "c.yaml": "host: x\n"})
			if r := schedtoolIn(t, dir, "migrate", "--plan", "wave.plan", "."); r.code != 2 {
				t.Fatalf("plan: exit %d\n%s", r.code, r.stderr)
			}
			writeFiles(t, dir, map[string]string{"flow.yaml": strings.Replace(src, tc.old, tc.new, 1)})
			r := schedtoolIn(t, dir, "apply", "wave.plan")
			if r.code != 2 || !strings.Contains(r.stderr, "c.yaml: not written: ") {
				t.Errorf("apply: exit %d\n%s", r.code, r.stderr)
			}
			if b := mustRead(t, filepath.Join(dir, "c.yaml")); string(b) != "host: x\n" {
				t.Errorf("the connector was zeroed:\n%s", b)
			}
		})
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

// A file under the root with a YAML or JSON name that cannot be read
// (permission denied, a FIFO) was not taken for a catalog source: census
// passed the gate without a word, and migrate zeroed a config file the
// unread file's task may use. An unknown is not a zero: it is a source
// that cannot be read, counted unreadable and holding every config back.
func TestUnreadableYAMLUnderRootIsAnUnreadableSource(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		"flow.yaml": `materializations:
  acmeCo/a:
    shards: {flags: {enable-runtime-v2: "true"}}
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config: c.yaml
    bindings: []
`,
		"c.yaml": "host: x\nsyncSchedule: {syncFrequency: 1h}\n",
	})
	if err := syscall.Mkfifo(filepath.Join(dir, "other.yaml"), 0o600); err != nil {
		t.Skip(err)
	}
	r := schedtoolIn(t, dir, "migrate", "--write", ".")
	if r.code == 0 || !strings.Contains(r.stderr, "other.yaml cannot be read") || !strings.Contains(r.stderr, "holds back c.yaml") {
		t.Errorf("migrate: exit %d\n%s", r.code, r.stderr)
	}
	if b := mustRead(t, filepath.Join(dir, "c.yaml")); !strings.Contains(string(b), "1h") {
		t.Errorf("c.yaml zeroed beside an unreadable source:\n%s", b)
	}
	// Migrated, the task no longer relies on its connector: the gate
	// still fails on the unreadable file.
	writeFiles(t, dir, map[string]string{"c.yaml": "host: x\nsyncSchedule: {syncFrequency: 0s}\n", "flow.yaml": strings.Replace(mustReadString(t, filepath.Join(dir, "flow.yaml")), "    endpoint:", "    syncSchedule: {baseInterval: 1h}\n    endpoint:", 1)})
	r = schedtoolIn(t, dir, "census", "--fail-if-remaining", ".")
	if r.code != 2 || !strings.Contains(r.stderr+r.stdout, "other.yaml:1:1: cannot read: not a regular file (a FIFO)") {
		t.Errorf("census: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func mustReadString(t *testing.T, p string) string { return string(mustRead(t, p)) }

// The check of a stacked task's source is by definition: a name defined
// in several catalogs under the root (prod and staging) is one task with
// a definition per config file, and an unchanged plan applies.
func TestApplyStackedTaskInSeveralCatalogs(t *testing.T) {
	const src = `materializations:
  acmeCo/a:
    shards: {flags: {enable-runtime-v2: "true"}}
    syncSchedule: {baseInterval: 1h}
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config: c.yaml
    bindings: []
`
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "prod/flow.yaml": src, "prod/c.yaml": "host: x\n", "staging/flow.yaml": src, "staging/c.yaml": "host: x\n"})
	if r := schedtoolIn(t, dir, "migrate", "--plan", "wave.plan", "."); r.code != 2 {
		t.Fatalf("plan: exit %d\n%s", r.code, r.stderr)
	}
	if r := schedtoolIn(t, dir, "apply", "--check", "wave.plan"); r.code != 0 {
		t.Fatalf("apply --check of an unchanged plan: exit %d\n%s", r.code, r.stderr)
	}
	writeFiles(t, dir, map[string]string{"staging/flow.yaml": strings.Replace(src, "    syncSchedule: {baseInterval: 1h}\n", "", 1)})
	r := schedtoolIn(t, dir, "apply", "wave.plan")
	if r.code != 2 || !strings.Contains(r.stderr, "staging/c.yaml: not written: ") {
		t.Errorf("apply: exit %d\n%s", r.code, r.stderr)
	}
	if b := mustReadString(t, filepath.Join(dir, "staging/c.yaml")); b != "host: x\n" {
		t.Errorf("staging's connector was zeroed:\n%s", b)
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

// explain's text wrote the catalog's strings raw: a task name or image
// holding ESC sequences drove the terminal (\x1b[2J clears it) and a
// newline in a name forged a line. Escaped as in every other command.
func TestExplainTextEscapesCatalogStrings(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"flow.yaml": `materializations:
  "acmeCo/\e[31mred\nFAKE":
    shards: {flags: {enable-runtime-v2: "true"}}
    endpoint:
      connector:
        image: "ghcr.io/estuary/materialize-snowflake:v4\e[2J"
        config: {host: x, syncSchedule: {syncFrequency: 1h}}
    bindings: []
`})
	r := schedtoolIn(t, dir, "explain", "acmeCo/\x1b[31mred\nFAKE", ".")
	if r.code != 0 || strings.ContainsAny(r.stdout+r.stderr, "\x1b") || !strings.Contains(r.stdout, `materialization acmeCo/\x1b[31mred\nFAKE (flow.yaml)`) {
		t.Errorf("exit %d\n%q\n%q", r.code, r.stdout, r.stderr)
	}
	r = schedtoolIn(t, dir, "explain", "acmeCo/\x1b[31mre", ".")
	if strings.ContainsAny(r.stdout+r.stderr, "\x1b") {
		t.Errorf("the not-found message: %q", r.stderr)
	}
}
