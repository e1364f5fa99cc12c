package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// The registry of issue 23 §4: snowflake (and here an s3-csv file sink)
// carry the boilerplate deferral from v5.
const deferralRegistry = `{"images": [
  {"image": "ghcr.io/estuary/materialize-snowflake", "family": "syncSchedule", "deferralSince": "v5"},
  {"image": "ghcr.io/estuary/materialize-s3-csv", "family": "uploadInterval", "enum": ["1s", "1m", "5m", "15m", "30m", "1h"], "deferralSince": "v5"}]}`

// withModel adds a materialization syncSchedule (flow style) to a task.
func withModel(task, model string) string {
	return strings.Replace(task, "    endpoint:", "    syncSchedule: "+model+"\n    endpoint:", 1)
}

// v1Task is a V1 materialization on image whose config value (following
// "config:") is config.
func v1Task(name, image, config string) string {
	return strings.Replace(v2Materialization(name, image, config), "    shards:\n      flags:\n        enable-runtime-v2: \"true\"\n", "", 1)
}

// The deferral example of issue 23 §4 reads migrated, runtime-held and
// nothing to edit in every command (docs/behaviour.md §6): a :v5 V2 task
// with a model schedule and no connector syncSchedule. Before, only
// validate honoured the deferral: census said stacked (the gate failed),
// explain both (stacked), and migrate proposed an edit.
func TestDeferralOneDecisionEndToEnd(t *testing.T) {
	dir := t.TempDir()
	src := "materializations:\n" + withModel(v2Materialization("acme/def", "ghcr.io/estuary/materialize-snowflake:v5", " {host: h}"), "{baseInterval: 1h}")
	writeTree(t, dir, map[string]string{"reg.json": deferralRegistry, "cat/flow.yaml": src})
	reg := []string{"--connectors", "reg.json"}
	with := func(args ...string) []string { return append(append(args[:1:1], reg...), args[1:]...) }

	r := runIn(t, dir, with("validate", "--fail-on", "info", "cat")...)
	expect(t, r, 0, []string{"0 errors, 0 warnings, 0 infos in 1 materialization"}, nil)
	r = runIn(t, dir, with("census", "-o", "csv", "cat")...)
	expect(t, r, 0, []string{"acme/def,ghcr.io/estuary/materialize-snowflake,v5,syncSchedule,v2,default,0s,true,false,migrated,"}, nil)
	r = runIn(t, dir, with("census", "--fail-if-remaining", "cat")...)
	expect(t, r, 0, []string{"0 still relying on connector-side pacing"}, nil)
	r = runIn(t, dir, with("explain", "acme/def", "cat")...)
	expect(t, r, 0, []string{"  who holds commits:   runtime\n", "delay off: image tag v5 defers the connector's delay to the runtime's schedule", "migration:           migrated: none"}, nil)
	if strings.Contains(r.stdout, "can still delay") || strings.Contains(r.stdout, "stacked") {
		t.Errorf("explain still says the connector delays:\n%s", r.stdout)
	}
	r = runIn(t, dir, with("explain", "-o", "json", "acme/def", "cat")...)
	var e map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &e); err != nil || e["holds"] != "runtime" || e["connectorDelay"] != "0s" || e["status"] != "migrated" {
		t.Errorf("explain -o json: %v\n%s", err, r.stdout)
	}
	r = runIn(t, dir, with("migrate", "cat")...)
	expect(t, r, 0, nil, []string{"1 with nothing to do; 0 files to change"})
	if r.stdout != "" {
		t.Errorf("migrate proposes an edit:\n%s", r.stdout)
	}

	// Near miss: the tag before the deferral stacks, in every command.
	old := strings.Replace(src, ":v5", ":v4", 1)
	writeTree(t, dir, map[string]string{"cat/flow.yaml": old})
	r = runIn(t, dir, with("validate", "cat")...)
	expect(t, r, 0, []string{"warning ack-delay-stacks"}, nil)
	r = runIn(t, dir, with("census", "-o", "csv", "cat")...)
	expect(t, r, 0, []string{",default,30m,true,false,stacked,"}, nil)
	r = runIn(t, dir, with("explain", "acme/def", "cat")...)
	expect(t, r, 0, []string{"who holds commits:   both (stacked)"}, nil)
}

