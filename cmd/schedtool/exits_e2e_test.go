package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// fileSink is a V2 materialization on materialize-s3-csv whose config
// (following "config:") is config.
func fileSink(name, config string) string {
	return v2Materialization(name, "ghcr.io/estuary/materialize-s3-csv:v1", config)
}

// v1Snowflake is a V1 materialization on a 1h connector schedule.
func v1Snowflake(name string) string {
	return "  " + name + `:
    endpoint:
      connector:
        image: ` + sfImage + `
        config:
          syncSchedule:
            syncFrequency: 1h
    bindings: []
`
}

// Exit codes of migrate (docs/behaviour.md §7), through the binary: 0 when everything
// the run was asked to do is done, 2 when a person is needed, in every
// mode; and the files written listed one a line.
func TestMigrateExitCodesEndToEnd(t *testing.T) {
	two := "materializations:\n" + snowflake("acme/a", sfImage) + snowflake("acme/b", sfImage)
	dump := dumpRow("acme/r1") + dumpRow("acme/r2")
	for _, tc := range []struct {
		name   string
		files  map[string]string
		args   []string
		code   int
		stderr []string
		// not are strings stderr must not hold.
		not []string
	}{
		{"write, all done", map[string]string{"cat/flow.yaml": two}, []string{"--write", "cat"}, 0,
			[]string{"written: cat/flow.yaml\nmigrate: 2 materializations: 2 to migrate; 1 written\n"}, nil},
		{"write, -q keeps the summary line alone", map[string]string{"cat/flow.yaml": two}, []string{"--write", "-q", "cat"}, 0,
			[]string{"migrate: 2 materializations: 2 to migrate; 1 written\n"}, []string{"written: "}},
		{"write, files listed sorted", map[string]string{
			"cat/flow.yaml":       "import: [z/flow.yaml, b/flow.yaml]\n",
			"cat/z/flow.yaml":     "materializations:\n" + snowflake("acme/z", sfImage),
			"cat/b/flow.yaml":     "materializations:\n" + withConfigFile("acme/b", "b.config.yaml"),
			"cat/b/b.config.yaml": "syncSchedule:\n  syncFrequency: 2h\n",
		}, []string{"--write", "cat"}, 0,
			[]string{"written: cat/b/b.config.yaml\nwritten: cat/b/flow.yaml\nwritten: cat/z/flow.yaml\nmigrate: 2 materializations: 2 to migrate; 3 written\n"}, nil},
		{"--out DIR, all done", map[string]string{"cat/flow.yaml": two}, []string{"--out", "out", "cat"}, 0,
			[]string{"written: out/flow.yaml\nmigrate: 2 materializations: 2 to migrate; 1 written\n"}, nil},
		{"--out FILE, all done", map[string]string{"dump.ndjson": dump}, []string{"--out", "rows.ndjson", "dump.ndjson"}, 0,
			[]string{"written: rows.ndjson\nmigrate: 2 materializations: 2 to migrate; 2 written\n"}, nil},
		{"dry run with changes pending", map[string]string{"cat/flow.yaml": two}, []string{"cat"}, 2,
			[]string{"1 file to change (dry run"}, []string{"written: "}},
		{"near miss: dry run with nothing pending", map[string]string{"cat/flow.yaml": "materializations:\n" + v2Materialization("acme/z", sfImage, " {syncSchedule: {syncFrequency: 0s}}")}, []string{"cat"}, 0,
			[]string{"1 with nothing to do; 0 files to change"}, nil},
		// In a git work tree: outside one, --write says once that nothing
		// keeps the old bytes.
		{"write, --limit defers the rest: done", map[string]string{"cat/flow.yaml": two, ".git/HEAD": "x\n"}, []string{"--write", "--limit", "1", "cat"}, 0,
			[]string{"written: cat/flow.yaml\n", "1 to migrate, 1 deferred (--limit 1); 1 written\n"}, []string{"schedtool: "}},
		{"--out FILE, --limit defers the rest: done", map[string]string{"dump.ndjson": dump}, []string{"--out", "rows.ndjson", "--limit", "1", "dump.ndjson"}, 0,
			[]string{"written: rows.ndjson\n", "1 deferred (--limit 1); 1 written\n"}, []string{"schedtool: "}},
		{"near miss: a dry run with --limit still has changes pending", map[string]string{"cat/flow.yaml": two}, []string{"--limit", "1", "cat"}, 2,
			[]string{"schedtool: 1 task deferred by --limit 1: run again for the next wave\n"}, nil},
		{"write with a task to review", map[string]string{"cat/flow.yaml": "materializations:\n" + conflicting("acme/c") + snowflake("acme/a", sfImage)}, []string{"--write", "cat"}, 2,
			[]string{"written: cat/flow.yaml\n", "needs review: 1 task, 1 reason\n  1 task: both a materialization syncSchedule", "\n    acme/c (cat/flow.yaml:3)\n", "schedtool: 1 task needs review\n"}, nil},
		{"write with a V1 task skipped", map[string]string{"cat/flow.yaml": "materializations:\n" + v1Snowflake("acme/v1") + snowflake("acme/a", sfImage)}, []string{"--write", "cat"}, 2,
			[]string{"written: cat/flow.yaml\n", "1 skipped (V1)", "skipped: 1 task, 1 reason\n  1 task: a V1 task", "schedtool: 1 V1 task skipped"}, nil},
		{"near miss: the V1 task moved with --enable-runtime-v2", map[string]string{"cat/flow.yaml": "materializations:\n" + v1Snowflake("acme/v1") + snowflake("acme/a", sfImage)}, []string{"--write", "--enable-runtime-v2", "cat"}, 0,
			[]string{"migrate: 2 materializations: 2 to migrate; 1 written\n"}, []string{"skipped"}},
		{"--out DIR with a file sink skipped", map[string]string{"cat/flow.yaml": "materializations:\n" + fileSink("acme/f", ` {bucket: "ENC[AES256_GCM,data:x]", uploadInterval: 15m, sops: {mac: x}}`) + snowflake("acme/a", sfImage)}, []string{"--out", "out", "cat"}, 2,
			[]string{"1 skipped (file sinks: --zero-file-sinks)", "schedtool: 1 file sink skipped, still paced by its interval: --zero-file-sinks"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, tc.files)
			r := schedtoolIn(t, dir, append([]string{"migrate"}, tc.args...)...)
			expect(t, r, tc.code, nil, tc.stderr)
			for _, s := range tc.not {
				if strings.Contains(r.stderr, s) {
					t.Errorf("stderr holds %q:\n%s", s, r.stderr)
				}
			}
		})
	}
}

