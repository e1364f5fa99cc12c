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

func decide(t *testing.T, opts Options, flags, sched, image, config string) Decision {
	t.Helper()
	src := "materializations:\n  acmeCo/t/x:\n"
	if flags != "" {
		src += "    shards: {flags: {enable-runtime-v2: " + flags + "}}\n"
	}
	if sched != "" {
		src += "    syncSchedule: " + sched + "\n"
	}
	src += "    endpoint: {connector: {image: " + image + ", config: " + config + "}}\n"
	dir := t.TempDir()
	p := filepath.Join(dir, "flow.yaml")
	os.WriteFile(p, []byte(src), 0o644)
	in, err := input.Resolve([]string{p}, catalog.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	cat := catalog.Load(in, catalog.DefaultOptions())
	if len(cat.Materializations) != 1 {
		t.Fatalf("problems: %+v", cat.Problems)
	}
	return (&Planner{Registry: connector.Builtin(), Options: opts}).Decide(cat.Materializations[0])
}

const sf = "ghcr.io/estuary/materialize-snowflake:v4"

// One case per row of docs/behaviour.md §7's table.
func TestDecide(t *testing.T) {
	for _, tc := range []struct {
		name                       string
		opts                       Options
		flags, sched, image, cfg   string
		situation                  Situation
		action                     Action
		model                      string // the model schedule written, "" for none
		zero, removeDelay, replace bool
	}{
		{"not a scheduling image", Options{}, `"true"`, "", "ghcr.io/estuary/materialize-postgres:v4", "{}", NotScheduling, None, "", false, false, false},
		{"zero delay, no model", Options{}, `"true"`, "", sf, "{syncSchedule: {syncFrequency: 0s}}", NoDelay, None, "", false, false, false},
		{"already migrated", Options{}, `"true"`, "{baseInterval: 1h}", sf, "{syncSchedule: {syncFrequency: 0s}}", Migrated, None, "", false, false, false},
		{"V1 with a delay", Options{}, "", "", sf, "{syncSchedule: {syncFrequency: 1h}}", BlockedV1, Skip, "", false, false, false},
		{"fixed", Options{}, `"true"`, "", sf, "{syncSchedule: {syncFrequency: 1h30m}}", Fixed, Migrate, "{baseInterval: 90m}", true, false, false},
		// Written durations fit Flow's published pattern ^\d+(s|m|h|d)$ (docs/behaviour.md §3).
		{"fixed 90m stays", Options{}, `"true"`, "", sf, "{syncSchedule: {syncFrequency: 90m}}", Fixed, Migrate, "{baseInterval: 90m}", true, false, false},
		{"fixed 90s stays", Options{}, `"true"`, "", sf, "{syncSchedule: {syncFrequency: 90s}}", Fixed, Migrate, "{baseInterval: 90s}", true, false, false},
		{"fixed 24h stays", Options{}, `"true"`, "", sf, "{syncSchedule: {syncFrequency: 24h}}", Fixed, Migrate, "{baseInterval: 24h}", true, false, false},
		{"fixed 60m is kept as written", Options{}, `"true"`, "", sf, "{syncSchedule: {syncFrequency: 60m}}", Fixed, Migrate, "{baseInterval: 60m}", true, false, false},
		{"fixed 1m30s becomes seconds", Options{}, `"true"`, "", sf, "{syncSchedule: {syncFrequency: 1m30s}}", Fixed, Migrate, "{baseInterval: 90s}", true, false, false},
		{"fixed 1h0m0s becomes hours", Options{}, `"true"`, "", sf, "{syncSchedule: {syncFrequency: 1h0m0s}}", Fixed, Migrate, "{baseInterval: 1h}", true, false, false},
		{"alternating 1h30m window", Options{}, `"true"`, "", sf, `{syncSchedule: {syncFrequency: 1h30m, timezone: UTC, fastSyncStartTime: "09:00", fastSyncStopTime: "17:00"}}`,
			Alternating, Migrate, `{baseInterval: 4h, timezone: UTC, windows: [{interval: 90m, start: "09:00", end: "17:00"}]}`, true, false, false},
		{"file sink PT1H30M", Options{ZeroFileSinks: true}, `"true"`, "", "ghcr.io/estuary/materialize-s3-iceberg:v1", "{upload_interval: PT1H30M}", FileInterval, Migrate, "{baseInterval: 90m}", true, false, false},
		{"file sink 120m is kept (sealed)", Options{ZeroFileSinks: true}, `"true"`, "", "ghcr.io/estuary/materialize-s3-csv:v1", `{uploadInterval: 120m, bucket: "ENC[AES256_GCM,data:x]", sops: {mac: x}}`, FileInterval, Migrate, "{baseInterval: 120m}", true, false, false},
		{"default, preserve", Options{}, `"true"`, "", sf, "{host: h}", Default, Migrate, "{baseInterval: 30m}", true, false, false},
		{"default, drop", Options{Absent: "drop"}, `"true"`, "", sf, "{host: h}", Default, Migrate, "", true, false, false},
		{"alternating", Options{}, `"true"`, "", sf, `{syncSchedule: {syncFrequency: 15m, timezone: America/New_York, fastSyncStartTime: "9:00", fastSyncStopTime: "17:00", fastSyncEnabledDays: "Su,T-Th"}}`,
			Alternating, Migrate, `{baseInterval: 4h, timezone: America/New_York, windows: [{interval: 15m, start: "09:00", end: "17:00", days: [Sun, Tue, Wed, Thu]}]}`, true, false, false},
		{"alternating overnight, every day", Options{}, `"true"`, "", sf, `{syncSchedule: {syncFrequency: 0s, timezone: "+05:30", fastSyncStartTime: "22:00", fastSyncStopTime: "06:00"}}`,
			Alternating, Migrate, `{baseInterval: 4h, timezone: "+05:30", windows: [{interval: 0s, start: "22:00", end: "06:00"}]}`, true, false, false},
		{"updateDelay on a tag that refuses it: the config is invalid", Options{}, `"true"`, "", "ghcr.io/estuary/materialize-snowflake:v3", "{advanced: {updateDelay: 2h}}", Unconvertible, Review, "", false, false, false},
		{"an empty updateDelay is refused too", Options{}, `"true"`, "", "ghcr.io/estuary/materialize-snowflake:v3", `{advanced: {updateDelay: ""}}`, Unconvertible, Review, "", false, false, false},
		{"updateDelay on an old tag", Options{}, `"true"`, "", "ghcr.io/estuary/materialize-snowflake:v2", "{advanced: {updateDelay: 2h}}", UpdateDelay, Review, "", false, false, false},
		// Without --zero-file-sinks a file sink is left as it is: a model
		// schedule beside its required interval would stack the two.
		{"file sink without --zero-file-sinks: untouched", Options{}, `"true"`, "", "ghcr.io/estuary/materialize-s3-csv:v1", `{uploadInterval: 15m, bucket: "ENC[AES256_GCM,data:x]", sops: {mac: x}}`, FileInterval, Skip, "", false, false, false},
		{"file sink PT1H without --zero-file-sinks: untouched", Options{}, `"true"`, "", "ghcr.io/estuary/materialize-s3-iceberg:v1", "{upload_interval: PT1H}", FileInterval, Skip, "", false, false, false},
		{"file sink with a sealed interval: review, not the flag", Options{}, `"true"`, "", "ghcr.io/estuary/materialize-s3-csv:v1", `{uploadInterval: "ENC[AES256_GCM,data:x]", sops: {mac: x}}`, Unconvertible, Review, "", false, false, false},
		{"file sink stacked: skipped without the flag", Options{}, `"true"`, "{baseInterval: 1h}", "ghcr.io/estuary/materialize-s3-csv:v1", `{uploadInterval: 15m, bucket: "ENC[AES256_GCM,data:x]", sops: {mac: x}}`, Stacked, Skip, "", false, false, false},
		{"file sink stacked: finished by --zero-file-sinks", Options{ZeroFileSinks: true}, `"true"`, "{baseInterval: 1h}", "ghcr.io/estuary/materialize-s3-csv:v1", `{uploadInterval: 15m, bucket: "ENC[AES256_GCM,data:x]", sops: {mac: x}}`, Stacked, Migrate, "", true, false, false},
		// A plaintext uploadInterval config cannot take "0s" (off its
		// enum: the control plane refuses it): review, with or without
		// the flag (docs/behaviour.md §7).
		{"plaintext file sink: review", Options{}, `"true"`, "", "ghcr.io/estuary/materialize-s3-csv:v1", "{uploadInterval: 15m}", FileInterval, Review, "", false, false, false},
		{"plaintext file sink, --zero-file-sinks: review", Options{ZeroFileSinks: true}, `"true"`, "", "ghcr.io/estuary/materialize-s3-csv:v1", "{uploadInterval: 15m}", FileInterval, Review, "", false, false, false},
		{"plaintext file sink stacked, --zero-file-sinks: review", Options{ZeroFileSinks: true}, `"true"`, "{baseInterval: 1h}", "ghcr.io/estuary/materialize-s3-csv:v1", "{uploadInterval: 15m}", Stacked, Review, "", false, false, false},
		{"near miss: plaintext s3-iceberg (no enum), --zero-file-sinks", Options{ZeroFileSinks: true}, `"true"`, "", "ghcr.io/estuary/materialize-s3-iceberg:v1", "{upload_interval: PT15M}", FileInterval, Migrate, "{baseInterval: 15m}", true, false, false},
		{"file sink already zeroed: migrated", Options{}, `"true"`, "{baseInterval: 1h}", "ghcr.io/estuary/materialize-s3-csv:v1", "{uploadInterval: 0s}", Migrated, None, "", false, false, false},
		{"V1 file sink opted in, no --zero-file-sinks: untouched", Options{EnableRuntimeV2: true}, "", "", "ghcr.io/estuary/materialize-s3-csv:v1", `{uploadInterval: 15m, bucket: "ENC[AES256_GCM,data:x]", sops: {mac: x}}`, FileInterval, Skip, "", false, false, false},
		{"file sink, --zero-file-sinks", Options{ZeroFileSinks: true}, `"true"`, "", "ghcr.io/estuary/materialize-s3-iceberg:v1", "{upload_interval: PT1H}", FileInterval, Migrate, "{baseInterval: 1h}", true, false, false},
		{"conflict", Options{}, `"true"`, "{baseInterval: 1h}", sf, "{syncSchedule: {syncFrequency: 2h}}", Conflict, Review, "", false, false, false},
		// A migration stopped between the model's file and the config's:
		// the schedules agree, so the run finishes it (docs/behaviour.md §7).
		{"conflict that agrees: finish it", Options{}, `"true"`, "{baseInterval: 2h}", sf, "{syncSchedule: {syncFrequency: 120m}}", Conflict, Migrate, "", true, false, false},
		{"conflict that agrees, alternating", Options{}, `"true"`, `{baseInterval: 4h, timezone: UTC, windows: [{interval: 15m, start: "9:00", end: "17:00", days: [tuesday, Sun]}]}`, sf,
			`{syncSchedule: {syncFrequency: 15m, timezone: UTC, fastSyncStartTime: "09:00", fastSyncStopTime: "17:00", fastSyncEnabledDays: "Su,T"}}`, Conflict, Migrate, "", true, false, false},
		{"conflict that differs by a day", Options{}, `"true"`, `{baseInterval: 4h, timezone: UTC, windows: [{interval: 15m, start: "09:00", end: "17:00", days: [Tue]}]}`, sf,
			`{syncSchedule: {syncFrequency: 15m, timezone: UTC, fastSyncStartTime: "09:00", fastSyncStopTime: "17:00", fastSyncEnabledDays: "Su,T"}}`, Conflict, Review, "", false, false, false},
		{"conflict, --resolve=model", Options{Resolve: "model"}, `"true"`, "{baseInterval: 1h}", sf, "{syncSchedule: {syncFrequency: 2h}}", Conflict, Migrate, "", true, false, false},
		{"conflict, --resolve=connector", Options{Resolve: "connector"}, `"true"`, "{baseInterval: 1h}", sf, "{syncSchedule: {syncFrequency: 2h}}", Conflict, Migrate, "{baseInterval: 2h}", true, false, true},
		{"stacked default", Options{}, `"true"`, "{baseInterval: 1h}", sf, "{host: h}", Stacked, Migrate, "", true, false, false},
		{"Local is the container's UTC", Options{}, `"true"`, "", sf, `{syncSchedule: {syncFrequency: 15m, timezone: Local, fastSyncStartTime: "09:00", fastSyncStopTime: "17:00"}}`,
			Alternating, Migrate, `{baseInterval: 4h, timezone: UTC, windows: [{interval: 15m, start: "09:00", end: "17:00"}]}`, true, false, false},
		{"a top-level SyncSchedule is the schedule", Options{}, `"true"`, "", sf, "{SyncSchedule: {syncFrequency: 1h}}", Fixed, Review, "", false, false, false},
		{"an inner key spelled differently", Options{}, `"true"`, "", sf, "{syncSchedule: {SyncFrequency: 1h}}", Fixed, Review, "", false, false, false},
		{"not convertible: encrypted", Options{}, `"true"`, "", sf, `{syncSchedule: {syncFrequency: "ENC[AES256_GCM,data:x]"}, sops: {mac: x}}`, Unconvertible, Review, "", false, false, false},
		{"not convertible: invalid", Options{}, `"true"`, "", sf, "{syncSchedule: {syncFrequency: soon}}", Unconvertible, Review, "", false, false, false},
		{"not convertible: equal start and stop", Options{}, `"true"`, "", sf, `{syncSchedule: {syncFrequency: 1m, timezone: UTC, fastSyncStartTime: "9:00", fastSyncStopTime: "09:00"}}`, Unconvertible, Review, "", false, false, false},
		// --enable-runtime-v2: a V1 task with a delay is planned as V2 and gets the flag.
		{"V1 opted in: fixed", Options{EnableRuntimeV2: true}, "", "", sf, "{syncSchedule: {syncFrequency: 1h}}", Fixed, Migrate, "{baseInterval: 1h}", true, false, false},
		{"V1 opted in: a flag not exactly true", Options{EnableRuntimeV2: true}, `"TRUE"`, "", sf, "{host: h}", Default, Migrate, "{baseInterval: 30m}", true, false, false},
		{"V1 opted in: invalid still needs review", Options{EnableRuntimeV2: true}, "", "", sf, "{syncSchedule: {syncFrequency: soon}}", Unconvertible, Review, "", false, false, false},
		{"V1 opted in: zero delay, nothing to do", Options{EnableRuntimeV2: true}, "", "", sf, "{syncSchedule: {syncFrequency: 0s}}", NoDelay, None, "", false, false, false},
		{"V2 with the opt-in: no flag to set", Options{EnableRuntimeV2: true}, `"true"`, "", sf, "{syncSchedule: {syncFrequency: 1h}}", Fixed, Migrate, "{baseInterval: 1h}", true, false, false},
		{"not convertible: an offset the runtime refuses", Options{}, `"true"`, "", sf, `{syncSchedule: {syncFrequency: 1m, timezone: "+24:00", fastSyncStartTime: "09:00", fastSyncStopTime: "10:00"}}`, Unconvertible, Review, "", false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := decide(t, tc.opts, tc.flags, tc.sched, tc.image, tc.cfg)
			model := ""
			if d.Model != nil {
				model = d.Model.String()
			}
			if d.Situation != tc.situation || d.Action != tc.action || model != tc.model || d.ZeroConnector != tc.zero || d.RemoveUpdateDelay != tc.removeDelay || d.ReplaceModel != tc.replace {
				t.Errorf("got %s/%s model=%q zero=%v remove=%v replace=%v (%s)\nwant %s/%s model=%q zero=%v remove=%v replace=%v",
					d.Situation, d.Action, model, d.ZeroConnector, d.RemoveUpdateDelay, d.ReplaceModel, d.Reason,
					tc.situation, tc.action, tc.model, tc.zero, tc.removeDelay, tc.replace)
			}
			if want := tc.opts.EnableRuntimeV2 && tc.flags != `"true"` && tc.action == Migrate; d.EnableRuntimeV2 != want {
				t.Errorf("EnableRuntimeV2 %v, want %v", d.EnableRuntimeV2, want)
			}
			// A skip is a V1 task's, or a file sink's for want of the flag.
			if want := tc.action == Skip && tc.situation != BlockedV1; NeedsZeroFileSinks(d.Action, d.Cause) != want {
				t.Errorf("NeedsZeroFileSinks %v, want %v (%s)", !want, want, d.Reason)
			}
			if (d.Action == Review || d.Action == Skip) && (d.Reason == "" || d.Cause == CauseNone) {
				t.Errorf("no reason (%q) or no cause (%q)", d.Reason, d.Cause)
			}
		})
	}
}

