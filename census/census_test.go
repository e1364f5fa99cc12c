package census

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	dumpgen "github.com/estuary/schedtool/bench/gen"
	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/schedule/connector"
)

func mat(name, flags, sched, image, config string) string {
	s := "  " + name + ":\n"
	if flags != "" {
		s += "    shards: {flags: {enable-runtime-v2: " + flags + "}}\n"
	}
	if sched != "" {
		s += "    syncSchedule: " + sched + "\n"
	}
	s += "    endpoint: {connector: {image: " + image + ", config: " + config + "}}\n    bindings: []\n"
	return s
}

const sf = "ghcr.io/estuary/materialize-snowflake:v4"

// withSecret gives the task of mat a secrets stanza of one secret at
// pointer (docs/behaviour.md §4.5).
func withSecret(task, pointer string) string {
	name, _, _ := strings.Cut(strings.TrimSpace(task), ":")
	return strings.Replace(task, ":\n", ":\n    secrets: {"+name+"-secret: "+pointer+"}\n", 1)
}

func runCensus(t *testing.T, src string) ([]Row, *Totals) {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "flow.yaml")
	if err := os.WriteFile(p, []byte("materializations:\n"+src), 0o644); err != nil {
		t.Fatal(err)
	}
	inputs, err := input.Resolve([]string{p}, catalog.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var rows []Row
	c := &Census{Planner: &plan.Planner{Registry: connector.Builtin()}}
	w := &collect{rows: &rows}
	tot, err := c.Run(inputs, catalog.DefaultOptions(), w)
	if err != nil {
		t.Fatal(err)
	}
	return rows, tot
}

type collect struct{ rows *[]Row }

func (c *collect) Row(r *Row)             { *c.rows = append(*c.rows, *r) }
func (c *collect) Unreadable(*Unreadable) {}
func (c *collect) End(*Totals) error      { return nil }

