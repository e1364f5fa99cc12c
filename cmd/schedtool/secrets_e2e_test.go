package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// withSecret gives a task (as v2Materialization writes it) a secrets
// stanza of one secret (docs/behaviour.md §4.5).
func withSecret(task, name, pointer string) string {
	return strings.Replace(task, "    shards:", "    secrets:\n      "+name+": "+pointer+"\n    shards:", 1)
}

// secretCoveredName is the task secretCatalog writes.
const secretCoveredName = "acmeCo/c/materialize-snowflake"

// secretCatalog writes cat/flow.yaml in a new directory: the task of issue
// 31 §1, a V2 snowflake task on a 15m syncFrequency, with one secret.
func secretCatalog(t *testing.T, secret, pointer string) (dir, src string) {
	t.Helper()
	dir = t.TempDir()
	src = "materializations:\n" + withSecret(v2Materialization(secretCoveredName, sfImage, " {host: h, syncSchedule: {syncFrequency: 15m}}"), secret, pointer)
	writeTree(t, dir, map[string]string{"cat/flow.yaml": src})
	return dir, src
}

// Issue 31 §1: a V2 snowflake task whose secret covers its syncFrequency.
// Before, migrate wrote baseInterval 15m and "0s" ("1 to migrate"), which
// the secret overwrote at task start (the task stacked), and census then
// called it migrated. Now every command takes the schedule as unknown:
// validate names the secret, migrate leaves task and file untouched (exit
// 2, as for review), census says needs-review, explain names the secret.
func TestSecretCoveredScheduleEndToEnd(t *testing.T) {
	dir, src := secretCatalog(t, "acmeCo/c/snow-sched", "/syncSchedule/syncFrequency")

	r := runIn(t, dir, "validate", "cat")
	expect(t, r, 0, []string{"cat/flow.yaml:4:28: info secret-schedule: materialization " + secretCoveredName + ": secret acmeCo/c/snow-sched (at /syncSchedule/syncFrequency), which covers syncSchedule; Flow merges the secret's value there at task start",
		"0 errors, 0 warnings, 1 info in 1 materialization"}, nil)
	if strings.Contains(r.stdout, "connector-schedule-in-use") {
		t.Errorf("validate calls an unknown schedule a 15m delay:\n%s", r.stdout)
	}
	r = runIn(t, dir, "validate", "--fail-on", "info", "cat")
	expect(t, r, 2, []string{"info secret-schedule"}, nil)

	for _, args := range [][]string{{"migrate", "cat"}, {"migrate", "--write", "cat"}, {"migrate", "--write", "--resolve=model", "cat"}} {
		r = runIn(t, dir, args...)
		expect(t, r, 2, nil, []string{"migrate: 1 materialization: 1 needs review; 0 ", "set at task start by secret acmeCo/c/snow-sched (at /syncSchedule/syncFrequency)", "move the schedule out of the secret", "schedtool: 1 task needs review"})
		if r.stdout != "" || strings.Contains(r.stderr, "written:") {
			t.Errorf("%v changes something:\n%s\n%s", args, r.stdout, r.stderr)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, "cat/flow.yaml")); string(got) != src {
			t.Fatalf("%v rewrote the source:\n%s", args, got)
		}
	}

	r = runIn(t, dir, "census", "-o", "csv", "cat")
	expect(t, r, 0, []string{secretCoveredName + ",ghcr.io/estuary/materialize-snowflake,v4,syncSchedule,v2,secret,unknown,false,false,needs-review,"}, nil)
	r = runIn(t, dir, "census", "--fail-if-remaining", "cat")
	expect(t, r, 2, []string{"1 still relying on connector-side pacing"}, nil)

	r = runIn(t, dir, "explain", secretCoveredName, "cat")
	expect(t, r, 0, []string{"connector schedule:  secret, delay unknown\n",
		"connector secrets:   secret acmeCo/c/snow-sched (at /syncSchedule/syncFrequency), which covers syncSchedule: Flow merges its value there at task start",
		"who holds commits:   connector\n", "migration:           not-convertible: review (the connector schedule is set at task start by secret acmeCo/c/snow-sched"}, nil)

	// What the old migration left (the model schedule and "0s" under the
	// secret) is no migrated task: a conflict, and migrate, even with
	// --resolve=model, writes nothing under the secret.
	done := withModel(strings.Replace(src, "syncFrequency: 15m", "syncFrequency: \"0s\"", 1), "{baseInterval: 15m}")
	writeTree(t, dir, map[string]string{"cat/flow.yaml": done})
	r = runIn(t, dir, "census", "-o", "csv", "cat")
	expect(t, r, 0, []string{",v2,secret,unknown,true,false,conflict,"}, nil)
	r = runIn(t, dir, "validate", "cat")
	expect(t, r, 2, []string{"error sync-schedule-conflict", "set the connector's off state in the secret that covers it", "info secret-schedule"}, nil)
	r = runIn(t, dir, "migrate", "--write", "--resolve=model", "cat")
	expect(t, r, 2, nil, []string{"migrate: 1 materialization: 1 needs review; 0 written", "set at task start by secret acmeCo/c/snow-sched"})
	if got, _ := os.ReadFile(filepath.Join(dir, "cat/flow.yaml")); string(got) != done {
		t.Fatalf("migrate --resolve=model rewrote the source:\n%s", got)
	}
}

