package main

import (
	"archive/zip"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/estuary/schedtool/schedule/tzdata"
)

// zipEntry reads one zone of the embedded data's zip, for a fake host
// zoneinfo tree.
func zipEntry(t *testing.T, name string) []byte {
	t.Helper()
	z, err := zip.OpenReader("../../schedule/tzdata/zoneinfo.zip")
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	for _, f := range z.File {
		if f.Name == name {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			b, err := io.ReadAll(rc)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
	t.Fatalf("no %s in the zip", name)
	return nil
}

// Both schedule kinds are evaluated with the embedded tz data, whatever the
// host has (docs/behaviour.md §3, §4.2; issue 24 §4): a model right/UTC is
// refused (Flow's list has none) and a connector's accepted (the
// connectors' image has it: issue 31 §4), while Local/Zone, which only the
// fake tree has, is refused, with the host's /usr/share/zoneinfo present
// (this machine may have right/), with $ZONEINFO naming a tree that holds
// right/UTC, and with $ZONEINFO empty; and a zone the host's data gives
// other rules (a fake America/Tijuana with Tokyo's) does not move a
// single commit instant.
func TestZonesAreTheEmbeddedDataEndToEnd(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "fakezoneinfo")
	empty := filepath.Join(dir, "empty")
	for p, b := range map[string][]byte{
		"right/UTC":       zipEntry(t, "UTC"),
		"America/Tijuana": zipEntry(t, "Asia/Tokyo"),
		"Local/Zone":      zipEntry(t, "UTC"),
	} {
		os.MkdirAll(filepath.Join(fake, filepath.Dir(p)), 0o755)
		if err := os.WriteFile(filepath.Join(fake, p), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(empty, 0o755)
	conn := func(name, tz string) string {
		return "  " + name + ":\n    shards: {flags: {enable-runtime-v2: \"true\"}}\n    endpoint:\n      connector:\n        image: ghcr.io/estuary/materialize-snowflake:v4\n" +
			"        config: {host: h, syncSchedule: {syncFrequency: 15m, timezone: " + tz + ", fastSyncStartTime: \"09:00\", fastSyncStopTime: \"17:00\"}}\n    bindings: []\n"
	}
	mdl := func(name, tz string) string {
		return "  " + name + ":\n    shards: {flags: {enable-runtime-v2: \"true\"}}\n    syncSchedule: {baseInterval: 4h, timezone: " + tz + ", windows: [{interval: 15m, start: \"09:00\", end: \"17:00\"}]}\n" +
			"    endpoint:\n      connector:\n        image: ghcr.io/estuary/materialize-snowflake:v4\n        config: {host: h, syncSchedule: {syncFrequency: 0s}}\n    bindings: []\n"
	}
	writeTree(t, dir, map[string]string{"cat/flow.yaml": "materializations:\n" +
		conn("acme/conn-tijuana", "America/Tijuana") + conn("acme/conn-right", "right/UTC") + conn("acme/conn-local", "Local/Zone") +
		mdl("acme/model-tijuana", "America/Tijuana") + mdl("acme/model-right", "right/UTC")})
	envs := map[string][]string{
		"host zoneinfo":         nil,
		"ZONEINFO with right/":  {"ZONEINFO=" + fake},
		"ZONEINFO empty":        {"ZONEINFO=" + empty},
		"ZONEINFO a zip absent": {"ZONEINFO=" + filepath.Join(dir, "none.zip")},
	}
	run := func(env []string, args ...string) run {
		cmd := exec.Command(binary, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		return execRun(t, cmd)
	}
	var explained map[string]string
	for name, env := range envs {
		t.Run(name, func(t *testing.T) {
			r := run(env, "validate", "cat")
			expect(t, r, 2, []string{
				`error invalid-connector-schedule: validating schedule configuration: unknown or invalid timezone "Local/Zone"`,
				`error invalid-sync-schedule: invalid sync schedule: invalid timezone "right/UTC"`,
				"2 errors"}, nil)
			if strings.Contains(r.stdout, `unknown or invalid timezone "right/UTC"`) {
				t.Errorf("the connector's right/UTC is refused:\n%s", r.stdout)
			}
			got := map[string]string{}
			for _, task := range []string{"acme/conn-tijuana", "acme/model-tijuana"} {
				r := run(env, "explain", "-o", "json", "--at", "2026-01-15T12:00:00Z", task, "cat")
				if r.code != 0 {
					t.Fatalf("explain %s: exit %d\n%s", task, r.code, r.stderr)
				}
				got[task] = r.stdout
			}
			if explained == nil {
				explained = got
			} else {
				for task, out := range got {
					if out != explained[task] {
						t.Errorf("explain %s differs from another environment's:\n%s\n---\n%s", task, out, explained[task])
					}
				}
			}
			// Tijuana is UTC-8 (PST) on 2026-01-15, whatever the fake says.
			if !strings.Contains(got["acme/conn-tijuana"], "-08:00") {
				t.Errorf("explain acme/conn-tijuana does not evaluate in Tijuana's PST:\n%s", got["acme/conn-tijuana"])
			}
		})
	}
}

// A connector timezone resolves as the connectors' LoadLocation resolves
// it in their image, trixie with tzdata and tzdata-legacy (docs/behaviour.md
// §4.2; issue 31 §4): America//New_York, ./UTC, right/UTC, localtime (the
// image's /etc/localtime, Etc/UTC) and posixrules (New York) are valid and
// evaluated as the image's files say; posix/... is not (trixie's tzdata
// dropped posix/), nor are the names LoadLocation refuses itself. At
// 18:00Z New York is inside the 09:00-17:00 window (15m), UTC outside (4h).
func TestImageTimezonesEndToEnd(t *testing.T) {
	dir := t.TempDir()
	tzs := []string{"America//New_York", "./UTC", "right/UTC", "localtime", "posixrules", "posix/America/New_York", "America/../UTC", "/UTC"}
	cat := "materializations:\n"
	for i, tz := range tzs {
		cat += fmt.Sprintf("  acme/tz%d:\n    shards: {flags: {enable-runtime-v2: \"true\"}}\n    endpoint:\n      connector:\n        image: ghcr.io/estuary/materialize-snowflake:v4\n"+
			"        config: {host: h, syncSchedule: {syncFrequency: 15m, timezone: %q, fastSyncStartTime: \"09:00\", fastSyncStopTime: \"17:00\"}}\n    bindings: []\n", i, tz)
	}
	writeTree(t, dir, map[string]string{"flow.yaml": cat})
	r := schedtoolIn(t, dir, "validate", "flow.yaml")
	expect(t, r, 2, []string{
		`error invalid-connector-schedule: validating schedule configuration: unknown or invalid timezone "posix/America/New_York"`,
		`error invalid-connector-schedule: validating schedule configuration: unknown or invalid timezone "America/../UTC"`,
		`error invalid-connector-schedule: validating schedule configuration: unknown or invalid timezone "/UTC"`,
		"3 errors"}, nil)
	for _, tz := range tzs[:5] {
		if strings.Contains(r.stdout, fmt.Sprintf("timezone %q", tz)) {
			t.Errorf("validate refuses %q:\n%s", tz, r.stdout)
		}
	}
	for i, want := range []string{
		"next commits (UTC, America//New_York):\n    2026-01-15T18:14:16Z  2026-01-15T13:14:16-05:00\n",
		"next commits (UTC, which is ./UTC's time):\n    2026-01-15T19:59:16Z\n",
		"next commits (UTC, which is right/UTC's time):\n    2026-01-15T19:59:16Z\n",
		"next commits (UTC, which is localtime's time):\n    2026-01-15T19:59:16Z\n",
		"next commits (UTC, posixrules):\n    2026-01-15T18:14:16Z  2026-01-15T13:14:16-05:00\n",
	} {
		r := schedtoolIn(t, dir, "explain", "--at", "2026-01-15T18:00:00Z", fmt.Sprintf("acme/tz%d", i), "flow.yaml")
		expect(t, r, 0, []string{want}, nil)
	}
}

// --version names the tz data releases the schedules are evaluated with:
// Go's for Flow's timezones, the connectors' image's packages for theirs.
func TestVersionNamesTheTzData(t *testing.T) {
	r := schedtool(t, "", "--version")
	expect(t, r, 0, []string{"schedtool version ", ", tz data " + tzdata.Version + " (embedded), connector timezones from Debian trixie tzdata 2026f-0+deb13u1, tzdata-legacy 2026f-0+deb13u1\n"}, nil)
	if tzdata.Version != "2025c" {
		t.Errorf("tzdata.Version %q", tzdata.Version)
	}
}

// A misspelled schedule key is refused by the connector (`json: unknown
// field`), so it is invalid-connector-schedule with the key to use, in a
// catalog and in stored specs, for validate, census and explain; a key
// that only differs in case is what encoding/json reads, and a key that
// is no near miss is left alone (issue 24 §4).
func TestMisspelledScheduleKeysEndToEnd(t *testing.T) {
	dir := t.TempDir()
	task := func(name, image, config string) string {
		return "  " + name + ":\n    shards: {flags: {enable-runtime-v2: \"true\"}}\n    endpoint:\n      connector:\n        image: " + image + "\n        config: " + config + "\n    bindings: []\n"
	}
	row := func(name, image, config string) string {
		return `{"catalog_name":"` + name + `","spec_type":"materialization","last_pub_id":"0123456789abcdef","spec":{"shards":{"flags":{"enable-runtime-v2":"true"}},"endpoint":{"connector":{"image":"` + image + `","config":` + config + `}},"bindings":[]}}` + "\n"
	}
	const sf, s3 = "ghcr.io/estuary/materialize-snowflake:v4", "ghcr.io/estuary/materialize-s3-csv:v1"
	writeTree(t, dir, map[string]string{
		"cat/flow.yaml": "materializations:\n" +
			task("acme/snake", sf, "{host: h, sync_schedule: {syncFrequency: 1h}}") +
			task("acme/space", s3, `{bucket: b, "uploadInterval ": 5m}`) +
			task("acme/fullwidth", s3, `{bucket: b, "ｕploadInterval": 5m}`) +
			task("acme/iso", s3, `{bucket: b, upload_interval: PT5M}`) +
			task("acme/family", s3, `{bucket: b, uploadInterval: 5m, syncSchedule: {syncFrequency: 0s}}`) +
			task("acme/case", sf, "{host: h, SYNCSCHEDULE: {syncFrequency: 1h}}") +
			task("acme/other", sf, "{host: h, schedule: x, syncSchedule: {syncFrequency: 1h}}"),
		// A row without a schedule first: a later row of the same shape
		// but for a near-miss key must not take its verdict.
		"specs.ndjson": row("acme/stored-default", sf, `{"host":"h"}`) +
			row("acme/stored-snake", sf, `{"host":"h","sync_schedule":{"syncFrequency":"1h"}}`) +
			row("acme/stored-space", sf, `{"host":"h"," syncSchedule":{"syncFrequency":"1h"}}`) +
			row("acme/stored-case", sf, `{"host":"h","SyncSchedule":{"syncFrequency":"1h"}}`),
	})
	r := schedtoolIn(t, dir, "validate", "cat", "specs.ndjson")
	expect(t, r, 2, []string{
		`error invalid-connector-schedule: json: unknown field "sync_schedule"; the connector refuses the whole config: this image's schedule key is syncSchedule`,
		`error invalid-connector-schedule: json: unknown field "uploadInterval "; the connector refuses the whole config: this image's schedule key is uploadInterval`,
		`error invalid-connector-schedule: json: unknown field "ｕploadInterval"; the connector refuses the whole config: this image's schedule key is uploadInterval`,
		`error invalid-connector-schedule: json: unknown field "upload_interval"; the connector refuses the whole config: this image's schedule key is uploadInterval`,
		`error invalid-connector-schedule: json: unknown field "syncSchedule"; the connector refuses the whole config: syncSchedule is another connector family's schedule key, and this image's is uploadInterval`,
		`specs.ndjson:2:`,
		`specs.ndjson:3:`,
		`error invalid-connector-schedule: json: unknown field " syncSchedule"`,
		"7 errors"}, nil)
	if strings.Count(r.stdout, "error invalid-connector-schedule") != 7 || strings.Contains(r.stdout, `"SYNCSCHEDULE"`) || strings.Contains(r.stdout, `"SyncSchedule"`) || strings.Contains(r.stdout, `"schedule"`) {
		t.Errorf("a key encoding/json folds, or one that is no near miss, was reported:\n%s", r.stdout)
	}
	r = schedtoolIn(t, dir, "census", "-o", "csv", "cat", "specs.ndjson")
	for _, name := range []string{"acme/snake", "acme/space", "acme/fullwidth", "acme/iso", "acme/family", "acme/stored-snake", "acme/stored-space"} {
		if !regexp.MustCompile(`(?m)^` + name + `,[^,]*,[^,]*,[^,]*,v2,invalid,unknown,`).MatchString(r.stdout) {
			t.Errorf("census does not call %s invalid:\n%s", name, r.stdout)
		}
	}
	for _, name := range []string{"acme/case", "acme/other", "acme/stored-case"} {
		if !regexp.MustCompile(`(?m)^` + name + `,[^,]*,[^,]*,[^,]*,v2,fixed,1h,`).MatchString(r.stdout) {
			t.Errorf("census does not read %s's schedule:\n%s", name, r.stdout)
		}
	}
	r = schedtoolIn(t, dir, "explain", "acme/snake", "cat")
	expect(t, r, 0, []string{"connector schedule:  invalid", `json: unknown field "sync_schedule"`}, nil)
}

// The published enum is per image tag (1m, 2m30s and 20m from each image's
// enumSince, estuary/connectors#5125), and an off-enum value is an error
// in a plaintext config, which Flow's config encryption refuses, a warning
// in a sealed one; migrate never writes a value the tag's enum lacks into
// a plaintext config (a file sink's 0s), whatever the flags (issue 24 §1).
func TestOffEnumIsPerTagAndRefusedInPlaintextEndToEnd(t *testing.T) {
	dir := t.TempDir()
	const mac = `sops: {mac: "ENC[AES256_GCM,data:eA==,iv:eA==,tag:eA==,type:str]"}`
	task := func(name, image, sched, config string) string {
		s := "  " + name + ":\n    shards: {flags: {enable-runtime-v2: \"true\"}}\n"
		if sched != "" {
			s += "    syncSchedule: " + sched + "\n"
		}
		return s + "    endpoint:\n      connector:\n        image: " + image + "\n        config: " + config + "\n    bindings: []\n"
	}
	src := "materializations:\n" +
		task("acme/v4-20m", "ghcr.io/estuary/materialize-snowflake:v4", "", "{host: h, syncSchedule: {syncFrequency: 20m}}") +
		task("acme/v4-2m30s", "ghcr.io/estuary/materialize-snowflake:v4", "", "{host: h, syncSchedule: {syncFrequency: 2m30s}}") +
		task("acme/v3-20m", "ghcr.io/estuary/materialize-snowflake:v3", "", "{host: h, syncSchedule: {syncFrequency: 20m}}") +
		task("acme/v3-20m-sealed", "ghcr.io/estuary/materialize-snowflake:v3", "", "{host: h, syncSchedule: {syncFrequency: 20m}, "+mac+"}") +
		task("acme/sink", "ghcr.io/estuary/materialize-s3-csv:v1", "{baseInterval: 15m}", "{bucket: b, uploadInterval: 15m}")
	writeTree(t, dir, map[string]string{"cat/flow.yaml": src})
	r := schedtoolIn(t, dir, "validate", "cat")
	expect(t, r, 2, []string{
		"cat/flow.yaml:21:57: error off-enum-schedule-value: syncSchedule.syncFrequency \"20m\" is accepted by the connector but not listed in its published schema (0s, 30s, 5m, 15m, 30m, 1h, 2h, 4h); the config is plaintext (no sops stanza), so Flow checks it against that schema before publishing: flowctl and the dashboard refuse to publish it",
		"cat/flow.yaml:28:57: warning off-enum-schedule-value: syncSchedule.syncFrequency \"20m\" is accepted by the connector but not listed in its published schema (0s, 30s, 5m, 15m, 30m, 1h, 2h, 4h); a form built from the connector's schema (the dashboard's) offers only those values, so an edit there would change it without meaning to\n",
		// The stacking advice does not name a value Flow would refuse.
		"warning ack-delay-stacks: materialization acme/sink has a materialization sync schedule, but its connector still delays every commit acknowledgement by 15m (uploadInterval), so the two stack; uploadInterval \"0s\" is outside its published values, which Flow refuses in a plaintext config: seal the config with sops and set it in sops.overlay",
	}, nil)
	if n := strings.Count(r.stdout, "off-enum-schedule-value"); n != 2 {
		t.Errorf("%d off-enum findings, want 2 (20m and 2m30s are published by v4):\n%s", n, r.stdout)
	}
	r = schedtoolIn(t, dir, "migrate", "--write", "--zero-file-sinks", "--name", "acme/sink", "cat")
	if r.code != 2 || !strings.Contains(r.stderr, "seal the config with sops") {
		t.Errorf("migrate: exit %d\n%s", r.code, r.stderr)
	}
	if got := string(mustRead(t, filepath.Join(dir, "cat/flow.yaml"))); got != src {
		t.Errorf("migrate wrote into a plaintext file sink:\n%s", got)
	}
}

// Upstream's texts through the CLI (issue 24 §4): a file sink's type error
// names the store struct its config embeds, as encoding/json does; a model
// schedule Flow refuses (a window's equal start and end) is named by
// Flow's error even when an interval is also beyond what schedtool
// evaluates (which Flow accepts).
func TestUpstreamTextsEndToEnd(t *testing.T) {
	dir := t.TempDir()
	task := func(name, image, sched, config string) string {
		s := "  " + name + ":\n    shards: {flags: {enable-runtime-v2: \"true\"}}\n"
		if sched != "" {
			s += "    syncSchedule: " + sched + "\n"
		}
		return s + "    endpoint:\n      connector:\n        image: " + image + "\n        config: " + config + "\n    bindings: []\n"
	}
	writeTree(t, dir, map[string]string{"cat/flow.yaml": "materializations:\n" +
		task("acme/s3", "ghcr.io/estuary/materialize-s3-parquet:v1", "", "{bucket: b, uploadInterval: 5}") +
		task("acme/gcs", "ghcr.io/estuary/materialize-gcs-csv:v1", "", "{bucket: b, uploadInterval: true}") +
		task("acme/azure", "ghcr.io/estuary/materialize-azure-blob-parquet:v1", "", "{containerName: c, uploadInterval: [5m]}") +
		task("acme/flow-first", "ghcr.io/estuary/materialize-snowflake:v4", `{baseInterval: 1h, timezone: UTC, windows: [{interval: 300y, start: "09:00", end: "09:00"}]}`, "{host: h, syncSchedule: {syncFrequency: 0s}}") +
		task("acme/limit", "ghcr.io/estuary/materialize-snowflake:v4", `{baseInterval: 300y}`, "{host: h, syncSchedule: {syncFrequency: 0s}}")})
	r := schedtoolIn(t, dir, "validate", "cat")
	expect(t, r, 2, []string{
		"error invalid-connector-schedule: json: cannot unmarshal number into Go struct field config.S3StoreConfig.uploadInterval of type string\n",
		"error invalid-connector-schedule: json: cannot unmarshal bool into Go struct field config.GCSStoreConfig.uploadInterval of type string\n",
		"error invalid-connector-schedule: json: cannot unmarshal array into Go struct field config.AzureBlobConfig.uploadInterval of type string\n",
		`error invalid-sync-schedule: invalid sync schedule: start and end of window 0 must be different: got "09:00" and "09:00"`,
		`error invalid-sync-schedule: invalid sync schedule: baseInterval: invalid duration "300y": 9467280000s is longer than schedtool can evaluate`,
	}, nil)
}