// A spec that Flow's model refuses (delete or shards.disable not a
// boolean, shards.flags not an object of strings) is never migrated: the
// migration would be refused too, or would overwrite a value nobody
// decided (flags: "x"). It needs review. --enable-runtime-v2 still fixes
// the runtime flag's own value (enable-runtime-v2: true), which it writes.
func TestDecideSpecRefusedByFlow(t *testing.T) {
	const v2 = "    shards: {flags: {enable-runtime-v2: \"true\"}}\n"
	for _, tc := range []struct {
		name   string
		opts   Options
		spec   string
		action Action
		reason string // the reason's start
	}{
		{"plain V2", Options{}, v2, Migrate, ""},
		{"disable a string", Options{}, "    shards: {disable: \"true\", flags: {enable-runtime-v2: \"true\"}}\n", Review, `Flow refuses the spec as it is (shards.disable must be a boolean, not the string "true"); fix that first`},
		{"delete a string", Options{}, "    delete: \"yes\"\n" + v2, Review, `Flow refuses the spec as it is (delete must be a boolean, not the string "yes")`},
		{"another flag not a string", Options{}, "    shards: {flags: {enable-runtime-v2: \"true\", other: 3}}\n", Review, "Flow refuses the spec as it is (shards.flags.other must be a string, not the number 3)"},
		{"disable true is fine", Options{}, "    shards: {disable: true, flags: {enable-runtime-v2: \"true\"}}\n", Migrate, ""},
		{"V1, flags a string: blocked", Options{}, "    shards: {flags: \"x\"}\n", Skip, "a V1 task"},
		{"V1, flags a string, --enable-runtime-v2", Options{EnableRuntimeV2: true}, "    shards: {flags: \"x\"}\n", Review, `Flow refuses the spec as it is (shards.flags must be an object of string values, not the string "x")`},
		{"V1, shards null, --enable-runtime-v2", Options{EnableRuntimeV2: true}, "    shards:\n", Review, "Flow refuses the spec as it is (shards must be an object, not null)"},
		{"V1, boolean flag, --enable-runtime-v2 writes it", Options{EnableRuntimeV2: true}, "    shards: {flags: {enable-runtime-v2: true}}\n", Migrate, ""},
		{"V1, boolean flag and another bad one, --enable-runtime-v2", Options{EnableRuntimeV2: true}, "    shards: {flags: {enable-runtime-v2: true, x: null}}\n", Review, "Flow refuses the spec as it is (shards.flags.x must be a string, not null)"},
		{"not a scheduling image: nothing to do", Options{}, "    delete: \"yes\"\n" + v2, None, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			image := sf
			if tc.action == None {
				image = "ghcr.io/estuary/materialize-postgres:v4"
			}
			src := "materializations:\n  acmeCo/t/x:\n" + tc.spec + "    endpoint: {connector: {image: " + image + ", config: {syncSchedule: {syncFrequency: 1h}}}}\n"
			dir := t.TempDir()
			p := filepath.Join(dir, "flow.yaml")
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
			d := (&Planner{Registry: connector.Builtin(), Options: tc.opts}).Decide(cat.Materializations[0])
			if d.Action != tc.action || !strings.HasPrefix(d.Reason, tc.reason) {
				t.Errorf("action %s, reason %q; want %s, %q", d.Action, d.Reason, tc.action, tc.reason)
			}
			if d.Action == Review && (d.Model != nil || d.ZeroConnector || d.EnableRuntimeV2) {
				t.Errorf("a task to review still has changes: %+v", d)
			}
		})
	}
}

