package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// binary is the schedtool built once for the end-to-end tests.
var binary string

func TestMain(m *testing.M) {
	if code, ok := pausedChild(); ok {
		os.Exit(code)
	}
	flag.Parse()
	// Census documents say when they were taken: the same instant in
	// every test keeps them byte for byte comparable.
	os.Setenv("SCHEDTOOL_NOW", testNow)
	dir, err := os.MkdirTemp("", "schedtool-e2e")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "schedtool")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		panic("building schedtool: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// testNow is the instant every census the tests take says it was taken at.
const testNow = "2026-12-01T00:00:00Z"

type run struct {
	code           int
	stdout, stderr string
}

// schedtool runs the binary from the repository root.
func schedtool(t *testing.T, stdin string, args ...string) run {
	t.Helper()
	return schedtoolStdin(t, "../..", stdin, args...)
}

func schedtoolStdin(t *testing.T, dir, stdin string, args ...string) run {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	return execRun(t, cmd)
}

// execRun runs cmd and collects its exit code and output.
func execRun(t *testing.T, cmd *exec.Cmd) run {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return run{code, out.String(), errb.String()}
}

func golden(t *testing.T, name string, r run) {
	t.Helper()
	got := fmt.Sprintf("exit: %d\n--- stdout\n%s--- stderr\n%s", r.code, r.stdout, r.stderr)
	// The tool's version in SARIF is the build's (its VCS revision).
	got = sarifVersionRe.ReplaceAllString(got, `${1}"VERSION"`)
	// So is a census's scope.
	got = scopeVersionJSONRe.ReplaceAllString(got, `${1}"VERSION"`)
	got = scopeVersionTextRe.ReplaceAllString(got, `${1}VERSION${2}`)
	path := filepath.Join("testdata", "golden", name+".txt")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/schedtool -update)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

const infos = "cmd/schedtool/testdata/inputs/infos/flow.yaml"

func TestValidateEndToEnd(t *testing.T) {
	for _, tc := range []struct {
		name  string
		stdin string
		args  []string
		code  int
	}{
		{"validate-text", "", []string{"validate", "fixtures/catalog", "fixtures/live_specs.ndjson"}, 2},
		{"validate-json", "", []string{"validate", "-o", "json", "fixtures/catalog", "fixtures/live_specs.ndjson"}, 2},
		{"validate-sarif", "", []string{"validate", "-o", "sarif", "fixtures/catalog"}, 2},
		{"validate-github", "", []string{"validate", "-o", "github", "fixtures/catalog"}, 2},
		{"validate-clean", "", []string{"validate", "fixtures/catalog/acmeCo/flow.yaml"}, 0},
		{"validate-infos-fail-on-error", "", []string{"validate", infos}, 0},
		{"validate-infos-fail-on-warning", "", []string{"validate", "--fail-on", "warning", infos}, 0},
		{"validate-infos-fail-on-info", "", []string{"validate", "--fail-on", "info", infos}, 2},
		{"validate-stdin-source", "materializations:\n  a/b:\n    syncSchedule: {baseInterval: 1h}\n    endpoint: {connector: {image: ghcr.io/estuary/materialize-snowflake:v4, config: {syncSchedule: {syncFrequency: 0s}}}}\n", []string{"validate", "-"}, 2},
		{"validate-stdin-dump", `{"catalog_name":"a/b","spec_type":"materialization","spec":{"shards":{"flags":{"enable-runtime-v2":"true"}},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-redshift:v2","config":{}}}}}` + "\n", []string{"validate", "-o", "json", "-"}, 0},
		{"validate-missing-path", "", []string{"validate", "no/such/flow.yaml"}, 1},
		{"validate-nothing-found", "", []string{"validate", "cmd/schedtool/testdata/inputs/empty"}, 1},
		{"validate-no-path", "", []string{"validate"}, 1},
		{"validate-bad-flag", "", []string{"validate", "--frobnicate", "fixtures/catalog"}, 1},
		{"validate-bad-output", "", []string{"validate", "-o", "yaml", "fixtures/catalog"}, 1},
		{"validate-bad-fail-on", "", []string{"validate", "--fail-on", "fatal", "fixtures/catalog"}, 1},
		{"validate-bad-connectors", "", []string{"validate", "--connectors", "no/such/registry.json", "fixtures/catalog"}, 1},
		{"unknown-command", "", []string{"frobnicate"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := schedtool(t, tc.stdin, tc.args...)
			if r.code != tc.code {
				t.Errorf("exit code %d, want %d\nstdout: %s\nstderr: %s", r.code, tc.code, r.stdout, r.stderr)
			}
			golden(t, tc.name, r)
		})
	}
}

// Machine formats write only their document to standard output.
func TestMachineFormatsAreDocuments(t *testing.T) {
	for _, format := range []string{"json", "sarif"} {
		r := schedtool(t, "", "validate", "-o", format, "fixtures/catalog", "fixtures/live_specs.ndjson")
		var doc map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Errorf("-o %s: stdout is not one JSON document: %v", format, err)
		}
		if r.stderr != "" {
			t.Errorf("-o %s wrote to stderr: %s", format, r.stderr)
		}
	}
	r := schedtool(t, "", "validate", "-o", "json", "fixtures/catalog")
	var doc struct {
		Findings []map[string]any `json:"findings"`
		Summary  map[string]int   `json:"summary"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	for _, f := range doc.Findings {
		for _, k := range []string{"rule", "severity", "task", "file", "line", "column", "pointer", "message"} {
			if _, ok := f[k]; !ok {
				t.Errorf("finding without %q: %v", k, f)
			}
		}
	}
	if doc.Summary["errors"] == 0 || doc.Summary["materializations"] == 0 {
		t.Errorf("summary %v", doc.Summary)
	}
}

// Output is deterministic: the same run twice gives the same bytes.
func TestDeterministic(t *testing.T) {
	a := schedtool(t, "", "validate", "-o", "json", "fixtures/catalog", "fixtures/live_specs.ndjson")
	b := schedtool(t, "", "validate", "-o", "json", "fixtures/catalog", "fixtures/live_specs.ndjson")
	if a.stdout != b.stdout {
		t.Error("two runs differ")
	}
}

func TestSchemaAndHelp(t *testing.T) {
	r := schedtool(t, "", "schema")
	var both map[string]map[string]any
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &both) != nil || both["model"] == nil || both["connector"] == nil {
		t.Errorf("schema: %d %s %s", r.code, r.stdout, r.stderr)
	}
	r = schedtool(t, "", "schema", "model")
	if r.code != 0 || !strings.Contains(r.stdout, `"baseInterval"`) {
		t.Errorf("schema model: %+v", r)
	}
	if r := schedtool(t, "", "schema", "nope"); r.code != 1 {
		t.Errorf("schema nope: exit %d", r.code)
	}
	for _, cmd := range [][]string{{"validate", "--help"}, {"census", "--help"}, {"explain", "--help"}, {"schema", "--help"}, {"--help"}} {
		r := schedtool(t, "", cmd...)
		if r.code != 0 || !strings.Contains(r.stdout, "Examples:") {
			t.Errorf("%s --help: exit %d, no examples:\n%s", cmd, r.code, r.stdout)
		}
	}
	if r := schedtool(t, "", "completion", "bash"); r.code != 0 || !strings.Contains(r.stdout, "schedtool") {
		t.Errorf("completion bash: exit %d", r.code)
	}
	if r := schedtool(t, "", "--version"); r.code != 0 || !strings.Contains(r.stdout, "schedtool version") {
		t.Errorf("--version: %+v", r)
	}
}

func TestCensusEndToEnd(t *testing.T) {
	const clean = "fixtures/catalog/acmeCo/flow.yaml" // no scheduling images
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"census-table", []string{"census", "fixtures/catalog", "fixtures/live_specs.ndjson"}, 0},
		{"census-wide", []string{"census", "-o", "wide", "fixtures/catalog", "fixtures/live_specs.ndjson"}, 0},
		{"census-json", []string{"census", "-o", "json", "fixtures/catalog", "fixtures/live_specs.ndjson"}, 0},
		{"census-csv", []string{"census", "-o", "csv", "fixtures/catalog", "fixtures/live_specs.ndjson"}, 0},
		{"census-markdown", []string{"census", "-o", "markdown", "fixtures/catalog", "fixtures/live_specs.ndjson"}, 0},
		{"census-gate-remaining", []string{"census", "--fail-if-remaining", "-o", "json", "fixtures/catalog"}, 2},
		{"census-gate-none", []string{"census", "--fail-if-remaining", clean}, 0},
		{"census-gate-unreadable", []string{"census", "--fail-if-remaining", "testdata/hostile/row-truncated/live_specs.ndjson"}, 2},
		{"census-empty-table", []string{"census", clean}, 0},
		{"census-empty-wide", []string{"census", "-o", "wide", clean}, 0},
		{"census-empty-json", []string{"census", "-o", "json", clean}, 0},
		{"census-empty-csv", []string{"census", "-o", "csv", clean}, 0},
		{"census-empty-markdown", []string{"census", "-o", "markdown", clean}, 0},
		{"census-bad-output", []string{"census", "-o", "xml", clean}, 1},
		{"census-missing-path", []string{"census", "nope.ndjson"}, 1},
		{"census-history-markdown", append([]string{"census", "-o", "markdown"}, historyArgs("fixtures/catalog", "fixtures/live_specs.ndjson")...), 0},
		{"census-history-not-census", []string{"census", "-o", "markdown", "--history", "fixtures/live_specs.ndjson", clean}, 1},
		{"census-history-missing", []string{"census", "-o", "markdown", "--history", "nope.json", clean}, 1},
		{"census-bad-now", []string{"census", "-o", "json", "--now", "yesterday", clean}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := schedtool(t, "", tc.args...)
			if r.code != tc.code {
				t.Errorf("exit code %d, want %d\nstderr: %s", r.code, tc.code, r.stderr)
			}
			golden(t, tc.name, r)
		})
	}
	// JSON is one document with the fields the issue names, even when empty.
	for _, path := range []string{"fixtures/catalog", clean} {
		r := schedtool(t, "", "census", "-o", "json", path)
		var doc struct {
			Tasks   []map[string]any `json:"tasks"`
			Groups  map[string]any   `json:"groups"`
			Summary map[string]any   `json:"summary"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || doc.Summary == nil || doc.Groups == nil {
			t.Fatalf("census -o json %s: %v\n%s", path, err, r.stdout)
		}
		for _, k := range []string{"tasks", "remaining", "unreadable", "byStatus"} {
			if _, ok := doc.Summary[k]; !ok {
				t.Errorf("summary without %s", k)
			}
		}
		for _, row := range doc.Tasks {
			for _, k := range []string{"task", "image", "tag", "family", "runtime", "kind", "delay", "model", "status", "reason"} {
				if _, ok := row[k]; !ok {
					t.Errorf("task row without %s: %v", k, row)
				}
			}
		}
	}
}

