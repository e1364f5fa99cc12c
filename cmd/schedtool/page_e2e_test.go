package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The gate says so when it passes (a note: --quiet leaves it out, as it
// does every note), and only then.
func TestGatePassedLine(t *testing.T) {
	const line = "gate passed: no task relies on connector-side pacing\n"
	pass := []string{"census", "--fail-if-remaining", "--name", "acmeCo/warehouse/materialize-bigquery", "fixtures/catalog"}
	r := schedtool(t, "", pass...)
	if r.code != 0 || r.stderr != line {
		t.Errorf("passing gate: exit %d, stderr %q", r.code, r.stderr)
	}
	r = schedtool(t, "", append([]string{"-q"}, pass...)...)
	if r.code != 0 || r.stderr != "" {
		t.Errorf("passing gate, -q: exit %d, stderr %q", r.code, r.stderr)
	}
	r = schedtool(t, "", "census", "--fail-if-remaining", "fixtures/catalog")
	if r.code != 2 || strings.Contains(r.stderr, "gate passed") {
		t.Errorf("failing gate: exit %d, stderr %q", r.code, r.stderr)
	}
	r = schedtool(t, "", "census", "--name", "acmeCo/warehouse/materialize-bigquery", "fixtures/catalog")
	if r.code != 0 || strings.Contains(r.stderr, "gate passed") {
		t.Errorf("no gate: exit %d, stderr %q", r.code, r.stderr)
	}
}

// census -o json carries its scope (a PostgreSQL URL without its
// password); --summary writes summary and scope only, a valid --history
// file; --history warns when an earlier census covers another scope.
func TestCensusScopeAndSummary(t *testing.T) {
	dir := t.TempDir()
	week := filepath.Join(dir, "week1.json")
	r := schedtool(t, "", "census", "-o", "json", "--summary", "--now", "2026-11-24T00:00:00Z", "--prefix", "acmeCo/", "fixtures/catalog")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if len(r.stdout) > 4096 || strings.Contains(r.stdout, `"tasks":[`) {
		t.Errorf("a summary of %d bytes with its tasks:\n%s", len(r.stdout), r.stdout)
	}
	var doc struct {
		Scope struct {
			Inputs    []string
			Prefixes  []string
			Schedtool string
		}
		Summary struct{ Remaining int }
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if strings.Join(doc.Scope.Inputs, " ") != "fixtures/catalog" || strings.Join(doc.Scope.Prefixes, " ") != "acmeCo/" || doc.Scope.Schedtool == "" || doc.Summary.Remaining == 0 {
		t.Errorf("scope %+v, summary %+v", doc.Scope, doc.Summary)
	}
	os.WriteFile(week, []byte(r.stdout), 0o644)

	// The same scope: no warning, a burndown of two points.
	r = schedtool(t, "", "census", "-o", "html", "--history", week, "--now", "2026-12-01T00:00:00Z", "--prefix", "acmeCo/", "fixtures/catalog")
	if r.code != 0 || r.stderr != "" || !strings.Contains(r.stdout, `id="projection"`) {
		t.Errorf("same scope: exit %d, stderr %q, projection %v", r.code, r.stderr, strings.Contains(r.stdout, `id="projection"`))
	}
	// Another scope: a warning naming both.
	r = schedtool(t, "", "census", "-o", "html", "--history", week, "--now", "2026-12-01T00:00:00Z", "fixtures/catalog")
	if r.code != 0 || !strings.Contains(r.stderr, "covers a different scope (inputs fixtures/catalog; --prefix acmeCo/;") {
		t.Errorf("another scope: exit %d, stderr %q", r.code, r.stderr)
	}

	r = schedtool(t, "", "census", "--summary", "-o", "table", "fixtures/catalog")
	if r.code != 1 || !strings.Contains(r.stderr, "--summary") {
		t.Errorf("--summary -o table: exit %d, stderr %q", r.code, r.stderr)
	}
}

// explain previews the migration migrate's decision flags would give a
// blocked task, its picture included.
func TestExplainPreview(t *testing.T) {
	const v1 = "acmeCo/lake/materialize-s3-iceberg"
	r := schedtool(t, "", "explain", "-o", "json", v1, "fixtures/catalog")
	if r.code != 0 || !strings.Contains(r.stdout, `"situation": "blocked-v1"`) {
		t.Fatalf("exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	r = schedtool(t, "", "explain", "--enable-runtime-v2", "--zero-file-sinks", v1, "fixtures/catalog")
	if r.code != 0 || !strings.Contains(r.stdout, `set shards.flags.enable-runtime-v2: "true"`) ||
		!strings.Contains(r.stdout, "preview:             the migration schedtool migrate --enable-runtime-v2 --zero-file-sinks would give this task.") {
		t.Errorf("preview: exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = schedtool(t, "", "explain", "-o", "svg", "--at", "2026-10-28T05:00:00Z", v1, "fixtures/catalog")
	if strings.Contains(r.stdout, `class="commit"`) {
		t.Errorf("a V1 task without the flag has runtime commits drawn")
	}
	r = schedtool(t, "", "explain", "-o", "svg", "--at", "2026-10-28T05:00:00Z", "--enable-runtime-v2", "--zero-file-sinks", v1, "fixtures/catalog")
	if r.code != 0 || !strings.Contains(r.stdout, `class="commit"`) || !strings.Contains(r.stdout, "the schedule migrate writes") {
		t.Errorf("the after-migration lane is empty: exit %d %s", r.code, r.stderr)
	}
	r = schedtool(t, "", "explain", "--resolve", "both", v1, "fixtures/catalog")
	if r.code != 1 || !strings.Contains(r.stderr, `--resolve "both": must be model or connector`) {
		t.Errorf("--resolve both: exit %d, %q", r.code, r.stderr)
	}
}

// A day or two has hour ticks, and says "1 day"; a week has none.
func TestExplainShortRange(t *testing.T) {
	const task = "acmeCo/warehouse/materialize-iceberg"
	r := schedtool(t, "", "explain", "-o", "svg", "--days", "1", "--at", "2026-10-28T05:00:00Z", task, "fixtures/catalog")
	if r.code != 0 || strings.Count(r.stdout, `class="hour"`) != 7 || !strings.Contains(r.stdout, "1 day from") || strings.Contains(r.stdout, "1 days") {
		t.Errorf("--days 1: exit %d, %d hour ticks", r.code, strings.Count(r.stdout, `class="hour"`))
	}
	r = schedtool(t, "", "explain", "-o", "svg", "--days", "2", "--at", "2026-10-28T05:00:00Z", task, "fixtures/catalog")
	if n := strings.Count(r.stdout, `class="hour"`); n != 6 {
		t.Errorf("--days 2: %d hour ticks, want 6 (every 6 hours but midnights)", n)
	}
	r = schedtool(t, "", "explain", "-o", "svg", "--days", "7", "--at", "2026-10-28T05:00:00Z", task, "fixtures/catalog")
	if strings.Contains(r.stdout, `class="hour"`) {
		t.Error("--days 7 has hour ticks")
	}
}

// A week of a 5-minute schedule is drawn as a density, not 2,016 lines
// side by side; the marks stay (hidden) for their instants.
func TestExplainDenseMarks(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "flow.yaml"), []byte(`materializations:
  acmeCo/five/materialize-snowflake:
    shards: { flags: { enable-runtime-v2: "true" } }
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config: { host: h, syncSchedule: { syncFrequency: 5m } }
    bindings: []
`), 0o644)
	r := schedtool(t, "", "explain", "-o", "svg", "--at", "2026-10-28T05:00:00Z", "acmeCo/five/materialize-snowflake", filepath.Join(dir, "flow.yaml"))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, `<g class="ack-density" data-count="2016"`) || !strings.Contains(r.stdout, `<g class="acks" stroke="#000" stroke-width="1.2" visibility="hidden">`) ||
		!strings.Contains(r.stdout, "one every 5m: too close to draw one by one, a bar per 2h (24 in each)") {
		t.Errorf("a 5-minute week is not drawn as a density:\n%.2000s", r.stdout)
	}
	// One day of an hourly schedule is drawn mark by mark.
	r = schedtool(t, "", "explain", "-o", "svg", "--days", "1", "--at", "2026-10-28T05:00:00Z", "acmeCo/warehouse/materialize-snowflake", "fixtures/catalog")
	if strings.Contains(r.stdout, "density") {
		t.Error("an hourly day is drawn as a density")
	}
}

// An endpoint.local task's connector is not known: explain does not say
// that nothing holds its commits.
func TestExplainLocalUnknown(t *testing.T) {
	r := schedtool(t, "", "explain", "acmeCo/materialize-local-debug", "fixtures/catalog")
	if r.code != 0 || strings.Contains(r.stdout, "as fast as the data allows") || !strings.Contains(r.stdout, "who holds commits:   unknown") {
		t.Errorf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = schedtool(t, "", "explain", "acmeCo/dekaf-orders", "fixtures/catalog")
	if r.code != 0 || !strings.Contains(r.stdout, "who holds commits:   none") {
		t.Errorf("dekaf: exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// A PostgreSQL URL is in the scope without its password.
func TestCensusScopeRedactsPassword(t *testing.T) {
	o := &censusOptions{common: &common{root: "."}, paths: []string{"postgres://flow:s3cret@db:5432/flow?sslmode=require&password=other", "live.ndjson"}}
	o.selector.Images = []string{"ghcr.io/estuary/materialize-snowflake"}
	s := o.scope()
	b, _ := json.Marshal(s)
	if strings.Contains(string(b), "s3cret") || strings.Contains(string(b), "other") || !strings.Contains(string(b), "db:5432/flow") || !strings.Contains(string(b), `"images":["ghcr.io/estuary/materialize-snowflake"]`) {
		t.Errorf("scope %s", b)
	}
}

// explain lists only the asked task's problems; the others are counted
// in one line, unless the task is not found (it may be in what did not
// parse).
func TestExplainOtherProblemsCounted(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "flow.yaml"), []byte("import: [a.flow.yaml, b.flow.yaml]\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.flow.yaml"), []byte(`materializations:
  acmeCo/a/materialize-snowflake:
    shards: { flags: { enable-runtime-v2: "true" } }
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config: { host: h, syncSchedule: { syncFrequency: 1h } }
    bindings: []
`), 0o644)
	os.WriteFile(filepath.Join(dir, "b.flow.yaml"), []byte("materializations: [\n"), 0o644)
	r := schedtool(t, "", "explain", "acmeCo/a/materialize-snowflake", dir)
	if r.code != 0 || strings.Contains(r.stderr, "b.flow.yaml") || !strings.Contains(r.stderr, "1 problem in other files, not about acmeCo/a/materialize-snowflake (schedtool validate lists them)") {
		t.Errorf("found: exit %d, stderr %q", r.code, r.stderr)
	}
	r = schedtool(t, "", "explain", "acmeCo/b/materialize-snowflake", dir)
	if r.code != 1 || !strings.Contains(r.stderr, "b.flow.yaml:") {
		t.Errorf("not found: exit %d, stderr %q", r.code, r.stderr)
	}
}

// The gate's failure line agrees in number with one remaining task.
func TestGateOneTaskRelies(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "flow.yaml"), []byte(`materializations:
  acmeCo/one/materialize-snowflake:
    shards: { flags: { enable-runtime-v2: "true" } }
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config: { host: h, syncSchedule: { syncFrequency: 1h } }
    bindings: []
`), 0o644)
	r := schedtool(t, "", "census", "--fail-if-remaining", dir)
	expect(t, r, 2, nil, []string{"schedtool: 1 task still relies on connector-side pacing\n"})
}