// Near miss: a secret elsewhere in the config leaves the schedule known:
// the task migrates as any other, and census calls it ready, then migrated.
func TestSecretElsewhereMigratesEndToEnd(t *testing.T) {
	dir, _ := secretCatalog(t, "acmeCo/c/snow-password", "/credentials/password")

	r := runIn(t, dir, "validate", "cat")
	expect(t, r, 0, []string{"info connector-schedule-in-use"}, nil)
	if strings.Contains(r.stdout, "secret-schedule") {
		t.Errorf("a secret elsewhere covers the schedule:\n%s", r.stdout)
	}
	r = runIn(t, dir, "census", "-o", "csv", "cat")
	expect(t, r, 0, []string{",v2,fixed,15m,false,false,ready,"}, nil)
	r = runIn(t, dir, "migrate", "--write", "cat")
	expect(t, r, 0, nil, []string{"written: cat/flow.yaml"})
	r = runIn(t, dir, "census", "-o", "csv", "cat")
	expect(t, r, 0, []string{",v2,zero,0s,true,false,migrated,"}, nil)
}

// A stored spec whose secret covers the schedule (the config root here)
// is read the slow way, not by its row's shape: census says needs-review
// and migrate --out writes no migrated row for it.
func TestSecretStoredSpecEndToEnd(t *testing.T) {
	dir := t.TempDir()
	row := func(name, secrets string) string {
		return `{"catalog_name":"` + name + `","spec_type":"materialization","last_pub_id":"0123456789abcdef","spec":{` + secrets +
			`"shards":{"flags":{"enable-runtime-v2":"true"}},"endpoint":{"connector":{"image":"` + sfImage + `","config":{"host":"h","syncSchedule":{"syncFrequency":"15m"}}}},"bindings":[]}}` + "\n"
	}
	// The same shape twice, but for the secret: a shape cache that did not
	// see it would give both the first row's status.
	dump := row("acmeCo/a/plain", "") + row("acmeCo/b/secret", `"secrets":{"acmeCo/b/all":""},`)
	writeTree(t, dir, map[string]string{"live_specs.ndjson": dump})

	r := runIn(t, dir, "census", "-o", "csv", "live_specs.ndjson")
	expect(t, r, 0, []string{"acmeCo/a/plain,ghcr.io/estuary/materialize-snowflake,v4,syncSchedule,v2,fixed,15m,false,false,ready,",
		"acmeCo/b/secret,ghcr.io/estuary/materialize-snowflake,v4,syncSchedule,v2,secret,unknown,false,false,needs-review,"}, nil)
	r = runIn(t, dir, "validate", "live_specs.ndjson")
	expect(t, r, 0, []string{"info secret-schedule: materialization acmeCo/b/secret: secret acmeCo/b/all (at the config root), which covers syncSchedule"}, nil)
	r = runIn(t, dir, "migrate", "--out", "out.ndjson", "live_specs.ndjson")
	expect(t, r, 2, nil, []string{"set at task start by secret acmeCo/b/all (at the config root)"})
	out, err := os.ReadFile(filepath.Join(dir, "out.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"acmeCo/a/plain"`) || strings.Contains(string(out), `"acmeCo/b/secret"`) {
		t.Errorf("migrated rows:\n%s", out)
	}
}

// off-enum-schedule-value in a config that uses secrets is a warning, not
// an error: Flow takes such a config as schema-invalid before the merge
// (docs/behaviour.md §4.5). Near miss: the same value without secrets.
func TestSecretOffEnumIsAWarningEndToEnd(t *testing.T) {
	dir := t.TempDir()
	task := v2Materialization("acmeCo/c/t", sfImage, " {host: h, syncSchedule: {syncFrequency: 45m}}")
	writeTree(t, dir, map[string]string{"with/flow.yaml": "materializations:\n" + withSecret(task, "acmeCo/c/pw", "/credentials/password"), "without/flow.yaml": "materializations:\n" + task})
	r := runIn(t, dir, "validate", "with")
	expect(t, r, 0, []string{"warning off-enum-schedule-value", "the task uses secrets, so Flow does not hold its stored config to that schema"}, nil)
	r = runIn(t, dir, "validate", "without")
	expect(t, r, 2, []string{"error off-enum-schedule-value"}, nil)
}

// docs/rules.md's example of secret-schedule is what validate writes on
// the input it names, run in its directory.
func TestSecretScheduleDocExample(t *testing.T) {
	r := runIn(t, "testdata/inputs/secrets", "validate", "flow.yaml")
	expect(t, r, 0, []string{"0 errors, 0 warnings, 1 info in 1 materialization"}, nil)
	line, _, _ := strings.Cut(r.stdout, "\n")
	if !strings.HasPrefix(line, "flow.yaml:7:28: info secret-schedule: ") || !strings.Contains(string(mustRead(t, "../../docs/rules.md")), "\n"+line+"\n") {
		t.Errorf("docs/rules.md does not show validate's finding:\n%s", line)
	}
}
