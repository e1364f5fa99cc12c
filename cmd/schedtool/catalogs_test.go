package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	ctV2 = "    shards:\n      flags:\n        enable-runtime-v2: \"true\"\n"
	ctSF = "ghcr.io/estuary/materialize-snowflake:v4"
)

// ctSource is a catalog source of tasks, each {name, shards, image, config}.
func ctSource(tasks ...[4]string) string {
	var b strings.Builder
	b.WriteString("materializations:\n")
	for _, t := range tasks {
		b.WriteString("  " + t[0] + ":\n" + t[1] + "    endpoint:\n      connector:\n        image: " + t[2] + "\n        config: " + t[3] + "\n    bindings: []\n")
	}
	return b.String()
}

// severalCatalogs is a tree of two catalogs (prod and staging), a
// migrated copy left in the tree, a source that does not parse, and a
// config file both catalogs' acmeCo/a use.
func severalCatalogs(t *testing.T, stagingShards string) string {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"prod.flow.yaml": ctSource(
			[4]string{"acmeCo/a", ctV2, ctSF, "shared.yaml"},
			[4]string{"acmeCo/b", ctV2, ctSF, "{syncSchedule: {syncFrequency: 30m}}"},
			[4]string{"acmeCo/sink", ctV2, "ghcr.io/estuary/materialize-s3-parquet:v1", `{bucket: "ENC[AES256_GCM,data:x]", uploadInterval: 15m, sops: {mac: x}}`}),
		"staging.flow.yaml": ctSource(
			[4]string{"acmeCo/a", stagingShards, ctSF, "shared.yaml"},
			[4]string{"acmeCo/c", "", ctSF, "{syncSchedule: {syncFrequency: 30m}}"}),
		// A migrated copy of prod's acmeCo/b, left in the tree.
		"old/prod.flow.yaml": "materializations:\n  acmeCo/b:\n" + ctV2 + "    syncSchedule:\n      baseInterval: 30m\n    endpoint:\n      connector:\n        image: " + ctSF + "\n        config: {syncSchedule: {syncFrequency: 0s}}\n    bindings: []\n",
		"shared.yaml":        "syncSchedule:\n  syncFrequency: 30m\n",
		"broken.flow.yaml":   "materializations: [\n",
		".git/HEAD":          "ref: refs/heads/main\n",
	})
	return dir
}

type counts struct {
	Tasks, Definitions, Unreadable, FileSinks int
}

