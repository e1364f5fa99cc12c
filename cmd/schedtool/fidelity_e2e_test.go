package main

import (
	"archive/zip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
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
// host has (docs/behaviour.md §3, §4.2; issue 24 §4): right/UTC is refused
// with the host's /usr/share/zoneinfo present (this machine may have
// right/), with $ZONEINFO naming a tree that holds right/UTC, and with
// $ZONEINFO empty; and a zone the host's data gives other rules (a fake
// America/Tijuana with Tokyo's) does not move a single commit instant.
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
				`error invalid-connector-schedule: validating schedule configuration: unknown or invalid timezone "right/UTC"`,
				`error invalid-connector-schedule: validating schedule configuration: unknown or invalid timezone "Local/Zone"`,
				`error invalid-sync-schedule: invalid sync schedule: invalid timezone "right/UTC"`,
				"3 errors"}, nil)
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

// --version names the tz data release the schedules are evaluated with.
func TestVersionNamesTheTzData(t *testing.T) {
	r := schedtool(t, "", "--version")
	expect(t, r, 0, []string{"schedtool version ", ", tz data " + tzdata.Version + " (embedded)\n"}, nil)
	if tzdata.Version != "2025c" {
		t.Errorf("tzdata.Version %q", tzdata.Version)
	}
}
