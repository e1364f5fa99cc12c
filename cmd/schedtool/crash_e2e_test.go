package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const crashFixture = "cmd/schedtool/testdata/inputs/crash/flow.yaml"

// A connector schedule that crashes its connector (docs/behaviour.md §4.3 and
// §10), end to end: validate warns with the first range, census marks the
// row, explain stops listing commits where the connector panics, migrate
// says the migration removes the crash and --verify counts the crash
// minutes as their own cause. After migrating, nothing crashes.
func TestConnectorCrashEndToEnd(t *testing.T) {
	const at = "2026-10-01T00:00:00Z"
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"crash-validate", []string{"validate", "--at", at, crashFixture}, 0},
		{"crash-validate-json", []string{"validate", "-o", "json", "--fail-on", "warning", "--at", at, crashFixture}, 2},
		{"crash-census-wide", []string{"census", "-o", "wide", "--at", at, crashFixture}, 0},
		{"crash-census-json", []string{"census", "-o", "json", "--at", at, crashFixture}, 0},
		{"crash-census-csv", []string{"census", "-o", "csv", "--at", at, crashFixture}, 0},
		{"crash-explain", []string{"explain", "--at", "2026-10-26T12:00:00Z", "acmeCo/crash/materialize-snowflake", crashFixture}, 0},
		{"crash-explain-inside", []string{"explain", "-o", "json", "--at", "2026-10-26T13:30:00Z", "acmeCo/crash/materialize-snowflake", crashFixture}, 0},
		{"crash-migrate-verify", []string{"migrate", "-o", "json", "--verify", "--verify-year", "2026", "--at", at, crashFixture}, 2},
		{"crash-validate-after-it", []string{"validate", "--fail-on", "warning", "--at", "2026-10-27T00:00:00Z", crashFixture}, 0},
		{"crash-bad-at", []string{"validate", "--at", "soon", crashFixture}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := schedtool(t, "", tc.args...)
			if r.code != tc.code {
				t.Errorf("exit code %d, want %d\nstdout: %s\nstderr: %s", r.code, tc.code, r.stdout, r.stderr)
			}
			golden(t, tc.name, r)
		})
	}

	// The assertions the goldens rest on.
	r := schedtool(t, "", "validate", "-o", "json", "--at", at, crashFixture)
	if n := strings.Count(r.stdout, `"connector-schedule-crashes"`); n != 1 || !strings.Contains(r.stdout, "after 2026-10-26T13:00:00Z, up to and including 2026-10-26T14:00:00Z") {
		t.Errorf("validate: %d crash findings\n%s", n, r.stdout)
	}
	r = schedtool(t, "", "explain", "-o", "json", "--at", "2026-10-26T13:30:00Z", "acmeCo/crash/materialize-snowflake", crashFixture)
	var e map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &e); err != nil || e["next"] != nil || e["crashStops"] == nil || e["connectorCrash"] == nil {
		t.Errorf("explain inside the range lists commits the connector never makes: %v %s", err, r.stdout)
	}
	r = schedtool(t, "", "migrate", "-o", "json", "--verify", "--verify-year", "2026", "--at", at, crashFixture)
	if !strings.Contains(r.stdout, "the migration removes the crash") || !strings.Contains(r.stdout, `"connector-crash":60`) {
		t.Errorf("migrate report:\n%s", r.stdout)
	}

	// Migrated, the connector is off and nothing crashes.
	dir := t.TempDir()
	src := filepath.Join(dir, "flow.yaml")
	b, err := os.ReadFile(filepath.Join("../..", crashFixture))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := schedtoolIn(t, dir, "migrate", "--write", "flow.yaml"); r.code != 0 {
		t.Fatalf("migrate --write: %d %s", r.code, r.stderr)
	}
	r = schedtoolIn(t, dir, "validate", "--fail-on", "warning", "--at", at, "flow.yaml")
	if r.code != 0 || strings.Contains(r.stdout, "connector-schedule-crashes") {
		t.Errorf("after migrating: %d\n%s", r.code, r.stdout)
	}
	r = schedtoolIn(t, dir, "census", "-o", "json", "--at", at, "flow.yaml")
	if strings.Contains(r.stdout, `"crash":"`) {
		t.Errorf("census after migrating still marks a crash:\n%s", r.stdout)
	}
}
