package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/schedule/connector"
)

// deferralRegistry is the builtin registry with snowflake and s3-csv
// carrying the boilerplate deferral from v5 (docs/behaviour.md §6).
func deferralRegistry(t *testing.T) *connector.Registry {
	t.Helper()
	o, err := connector.ParseRegistry([]byte(`{"images": [
		{"image": "ghcr.io/estuary/materialize-snowflake", "family": "syncSchedule", "deferralSince": "v5"},
		{"image": "ghcr.io/estuary/materialize-s3-csv", "family": "uploadInterval", "enum": ["1s", "1m", "5m", "15m", "30m", "1h"], "deferralSince": "v5"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	reg, err := connector.Builtin().Extend(o)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func decideWith(t *testing.T, reg *connector.Registry, opts Options, flags, sched, image, config string) Decision {
	t.Helper()
	src := "materializations:\n  acmeCo/t/x:\n"
	if flags != "" {
		src += "    shards: {flags: {enable-runtime-v2: " + flags + "}}\n"
	}
	if sched != "" {
		src += "    syncSchedule: " + sched + "\n"
	}
	src += "    endpoint: {connector: {image: " + image + ", config: " + config + "}}\n"
	return decideSource(t, reg, opts, src)
}

// decideSource decides the one materialization of a catalog source.
func decideSource(t *testing.T, reg *connector.Registry, opts Options, src string) Decision {
	t.Helper()
	p := filepath.Join(t.TempDir(), "flow.yaml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := input.Resolve([]string{p}, catalog.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	cat := catalog.Load(in, catalog.DefaultOptions())
	if len(cat.Materializations) != 1 {
		t.Fatalf("problems: %+v", cat.Problems)
	}
	return (&Planner{Registry: reg, Options: opts}).Decide(cat.Materializations[0])
}

// The statuses of docs/behaviour.md §8, decided in order 0..7, with the
// state every command takes them from: who holds commits, the effective
// delay, and what migrate does.
func TestDecideStatus(t *testing.T) {
	reg := deferralRegistry(t)
	const (
		sf5  = "ghcr.io/estuary/materialize-snowflake:v5"
		sf4  = "ghcr.io/estuary/materialize-snowflake:v4"
		csv5 = "ghcr.io/estuary/materialize-s3-csv:v5"
		csv4 = "ghcr.io/estuary/materialize-s3-csv:v4"
		v2   = `"true"`
	)
	sealed := func(interval string) string {
		return `{bucket: "ENC[AES256_GCM,data:x]", uploadInterval: ` + interval + `, sops: {mac: x}}`
	}
	for _, tc := range []struct {
		name                    string
		opts                    Options
		flags, sched, image, cf string
		status                  Status
		holds                   string
		delay                   string // the effective delay: "" unknown
		action                  Action
		model, zero, flag       bool // what migrate writes
	}{
		// 0: a model schedule that does not work.
		{"broken: timezone without windows", Options{}, v2, "{baseInterval: 4h, timezone: America/New_York}", sf4, "{host: h}", StatusNeedsReview, "connector", "30m", Review, false, false, false},
		{"broken: {}", Options{}, v2, "{}", sf4, "{host: h}", StatusNeedsReview, "connector", "30m", Review, false, false, false},
		{"broken: false", Options{}, v2, "false", sf4, "{syncSchedule: {syncFrequency: 0s}}", StatusNeedsReview, "none", "0s", Review, false, false, false},
		{"broken: beyond what schedtool evaluates", Options{}, v2, "{baseInterval: 99999999999h}", sf4, "{host: h}", StatusNeedsReview, "connector", "30m", Review, false, false, false},
		{"broken on a deferral tag: no deferral, the connector still paces", Options{}, v2, "{}", sf5, "{host: h}", StatusNeedsReview, "connector", "30m", Review, false, false, false},
		{"broken, V1, --enable-runtime-v2: left alone", Options{EnableRuntimeV2: true}, "", "{}", sf4, "{host: h}", StatusNeedsReview, "connector", "30m", Review, false, false, false},
		{"broken, --resolve=model: left alone", Options{Resolve: "model"}, v2, "{}", sf4, "{syncSchedule: {syncFrequency: 1h}}", StatusNeedsReview, "connector", "1h", Review, false, false, false},
		// 1: blocked-v1.
		{"V1 with a delay", Options{}, "", "", sf4, "{host: h}", StatusBlockedV1, "connector", "30m", Skip, false, false, false},
		{"V1, model schedule, zero connector: nothing paces it", Options{}, "", "{baseInterval: 1h}", sf4, "{syncSchedule: {syncFrequency: 0s}}", StatusBlockedV1, "none", "0s", Skip, false, false, false},
		{"V1, model schedule, zero connector, --enable-runtime-v2: the flag alone", Options{EnableRuntimeV2: true}, "", "{baseInterval: 1h}", sf4, "{syncSchedule: {syncFrequency: 0s}}", StatusBlockedV1, "none", "0s", Migrate, false, false, true},
		{"V1 on a deferral tag: no deferral on V1", Options{}, "", "{baseInterval: 1h}", sf5, "{host: h}", StatusBlockedV1, "connector", "30m", Skip, false, false, false},
		{"V1, model schedule, deferral tag, --enable-runtime-v2: the flag alone", Options{EnableRuntimeV2: true}, "", "{baseInterval: 1h}", sf5, "{host: h}", StatusBlockedV1, "connector", "30m", Migrate, false, false, true},
		{"near miss: V1, zero connector, no model schedule", Options{}, "", "", sf4, "{syncSchedule: {syncFrequency: 0s}}", StatusUnaffected, "none", "0s", None, false, false, false},
		// 2: conflict, also on a deferral tag.
		{"conflict", Options{}, v2, "{baseInterval: 1h}", sf4, "{syncSchedule: {syncFrequency: 2h}}", StatusConflict, "both (stacked)", "2h", Review, false, false, false},
		{"conflict on a deferral tag", Options{}, v2, "{baseInterval: 1h}", sf5, "{syncSchedule: {syncFrequency: 2h}}", StatusConflict, "runtime", "0s", Review, false, false, false},
		// 3: stacked.
		{"stacked: the default", Options{}, v2, "{baseInterval: 1h}", sf4, "{host: h}", StatusStacked, "both (stacked)", "30m", Migrate, false, true, false},
		{"stacked: plaintext file sink, --zero-file-sinks: review", Options{ZeroFileSinks: true}, v2, "{baseInterval: 1h}", csv4, "{uploadInterval: 15m}", StatusStacked, "both (stacked)", "15m", Review, false, false, false},
		{"stacked: sealed file sink, --zero-file-sinks", Options{ZeroFileSinks: true}, v2, "{baseInterval: 1h}", csv4, sealed("15m"), StatusStacked, "both (stacked)", "15m", Migrate, false, true, false},
		// 4: migrated, the deferral example of issue 23 among them.
		{"migrated", Options{}, v2, "{baseInterval: 1h}", sf4, "{syncSchedule: {syncFrequency: 0s}}", StatusMigrated, "runtime", "0s", None, false, false, false},
		{"deferral: the default is off", Options{}, v2, "{baseInterval: 1h}", sf5, "{host: h}", StatusMigrated, "runtime", "0s", None, false, false, false},
		{"deferral: a file sink's interval is off", Options{}, v2, "{baseInterval: 15m}", csv5, "{uploadInterval: 15m}", StatusMigrated, "runtime", "0s", None, false, false, false},
		{"deferral: a sealed schedule is off too", Options{}, v2, "{baseInterval: 15m}", csv5, `{bucket: b, uploadInterval: "ENC[AES256_GCM,data:x]", sops: {mac: x}}`, StatusMigrated, "runtime", "0s", None, false, false, false},
		{"near miss deferral: a config the connector refuses", Options{}, v2, "{baseInterval: 15m}", csv5, "{bucket: b}", StatusNeedsReview, "both (stacked)", "", Review, false, false, false},
		{"near miss deferral: the tag before", Options{}, v2, "{baseInterval: 1h}", sf4, "{host: h}", StatusStacked, "both (stacked)", "30m", Migrate, false, true, false},
		{"near miss deferral: a tag that is not a version", Options{}, v2, "{baseInterval: 1h}", "ghcr.io/estuary/materialize-snowflake:dev", "{host: h}", StatusStacked, "both (stacked)", "30m", Migrate, false, true, false},
		// 5: unaffected.
		{"unaffected", Options{}, v2, "", sf4, "{syncSchedule: {syncFrequency: 0s}}", StatusUnaffected, "none", "0s", None, false, false, false},
		// 6: ready.
		{"ready: fixed", Options{}, v2, "", sf4, "{syncSchedule: {syncFrequency: 1h}}", StatusReady, "connector", "1h", Migrate, true, true, false},
		{"ready: a file sink on a deferral tag gets the model schedule alone", Options{}, v2, "", csv5, "{uploadInterval: 15m}", StatusReady, "connector", "15m", Migrate, true, false, false},
		{"ready (needs --zero-file-sinks): sealed", Options{}, v2, "", csv4, sealed("15m"), StatusReadyNeedsFlag, "connector", "15m", Skip, false, false, false},
		{"ready (needs --zero-file-sinks): sealed, with the flag", Options{ZeroFileSinks: true}, v2, "", csv4, sealed("15m"), StatusReadyNeedsFlag, "connector", "15m", Migrate, true, true, false},
		// 7: needs-review.
		{"needs review: a plaintext file sink", Options{}, v2, "", csv4, "{uploadInterval: 15m}", StatusNeedsReview, "connector", "15m", Review, false, false, false},
		{"needs review: a plaintext file sink, --zero-file-sinks", Options{ZeroFileSinks: true}, v2, "", csv4, "{uploadInterval: 15m}", StatusNeedsReview, "connector", "15m", Review, false, false, false},
		{"needs review: sealed", Options{}, v2, "", sf4, `{syncSchedule: {syncFrequency: "ENC[AES256_GCM,data:x]"}, sops: {mac: x}}`, StatusNeedsReview, "connector", "", Review, false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := decideWith(t, reg, tc.opts, tc.flags, tc.sched, tc.image, tc.cf)
			delay := ""
			if d.DelayKnown {
				delay = connector.FormatDelay(d.Delay)
				if d.Delay == 0 {
					delay = "0s"
				}
			}
			if d.Status != tc.status || d.Holds().String() != tc.holds || delay != tc.delay || d.Action != tc.action ||
				(d.Model != nil) != tc.model || d.ZeroConnector != tc.zero || d.EnableRuntimeV2 != tc.flag {
				t.Errorf("got %s, holds %s, delay %q, %s model=%v zero=%v flag=%v (%s)\nwant %s, holds %s, delay %q, %s model=%v zero=%v flag=%v",
					d.Status, d.Holds(), delay, d.Action, d.Model != nil, d.ZeroConnector, d.EnableRuntimeV2, d.Reason,
					tc.status, tc.holds, tc.delay, tc.action, tc.model, tc.zero, tc.flag)
			}
			if (d.Action == Review || d.Action == Skip) && (d.Reason == "" || d.Cause == CauseNone) {
				t.Errorf("no reason (%q) or no cause (%q)", d.Reason, d.Cause)
			}
			// Never unpaced: the connector is zeroed only beside a model
			// schedule that works, or one written with it.
			if d.ZeroConnector && d.Model == nil && d.Schedule == nil {
				t.Errorf("zeroes the connector with no working model schedule: %+v", d)
			}
		})
	}
}

// A secrets stanza (docs/behaviour.md §4.5) covers the schedule when a
// pointer equals its location, is above it or below it; one Flow's model
// refuses covers everything, since what it covers is unknown. A covered
// schedule is unknown and configured, whatever the flags: needs review,
// blocked-v1 on V1, a conflict beside a model schedule (no deferral
// settles it), and migrate never writes it.
func TestSecretsDecide(t *testing.T) {
	reg := deferralRegistry(t)
	const (
		fixed = "{host: h, syncSchedule: {syncFrequency: 15m}}"
		sf4   = "ghcr.io/estuary/materialize-snowflake:v4"
		sf5   = "ghcr.io/estuary/materialize-snowflake:v5"
	)
	task := func(flags, sched, image, config, secrets string) string {
		src := "materializations:\n  acmeCo/t/x:\n    secrets: " + secrets + "\n"
		if flags != "" {
			src += "    shards: {flags: {enable-runtime-v2: " + flags + "}}\n"
		}
		if sched != "" {
			src += "    syncSchedule: " + sched + "\n"
		}
		return src + "    endpoint: {connector: {image: " + image + ", config: " + config + "}}\n"
	}
	for _, tc := range []struct {
		name    string
		opts    Options
		src     string
		status  Status
		action  Action
		secrets int
	}{
		{"the leaf", Options{}, task(`"true"`, "", sf4, fixed, "{a/s: /syncSchedule/syncFrequency}"), StatusNeedsReview, Review, 1},
		{"the root", Options{}, task(`"true"`, "", sf4, fixed, `{a/s: ""}`), StatusNeedsReview, Review, 1},
		{"V1, --enable-runtime-v2", Options{EnableRuntimeV2: true}, task("", "", sf4, fixed, "{a/s: /syncSchedule}"), StatusBlockedV1, Review, 1},
		{"V1", Options{}, task("", "", sf4, fixed, "{a/s: /syncSchedule}"), StatusBlockedV1, Skip, 1},
		{"a model schedule, --resolve=model", Options{Resolve: "model"}, task(`"true"`, "{baseInterval: 15m}", sf4, `{syncSchedule: {syncFrequency: "0s"}}`, "{a/s: /syncSchedule/syncFrequency}"), StatusConflict, Review, 1},
		{"a model schedule on a deferral tag", Options{}, task(`"true"`, "{baseInterval: 15m}", sf5, "{host: h}", "{a/s: /syncSchedule}"), StatusConflict, Review, 1},
		{"a file sink on a deferral tag", Options{ZeroFileSinks: true}, task(`"true"`, "{baseInterval: 15m}", "ghcr.io/estuary/materialize-s3-csv:v5", "{bucket: b, uploadInterval: 15m}", "{a/s: /uploadInterval}"), StatusNeedsReview, Review, 1},
		{"advanced on a tag that reads updateDelay", Options{}, task(`"true"`, "", "ghcr.io/estuary/materialize-bigquery:v1", "{advanced: {updateDelay: 1h}}", "{a/s: /advanced}"), StatusNeedsReview, Review, 1},
		{"a pointer Flow refuses", Options{}, task(`"true"`, "", sf4, fixed, "{a/s: syncSchedule}"), StatusNeedsReview, Review, 1},
		// An earlier Flow model keyed the stanza by pointer; the newest
		// refuses that shape, and what it covers is then unknown.
		{"the earlier pointer-keyed shape", Options{}, task(`"true"`, "", sf4, fixed, "{/credentials/password: a/s}"), StatusNeedsReview, Review, 1},
		{"a stanza Flow refuses", Options{}, task(`"true"`, "", sf4, fixed, "[/syncSchedule]"), StatusNeedsReview, Review, 1},
		{"near miss: elsewhere", Options{}, task(`"true"`, "", sf4, fixed, "{a/s: /host, b/s: /advanced}"), StatusReady, Migrate, 0},
		{"near miss: empty", Options{}, task(`"true"`, "", sf4, fixed, "{}"), StatusReady, Migrate, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := decideSource(t, reg, tc.opts, tc.src)
			if d.Status != tc.status || d.Action != tc.action || len(d.Secrets) != tc.secrets {
				t.Fatalf("%s %s with %d secrets (%s), want %s %s with %d", d.Status, d.Action, len(d.Secrets), d.Reason, tc.status, tc.action, tc.secrets)
			}
			if tc.secrets == 0 {
				return
			}
			if d.DelayKnown || d.Deferred || d.Result.Kind != connector.KindSecret || !d.Result.Configured || d.Model != nil || d.ZeroConnector || d.RemoveUpdateDelay {
				t.Errorf("a covered schedule: %+v", d)
			}
			if d.Action == Review && !strings.Contains(d.Reason, "move the schedule out of the secret") {
				t.Errorf("reason %q", d.Reason)
			}
		})
	}
}