// On a deferral tag a file sink gets the model schedule alone: its
// required interval stays (the shim turns it off), and the task is then
// migrated (docs/behaviour.md §7). Before, it was skipped for want of
// --zero-file-sinks, or given "0s" off its enum.
func TestDeferralFileSinkEndToEnd(t *testing.T) {
	dir := t.TempDir()
	cfg := "bucket: b\nuploadInterval: 15m\n"
	src := "materializations:\n" + v2Materialization("acme/fs", "ghcr.io/estuary/materialize-s3-csv:v5", " fs.config.yaml")
	writeTree(t, dir, map[string]string{"reg.json": deferralRegistry, "cat/flow.yaml": src, "cat/fs.config.yaml": cfg})
	r := runIn(t, dir, "census", "-o", "csv", "--connectors", "reg.json", "cat")
	expect(t, r, 0, []string{",file-interval,15m,false,false,ready,"}, nil)
	r = runIn(t, dir, "migrate", "--write", "--root", "cat", "--connectors", "reg.json", "cat")
	expect(t, r, 0, nil, []string{"written: cat/flow.yaml\nmigrate: 1 materialization: 1 to migrate; 1 written\n"})
	if got := string(mustRead(t, filepath.Join(dir, "cat/fs.config.yaml"))); got != cfg {
		t.Errorf("the required interval changed:\n%s", got)
	}
	if got := string(mustRead(t, filepath.Join(dir, "cat/flow.yaml"))); !strings.Contains(got, "syncSchedule:\n      baseInterval: 15m\n") {
		t.Errorf("no model schedule:\n%s", got)
	}
	r = runIn(t, dir, "census", "-o", "csv", "--fail-if-remaining", "--connectors", "reg.json", "cat")
	expect(t, r, 0, []string{",file-interval,0s,true,false,migrated,"}, nil)
	r = runIn(t, dir, "explain", "--connectors", "reg.json", "acme/fs", "cat")
	expect(t, r, 0, []string{"who holds commits:   runtime\n"}, nil)
	r = runIn(t, dir, "migrate", "--root", "cat", "--connectors", "reg.json", "cat")
	expect(t, r, 0, nil, []string{"1 with nothing to do; 0 files to change"})
}

