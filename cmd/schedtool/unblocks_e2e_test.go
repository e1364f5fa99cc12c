package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/estuary/schedtool/bench/gen"
	"github.com/estuary/schedtool/census"
)

// censusUnblocks is what census -o json says unblocks what, and its
// remaining tasks by name.
func censusUnblocks(t *testing.T, dir string, args ...string) (list []census.Unblock, remaining map[string]bool, total int) {
	t.Helper()
	r := schedtoolIn(t, dir, append([]string{"census", "-o", "json"}, args...)...)
	if r.code != 2 && r.code != 0 {
		t.Fatalf("census: exit %d\n%s", r.code, r.stderr)
	}
	var doc struct {
		Tasks []struct {
			Task   string `json:"task"`
			Status string `json:"status"`
		} `json:"tasks"`
		Summary struct {
			Remaining int              `json:"remaining"`
			Unblocks  []census.Unblock `json:"unblocks"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("census -o json: %v", err)
	}
	remaining = map[string]bool{}
	for _, x := range doc.Tasks {
		if x.Status != "migrated" && x.Status != "unaffected" {
			remaining[x.Task] = true
		}
	}
	return doc.Summary.Unblocks, remaining, doc.Summary.Remaining
}

// migrates is the set of tasks a dry run of migrate with flags migrates
// (every definition of the name), from its -o json report.
func migrates(t *testing.T, dir string, flags []string, args ...string) map[string]bool {
	t.Helper()
	r := schedtoolIn(t, dir, append(append([]string{"migrate", "-o", "json"}, flags...), args...)...)
	var doc struct {
		Tasks []struct {
			Task   string `json:"task"`
			Action string `json:"action"`
		} `json:"tasks"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("migrate %v -o json: %v\n%s", flags, err, r.stderr)
	}
	out, not := map[string]bool{}, map[string]bool{}
	for _, x := range doc.Tasks {
		if x.Action == "migrate" || x.Action == "none" {
			out[x.Task] = true
		} else {
			not[x.Task] = true
		}
	}
	for n := range not {
		delete(out, n)
	}
	return out
}

// checkUnblocksAreDryRuns checks census's what unblocks what against
// migrate's own dry runs: each row of a set of flags counts exactly the
// remaining tasks that migrate with those flags migrates and migrate with
// fewer of them does not, and the rows add up to the remaining count.
func checkUnblocksAreDryRuns(t *testing.T, dir string, args ...string) {
	t.Helper()
	list, remaining, total := censusUnblocks(t, dir, args...)
	if len(remaining) != total {
		t.Fatalf("census lists %d remaining names, counts %d", len(remaining), total)
	}
	runs := map[string]map[string]bool{}
	moved := func(flags ...string) map[string]bool {
		key := strings.Join(flags, " ")
		if runs[key] == nil {
			runs[key] = migrates(t, dir, flags, args...)
		}
		return runs[key]
	}
	z, v2 := "--zero-file-sinks", "--enable-runtime-v2"
	sets := map[string][]map[string]bool{
		census.UnblockMigrate:       {moved()},
		census.UnblockZeroFileSinks: {moved(z)},
		census.UnblockRuntimeV2:     {moved(v2)},
		census.UnblockBoth:          {moved(z, v2)},
		census.UnblockResolve:       {moved(z, v2, "--resolve=model"), moved(z, v2, "--resolve=connector")},
	}
	fewer := map[string][]map[string]bool{
		census.UnblockMigrate:       nil,
		census.UnblockZeroFileSinks: {moved()},
		census.UnblockRuntimeV2:     {moved()},
		census.UnblockBoth:          {moved(), moved(z), moved(v2)},
		census.UnblockResolve:       {moved(), moved(z), moved(v2), moved(z, v2)},
	}
	sum := 0
	seen := map[string]bool{}
	for _, u := range list {
		sum += u.Tasks
		seen[u.Kind] = true
		in, ok := sets[u.Kind]
		if !ok {
			continue // an image upgrade (no flag of migrate's) and a person's: they add up below
		}
		want := 0
		for name := range remaining {
			any := false
			for _, s := range in {
				any = any || s[name]
			}
			for _, s := range fewer[u.Kind] {
				any = any && !s[name]
			}
			if any {
				want++
			}
		}
		if u.Tasks != want {
			t.Errorf("%s: census says it moves %d tasks; migrate's dry runs with %v migrate %d more than with fewer flags", u.Kind, u.Tasks, u.Flags, want)
		}
	}
	for kind := range sets {
		if seen[kind] {
			continue
		}
		for name := range remaining {
			any := false
			for _, s := range sets[kind] {
				any = any || s[name]
			}
			for _, s := range fewer[kind] {
				any = any && !s[name]
			}
			if any {
				t.Errorf("%s: census lists no row, but migrate's dry runs migrate %s with it and not with fewer flags", kind, name)
				break
			}
		}
	}
	if sum != total {
		t.Errorf("the rows move %d tasks, %d remain", sum, total)
	}
}

// On generated dumps, every row of census -o json's unblocks is what
// migrate's dry runs with its flags migrate beyond fewer flags.
func TestUnblocksAreDryRunsOnDumps(t *testing.T) {
	dir := t.TempDir()
	for _, seed := range []uint64{1, 7} {
		var b strings.Builder
		if err := gen.Write(&b, 1500, seed); err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(dir, "dump.ndjson")
		if err := os.WriteFile(name, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		checkUnblocksAreDryRuns(t, dir, "dump.ndjson")
	}
}

// On the fixtures (shared config files, a V1 task beside a V2 one, file
// sinks, conflicts, a legacy image), the same.
func TestUnblocksAreDryRunsOnFixtures(t *testing.T) {
	checkUnblocksAreDryRuns(t, copyFixtures(t), "--root", "fixtures", "fixtures/catalog")
}

// One task defined in two excluded sources is one task excluded; the
// scope of a census run on the project file's PATHs names them; the
// gate's pass line repeats the exclusions, as docs/project-file.md says.
func TestCensusExcludedByNameAndScope(t *testing.T) {
	dir := t.TempDir()
	migrated := "{syncSchedule: {syncFrequency: 0s}}"
	writeTree(t, dir, map[string]string{
		".git/HEAD":           "x\n",
		"prod/flow.yaml":      pjSource([3]string{"acmeCo/prod/a", ctV2, "{}"}),
		"tests/one/flow.yaml": pjSource([3]string{"acmeCo/tests/t", ctV2, migrated}),
		"tests/two/flow.yaml": pjSource([3]string{"acmeCo/tests/t", ctV2, migrated}),
		".schedtool.yaml":     "paths: [prod, tests]\nexclude: [tests]\n",
	})
	r := schedtoolIn(t, dir, "census", "-o", "json", "--summary")
	var doc struct {
		Scope   census.Scope
		Summary struct {
			Excluded struct{ Tasks, Sources int }
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("census: %v\n%s", err, r.stderr)
	}
	if doc.Summary.Excluded.Tasks != 1 || doc.Summary.Excluded.Sources != 2 {
		t.Errorf("excluded %+v, want 1 task in 2 sources", doc.Summary.Excluded)
	}
	if len(doc.Scope.Inputs) != 2 || !strings.HasSuffix(doc.Scope.Inputs[0], "prod") || !strings.HasSuffix(doc.Scope.Inputs[1], "tests") {
		t.Errorf("scope inputs %v, want the project file's PATHs", doc.Scope.Inputs)
	}
	// acmeCo/prod/a has no model schedule and the 30m default: it remains.
	writeTree(t, dir, map[string]string{"prod/flow.yaml": pjSource([3]string{"acmeCo/prod/a", ctV2, migrated})})
	r = schedtoolIn(t, dir, "census", "--fail-if-remaining")
	if r.code != 0 || !strings.Contains(r.stderr, "gate passed: no task relies on connector-side pacing (1 task in 2 sources excluded by the project file)") {
		t.Errorf("the gate: exit %d\n%s", r.code, r.stderr)
	}
}

// explain names the connector's own error for a V1 task whose config the
// connector refuses, instead of "invalid, delay unknown" alone.
func TestExplainInvalidV1Config(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".git/HEAD": "x\n",
		"flow.yaml": pjSource([3]string{"acmeCo/v1/bad", "", "{syncSchedule: {syncFrequency: often}}"}),
	})
	r := schedtoolIn(t, dir, "explain", "acmeCo/v1/bad", ".")
	if r.code != 0 || !strings.Contains(r.stdout, "  runtime:             v1") ||
		!strings.Contains(r.stdout, "  connector error:     the connector refuses its config: ") || !strings.Contains(r.stdout, "often") {
		t.Errorf("explain of an invalid V1 config: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