// historyArgs are the three shipped earlier censuses as --history flags,
// then args.
func historyArgs(args ...string) []string {
	var out []string
	for _, d := range []string{"2026-10-01", "2026-10-22", "2026-11-12"} {
		out = append(out, "--history", "testdata/history/census-"+d+".json")
	}
	return append(out, args...)
}

// A census written by a newer schedtool is refused as history, by name.
func TestCensusHistoryNewer(t *testing.T) {
	dir := t.TempDir()
	newer := filepath.Join(dir, "newer.json")
	os.WriteFile(newer, []byte(`{"version":99,"generatedAt":"2026-11-01T00:00:00Z","summary":{"tasks":1,"remaining":1,"byStatus":{}}}`), 0o644)
	r := schedtool(t, "", "census", "-o", "html", "--history", newer, "fixtures/catalog")
	if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, newer+": census document version 99 is newer than this schedtool reads (up to 1)") {
		t.Errorf("exit %d, stdout %.80q, stderr %q", r.code, r.stdout, r.stderr)
	}
	// Its own output is a history file (a round trip through the binary).
	own := filepath.Join(dir, "own.json")
	os.WriteFile(own, []byte(schedtool(t, "", "census", "-o", "json", "--now", "2026-11-20T10:30:00Z", "fixtures/catalog").stdout), 0o644)
	r = schedtool(t, "", "census", "-o", "markdown", "--history", own, "fixtures/catalog")
	if r.code != 0 || !strings.Contains(r.stdout, "| 2026-11-20 10:30 | ") || !strings.Contains(r.stdout, "xychart-beta") {
		t.Errorf("exit %d, stderr %q\n%s", r.code, r.stderr, r.stdout)
	}
}