// A file sink is never left stacked (docs/behaviour.md §7): without --zero-file-sinks
// it is untouched and the run asks for the flag (exit 2); with it, the
// model schedule and the zero interval are written in one group, census
// calls it migrated, and validate's off-enum finding on the 0s is info.
// The configs are sealed: a plaintext one cannot take the 0s, which Flow's
// config encryption refuses (issue 24).
func TestFileSinkNeedsZeroFileSinksEndToEnd(t *testing.T) {
	dir := t.TempDir()
	// Sealed configs: the zero goes through sops.overlay, which the
	// control plane publishes (a plaintext config's needs review:
	// TestPlaintextFileSinkEndToEnd).
	src := "materializations:\n" + fileSink("acme/f", " f.config.yaml") +
		strings.Replace(fileSink("acme/stacked", ` {bucket: "ENC[AES256_GCM,data:x]", uploadInterval: 15m, sops: {mac: x}}`), "    endpoint:", "    syncSchedule:\n      baseInterval: 1h\n    endpoint:", 1)
	cfg := "bucket: ENC[AES256_GCM,data:x]\nuploadInterval: 30m\nsops:\n  mac: x\n"
	writeTree(t, dir, map[string]string{"cat/flow.yaml": src, "cat/f.config.yaml": cfg})

	r := schedtoolIn(t, dir, "census", "-o", "csv", "cat")
	expect(t, r, 0, []string{"acme/f,ghcr.io/estuary/materialize-s3-csv,v1,uploadInterval,v2,file-interval,30m,false,false,ready (needs --zero-file-sinks),",
		"acme/stacked,ghcr.io/estuary/materialize-s3-csv,v1,uploadInterval,v2,file-interval,15m,true,false,stacked,"}, nil)
	r = schedtoolIn(t, dir, "census", "cat")
	expect(t, r, 0, []string{"(1 file sink ready only with migrate --zero-file-sinks)", "ready (needs --zero-file-sinks)  1\n"}, nil)

	r = schedtoolIn(t, dir, "migrate", "--write", "cat")
	expect(t, r, 2, nil, []string{"2 skipped (file sinks: --zero-file-sinks); 0 written\n",
		"schedtool: 2 file sinks skipped, still paced by their interval: --zero-file-sinks writes the materialization schedule and sets the interval to 0s in one change\n"})
	if got := string(mustRead(t, filepath.Join(dir, "cat/flow.yaml"))); got != src {
		t.Errorf("the source changed without --zero-file-sinks:\n%s", got)
	}
	if got := string(mustRead(t, filepath.Join(dir, "cat/f.config.yaml"))); got != cfg {
		t.Errorf("the config changed without --zero-file-sinks:\n%s", got)
	}

	r = schedtoolIn(t, dir, "migrate", "--write", "--zero-file-sinks", "cat")
	expect(t, r, 0, nil, []string{"written: cat/f.config.yaml\nwritten: cat/flow.yaml\nmigrate: 2 materializations: 2 to migrate; 2 written\n"})
	if got := string(mustRead(t, filepath.Join(dir, "cat/f.config.yaml"))); got != cfg+"  overlay:\n    uploadInterval: \"0s\"\n" {
		t.Errorf("config:\n%s", got)
	}
	flow := string(mustRead(t, filepath.Join(dir, "cat/flow.yaml")))
	if strings.Count(flow, "baseInterval: 30m") != 1 || strings.Count(flow, "baseInterval: 1h") != 1 || !strings.Contains(flow, `overlay: {uploadInterval: "0s"}`) {
		t.Errorf("source:\n%s", flow)
	}
	r = schedtoolIn(t, dir, "census", "-o", "csv", "cat")
	if strings.Count(r.stdout, ",migrated,") != 2 {
		t.Errorf("census after:\n%s", r.stdout)
	}
	r = schedtoolIn(t, dir, "validate", "--fail-on", "warning", "cat")
	expect(t, r, 0, []string{"info off-enum-schedule-value: uploadInterval \"0s\"", "a form built from the connector's schema offers only those values"}, nil)
	r = schedtoolIn(t, dir, "migrate", "--zero-file-sinks", "cat")
	expect(t, r, 0, nil, []string{"2 with nothing to do; 0 files to change"})
}