// A blocked-v1 task's reason gives the advice census, explain and migrate
// give alike (docs/behaviour.md §8): migrate --enable-runtime-v2, but only
// where the flag alone would move it; a V1 task whose connector schedule
// cannot be converted says what a person must fix first.
func TestBlockedV1Advice(t *testing.T) {
	for _, tc := range []struct {
		name, cfg string
		cause     Cause
		reason    string
	}{
		{"convertible", "{syncSchedule: {syncFrequency: 1h}}", CauseBlockedV1,
			"a V1 task: a materialization syncSchedule would be rejected; migrate --enable-runtime-v2 moves it to the V2 runtime with its schedule"},
		{"the 30m default", "{host: h}", CauseBlockedV1, BlockedV1Reason},
		{"invalid", "{syncSchedule: {syncFrequency: soon}}", CauseBlockedV1Review,
			`a V1 task whose connector schedule needs a person before migrate --enable-runtime-v2 can move it: the connector schedule is invalid: validating schedule configuration: parsing interval in CreateSchedule: time: invalid duration "soon"`},
		{"encrypted", `{syncSchedule: {syncFrequency: "ENC[AES256_GCM,data:x]"}, sops: {mac: x}}`, CauseBlockedV1Review,
			"a V1 task whose connector schedule needs a person before migrate --enable-runtime-v2 can move it: the connector schedule is encrypted (sops)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := decide(t, Options{}, "", "", sf, tc.cfg)
			if d.Status != StatusBlockedV1 || d.Action != Skip || d.Cause != tc.cause || !strings.HasPrefix(d.Reason, tc.reason) {
				t.Errorf("got %s/%s cause %s: %s\nwant blocked-v1/skip cause %s: %s...", d.Status, d.Action, d.Cause, d.Reason, tc.cause, tc.reason)
			}
			if IsBlockedV1Review(d.Action, d.Cause) != (tc.cause == CauseBlockedV1Review) {
				t.Errorf("IsBlockedV1Review %v", !(tc.cause == CauseBlockedV1Review))
			}
		})
	}
}