func TestExplainEndToEnd(t *testing.T) {
	const at = "2026-01-05T08:00:00Z"
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"explain-v1", []string{"explain", "--at", at, "acmeCo/stored/materialize-redshift", "fixtures/live_specs.ndjson"}, 0},
		{"explain-migrated", []string{"explain", "--at", at, "acmeCo/warehouse/materialize-bigquery", "fixtures/catalog"}, 0},
		{"explain-stacked", []string{"explain", "--at", at, "acmeCo/warehouse/materialize-motherduck", "fixtures/catalog"}, 0},
		{"explain-ready", []string{"explain", "--at", at, "acmeCo/warehouse/materialize-snowflake", "fixtures/catalog"}, 0},
		{"explain-ready-json", []string{"explain", "-o", "json", "--at", at, "acmeCo/warehouse/materialize-iceberg", "fixtures/catalog"}, 0},
		{"explain-unknown", []string{"explain", "acmeCo/warehouse/materialize-snowflak", "fixtures/catalog"}, 1},
		{"explain-no-path", []string{"explain", "acmeCo/warehouse/materialize-snowflake"}, 1},
		{"explain-bad-at", []string{"explain", "--at", "yesterday", "a/b", "fixtures/catalog"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := schedtool(t, "", tc.args...)
			if r.code != tc.code {
				t.Errorf("exit code %d, want %d\nstderr: %s", r.code, tc.code, r.stderr)
			}
			golden(t, tc.name, r)
		})
	}
	r := schedtool(t, "", "explain", "-o", "json", "--at", at, "acmeCo/warehouse/materialize-motherduck", "fixtures/catalog")
	var e map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &e); err != nil || e["holds"] != "both (stacked)" || len(e["next"].([]any)) != 10 {
		t.Errorf("explain json: %v %s", err, r.stdout)
	}
}

