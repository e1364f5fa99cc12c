package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/estuary/schedtool/savedplan"
)

// Issue 30: apply by construction. apply runs migrate's planning again in
// the checkout it runs in and writes only what gives byte for byte the
// plan's edits; these are the routes the issue found.

// pacedByFile is a V2 task with its connector schedule in a config file of its
// own path, and no model schedule: migrate adds one and zeroes the file.
func pacedByFile(name, config string) string {
	return `  ` + name + `:
    shards: {flags: {enable-runtime-v2: "true"}}
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config: ` + config + `
    bindings: []
`
}

// v1UserOf is a V1 task using config: migrate skips it, so it holds the
// file back (zeroing it would leave the task unpaced).
func v1UserOf(name, config string) string {
	return `  ` + name + `:
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config: ` + config + `
    bindings: []
`
}

// A plan made in one clone, its PATHs from the project file, applies in a
// clone at another path: the plan holds no path of the first clone, the
// second clone ends as migrate --write leaves it, and the first is not
// touched. show after the apply says it is applied and exits 0.
func TestPlanAppliesInAnotherClone(t *testing.T) {
	files := map[string]string{
		".git/HEAD":              "ref: refs/heads/main\n",
		".schedtool.yaml":        "paths: [\".\"]\n",
		"prod/flow.yaml":         "materializations:\n" + pacedByFile("acmeCo/a", "c.yaml"),
		"prod/c.yaml":            "host: x\nsyncSchedule: {syncFrequency: 1h}\n",
		"other/orders.flow.yaml": "materializations:\n" + pacedByFile("acmeCo/b", "b.yaml"),
		"other/b.yaml":           "host: y\nsyncSchedule: {syncFrequency: 2h}\n",
	}
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	for _, d := range []string{a, b, c} {
		writeFiles(t, d, files)
	}
	r := schedtoolIn(t, a, "migrate", "--plan", "wave.plan")
	if r.code != 2 || !strings.Contains(r.stderr, "plan written: wave.plan") {
		t.Fatalf("migrate --plan: exit %d\n%s", r.code, r.stderr)
	}
	text := mustReadString(t, filepath.Join(a, "wave.plan"))
	if strings.Contains(text, a) {
		t.Errorf("the plan holds the path of the clone it was made in:\n%s", text)
	}
	os.WriteFile(filepath.Join(b, "wave.plan"), []byte(text), 0o600)
	before := treeFiles(t, a)
	r = schedtoolIn(t, b, "apply", "wave.plan")
	if r.code != 0 || !strings.Contains(r.stderr, "written: prod/c.yaml\n") || !strings.Contains(r.stderr, "written: other/b.yaml\n") || strings.Contains(r.stderr, a) {
		t.Fatalf("apply in another clone: exit %d\n%s", r.code, r.stderr)
	}
	sameTrees(t, "apply touched the clone the plan was made in", before, treeFiles(t, a))
	if w := schedtoolIn(t, c, "migrate", "--write"); w.code != 0 {
		t.Fatalf("migrate --write: exit %d\n%s", w.code, w.stderr)
	}
	got, want := treeFiles(t, b), treeFiles(t, c)
	delete(got, "wave.plan")
	sameTrees(t, "apply in another clone against --write there", got, want)

	r = schedtoolIn(t, b, "show", "wave.plan")
	if r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "already applied: prod/c.yaml") || !strings.Contains(r.stderr, "0 would be written, 4 already applied") {
		t.Errorf("show after apply: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := schedtoolIn(t, b, "apply", "--check", "wave.plan"); r.code != 0 || !strings.Contains(r.stderr, "4 already applied") {
		t.Errorf("apply --check after apply: exit %d\n%s", r.code, r.stderr)
	}
	// A subdirectory of the clone is not where the plan was made: its
	// paths are read from the root found there as they were planned.
	if r := schedtoolIn(t, filepath.Join(b, "prod"), "apply", "--check", "../wave.plan"); r.code == 0 && strings.Contains(r.stderr, "would write") {
		t.Errorf("apply from another directory wrote:\n%s", r.stderr)
	}
}

