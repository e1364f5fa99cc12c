package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/estuary/schedtool/project"
)

// documentedProjectFile is the YAML block after the marker in
// docs/project-file.md.
func documentedProjectFile(t *testing.T, marker string) string {
	t.Helper()
	doc := string(mustRead(t, "../../docs/project-file.md"))
	i := strings.Index(doc, "<!-- "+marker)
	if i < 0 {
		t.Fatalf("docs/project-file.md has no %s", marker)
	}
	m := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindStringSubmatch(doc[i:])
	if m == nil {
		t.Fatalf("docs/project-file.md: no YAML block after %s", marker)
	}
	return m[1]
}

// The documented project files load, and the connectors' one leaves the
// test catalogs out of every command on a copy of the connectors' catalogs.
func TestProjectFileDocumented(t *testing.T) {
	team := documentedProjectFile(t, "team.schedtool.yaml")
	if _, err := project.Parse("team.schedtool.yaml", []byte(team)); err != nil {
		t.Errorf("the team's documented project file: %v", err)
	}
	text := documentedProjectFile(t, "connectors.schedtool.yaml")
	real := realCatalogs(t)
	dir := t.TempDir()
	src := filepath.Join(real, "estuary__connectors")
	filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(src, p)
			writeTree(t, dir, map[string]string{rel: string(mustRead(t, p))})
		}
		return nil
	})
	writeTree(t, dir, map[string]string{".git/HEAD": "ref: refs/heads/main\n"})

	// Without the file: one info per test task defined in several catalogs.
	r := schedtoolIn(t, dir, "validate", ".")
	if r.code != 0 || !strings.Contains(r.stdout, "info defined-in-several-catalogs") {
		t.Fatalf("validate without the project file: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	writeTree(t, dir, map[string]string{".schedtool.yaml": text})
	// With it, from a subdirectory (found up the tree) and no PATH: the
	// project's PATHs; no test task.
	sub := filepath.Join(dir, "materialize-snowflake")
	for _, args := range [][]string{{"validate"}, {"validate", ".."}, {"census"}, {"migrate"}} {
		r = schedtoolIn(t, sub, args...)
		if r.code != 0 || strings.Contains(r.stdout+r.stderr, "acmeCo/tests/") {
			t.Errorf("%v with the project file: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
		}
	}
	// Every task there is a test task: the gate does not pass on nothing.
	r = schedtoolIn(t, sub, "census", "--fail-if-remaining")
	expect(t, r, 2, nil, []string{"the removal gate does not pass on nothing", "excluded every task of the inputs"})
	if r = schedtoolIn(t, sub, "validate"); !strings.Contains(r.stdout, "0 errors, 0 warnings, 0 infos in 0 materializations") {
		t.Errorf("validate with the project file:\n%s", r.stdout)
	}
	// A flag wins over the file: --config of another file.
	writeTree(t, dir, map[string]string{"other.yaml": "paths: [materialize-snowflake/testdata]\n"})
	r = schedtoolIn(t, dir, "validate", "--config", "other.yaml")
	if r.code != 0 || !strings.Contains(r.stdout, "info defined-in-several-catalogs: materialization acmeCo/tests/materialize-snowflake") {
		t.Errorf("validate --config other.yaml: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

const pjTask = "  %s:\n%s    endpoint:\n      connector:\n        image: ghcr.io/estuary/materialize-snowflake:v4\n        config: %s\n    bindings: []\n"

func pjSource(tasks ...[3]string) string {
	s := "materializations:\n"
	for _, t := range tasks {
		s += strings.NewReplacer("%NAME", t[0], "%SHARDS", t[1], "%CONFIG", t[2]).Replace(strings.NewReplacer("%s:\n%s", "%NAME:\n%SHARDS", "config: %s", "config: %CONFIG").Replace(pjTask))
	}
	return s
}

// The project file end to end: strict errors, exclude never hiding a
// shared config's user, decisions per prefix with flags winning, and
// exceptions (validate's --fail-on, census's gate).
func TestProjectFile(t *testing.T) {
	v2 := ctV2
	tree := func(t *testing.T, pf string) string {
		dir := t.TempDir()
		writeTree(t, dir, map[string]string{
			".git/HEAD": "x\n",
			"prod.flow.yaml": pjSource([3]string{"acmeCo/prod/a", v2, "shared.yaml"},
				[3]string{"acmeCo/prod/v1", "", "{syncSchedule: {syncFrequency: 30m}}"},
				[3]string{"acmeCo/prod/legacy", v2, "{syncSchedule: {syncFrequency: 1h}}"}),
			"testdata/apply.flow.yaml": pjSource([3]string{"acmeCo/tests/t", "", "../shared.yaml"}),
			"shared.yaml":              "syncSchedule:\n  syncFrequency: 30m\n",
			".schedtool.yaml":          pf,
		})
		return dir
	}

	// Strict: a misspelled key is an error at its place, exit 1.
	dir := tree(t, "decisions:\n  zeroFileSink: [acmeCo/]\n")
	r := schedtoolIn(t, dir, "validate", ".")
	if r.code != 1 || !strings.Contains(r.stderr, `project file .schedtool.yaml:2:3: unknown key "zeroFileSink" in decisions (closest: zeroFileSinks;`) {
		t.Errorf("a misspelled key: exit %d\n%s", r.code, r.stderr)
	}
	dir = tree(t, "exceptions: [{task: a/, rule: no-such-rule, reason: r, owner: o, expires: 2099-01-01}]\n")
	if r = schedtoolIn(t, dir, "census", "."); r.code != 1 || !strings.Contains(r.stderr, `.schedtool.yaml:1:31: exception: unknown rule "no-such-rule"`) {
		t.Errorf("an unknown rule: exit %d\n%s", r.code, r.stderr)
	}

	// exclude: the test catalog's task is no task of the run, yet it uses
	// shared.yaml (on V1): the file is held back, never zeroed.
	dir = tree(t, "exclude: [testdata]\ndecisions:\n  enableRuntimeV2: [acmeCo/prod/v1]\n")
	r = schedtoolIn(t, dir, "migrate", "-o", "json", ".")
	if strings.Contains(r.stdout, "acmeCo/tests/t\"") || !strings.Contains(r.stdout, "acmeCo/tests/t (testdata/apply.flow.yaml:") ||
		!strings.Contains(r.stdout, "excluded by the project file (exclude), and still a user of the file") {
		t.Errorf("migrate with an excluded user of shared.yaml:\n%s%s", r.stdout, r.stderr)
	}
	r = schedtoolIn(t, dir, "migrate", "--write", ".")
	if got := string(mustRead(t, filepath.Join(dir, "shared.yaml"))); got != "syncSchedule:\n  syncFrequency: 30m\n" {
		t.Errorf("exclude hid a user of shared.yaml: it was changed:\n%s\n%s", got, r.stderr)
	}
	// decisions: enableRuntimeV2 for acmeCo/prod/v1 moved it to V2.
	if got := string(mustRead(t, filepath.Join(dir, "prod.flow.yaml"))); strings.Count(got, `enable-runtime-v2: "true"`) != 3 {
		t.Errorf("decisions.enableRuntimeV2 did not move acmeCo/prod/v1:\n%s\n%s", got, r.stderr)
	}

	// A flag wins: --resolve connector over the file's, --absent too.
	dir = tree(t, "decisions:\n  absent: drop\n")
	o := &migrateOptions{common: &common{project: &project.Config{Decisions: &project.Decisions{Absent: "drop", EnableRuntimeV2: []string{"a/"}}}}, absent: "preserve"}
	o.changed = func(f string) bool { return f == "absent" || f == "enable-runtime-v2" }
	if opts := o.decisions(o.planOptions())("a/x"); opts.Absent != "preserve" || opts.EnableRuntimeV2 {
		t.Errorf("flags given lose to the file: %+v", opts)
	}
	o.changed = func(string) bool { return false }
	if opts := o.decisions(o.planOptions())("a/x"); opts.Absent != "drop" || !opts.EnableRuntimeV2 {
		t.Errorf("the file's decisions are not taken: %+v", opts)
	}

	// exceptions: validate --fail-on info passes with an unexpired one
	// over every info, fails again once it expired (and says so), and
	// reports one that matches nothing.
	exc := func(task, what, expires string) string {
		return "  - {task: " + task + ", " + what + ", reason: vendor, owner: ops@acme.co, expires: " + expires + "}\n"
	}
	dir = tree(t, "exclude: [testdata]\nexceptions:\n"+exc("acmeCo/prod/", "rule: connector-schedule-in-use", "2099-12-31")+exc("acmeCo/nothing/", "rule: sealed-schedule", "2099-12-31"))
	r = schedtoolIn(t, dir, "validate", "--fail-on", "info", ".")
	if r.code != 0 || !strings.Contains(r.stdout, "excepted by the project file") || !strings.Contains(r.stderr, ".schedtool.yaml:4:5: the exception for acmeCo/nothing/ (rule sealed-schedule) matches nothing in this run") {
		t.Errorf("validate with an unexpired exception: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = schedtoolIn(t, dir, "validate", "--fail-on", "info", "--at", "2100-01-02T00:00:00Z", ".")
	if r.code != 2 || !strings.Contains(r.stderr, ".schedtool.yaml:3:5: the exception for acmeCo/prod/ (rule connector-schedule-in-use, owner ops@acme.co) expired on 2099-12-31") {
		t.Errorf("validate with an expired exception: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// census: an exception never passes the gate.
	dir = tree(t, "exclude: [testdata]\nexceptions:\n"+exc("acmeCo/prod/v1", "status: blocked-v1", "2099-12-31"))
	r = schedtoolIn(t, dir, "census", "--fail-if-remaining", ".")
	if r.code != 2 || !strings.Contains(r.stdout, "EXCEPTED (1): still remaining: the removal gate never trusts an exception") ||
		!regexp.MustCompile(`acmeCo/prod/v1 +blocked-v1 +vendor +ops@acme.co +2099-12-31`).MatchString(r.stdout) {
		t.Errorf("census with an exception: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = schedtoolIn(t, dir, "census", "-o", "json", ".")
	if !strings.Contains(r.stdout, `"exception":{"reason":"vendor","owner":"ops@acme.co","expires":"2099-12-31"}`) || !strings.Contains(r.stdout, `"excepted":1`) {
		t.Errorf("census -o json with an exception:\n%s", r.stdout)
	}

	// schema config: the schema of the file.
	r = schedtoolIn(t, dir, "schema", "config")
	if r.code != 0 || !strings.Contains(r.stdout, `"$id": "https://schedtool.dev/schemas/project.json"`) {
		t.Errorf("schema config: exit %d\n%s", r.code, r.stdout)
	}
	_ = os.Remove
}

// validate -o more than once: each format to its file, one run.
func TestValidateOutputs(t *testing.T) {
	dir := filepath.Join(copyFixtures(t), "fixtures", "catalog")
	r := schedtoolIn(t, dir, "validate", "-o", "github", "-o", "sarif=out.sarif", "-o", "json=out.json", ".")
	sarif := string(mustRead(t, filepath.Join(dir, "out.sarif")))
	js := string(mustRead(t, filepath.Join(dir, "out.json")))
	if r.code != 2 || !strings.Contains(r.stdout, "::error file=acmeCo/lake/flow.yaml,line=43,col=11,title=invalid-connector-schedule::") ||
		!strings.Contains(sarif, `"partialFingerprints"`) || !strings.Contains(js, `"rule":"invalid-connector-schedule"`) {
		t.Errorf("validate -o github -o sarif=F -o json=F: exit %d\n%s\n%.300s\n%.300s", r.code, r.stdout, sarif, js)
	}
	if r = schedtoolIn(t, dir, "validate", "-o", "github", "-o", "json", "."); r.code != 1 || !strings.Contains(r.stderr, "-o github and -o json both write to standard output") {
		t.Errorf("two outputs to standard output: exit %d\n%s", r.code, r.stderr)
	}
	// A run that cannot do its job still writes the SARIF file.
	os.Remove(filepath.Join(dir, "out.sarif"))
	r = schedtoolIn(t, dir, "validate", "-o", "github", "-o", "sarif=out.sarif", "no-such-dir")
	if b, err := os.ReadFile(filepath.Join(dir, "out.sarif")); r.code != 1 || err != nil || !strings.Contains(string(b), `"executionSuccessful": false`) {
		t.Errorf("a failed run's SARIF file: exit %d %v\n%s\n%s", r.code, err, b, r.stderr)
	}
}

// Only validate takes several -o (docs/behaviour.md §9); the commands that
// write one document a run refuse a second -o, exit 1, rather than let it
// silently replace the first (census -o json=FILE -o table wrote no file).
func TestOneOutputRefusesASecond(t *testing.T) {
	dir := filepath.Join(copyFixtures(t), "fixtures", "catalog")
	for _, args := range [][]string{
		{"census", "-o", "json", "-o", "table", "."},
		{"migrate", "-o", "diff", "-o", "json", "."},
		{"explain", "-o", "text", "-o", "json", "acmeCo/warehouse/materialize-snowflake", "."},
		{"show", "-o", "diff", "-o", "json", "no-such-plan.json"},
	} {
		r := schedtoolIn(t, dir, args...)
		want := fmt.Sprintf("given twice (%s, then %s): this command writes one format a run; run %s once per format", args[2], args[4], args[0])
		if r.code != 1 || !strings.Contains(r.stderr, want) {
			t.Errorf("%v: exit %d, want 1 and %q\nstdout:\n%s\nstderr:\n%s", args, r.code, want, r.stdout, r.stderr)
		}
	}
	// Once is fine.
	if r := schedtoolIn(t, dir, "census", "-o", "csv", "."); r.code != 0 || !strings.HasPrefix(r.stdout, "task,image,") {
		t.Errorf("census -o csv: exit %d\n%s", r.code, r.stderr)
	}
}

// CI niceties: an unknown flag suggests the closest, a short --image its
// full name, and --write outside a git work tree says once that nothing
// keeps the old bytes.
func TestSuggestionsAndWriteOutsideGit(t *testing.T) {
	dir := filepath.Join(copyFixtures(t), "fixtures", "catalog")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"migrate", "--enable-runtime-V2", "."}, "unknown flag: --enable-runtime-V2; did you mean --enable-runtime-v2?"},
		{[]string{"validate", "--fail-in", "error", "."}, "unknown flag: --fail-in; did you mean --fail-on?"},
		{[]string{"census", "--image", "materialize-snowflake", "."}, "--image materialize-snowflake (images are named in full: --image ghcr.io/estuary/materialize-snowflake) selects no materialization"},
	} {
		r := schedtoolIn(t, dir, tc.args...)
		if r.code != 1 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d\n%s", tc.args, r.code, r.stderr)
		}
	}
	r := schedtoolIn(t, dir, "migrate", "--write", ".")
	if n := strings.Count(r.stderr, "not in a git work tree: nothing records the old bytes"); n != 1 {
		t.Errorf("migrate --write outside git: said %d times\n%s", n, r.stderr)
	}
	writeTree(t, dir, map[string]string{".git/HEAD": "x\n"})
	r = schedtoolIn(t, dir, "migrate", "--write", ".")
	if strings.Contains(r.stderr, "not in a git work tree") {
		t.Errorf("migrate --write inside git:\n%s", r.stderr)
	}
}