// A model schedule that does not decode and validate (Flow refuses it,
// or schedtool cannot evaluate it) is no model schedule: census says
// needs-review and the gate fails, migrate --write leaves the task (its
// connector config untouched), validate says what is wrong and nothing
// about zeroing the connector. Before, any non-null syncSchedule counted:
// migrate zeroed the connector beside it and census said migrated.
func TestBrokenModelScheduleEndToEnd(t *testing.T) {
	broken := map[string]string{
		"acme/tz":    "{baseInterval: 4h, timezone: America/New_York}",
		"acme/empty": "{}",
		"acme/false": "false",
		"acme/huge":  "{baseInterval: 99999999999h}",
	}
	files := map[string]string{}
	src := "materializations:\n"
	for _, name := range []string{"acme/empty", "acme/false", "acme/huge", "acme/tz"} {
		file := strings.TrimPrefix(name, "acme/") + ".config.yaml"
		files["cat/"+file] = "host: h\n" // the 30m default
		src += withModel(v2Materialization(name, sfImage, " "+file), broken[name])
	}
	// Beside a zero connector: it was "migrated", and the gate passed.
	src += withModel(v2Materialization("acme/zero", sfImage, ` {host: h, syncSchedule: {syncFrequency: "0s"}}`), "{}")
	files["cat/flow.yaml"] = src
	dir := t.TempDir()
	writeTree(t, dir, files)

	r := runIn(t, dir, "census", "-o", "csv", "cat")
	for _, name := range []string{"acme/empty", "acme/false", "acme/huge", "acme/tz", "acme/zero"} {
		if !strings.Contains(r.stdout, name+",") || !strings.Contains(r.stdout[strings.Index(r.stdout, name+","):], ",needs-review,\"the materialization syncSchedule does not work (invalid sync schedule: ") {
			t.Errorf("census: %s is not needs-review:\n%s", name, r.stdout)
		}
	}
	r = runIn(t, dir, "census", "--fail-if-remaining", "cat")
	expect(t, r, 2, []string{"5 still relying on connector-side pacing"}, nil)

	r = runIn(t, dir, "migrate", "--write", "--root", "cat", "cat")
	expect(t, r, 2, nil, []string{"5 need review; 0 written\n", "2 tasks: the materialization syncSchedule does not work (invalid sync schedule: missing field `baseInterval`)", "zeroing the connector beside it would leave the task unpaced"})
	for p, want := range files {
		if got := string(mustRead(t, filepath.Join(dir, p))); got != want {
			t.Errorf("%s changed:\n%s", p, got)
		}
	}

	r = runIn(t, dir, "validate", "cat")
	expect(t, r, 2, []string{"error invalid-sync-schedule: invalid sync schedule: 'timezone' applies only to windows",
		"error invalid-sync-schedule: invalid sync schedule: missing field `baseInterval`",
		"error invalid-sync-schedule: invalid sync schedule: invalid type: boolean, expected object",
		"is longer than schedtool can evaluate"}, nil)
	if strings.Contains(r.stdout, "ack-delay-stacks") {
		t.Errorf("validate tells to zero the connector beside a schedule that does not work:\n%s", r.stdout)
	}
	r = runIn(t, dir, "explain", "acme/tz", "cat")
	expect(t, r, 0, []string{"model syncSchedule:  (invalid)", "who holds commits:   connector\n", "invalid-model-schedule: review (the materialization syncSchedule does not work"}, nil)
}

// A V1 task with a model schedule and a zero connector (what rolling back
// the V2 flag leaves) has no pacing: census says blocked-v1 and the gate
// fails, validate and explain say so, and migrate --enable-runtime-v2
// sets the flag. Before, census said migrated and migrate "nothing to do".
func TestV1RollbackEndToEnd(t *testing.T) {
	dir := t.TempDir()
	src := "materializations:\n" + withModel(v1Task("acme/back", sfImage, ` {host: h, syncSchedule: {syncFrequency: "0s"}}`), "{baseInterval: 1h}")
	writeTree(t, dir, map[string]string{"cat/flow.yaml": src})

	r := runIn(t, dir, "census", "-o", "csv", "cat")
	expect(t, r, 0, []string{"acme/back,ghcr.io/estuary/materialize-snowflake,v4,syncSchedule,v1,zero,0s,true,false,blocked-v1,\"a V1 task with a materialization syncSchedule and no connector delay: the V1 runtime ignores the syncSchedule, so nothing paces its commits; migrate --enable-runtime-v2"}, nil)
	r = runIn(t, dir, "census", "--fail-if-remaining", "cat")
	expect(t, r, 2, []string{"1 still relying on connector-side pacing"}, nil)
	r = runIn(t, dir, "validate", "cat")
	expect(t, r, 2, []string{"error requires-runtime-v2: ", "nothing paces its commits (census: blocked-v1): schedtool migrate --enable-runtime-v2 sets the flag"}, nil)
	r = runIn(t, dir, "explain", "acme/back", "cat")
	expect(t, r, 0, []string{"who holds commits:   none\n", "blocked-v1: the V1 runtime ignores the materialization syncSchedule; migrate --enable-runtime-v2", "migration:           blocked-v1: skip ("}, nil)
	r = runIn(t, dir, "migrate", "--root", "cat", "cat")
	expect(t, r, 2, nil, []string{"1 skipped (V1)", "1 V1 task skipped that nothing paces", "--enable-runtime-v2 moves it to the V2 runtime"})

	r = runIn(t, dir, "migrate", "--write", "--enable-runtime-v2", "--root", "cat", "cat")
	expect(t, r, 0, nil, []string{"written: cat/flow.yaml\nmigrate: 1 materialization: 1 to migrate; 1 written\n"})
	got := string(mustRead(t, filepath.Join(dir, "cat/flow.yaml")))
	if !strings.Contains(got, "enable-runtime-v2: \"true\"") || strings.Count(got, "baseInterval") != 1 {
		t.Errorf("after --enable-runtime-v2:\n%s", got)
	}
	r = runIn(t, dir, "census", "-o", "csv", "--fail-if-remaining", "cat")
	expect(t, r, 0, []string{",v2,zero,0s,true,false,migrated,"}, nil)
	r = runIn(t, dir, "explain", "acme/back", "cat")
	expect(t, r, 0, []string{"who holds commits:   runtime\n"}, nil)
}