// Every status, and the precedence between them (docs/behaviour.md §8).
func TestStatuses(t *testing.T) {
	for _, tc := range []struct {
		name, src, status, kind, delay string
	}{
		// 0: a model schedule that does not work is needs-review first,
		// whatever the runtime and the connector (docs/behaviour.md §8).
		{"needs-review first: a model schedule Flow refuses (timezone without windows)", mat("a/b1", `"true"`, "{baseInterval: 4h, timezone: America/New_York}", sf, "{host: h}"), "needs-review", "default", "30m"},
		{"needs-review first: an empty model schedule", mat("a/b2", `"true"`, "{}", sf, "{syncSchedule: {syncFrequency: 0s}}"), "needs-review", "zero", "0s"},
		{"needs-review first: a model schedule false", mat("a/b3", `"true"`, "false", sf, "{syncSchedule: {syncFrequency: 0s}}"), "needs-review", "zero", "0s"},
		{"needs-review first: an interval schedtool cannot evaluate", mat("a/b4", `"true"`, "{baseInterval: 99999999999h}", sf, "{syncSchedule: {syncFrequency: 0s}}"), "needs-review", "zero", "0s"},
		{"needs-review first: before blocked-v1", mat("a/b5", "", "{}", sf, "{host: h}"), "needs-review", "default", "30m"},
		{"needs-review first: before conflict", mat("a/b6", `"true"`, "{baseInterval: 1h, timeZone: UTC}", sf, "{syncSchedule: {syncFrequency: 1h}}"), "needs-review", "fixed", "1h"},
		{"near miss needs-review: a model schedule null is none", mat("a/b7", `"true"`, "null", sf, "{syncSchedule: {syncFrequency: 0s}}"), "unaffected", "zero", "0s"},
		// 1: what rolling back the V2 flag leaves: nothing paces it.
		{"blocked-v1: V1 with a model schedule and a zero connector", mat("a/v1z", "", "{baseInterval: 1h}", sf, "{syncSchedule: {syncFrequency: 0s}}"), "blocked-v1", "zero", "0s"},
		{"near miss blocked-v1: V1, zero connector, no model schedule", mat("a/v1u", "", "", sf, "{syncSchedule: {syncFrequency: 0s}}"), "unaffected", "zero", "0s"},
		{"blocked-v1: V1 with the default", mat("a/v1", "", "", sf, "{host: h}"), "blocked-v1", "default", "30m"},
		{"blocked-v1 wins over conflict: V1 with a model schedule", mat("a/v1m", "", "{baseInterval: 1h}", sf, "{syncSchedule: {syncFrequency: 1h}}"), "blocked-v1", "fixed", "1h"},
		{"blocked-v1 when the delay is unknown", mat("a/v1s", "", "", sf, `{syncSchedule: {syncFrequency: "ENC[AES256_GCM,data:x]"}, sops: {mac: x}}`), "blocked-v1", "sealed", "unknown"},
		{"conflict", mat("a/c", `"true"`, "{baseInterval: 1h}", sf, "{syncSchedule: {syncFrequency: 30m}}"), "conflict", "fixed", "30m"},
		{"conflict when sealed", mat("a/cs", `"true"`, "{baseInterval: 1h}", sf, `{syncSchedule: {syncFrequency: "ENC[AES256_GCM,data:x]"}, sops: {mac: x}}`), "conflict", "sealed", "unknown"},
		{"stacked: the default", mat("a/s", `"true"`, "{baseInterval: 1h}", sf, "{host: h}"), "stacked", "default", "30m"},
		{"stacked: a file sink with a model schedule", mat("a/fs", `"true"`, "{baseInterval: 1h}", "ghcr.io/estuary/materialize-s3-parquet:v1", "{uploadInterval: 15m}"), "stacked", "file-interval", "15m"},
		{"migrated", mat("a/m", `"true"`, "{baseInterval: 1h}", sf, "{syncSchedule: {syncFrequency: 0s}}"), "migrated", "zero", "0s"},
		{"unaffected", mat("a/u", `"true"`, "", sf, "{syncSchedule: {syncFrequency: 0s}}"), "unaffected", "zero", "0s"},
		{"ready: fixed", mat("a/r", `"true"`, "", sf, "{syncSchedule: {syncFrequency: 2h}}"), "ready", "fixed", "2h"},
		{"ready: alternating", mat("a/ra", `"true"`, "", sf, `{syncSchedule: {syncFrequency: 15m, timezone: UTC, fastSyncStartTime: "09:00", fastSyncStopTime: "17:00"}}`), "ready", "alternating", "4h"},
		{"ready: Local timezone on V2 (the container's UTC)", mat("a/l", `"true"`, "", sf, `{syncSchedule: {syncFrequency: 15m, timezone: Local, fastSyncStartTime: "09:00", fastSyncStopTime: "17:00"}}`), "ready", "alternating", "4h"},
		{"ready: a top-level SyncSchedule is read", mat("a/fold", `"true"`, "", sf, `{SyncSchedule: {syncFrequency: 0s}}`), "unaffected", "zero", "0s"},
		// A V2 file sink converts only with --zero-file-sinks, which census
		// has not: its own status, counted apart (docs/behaviour.md §8).
		{"ready (needs --zero-file-sinks): a V2 file sink, sealed", mat("a/f", `"true"`, "", "ghcr.io/estuary/materialize-s3-csv:v1", `{bucket: "ENC[AES256_GCM,data:x]", uploadInterval: 15m, sops: {mac: x}}`), ReadyNeedsFlag, "file-interval", "15m"},
		// A plaintext uploadInterval config cannot take "0s", off its enum:
		// the control plane refuses to publish it (docs/behaviour.md §8).
		{"near miss ready (needs --zero-file-sinks): a plaintext file sink", mat("a/fp", `"true"`, "", "ghcr.io/estuary/materialize-s3-csv:v1", "{uploadInterval: 15m}"), "needs-review", "file-interval", "15m"},
		{"ready (needs --zero-file-sinks): an ISO 8601 file sink", mat("a/fi", `"true"`, "", "ghcr.io/estuary/materialize-s3-iceberg:v1", "{upload_interval: PT1H}"), ReadyNeedsFlag, "file-interval", "1h"},
		{"near miss ready (needs --zero-file-sinks): V1 file sink is blocked-v1", mat("a/f1", "", "", "ghcr.io/estuary/materialize-s3-csv:v1", "{uploadInterval: 15m}"), "blocked-v1", "file-interval", "15m"},
		{"near miss ready (needs --zero-file-sinks): a sealed file sink interval", mat("a/fr", `"true"`, "", "ghcr.io/estuary/materialize-s3-csv:v1", `{uploadInterval: "ENC[AES256_GCM,data:x]", sops: {mac: x}}`), "needs-review", "sealed", "unknown"},
		{"needs-review: updateDelay on a current tag", mat("a/ud", `"true"`, "", sf, `{advanced: {updateDelay: null}}`), "needs-review", "invalid", "unknown"},
		{"needs-review: sealed on V2", mat("a/ns", `"true"`, "", sf, `{syncSchedule: {syncFrequency: "ENC[AES256_GCM,data:x]"}, sops: {mac: x}}`), "needs-review", "sealed", "unknown"},
		{"needs-review: invalid", mat("a/ni", `"true"`, "", sf, "{syncSchedule: {syncFrequency: soon}}"), "needs-review", "invalid", "unknown"},
		// A secret over the schedule (docs/behaviour.md §4.5): unknown, never
		// migrated; a secret elsewhere changes nothing.
		{"needs-review: a secret over syncFrequency", withSecret(mat("a/s1", `"true"`, "", sf, "{syncSchedule: {syncFrequency: 15m}}"), "/syncSchedule/syncFrequency"), "needs-review", "secret", "unknown"},
		{"conflict, not migrated: a model schedule and 0s under a secret", withSecret(mat("a/s2", `"true"`, "{baseInterval: 15m}", sf, `{syncSchedule: {syncFrequency: "0s"}}`), "/syncSchedule/syncFrequency"), "conflict", "secret", "unknown"},
		{"blocked-v1: V1 with a secret over the schedule", withSecret(mat("a/s3", "", "", sf, "{host: h}"), `""`), "blocked-v1", "secret", "unknown"},
		{"near miss needs-review: a secret elsewhere", withSecret(mat("a/s4", `"true"`, "", sf, "{syncSchedule: {syncFrequency: 15m}}"), "/credentials/password"), "ready", "fixed", "15m"},
		{"needs-review: offset the runtime refuses", mat("a/no", `"true"`, "", sf, `{syncSchedule: {syncFrequency: 15m, timezone: "+24:00", fastSyncStartTime: "09:00", fastSyncStopTime: "17:00"}}`), "needs-review", "alternating", "4h"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows, tot := runCensus(t, tc.src)
			if len(rows) != 1 {
				t.Fatalf("rows: %+v", rows)
			}
			r := rows[0]
			if r.Status != tc.status || r.Kind != tc.kind || r.Delay != tc.delay {
				t.Errorf("got status=%s kind=%s delay=%s (%s); want %s %s %s", r.Status, r.Kind, r.Delay, r.Reason, tc.status, tc.kind, tc.delay)
			}
			if (r.Status == "needs-review" || r.Status == "blocked-v1") && r.Reason == "" {
				t.Errorf("%s without a reason", r.Status)
			}
			wantRemaining := 1
			if r.Status == "migrated" || r.Status == "unaffected" {
				wantRemaining = 0
			}
			if tot.Remaining != wantRemaining {
				t.Errorf("remaining %d", tot.Remaining)
			}
			if line := SummaryLine(tot); strings.Contains(line, "--zero-file-sinks") != (r.Status == ReadyNeedsFlag) {
				t.Errorf("summary %q", line)
			}
		})
	}
}