// schedtoolIn runs the binary in dir.
func schedtoolIn(t *testing.T, dir string, args ...string) run {
	t.Helper()
	return schedtoolStdin(t, dir, "", args...)
}

// copyFixtures copies fixtures/ into a temp dir and returns that dir.
func copyFixtures(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	err := filepath.Walk("../../fixtures", func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("../..", p)
		dst := filepath.Join(dir, rel)
		if info.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

const goodDump = "migrate/testdata/golden/dump/in/live_specs.ndjson"

// The fixtures migrate with --root fixtures: the repository's own root
// holds hostile test catalogs (an import of /etc/passwd), which a run over
// it rightly counts as unknown users of every config file.
func TestMigrateEndToEnd(t *testing.T) {
	const clean = "fixtures/catalog/acmeCo/flow.yaml"
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"migrate-dry-run", []string{"migrate", "--root", "fixtures", "fixtures/catalog"}, 2},
		{"migrate-json", []string{"migrate", "-o", "json", "--root", "fixtures", "fixtures/catalog"}, 2},
		{"migrate-flags", []string{"migrate", "--absent=drop", "--resolve=model", "--zero-file-sinks", "--root", "fixtures", "fixtures/catalog"}, 2},
		{"migrate-nothing", []string{"migrate", clean}, 0},
		{"migrate-dump", []string{"migrate", goodDump}, 2},
		{"migrate-dump-bad-row", []string{"migrate", "fixtures/live_specs.ndjson"}, 1},
		{"migrate-bad-absent", []string{"migrate", "--absent=keep", clean}, 1},
		{"migrate-bad-resolve", []string{"migrate", "--resolve=both", clean}, 1},
		{"migrate-bad-output", []string{"migrate", "-o", "yaml", clean}, 1},
		{"migrate-write-and-out", []string{"migrate", "--write", "--out", "x", clean}, 1},
		{"migrate-write-dump", []string{"migrate", "--write", goodDump}, 1},
		{"migrate-out-mixed", []string{"migrate", "--out", "x", clean, goodDump}, 1},
		{"migrate-out-inside", []string{"migrate", "--out", "fixtures/catalog/migrated", "fixtures/catalog"}, 1},
		{"migrate-missing-path", []string{"migrate", "no/such/dir"}, 1},
		{"migrate-no-path", []string{"migrate"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := schedtool(t, "", tc.args...)
			if r.code != tc.code {
				t.Errorf("exit code %d, want %d\nstderr: %s", r.code, tc.code, r.stderr)
			}
			golden(t, tc.name, r)
		})
	}
	r := schedtool(t, "", "migrate", "-o", "json", "--verify", "--verify-year", "2026", "fixtures/catalog")
	var doc struct {
		Tasks   []map[string]any `json:"tasks"`
		Files   []map[string]any `json:"files"`
		Summary map[string]any   `json:"summary"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Tasks) == 0 || doc.Summary == nil {
		t.Fatalf("migrate -o json: %v\n%s", err, r.stdout)
	}
	for _, task := range doc.Tasks {
		if task["action"] == "migrate" && task["model"] != nil && task["verify"] == nil {
			t.Errorf("--verify: no verification for %v", task["task"])
		}
	}
}

func censusStatuses(t *testing.T, dir string) map[string]string {
	t.Helper()
	r := schedtoolIn(t, dir, "census", "-o", "json", "fixtures/catalog")
	var doc struct {
		Tasks []struct{ Task, Status string } `json:"tasks"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("census: %v\n%s", err, r.stderr)
	}
	out := map[string]string{}
	for _, task := range doc.Tasks {
		out[task.Task] = task.Status
	}
	return out
}

