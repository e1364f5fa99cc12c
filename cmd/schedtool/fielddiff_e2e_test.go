package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/estuary/schedtool/bench/gen"
)

// leaked finds what the field-diff test planted or what sops sealed: a
// config value, ciphertext, the MAC or the age-wrapped data key.
var leaked = regexp.MustCompile(`PLANTED|ENC\[|BEGIN AGE|PHutc3XZp|YWdlLWVuY3J5`)

// A generated dump holding a plaintext password and a sops-sealed config
// (and a catalog whose plaintext config file has values around its
// schedule): every row is shown by field, no line of the diff is over
// 400 characters, and nothing planted or sealed appears in the diff, the
// Markdown, the plan, show -o diff|markdown|json or the JSON report; the
// Markdown stays under 400 KiB; show -o diff is the dry run.
func TestFieldDiffShowsNoSecret(t *testing.T) {
	dir := t.TempDir()
	var dump bytes.Buffer
	if err := gen.Write(&dump, 1500, 1); err != nil {
		t.Fatal(err)
	}
	var sealed any
	if err := json.Unmarshal(mustRead(t, "../../migrate/testdata/golden/sealed/in/reports.config.json"), &sealed); err != nil {
		t.Fatal(err)
	}
	for _, row := range []map[string]any{
		{"catalog_name": "acmeCo/secret/plain", "spec_type": "materialization", "last_pub_id": "00000000000000a1", "spec": map[string]any{
			"shards": map[string]any{"flags": map[string]any{"enable-runtime-v2": "true"}},
			"endpoint": map[string]any{"connector": map[string]any{"image": "ghcr.io/estuary/materialize-snowflake:v4",
				"config": map[string]any{"host": "h", "password": "PLANTED-hunter2", "syncSchedule": map[string]any{"syncFrequency": "2h"}}}},
			"bindings": []any{}}},
		{"catalog_name": "acmeCo/secret/sealed", "spec_type": "materialization", "last_pub_id": "00000000000000a2", "spec": map[string]any{
			"shards":   map[string]any{"flags": map[string]any{"enable-runtime-v2": "true"}},
			"endpoint": map[string]any{"connector": map[string]any{"image": "ghcr.io/estuary/materialize-bigquery:v3", "config": sealed}},
			"bindings": []any{}}},
	} {
		b, _ := json.Marshal(row)
		dump.Write(append(b, '\n'))
	}
	writeTree(t, dir, map[string]string{
		"rows.ndjson":         dump.String(),
		"cat/flow.yaml":       "materializations:\n" + withConfigFile("acme/filed", "own.config.yaml"),
		"cat/own.config.yaml": "host: h\npassword: PLANTED-pw\nsyncSchedule:\n  syncFrequency: 1h\nuser: PLANTED-user\nrole: PLANTED-role\n",
	})
	check := func(what, out string) {
		t.Helper()
		if loc := leaked.FindStringIndex(out); loc != nil {
			t.Errorf("%s shows %q", what, out[max(loc[0]-100, 0):min(loc[1]+40, len(out))])
		}
	}

	dry := schedtoolIn(t, dir, "migrate", "rows.ndjson")
	if dry.code != 2 {
		t.Fatalf("migrate: exit %d\n%s", dry.code, dry.stderr)
	}
	check("the diff", dry.stdout)
	check("the notes", dry.stderr)
	for _, l := range strings.Split(dry.stdout, "\n") {
		if len(l) > 400 {
			t.Errorf("a diff line of %d characters: %.200s", len(l), l)
		}
	}
	for _, want := range []string{
		"=== rows.ndjson: stored specs, by field (--out FILE writes the rows)\n",
		"@@ acmeCo/secret/plain (line 1501, last_pub_id 00000000000000a1) @@\n+ /syncSchedule: {baseInterval: 2h}\n~ /endpoint/connector/config/syncSchedule/syncFrequency: 2h -> \"0s\"\n+ /expectPubId: \"00000000000000a1\"\n",
		"@@ acmeCo/secret/sealed (line 1502, last_pub_id 00000000000000a2) @@\n+ /syncSchedule: {baseInterval: 30m}\n+ /endpoint/connector/config/sops/overlay: {syncSchedule: {syncFrequency: \"0s\"}}\n+ /expectPubId: \"00000000000000a2\"\n",
	} {
		if !strings.Contains(dry.stdout, want) {
			t.Errorf("the diff has no %q", want)
		}
	}
	// Every migrated row is one block, none shown whole.
	var rep struct{ Summary struct{ Rows int } }
	js := schedtoolIn(t, dir, "migrate", "-o", "json", "rows.ndjson")
	check("the JSON report", js.stdout)
	if err := json.Unmarshal([]byte(js.stdout), &rep); err != nil || rep.Summary.Rows < 100 || strings.Count(dry.stdout, "\n@@ ") != rep.Summary.Rows {
		t.Errorf("%d blocks for %d rows (%v)", strings.Count(dry.stdout, "\n@@ "), rep.Summary.Rows, err)
	}
	if strings.Contains(dry.stdout, `{"catalog_name"`) {
		t.Error("a row is shown whole")
	}

	md := schedtoolIn(t, dir, "migrate", "-o", "markdown", "rows.ndjson")
	check("the Markdown", md.stdout)
	if len(md.stdout) >= 400<<10 || !strings.Contains(md.stdout, "acmeCo/secret/sealed") {
		t.Errorf("the Markdown: %d bytes", len(md.stdout))
	}
	if p := schedtoolIn(t, dir, "migrate", "--plan", "rows.plan", "rows.ndjson"); p.code != 2 {
		t.Fatalf("migrate --plan: exit %d\n%s", p.code, p.stderr)
	}
	check("the plan", string(mustRead(t, filepath.Join(dir, "rows.plan"))))
	for _, o := range []string{"diff", "markdown", "json"} {
		show := schedtoolIn(t, dir, "show", "-o", o, "rows.plan")
		check("show -o "+o, show.stdout+show.stderr)
		if o == "diff" && show.stdout != dry.stdout {
			t.Errorf("show -o diff is not the dry run:\n%.2000s", show.stdout)
		}
		if o == "markdown" && show.stdout != md.stdout {
			t.Errorf("show -o markdown is not migrate -o markdown")
		}
	}

	// A plaintext config file: its values around the schedule are hidden
	// in the Markdown, line by line, key kept.
	md = schedtoolIn(t, dir, "migrate", "-o", "markdown", "--plan", "cat.plan", "cat")
	check("the Markdown of a catalog", md.stdout)
	check("the plan of a catalog", string(mustRead(t, filepath.Join(dir, "cat.plan"))))
	if !strings.Contains(md.stdout, " password: <hidden>\n syncSchedule:\n-  syncFrequency: 1h\n+  syncFrequency: \"0s\"\n user: <hidden>\n") {
		t.Errorf("the Markdown's diff of the config file:\n%s", md.stdout)
	}
	show := schedtoolIn(t, dir, "show", "-o", "markdown", "cat.plan")
	if show.stdout != md.stdout {
		t.Errorf("show -o markdown of a catalog is not migrate -o markdown:\n%s", show.stdout)
	}
}