func TestGroupsAndOldestTag(t *testing.T) {
	src := mat("a/1", `"true"`, "", "ghcr.io/estuary/materialize-snowflake:v4", "{syncSchedule: {syncFrequency: 1h}}") +
		mat("a/2", `"true"`, "", "ghcr.io/estuary/materialize-snowflake:v2", "{advanced: {updateDelay: 1h}}") +
		mat("a/3", `"true"`, "", "ghcr.io/estuary/materialize-snowflake:v10", "{syncSchedule: {syncFrequency: 1h}}") +
		mat("a/4", `"true"`, "", "ghcr.io/estuary/materialize-snowflake:v1", "{syncSchedule: {syncFrequency: 0s}}") +
		mat("a/5", `"true"`, "", "ghcr.io/estuary/materialize-postgres:v1", "{}")
	rows, tot := runCensus(t, src)
	if len(rows) != 4 {
		t.Fatalf("%d rows: postgres is not a scheduling image", len(rows))
	}
	img := "ghcr.io/estuary/materialize-snowflake"
	if tot.OldestTag[img] != "v2" {
		t.Errorf("oldest tag in use %q, want v2 (v1 is unaffected, v10 is newer than v2)", tot.OldestTag[img])
	}
	want := map[string]int{"ready": 2, "needs-review": 1, "unaffected": 1}
	if diff := cmp.Diff(want, tot.ByStatus); diff != "" {
		t.Errorf("by status (-want +got):\n%s", diff)
	}
	if tot.ByImage[img] != 4 || tot.RemainingByImage[img] != 3 || tot.ByRuntime["v2"] != 4 {
		t.Errorf("groups: %+v", tot)
	}
}