// The routes by which apply left a task unpaced where migrate --write
// refuses: each is refused now, naming the file, and the zeroed file is
// left as it was.
func TestApplyRefusesUnpacingRoutes(t *testing.T) {
	const zeroed = "host: x\nsyncSchedule: {syncFrequency: 1h}\n"
	check := func(t *testing.T, dir string, r run, file string) {
		t.Helper()
		if r.code != 2 || !strings.Contains(r.stderr, "schedtool: "+file+": not written: ") {
			t.Errorf("apply: exit %d, want 2 naming %s\n%s", r.code, file, r.stderr)
		}
		if got := mustReadString(t, filepath.Join(dir, file)); got != zeroed {
			t.Errorf("%s was written:\n%s", file, got)
		}
	}
	// 1. A second definition of a planned task's name (a staging catalog
	// beside prod, merged since) that uses the file the plan zeroes.
	t.Run("second definition", func(t *testing.T) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "prod.flow.yaml": "materializations:\n" + pacedByFile("acmeCo/a", "c.yaml"), "c.yaml": zeroed})
		if r := schedtoolIn(t, dir, "migrate", "--plan", "wave.plan", "prod.flow.yaml"); r.code != 2 {
			t.Fatalf("plan: exit %d\n%s", r.code, r.stderr)
		}
		writeFiles(t, dir, map[string]string{"staging.flow.yaml": "materializations:\n" + v1UserOf("acmeCo/a", "c.yaml")})
		check(t, dir, schedtoolIn(t, dir, "apply", "wave.plan"), "c.yaml")
	})
	// 2. The project file's root, outside any git work tree: a task added
	// in a sibling directory uses the zeroed file.
	t.Run("project root", func(t *testing.T) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{".schedtool.yaml": "root: .\npaths: [prod]\n", "prod/flow.yaml": "materializations:\n" + pacedByFile("acmeCo/a", "c.yaml"), "prod/c.yaml": zeroed})
		if r := schedtoolIn(t, dir, "migrate", "--plan", "wave.plan"); r.code != 2 {
			t.Fatalf("plan: exit %d\n%s", r.code, r.stderr)
		}
		writeFiles(t, dir, map[string]string{"staging/flow.yaml": "materializations:\n" + v1UserOf("acmeCo/s", "../prod/c.yaml")})
		check(t, dir, schedtoolIn(t, dir, "apply", "wave.plan"), "prod/c.yaml")
	})
	// 2b. A task added since the plan, that migrate would migrate with
	// the planned one (V2, the same file): not in the plan's task set,
	// it is deferred, and a deferred user holds the file back.
	t.Run("new migrating user", func(t *testing.T) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{".git/HEAD": "ref: refs/heads/main\n", ".schedtool.yaml": "paths: [\".\"]\n", "prod/flow.yaml": "materializations:\n" + pacedByFile("acmeCo/a", "c.yaml"), "prod/c.yaml": zeroed})
		if r := schedtoolIn(t, dir, "migrate", "--plan", "wave.plan"); r.code != 2 {
			t.Fatalf("plan: exit %d\n%s", r.code, r.stderr)
		}
		writeFiles(t, dir, map[string]string{"staging/flow.yaml": "materializations:\n" + pacedByFile("acmeCo/s", "../prod/c.yaml")})
		r := schedtoolIn(t, dir, "apply", "wave.plan")
		check(t, dir, r, "prod/c.yaml")
		if !strings.Contains(r.stderr, "acmeCo/s (staging/flow.yaml:3: deferred: not in the saved plan's task set)") {
			t.Errorf("apply does not say why the new user holds the file back:\n%s", r.stderr)
		}
	})
	// 3. A plan edited by hand, its digest recomputed: PATHs narrowed, a
	// file dropped from the group and the zeroed file's zeroes emptied,
	// so that the other user of the file gets no model schedule.
	t.Run("narrowed plan", func(t *testing.T) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "a.flow.yaml": "materializations:\n" + pacedByFile("acmeCo/a", "c.yaml"), "b.flow.yaml": "materializations:\n" + pacedByFile("acmeCo/b", "c.yaml"), "c.yaml": zeroed})
		if r := schedtoolIn(t, dir, "migrate", "--plan", "wave.plan", "."); r.code != 0 && r.code != 2 {
			t.Fatalf("plan: exit %d\n%s", r.code, r.stderr)
		}
		p, err := savedplan.Open(filepath.Join(dir, "wave.plan"), "(devel)", 1<<30)
		if err != nil || len(p.Groups) != 1 || len(p.Groups[0].Files) != 3 {
			t.Fatalf("the plan: %v %+v", err, p)
		}
		p.Args = []string{"a.flow.yaml"}
		var keep []savedplan.File
		for _, f := range p.Groups[0].Files {
			if f.Path == "b.flow.yaml" {
				continue
			}
			f.Zeroes, f.Tasks = nil, []string{"acmeCo/a"}
			keep = append(keep, f)
		}
		p.Groups[0].Files = keep
		p.TaskSet = []string{"acmeCo/a"}
		if err := p.Write(filepath.Join(dir, "crafted.plan")); err != nil {
			t.Fatal(err)
		}
		check(t, dir, schedtoolIn(t, dir, "apply", "crafted.plan"), "c.yaml")
		if got := mustReadString(t, filepath.Join(dir, "b.flow.yaml")); strings.Contains(got, "baseInterval") {
			t.Errorf("b.flow.yaml was written:\n%s", got)
		}
	})
	// 4. A hand-edited plan of rows: a row of a task the plan never names
	// rides in after a newline in an edit.
	t.Run("row rides in", func(t *testing.T) {
		dir := copyFixtures(t)
		schedtoolIn(t, dir, "migrate", "--plan", "rows.plan", "fixtures/live_specs.ndjson")
		p, err := savedplan.Open(filepath.Join(dir, "rows.plan"), "(devel)", 1<<30)
		if err != nil || len(p.Dumps) != 1 || len(p.Dumps[0].Rows) == 0 {
			t.Fatalf("the plan: %v", err)
		}
		row := &p.Dumps[0].Rows[0]
		last := &row.Edits[len(row.Edits)-1]
		rider := `{"catalog_name":"acmeCo/rider","spec_type":"materialization","last_pub_id":"1111111111111111","spec":{"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{"syncSchedule":{"syncFrequency":"0s"}}}},"bindings":[]}}`
		last.New += "\n" + rider
		row.Result = "sha256-of-whatever"
		if err := p.Write(filepath.Join(dir, "crafted.plan")); err != nil {
			t.Fatal(err)
		}
		r := schedtoolIn(t, dir, "apply", "--out", "got.ndjson", "crafted.plan")
		if r.code != 2 || !strings.Contains(r.stderr, row.Name+": not written: the row is the one planned on, but migrate would now migrate it otherwise") {
			t.Errorf("apply: exit %d\n%s", r.code, r.stderr)
		}
		if b, err := os.ReadFile(filepath.Join(dir, "got.ndjson")); err == nil && strings.Contains(string(b), "acmeCo/rider") {
			t.Errorf("the rider was written:\n%s", b)
		}
	})
	// A project file changed since the plan refuses every group.
	t.Run("project file changed", func(t *testing.T) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{".git/HEAD": "ref: refs/heads/main\n", ".schedtool.yaml": "paths: [.]\n", "flow.yaml": "materializations:\n" + pacedByFile("acmeCo/a", "c.yaml"), "c.yaml": zeroed})
		if r := schedtoolIn(t, dir, "migrate", "--plan", "wave.plan"); r.code != 2 {
			t.Fatalf("plan: exit %d\n%s", r.code, r.stderr)
		}
		writeFiles(t, dir, map[string]string{".schedtool.yaml": "paths: [.]\nexclude: [nothing/**]\n"})
		r := schedtoolIn(t, dir, "apply", "wave.plan")
		check(t, dir, r, "c.yaml")
		if !strings.Contains(r.stderr, "the project file changed since the plan") {
			t.Errorf("apply does not say the project file changed:\n%s", r.stderr)
		}
	})
}

// A plan made with --absent drop applies, and writes what migrate
// --absent drop --write writes.
func TestApplyAbsentDrop(t *testing.T) {
	a, b := copyFixtures(t), copyFixtures(t)
	if r := schedtoolIn(t, a, "migrate", "--absent", "drop", "--plan", "wave.plan", "fixtures/catalog"); r.code != 2 {
		t.Fatalf("migrate --plan: exit %d\n%s", r.code, r.stderr)
	}
	r := schedtoolIn(t, a, "apply", "wave.plan")
	if r.code != 0 || !strings.Contains(r.stderr, "written: fixtures/catalog/") || strings.Contains(r.stderr, "refused") {
		t.Fatalf("apply of an --absent drop plan: exit %d\n%s", r.code, r.stderr)
	}
	if w := schedtoolIn(t, b, "migrate", "--absent", "drop", "--write", "fixtures/catalog"); w.code != 2 {
		t.Fatalf("migrate --write: exit %d\n%s", w.code, w.stderr)
	}
	sameTrees(t, "apply of an --absent drop plan against --write", treeFiles(t, filepath.Join(a, "fixtures")), treeFiles(t, filepath.Join(b, "fixtures")))
}