// TestDocFieldDiff runs the dump docs/rollout.md and docs/inputs.md show
// the field diff of (the golden dump, and a row whose BigQuery config is
// the sealed one of migrate's goldens) and checks that each shows the
// dry run's diff as it is.
func TestDocFieldDiff(t *testing.T) {
	var cfg bytes.Buffer
	if err := json.Compact(&cfg, mustRead(t, "../../migrate/testdata/golden/sealed/in/reports.config.json")); err != nil {
		t.Fatal(err)
	}
	dump := string(mustRead(t, filepath.Join("../..", goodDump))) +
		`{"catalog_name":"acmeCo/stored/materialize-bigquery-sealed","spec_type":"materialization","last_pub_id":"1a2b3c4d5e6f7091","spec":{"shards":{"flags":{"enable-runtime-v2":"true"}},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-bigquery:v3","config":` + cfg.String() + `}},"bindings":[]}}` + "\n"
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"live_specs.ndjson": dump})
	r := schedtoolIn(t, dir, "migrate", "live_specs.ndjson")
	if r.code != 2 || !strings.Contains(r.stdout, "/sops/overlay: ") {
		t.Fatalf("migrate: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, d := range []struct{ doc, heading string }{
		{"docs/rollout.md", "## Stored specs instead of files"},
		{"docs/inputs.md", "## Stored specs are shown by field"},
	} {
		blocks := fenced(section(t, string(mustRead(t, "../../"+d.doc)), d.heading), "diff")
		if len(blocks) != 1 || blocks[0] != r.stdout {
			t.Errorf("%s (%s) shows\n%v\nmigrate prints\n%s", d.doc, d.heading, blocks, r.stdout)
		}
	}
}