// Review reasons are grouped: a line per reason with its count, then its
// first 20 tasks in text, every one in -o json.
func TestMigrateReviewReasonsGroupedEndToEnd(t *testing.T) {
	var b strings.Builder
	b.WriteString("materializations:\n")
	for i := range 25 {
		b.WriteString(conflicting(fmt.Sprintf("acme/c%02d", i)))
	}
	b.WriteString(v2Materialization("acme/sealed", sfImage, ` {syncSchedule: {syncFrequency: "ENC[AES256_GCM,data:x]"}, sops: {mac: x}}`))
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"cat/flow.yaml": b.String()})
	r := schedtoolIn(t, dir, "migrate", "cat")
	expect(t, r, 2, nil, []string{"needs review: 26 tasks, 2 reasons\n  25 tasks: both a materialization syncSchedule",
		"    acme/c19 (cat/flow.yaml:", "    ... and 5 more (-o json lists them all)\n  1 task: the connector schedule is encrypted",
		"schedtool: 26 tasks need review\n"})
	if strings.Contains(r.stderr, "acme/c20") {
		t.Errorf("more than 20 tasks of a reason listed:\n%s", r.stderr)
	}
	r = schedtoolIn(t, dir, "migrate", "-o", "json", "cat")
	var doc struct {
		Summary struct {
			Reasons []struct {
				Action, Reason string
				Count          int
				Tasks          []string
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	rs := doc.Summary.Reasons
	if len(rs) != 2 || rs[0].Count != 25 || len(rs[0].Tasks) != 25 || rs[0].Action != "review" || rs[1].Count != 1 || rs[1].Tasks[0] != "acme/sealed" {
		t.Errorf("reasons: %+v", rs)
	}
}