// allCounts runs validate, census and migrate on one tree, -o json, and
// returns what each counts.
func allCounts(t *testing.T, dir string, paths ...string) map[string]counts {
	t.Helper()
	out := map[string]counts{}
	r := schedtoolIn(t, dir, append([]string{"validate", "-o", "json"}, paths...)...)
	var v struct {
		Summary struct{ Materializations, Definitions, Unreadable int }
	}
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Fatalf("validate -o json: %v\n%s%s", err, r.stdout, r.stderr)
	}
	out["validate"] = counts{Tasks: v.Summary.Materializations, Definitions: v.Summary.Definitions, Unreadable: v.Summary.Unreadable, FileSinks: -1}
	r = schedtoolIn(t, dir, append([]string{"census", "-o", "json"}, paths...)...)
	var c struct {
		Tasks   []struct{ Definitions []json.RawMessage }
		Summary struct {
			Tasks, Unreadable, ReadyNeedsZeroFileSinks int
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &c); err != nil {
		t.Fatalf("census -o json: %v\n%s%s", err, r.stdout, r.stderr)
	}
	// census counts the tasks on scheduling images only: compared
	// with the others where every task is on one (TestSeveralCatalogs).
	out["census"] = counts{Tasks: -1, Definitions: -1, Unreadable: c.Summary.Unreadable, FileSinks: c.Summary.ReadyNeedsZeroFileSinks}
	r = schedtoolIn(t, dir, append([]string{"migrate", "-o", "json"}, paths...)...)
	var m struct {
		Summary struct {
			Tasks, Definitions, Unreadable, FileSinks int
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &m); err != nil {
		t.Fatalf("migrate -o json: %v\n%s%s", err, r.stdout, r.stderr)
	}
	out["migrate"] = counts{Tasks: m.Summary.Tasks, Definitions: m.Summary.Definitions, Unreadable: m.Summary.Unreadable, FileSinks: m.Summary.FileSinks}
	return out
}

// agree fails when two commands count one thing differently (-1: the
// command does not count it).
func agree(t *testing.T, what string, cs map[string]counts) {
	t.Helper()
	for _, f := range []struct {
		name string
		get  func(counts) int
	}{{"tasks", func(c counts) int { return c.Tasks }}, {"definitions", func(c counts) int { return c.Definitions }},
		{"unreadable", func(c counts) int { return c.Unreadable }}, {"file sinks", func(c counts) int { return c.FileSinks }}} {
		seen, by := -1, ""
		for _, cmd := range []string{"validate", "census", "migrate"} {
			n := f.get(cs[cmd])
			if n < 0 {
				continue
			}
			if seen >= 0 && n != seen {
				t.Errorf("%s: %s counts %d %s, %s %d", what, cmd, n, f.name, by, seen)
			}
			seen, by = n, cmd
		}
	}
}

// Several catalogs under one root (docs/behaviour.md §2), end to end.
func TestSeveralCatalogs(t *testing.T) {
	dir := severalCatalogs(t, ctV2)

	r := schedtoolIn(t, dir, "validate", ".")
	for _, want := range []string{
		"prod.flow.yaml:3:5: info defined-in-several-catalogs: materialization acmeCo/a is also defined at staging.flow.yaml:3:5",
		"old/prod.flow.yaml:3:5: info defined-in-several-catalogs: materialization acmeCo/b is also defined at prod.flow.yaml:12:5",
		"in 4 materializations (6 definitions: a name in several catalogs is one task) from ",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("validate: no %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "defined more than once") {
		t.Errorf("validate: a name in several catalogs is no error:\n%s", r.stdout)
	}

	// census: the name once, with the definition that most relies on the
	// connector: the migrated copy does not make acmeCo/b migrated.
	r = schedtoolIn(t, dir, "census", "-o", "json", ".")
	var doc struct {
		Tasks []struct {
			Task, Status string
			Definitions  []struct {
				File, Status string
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err, r.stdout)
	}
	status := map[string]string{}
	defs := map[string]string{}
	for _, x := range doc.Tasks {
		status[x.Task] = x.Status
		var ds []string
		for _, d := range x.Definitions {
			ds = append(ds, d.File+"="+d.Status)
		}
		defs[x.Task] = strings.Join(ds, " ")
	}
	if status["acmeCo/b"] != "ready" || defs["acmeCo/b"] != "old/prod.flow.yaml=migrated prod.flow.yaml=ready" {
		t.Errorf("census acmeCo/b: %s, definitions %s\n%s", status["acmeCo/b"], defs["acmeCo/b"], r.stdout)
	}
	if len(doc.Tasks) != 4 {
		t.Errorf("census: %d rows, want one per name (4)\n%s", len(doc.Tasks), r.stdout)
	}
	r = schedtoolIn(t, dir, "census", "-o", "wide", ".")
	if !strings.Contains(r.stdout, "  defined at old/prod.flow.yaml:3 ") {
		t.Errorf("census -o wide lists no definitions:\n%s", r.stdout)
	}

	// The counts of every command agree, here and on the real catalogs.
	agree(t, "several catalogs", allCounts(t, dir, "."))
	r = schedtoolIn(t, dir, "census", "-o", "json", ".")
	var sum struct {
		Summary struct{ Tasks, Unreadable int }
	}
	if json.Unmarshal([]byte(r.stdout), &sum) != nil || sum.Summary.Tasks != 4 || sum.Summary.Unreadable != 1 {
		t.Errorf("census counts not 4 tasks and 1 unreadable input:\n%s", r.stdout)
	}
	if cs := allCounts(t, dir, "."); cs["census"] != (counts{-1, -1, 1, 1}) || cs["migrate"] != (counts{4, 6, 1, 1}) || cs["validate"] != (counts{4, 6, 1, -1}) {
		t.Errorf("counts: %+v", cs)
	}

	// With a dump beside: its rows count alike, its bad row too.
	writeTree(t, dir, map[string]string{"live.ndjson": `{"catalog_name":"acmeCo/d","spec_type":"materialization","last_pub_id":"1234ff4b568003a5","spec":{"shards":{"flags":{"enable-runtime-v2":"true"}},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{"syncSchedule":{"syncFrequency":"30m"}}}},"bindings":[]}}` + "\n" + `{"catalog_name":"acmeCo/e","spec_type":` + "\n"})
	cs := allCounts(t, dir, ".", "live.ndjson")
	agree(t, "several catalogs and a dump", cs)
	if cs["migrate"] != (counts{5, 7, 2, 1}) {
		t.Errorf("counts with a dump: %+v", cs)
	}
	os.Remove(filepath.Join(dir, "live.ndjson"))

	// explain: every definition, and only the task's problems.
	r = schedtoolIn(t, dir, "explain", "acmeCo/a", ".")
	if !strings.Contains(r.stdout, "materialization acmeCo/a is defined in 2 catalogs") || !strings.Contains(r.stdout, "materialization acmeCo/a (prod.flow.yaml)") || !strings.Contains(r.stdout, "materialization acmeCo/a (staging.flow.yaml)") {
		t.Errorf("explain shows not every definition:\n%s", r.stdout)
	}
	if strings.Contains(r.stderr, "broken.flow.yaml") || !strings.Contains(r.stderr, "schedtool: 1 problem in other files, not about acmeCo/a") {
		t.Errorf("explain: other files' problems not one line:\n%s", r.stderr)
	}
	if r = schedtoolIn(t, dir, "explain", "-q", "acmeCo/a", "."); r.code != 0 || r.stderr != "" {
		t.Errorf("explain -q: exit %d, standard error:\n%s", r.code, r.stderr)
	}

	// migrate: the config both catalogs' acmeCo/a use changes once, in
	// one group, as both definitions get the same change.
	r = schedtoolIn(t, dir, "migrate", "--zero-file-sinks", ".")
	if !strings.Contains(r.stdout, "shared.yaml") || strings.Contains(r.stderr, "is shared") {
		t.Errorf("migrate: the shared config of two catalogs' definitions alike is not changed:\n%s%s", r.stdout, r.stderr)
	}
}

// A config used by two catalogs' definitions is zeroed only when every
// user gets the same change: a V1 definition in staging holds it back.
func TestSeveralCatalogsSharedConfig(t *testing.T) {
	dir := severalCatalogs(t, "")
	r := schedtoolIn(t, dir, "migrate", ".")
	if strings.Contains(r.stdout, "+++ b/shared.yaml") || !strings.Contains(r.stderr, "config file shared.yaml is shared: also used by acmeCo/a (staging.flow.yaml:") {
		t.Errorf("migrate: a V1 definition in another catalog does not hold the shared config back:\n%s%s", r.stdout, r.stderr)
	}
}

// A name twice within one catalog is still refused, in every command.
func TestNameTwiceInOneCatalog(t *testing.T) {
	dir := t.TempDir()
	task := ctSource([4]string{"acmeCo/a", ctV2, ctSF, "{syncSchedule: {syncFrequency: 30m}}"})
	writeTree(t, dir, map[string]string{"flow.yaml": "import: [a.yaml, b.yaml]\n", "a.yaml": task, "b.yaml": task, ".git/HEAD": "x\n"})
	r := schedtoolIn(t, dir, "validate", ".")
	if r.code != 2 || strings.Count(r.stdout, "error parse-error: materialization acmeCo/a is defined more than once in the catalog of flow.yaml") != 2 {
		t.Errorf("validate: exit %d\n%s", r.code, r.stdout)
	}
	r = schedtoolIn(t, dir, "migrate", "-o", "json", ".")
	if r.code != 1 || !strings.Contains(r.stdout, `"unreadable":1`) {
		t.Errorf("migrate: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	agree(t, "a name twice", allCounts(t, dir, "."))
	r = schedtoolIn(t, dir, "explain", "acmeCo/a", ".")
	if r.code != 1 || !strings.Contains(r.stderr, "defined more than once") {
		t.Errorf("explain: exit %d\n%s", r.code, r.stderr)
	}
}

// The counts agree on the real catalogs too.
func TestCountsAgreeRealCatalogs(t *testing.T) {
	real := realCatalogs(t)
	for _, sub := range []string{".", "estuary__connectors", "estuary__examples"} {
		agree(t, filepath.Join("real-catalogs", sub), allCounts(t, real, sub))
	}
}

// --limit counts names: the definitions of a name in several catalogs
// go in one wave, and count once.
func TestLimitCountsNames(t *testing.T) {
	dir := t.TempDir()
	task := func(name string) [4]string {
		return [4]string{name, ctV2, ctSF, "{syncSchedule: {syncFrequency: 30m}}"}
	}
	writeTree(t, dir, map[string]string{
		".git/HEAD":         "x\n",
		"prod.flow.yaml":    ctSource(task("acmeCo/a"), task("acmeCo/b"), task("acmeCo/c")),
		"staging.flow.yaml": ctSource(task("acmeCo/a"), task("acmeCo/b")),
	})
	r := schedtoolIn(t, dir, "migrate", "-o", "json", "--limit", "2", ".")
	var doc struct {
		Tasks []struct{ Task, File, Action string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err, r.stdout, r.stderr)
	}
	got := map[string]string{}
	for _, x := range doc.Tasks {
		got[x.Task+" "+x.File] = x.Action
	}
	want := map[string]string{"acmeCo/a prod.flow.yaml": "migrate", "acmeCo/a staging.flow.yaml": "migrate",
		"acmeCo/b prod.flow.yaml": "migrate", "acmeCo/b staging.flow.yaml": "migrate", "acmeCo/c prod.flow.yaml": "defer"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("--limit 2: %s is %q, want %q\n%s", k, got[k], v, r.stderr)
		}
	}
}