// A plaintext uploadInterval config cannot take "0s": it is off the
// connector's enum, and the control plane refuses to publish it. So
// migrate --zero-file-sinks leaves it (needs review, naming the two ways
// out) and census says needs-review; a sealed config, written through
// sops.overlay, still migrates. Before, migrate wrote "0s" into the
// plaintext config, which flowctl then refused.
func TestPlaintextFileSinkEndToEnd(t *testing.T) {
	dir := t.TempDir()
	plain := "bucket: b\nuploadInterval: 15m\n"
	// A sealed config whose interval is not encrypted (encrypted_regex):
	// schedtool reads it without sops, and writes only sops.overlay.
	sealed := "bucket: ENC[AES256_GCM,data:x]\nuploadInterval: 15m\nsops:\n  mac: x\n  encrypted_regex: ^bucket$\n"
	src := "materializations:\n" + fileSink("acme/plain", " plain.config.yaml") + fileSink("acme/sealed", " sealed.config.yaml")
	writeTree(t, dir, map[string]string{"cat/flow.yaml": src, "cat/plain.config.yaml": plain, "cat/sealed.config.yaml": sealed})

	r := runIn(t, dir, "census", "-o", "csv", "cat")
	expect(t, r, 0, []string{"acme/plain,ghcr.io/estuary/materialize-s3-csv,v1,uploadInterval,v2,file-interval,15m,false,false,needs-review,\"a file sink with a plaintext config",
		"acme/sealed,ghcr.io/estuary/materialize-s3-csv,v1,uploadInterval,v2,file-interval,15m,false,false,ready (needs --zero-file-sinks),"}, nil)

	r = runIn(t, dir, "migrate", "--write", "--zero-file-sinks", "--root", "cat", "cat")
	expect(t, r, 2, nil, []string{"written: cat/flow.yaml\nwritten: cat/sealed.config.yaml\n", "1 to migrate, 1 needs review; 2 written",
		`a file sink with a plaintext config: uploadInterval "0s", the only value that turns its interval off, is not among its published values, so flowctl and the dashboard refuse to publish it`,
		"seal the config with sops", "or move the task to an image tag with the deferral", "    acme/plain (cat/flow.yaml:"})
	if got := string(mustRead(t, filepath.Join(dir, "cat/plain.config.yaml"))); got != plain {
		t.Errorf("the plaintext config changed:\n%s", got)
	}
	if got := string(mustRead(t, filepath.Join(dir, "cat/sealed.config.yaml"))); got != sealed+"  overlay:\n    uploadInterval: \"0s\"\n" {
		t.Errorf("the sealed config:\n%s", got)
	}
	flow := string(mustRead(t, filepath.Join(dir, "cat/flow.yaml")))
	if strings.Count(flow, "baseInterval: 15m") != 1 {
		t.Errorf("the sealed task's model schedule:\n%s", flow)
	}
	r = runIn(t, dir, "census", "-o", "csv", "cat")
	expect(t, r, 0, []string{"acme/plain,", ",needs-review,", "acme/sealed,ghcr.io/estuary/materialize-s3-csv,v1,uploadInterval,v2,zero,0s,true,false,migrated,"}, nil)
}