func TestCSVAndMarkdownEscaping(t *testing.T) {
	var b bytes.Buffer
	w, _ := NewWriter("csv", &b, io.Discard, Options{})
	w.Row(&Row{Task: "=HYPERLINK(\"x\")", Image: "img", Reason: "a, \"quoted\"\nline", Status: "ready"})
	w.End(&Totals{})
	// Quotes are RFC 4180's; a newline or another control character is
	// written as an escape, so that no cell starts a line of its own.
	want := "task,image,tag,family,runtime,kind,delay,model,disabled,status,reason,file,line,crash\n\"'=HYPERLINK(\"\"x\"\")\",img,,,,,,false,false,ready,\"a, \"\"quoted\"\"\\nline\",,0,\n"
	if b.String() != want {
		t.Errorf("csv:\n%s\nwant:\n%s", b.String(), want)
	}
	if got := mdCell("a|b\nc\x1b"); got != `a\|b\\nc\\x1b` {
		t.Errorf("mdCell = %q", got)
	}
}

// The shape cache never changes a census: every format, with and without.
func TestShapeCacheChangesNothing(t *testing.T) {
	var dump bytes.Buffer
	if err := dumpgen.Write(&dump, 3000, 7); err != nil {
		t.Fatal(err)
	}
	fixture, _ := os.ReadFile("../fixtures/live_specs.ndjson")
	dump.Write(fixture)
	// A row of an unknown spec type, of a shape already decided: unreadable.
	for _, typ := range []string{"materialization", "wat", "capture"} {
		fmt.Fprintf(&dump, `{"catalog_name":"acmeCo/%s","spec_type":%q,"spec":{"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{}}}}}`+"\n", typ, typ)
	}
	// Rows of one shape but for their model schedule: one that works
	// (migrated), then ones that do not (needs-review, docs/behaviour.md §8).
	for i, model := range []string{`{"baseInterval":"1h"}`, `{}`, `false`, `{"baseInterval":"4h","timezone":"UTC"}`} {
		fmt.Fprintf(&dump, `{"catalog_name":"acmeCo/model%d","spec_type":"materialization","spec":{"shards":{"flags":{"enable-runtime-v2":"true"}},"syncSchedule":%s,"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{"syncSchedule":{"syncFrequency":"0s"}}}}}}`+"\n", i, model)
	}
	path := filepath.Join(t.TempDir(), "d.ndjson")
	os.WriteFile(path, dump.Bytes(), 0o644)
	// The same rows as flowctl raw get prints them, one field a line: a
	// task decided by its shape is still at its spec's line.
	var pretty bytes.Buffer
	pretty.WriteString("[\n")
	for i, row := range bytes.Split(bytes.TrimSpace(dump.Bytes()), []byte("\n")) {
		if !json.Valid(row) {
			continue
		}
		if i > 0 {
			pretty.WriteString(",\n")
		}
		pretty.WriteString("  ")
		json.Indent(&pretty, row, "  ", "  ")
	}
	pretty.WriteString("\n]\n")
	raw := filepath.Join(t.TempDir(), "raw.json")
	os.WriteFile(raw, pretty.Bytes(), 0o644)
	for _, p := range []string{path, raw} {
		shapeCacheChangesNothing(t, p)
	}
}

func shapeCacheChangesNothing(t *testing.T, path string) {
	inputs, err := input.Resolve([]string{path}, catalog.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range Formats {
		run := func(noCache bool) string {
			var out bytes.Buffer
			w, _ := NewWriter(format, &out, io.Discard, Options{})
			c := &Census{Planner: &plan.Planner{Registry: connector.Builtin()}, NoCache: noCache}
			tot, err := c.Run(inputs, catalog.DefaultOptions(), w)
			if err != nil {
				t.Fatal(err)
			}
			w.End(tot)
			return out.String()
		}
		a, b := run(false), run(true)
		if a != b {
			t.Errorf("%s: -o %s differs with the shape cache:\n%s", path, format, cmp.Diff(b, a))
		}
		if format == "json" && strings.Count(a, `"line":`) < 1000 {
			t.Errorf("%s: %d tasks", path, strings.Count(a, `"line":`))
		}
	}
}