// statusCounts is how many tasks a census of dir has in each status.
func statusCounts(t *testing.T, dir string) map[string]int {
	t.Helper()
	r := schedtoolIn(t, dir, "census", "-o", "json", ".")
	var doc struct {
		Tasks []struct{ Task, Status string } `json:"tasks"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("census: %v\n%s", err, r.stderr)
	}
	out := map[string]int{}
	for _, tk := range doc.Tasks {
		out[tk.Status]++
	}
	return out
}

// A census, migrate --write, a census again: the ready tasks are migrated,
// and a second migration has nothing to do.
func TestCensusMigrateCensus(t *testing.T) {
	dir := copyFixtures(t)
	before := censusStatuses(t, dir)
	plan := schedtoolIn(t, dir, "migrate", "-o", "json", "fixtures/catalog")
	var doc struct {
		Tasks []struct{ Task, Action string } `json:"tasks"`
	}
	if err := json.Unmarshal([]byte(plan.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	action := map[string]string{}
	for _, task := range doc.Tasks {
		action[task.Task] = task.Action
	}
	// The fixtures hold tasks that need review: a person is needed, exit 2.
	if r := schedtoolIn(t, dir, "migrate", "--write", "fixtures/catalog"); r.code != 2 || !strings.Contains(r.stderr, "need review") {
		t.Fatalf("migrate --write: exit %d, want 2 with the tasks to review\n%s", r.code, r.stderr)
	}
	after := censusStatuses(t, dir)
	ready := 0
	for task, st := range before {
		if st == "ready" {
			ready++
		}
		switch {
		case action[task] == "migrate" && after[task] != "migrated":
			t.Errorf("%s: %s before, migrated by migrate, but %s after", task, st, after[task])
		case st == "ready" && action[task] != "migrate":
			t.Errorf("%s: ready, but migrate did not migrate it (%s)", task, action[task])
		case action[task] != "migrate" && after[task] != st:
			t.Errorf("%s: %s before, %s after (migrate should have left it)", task, st, after[task])
		}
	}
	if ready == 0 {
		t.Fatal("no ready task in the fixtures: the test proves nothing")
	}
	if r := schedtoolIn(t, dir, "migrate", "fixtures/catalog"); r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "; 0 files to change") {
		t.Errorf("second migrate: exit %d (want 2: the reviews remain), diff:\n%s%s", r.code, r.stdout, r.stderr)
	}
	// validate reports no conflict on a migrated task.
	r := schedtoolIn(t, dir, "validate", "-o", "json", "fixtures/catalog")
	var findings struct {
		Findings []struct{ Rule, Task string } `json:"findings"`
	}
	json.Unmarshal([]byte(r.stdout), &findings)
	for _, f := range findings.Findings {
		if action[f.Task] == "migrate" && (f.Rule == "sync-schedule-conflict" || f.Rule == "ack-delay-stacks" || f.Rule == "connector-schedule-in-use") {
			t.Errorf("validate after migrate: %s: %s", f.Task, f.Rule)
		}
	}
	if len(findings.Findings) == 0 {
		t.Error("validate -o json gave no findings to check")
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// --out DIR writes the migrated tree elsewhere and leaves the input as it
// was; --out FILE writes the migrated rows of a dump.
func TestMigrateOut(t *testing.T) {
	dir := copyFixtures(t)
	orig := mustRead(t, filepath.Join(dir, "fixtures/catalog/acmeCo/warehouse/flow.yaml"))
	if r := schedtoolIn(t, dir, "migrate", "--out", "migrated", "fixtures/catalog"); r.code != 2 || !strings.Contains(r.stderr, "need review") {
		t.Fatalf("migrate --out: exit %d, want 2 (tasks need review)\n%s", r.code, r.stderr)
	}
	if !bytes.Equal(orig, mustRead(t, filepath.Join(dir, "fixtures/catalog/acmeCo/warehouse/flow.yaml"))) {
		t.Error("--out changed the input")
	}
	if r := schedtoolIn(t, dir, "migrate", "migrated"); r.stdout != "" || !strings.Contains(r.stderr, "; 0 files to change") {
		t.Errorf("the migrated tree still has changes pending: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "migrated/acmeCo/warehouse/materialize-bigquery-reports.config.json")); err != nil {
		t.Errorf("config file not in the output tree: %v", err)
	}
	os.MkdirAll(filepath.Join(dir, "migrate/testdata/golden/dump/in"), 0o755)
	os.WriteFile(filepath.Join(dir, goodDump), mustRead(t, filepath.Join("../..", goodDump)), 0o644)
	r := schedtoolIn(t, dir, "migrate", "--out", "rows.ndjson", goodDump)
	if r.code != 2 || !strings.Contains(r.stderr, "2 tasks need review") || !strings.Contains(r.stderr, "written: rows.ndjson\n") {
		t.Fatalf("migrate --out FILE: exit %d, want 2 (two rows need review)\n%s", r.code, r.stderr)
	}
	// The file sink is not among them: it waits for --zero-file-sinks.
	rows := strings.Split(strings.TrimSpace(string(mustRead(t, filepath.Join(dir, "rows.ndjson")))), "\n")
	if len(rows) != 2 {
		t.Fatalf("%d migrated rows, want 2:\n%s", len(rows), strings.Join(rows, "\n"))
	}
	for _, row := range rows {
		var x struct {
			LastPubID string `json:"last_pub_id"`
			Spec      struct {
				ExpectPubID string `json:"expectPubId"`
			} `json:"spec"`
		}
		if err := json.Unmarshal([]byte(row), &x); err != nil || x.LastPubID == "" || x.Spec.ExpectPubID != x.LastPubID {
			t.Errorf("row without expectPubId = last_pub_id: %v %s", err, row)
		}
	}
}

// --out DIR from stored specs writes a publishable tree: one source per
// migrated task and an index, never into a directory with files in it.
func TestMigrateOutTree(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, filepath.Dir(goodDump)), 0o755)
	os.WriteFile(filepath.Join(dir, goodDump), mustRead(t, filepath.Join("../..", goodDump)), 0o644)
	r := schedtoolIn(t, dir, "migrate", "--out", "tree", goodDump)
	if r.code != 2 { // two tasks need review
		t.Fatalf("migrate --out DIR: exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{
		"written: tree/acmeCo/stored/materialize-clickhouse/flow.yaml\nwritten: tree/acmeCo/stored/materialize-snowflake/flow.yaml\nwritten: tree/flow.yaml\n",
		"2 written\n",
		"publish each task: flowctl draft create && flowctl draft author --source 'tree/<name>/flow.yaml' && flowctl draft publish\n",
		"or all at once:    flowctl catalog publish --source tree/flow.yaml\n",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	index := string(mustRead(t, filepath.Join(dir, "tree/flow.yaml")))
	if strings.Count(index, "/flow.yaml") != 2 {
		t.Errorf("index:\n%s", index)
	}
	// The tree reads as migrated: nothing pending, no error, nothing
	// stacked (the file sink was left out, not half migrated).
	if r := schedtoolIn(t, dir, "migrate", "tree/flow.yaml"); r.code != 0 || !strings.Contains(r.stderr, "2 materializations: 2 with nothing to do; 0 files to change") {
		t.Errorf("migrate over the tree: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := schedtoolIn(t, dir, "validate", "tree"); r.code != 0 {
		t.Errorf("validate the tree: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// Never into a directory with something in it.
	for _, args := range [][]string{
		{"migrate", "--out", "tree", goodDump},
		{"migrate", "--out", "tree/", goodDump},
	} {
		before := mustRead(t, filepath.Join(dir, "tree/flow.yaml"))
		r := schedtoolIn(t, dir, args...)
		if r.code != 1 || !strings.Contains(r.stderr, "--out tree") {
			t.Errorf("%v: exit %d\n%s", args, r.code, r.stderr)
		}
		if !bytes.Equal(before, mustRead(t, filepath.Join(dir, "tree/flow.yaml"))) {
			t.Errorf("%v wrote over the index", args)
		}
	}
}

// A run that fails (exit 1) before writing its document still writes one
// in the machine formats: {"error": ...} for -o json, a SARIF log whose
// invocation failed for -o sarif. The message is the one on standard
// error; the formats for people get nothing on standard output; a run
// that wrote its whole document before failing gets no second one.
func TestFailureDocument(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"cat/flow.yaml": "materializations:\n" + snowflake("a/t", "ghcr.io/estuary/materialize-snowflake:v4"), "cat2/flow.yaml": "materializations:\n" + snowflake("a/u", "ghcr.io/estuary/materialize-snowflake:v4"), "blank.ndjson": "\n\n"})
	const missing = "nope.yaml: no such file or directory"
	const empty = "-: standard input is empty: no catalog source and no stored-spec rows"
	for _, tc := range []struct {
		name string
		args []string
		doc  string // "json", "sarif", "" none, or "own" (the run's own document)
		msg  string // standard error's message, without "schedtool: "
	}{
		{"validate json", []string{"validate", "-o", "json", "nope.yaml"}, "json", missing},
		{"validate sarif", []string{"validate", "-o", "sarif", "nope.yaml"}, "sarif", missing},
		{"validate json, empty stdin", []string{"validate", "-o", "json", "-"}, "json", empty},
		{"validate json, bad flag", []string{"validate", "-o", "json", "--fail-on", "fatal", "cat"}, "json", `--fail-on: unknown severity "fatal" (want error, warning or info)`},
		{"validate json, unknown flag", []string{"validate", "-o", "json", "--bogus", "cat"}, "json", "unknown flag: --bogus (see 'schedtool validate --help')"},
		{"census json", []string{"census", "-o", "json", "nope.yaml"}, "json", missing},
		{"migrate json", []string{"migrate", "-o", "json", "-"}, "json", empty},
		// Failures inside the run, before any of its report went out.
		{"migrate json, a dump with no rows", []string{"migrate", "-o", "json", "blank.ndjson"}, "json", "blank.ndjson: the dump has no rows: an empty dump is an error, not zero tasks"},
		{"migrate json --out DIR, a dump with no rows", []string{"migrate", "-o", "json", "--out", "tree", "blank.ndjson"}, "json", "blank.ndjson: the dump has no rows: an empty dump is an error, not zero tasks"},
		{"migrate json --out DIR, two files onto one", []string{"migrate", "-o", "json", "--out", "tree", "cat/flow.yaml", "cat2/flow.yaml"}, "json", "--out: cat/flow.yaml and cat2/flow.yaml would both be written to tree/flow.yaml; migrate them in separate runs"},
		{"migrate diff --out DIR, two files onto one", []string{"migrate", "--out", "tree", "cat/flow.yaml", "cat2/flow.yaml"}, "", "--out: cat/flow.yaml and cat2/flow.yaml would both be written to tree/flow.yaml; migrate them in separate runs"},
		{"explain json", []string{"explain", "-o", "json", "a/t", "nope.yaml"}, "json", missing},
		{"validate text", []string{"validate", "nope.yaml"}, "", missing},
		{"validate github", []string{"validate", "-o", "github", "nope.yaml"}, "", missing},
		{"census csv", []string{"census", "-o", "csv", "nope.yaml"}, "", missing},
		{"migrate diff", []string{"migrate", "nope.yaml"}, "", missing},
		{"a selector that picks nothing, after the document", []string{"validate", "-o", "json", "--name", "a/zzz", "cat"}, "own", "--name a/zzz selects no materialization (a selector that matches nothing is an error; check the spelling, or run census without it to see the names)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := schedtoolIn(t, dir, tc.args...)
			if r.code != 1 {
				t.Errorf("exit %d, want 1", r.code)
			}
			if r.stderr != "schedtool: "+tc.msg+"\n" {
				t.Errorf("stderr %q, want %q", r.stderr, "schedtool: "+tc.msg+"\n")
			}
			switch tc.doc {
			case "":
				if r.stdout != "" {
					t.Errorf("stdout %q, want nothing", r.stdout)
				}
			case "json":
				want, _ := json.Marshal(map[string]string{"error": tc.msg})
				var got map[string]string
				if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || got["error"] != tc.msg || len(got) != 1 || !strings.HasSuffix(r.stdout, "\n") {
					t.Errorf("stdout %q, want %s", r.stdout, want)
				}
			case "sarif":
				var log struct {
					Version string
					Runs    []struct {
						Results     []any
						Invocations []struct {
							ExecutionSuccessful        bool
							ToolExecutionNotifications []struct{ Message struct{ Text string } }
						}
					}
				}
				if err := json.Unmarshal([]byte(r.stdout), &log); err != nil || log.Version != "2.1.0" || len(log.Runs) != 1 ||
					len(log.Runs[0].Invocations) != 1 || log.Runs[0].Invocations[0].ExecutionSuccessful ||
					log.Runs[0].Invocations[0].ToolExecutionNotifications[0].Message.Text != tc.msg {
					t.Errorf("stdout is not the failed SARIF run (%v):\n%s", err, r.stdout)
				}
			case "own":
				var got map[string]any
				if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || got["findings"] == nil || got["error"] != nil {
					t.Errorf("stdout is not the run's one document (%v):\n%s", err, r.stdout)
				}
			}
		})
	}
}

// explain -o html and -o svg: the flags they add are checked, and an
// unknown task is refused as in text, with nothing written.
func TestExplainTimelineFlags(t *testing.T) {
	const task = "acmeCo/warehouse/materialize-iceberg"
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"-o", "svg", "--days", "0", task}, 1, "--days 0: give 1 to 62"},
		{[]string{"-o", "html", "--days", "63", task}, 1, "--days 63: give 1 to 62"},
		{[]string{"-o", "pdf", task}, 1, `unknown output format "pdf" (want text, json, html, svg)`},
		{[]string{"-o", "svg", "acmeCo/warehouse/materialize-icebreg"}, 1, "closest: acmeCo/warehouse/materialize-iceberg"},
		{[]string{"-o", "svg", "--days", "1", "--at", "2026-10-28T05:00:00Z", task}, 0, ""},
	} {
		r := schedtool(t, "", append(append([]string{"explain"}, tc.args...), "fixtures/catalog")...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.stderr) {
			t.Errorf("%v: exit %d, stderr %q; want %d, %q", tc.args, r.code, r.stderr, tc.code, tc.stderr)
		}
		if tc.code != 0 && r.stdout != "" {
			t.Errorf("%v wrote %q", tc.args, r.stdout)
		}
		if tc.code == 0 && (!strings.HasPrefix(r.stdout, "<?xml") || !strings.Contains(r.stdout, `data-to="2026-10-29T05:00:00Z"`)) {
			t.Errorf("%v: %.200s", tc.args, r.stdout)
		}
	}
}
