package validate

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/finding"
	"github.com/estuary/schedtool/schedule/connector"
)

// mat builds a one-materialization catalog source.
func mat(flags, sched, image, config string) string {
	var b strings.Builder
	b.WriteString("materializations:\n  acmeCo/t/materialize-x:\n")
	if flags != "" {
		b.WriteString("    shards:\n      flags:\n        enable-runtime-v2: " + flags + "\n")
	}
	if sched != "" {
		b.WriteString("    syncSchedule: " + sched + "\n")
	}
	b.WriteString("    endpoint:\n      connector:\n        image: " + image + "\n")
	if config != "" {
		b.WriteString("        config: " + config + "\n")
	}
	b.WriteString("    bindings: []\n")
	return b.String()
}

// withSpec is a one-materialization source with these spec lines, on an
// image whose connector schedule is zero (no other rule applies).
func withSpec(lines string) string {
	return "materializations:\n  acmeCo/t/materialize-x:\n" + lines +
		"    endpoint:\n      connector:\n        image: " + sf + "\n        config: {syncSchedule: {syncFrequency: 0s}}\n    bindings: []\n"
}

const (
	sf      = "ghcr.io/estuary/materialize-snowflake:v4"
	v2      = `"true"`
	model1h = `{baseInterval: 1h}`
)

type got struct {
	Rule    string
	File    string
	Line    int
	Pointer string
}

func runCatalog(t *testing.T, files map[string]string, reg *connector.Registry) []finding.Finding {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if reg == nil {
		reg = connector.Builtin()
	}
	root := filepath.Join(dir, "flow.yaml")
	if _, ok := files["flow.yaml"]; !ok {
		root = dir // several catalogs: the directory
	}
	inputs, err := input.Resolve([]string{root}, catalog.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	fs, _, err := (&Checker{Registry: reg, Crashes: connector.NewCrashFinder(crashFrom)}).Collect(inputs, catalog.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for i := range fs {
		fs[i].Pos.File, _ = filepath.Rel(dir, fs[i].Pos.File)
	}
	return fs
}

// crashFrom is the instant the rule tests look for connector crashes from.
var crashFrom = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func rules(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Rule)
	}
	sort.Strings(out)
	return out
}

// Each rule: a fixture that triggers it, and one that just misses it.
func TestRules(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string // every rule reported, sorted
	}{
		// parse-error
		{"parse-error: broken YAML", map[string]string{"flow.yaml": "materializations: [\n"}, []string{"parse-error"}},
		{"parse-error: import cycle", map[string]string{"flow.yaml": "import: [a.yaml]\n", "a.yaml": "import: [flow.yaml]\n"}, []string{"parse-error"}},
		{"parse-error: import escapes root", map[string]string{"flow.yaml": "import: [../elsewhere.yaml]\n"}, []string{"parse-error"}},
		{"parse-error: broken config file", map[string]string{"flow.yaml": mat(v2, "", sf, "cfg.yaml"), "cfg.yaml": "syncSchedule: {\n"}, []string{"parse-error"}},
		{"near miss parse-error: import of a sibling", map[string]string{"flow.yaml": "import: [sub/a.yaml]\n", "sub/a.yaml": "import: [../b.yaml]\n", "b.yaml": "collections: {}\n"}, nil},

		// invalid-sync-schedule
		{"invalid-sync-schedule: unknown key", map[string]string{"flow.yaml": mat(v2, `{baseInterval: 1h, cron: "* * *"}`, sf, `{syncSchedule: {syncFrequency: 0s}}`)}, []string{"invalid-sync-schedule"}},
		{"invalid-sync-schedule: missing baseInterval", map[string]string{"flow.yaml": mat(v2, `{}`, sf, `{syncSchedule: {syncFrequency: 0s}}`)}, []string{"invalid-sync-schedule"}},
		{"invalid-sync-schedule: bad duration", map[string]string{"flow.yaml": mat(v2, `{baseInterval: soon}`, sf, `{syncSchedule: {syncFrequency: 0s}}`)}, []string{"invalid-sync-schedule"}},
		{"invalid-sync-schedule: bad day", map[string]string{"flow.yaml": mat(v2, `{baseInterval: 1h, timezone: UTC, windows: [{interval: 1m, start: "09:00", end: "10:00", days: [Someday]}]}`, sf, `{syncSchedule: {syncFrequency: 0s}}`)}, []string{"invalid-sync-schedule"}},
		{"invalid-sync-schedule: Flow validation", map[string]string{"flow.yaml": mat(v2, `{baseInterval: 15m, timezone: UTC}`, sf, `{syncSchedule: {syncFrequency: 0s}}`)}, []string{"invalid-sync-schedule"}},
		{"near miss invalid-sync-schedule: touching windows", map[string]string{"flow.yaml": mat(v2, `{baseInterval: 4h, timezone: UTC, windows: [{interval: 1m, start: "09:00", end: "17:00"}, {interval: 5m, start: "17:00", end: "20:00"}]}`, sf, `{syncSchedule: {syncFrequency: 0s}}`)}, nil},

		// requires-runtime-v2
		{"requires-runtime-v2: no flag", map[string]string{"flow.yaml": mat("", model1h, sf, `{syncSchedule: {syncFrequency: 0s}}`)}, []string{"requires-runtime-v2"}},
		{"requires-runtime-v2: TRUE", map[string]string{"flow.yaml": mat(`"TRUE"`, model1h, sf, `{syncSchedule: {syncFrequency: 0s}}`)}, []string{"requires-runtime-v2"}},
		{"requires-runtime-v2: 1", map[string]string{"flow.yaml": mat(`"1"`, model1h, sf, `{syncSchedule: {syncFrequency: 0s}}`)}, []string{"requires-runtime-v2"}},
		{"near miss requires-runtime-v2: quoted true", map[string]string{"flow.yaml": mat(v2, model1h, sf, `{syncSchedule: {syncFrequency: 0s}}`)}, nil},
		{"near miss requires-runtime-v2: V1 without a model schedule", map[string]string{"flow.yaml": mat("", "", sf, `{syncSchedule: {syncFrequency: 0s}}`)}, nil},

		// invalid-shard-flag
		{"invalid-shard-flag: unquoted true", map[string]string{"flow.yaml": mat("true", model1h, sf, `{syncSchedule: {syncFrequency: 0s}}`)}, []string{"invalid-shard-flag", "requires-runtime-v2"}},
		{"near miss invalid-shard-flag: the string false", map[string]string{"flow.yaml": mat(`"false"`, "", sf, `{syncSchedule: {syncFrequency: 0s}}`)}, nil},
		{"invalid-shard-flag: null", map[string]string{"flow.yaml": mat("null", "", sf, `{syncSchedule: {syncFrequency: 0s}}`)}, []string{"invalid-shard-flag"}},
		{"invalid-shard-flag: flags a string", map[string]string{"flow.yaml": withSpec("    shards: {flags: \"x\"}\n")}, []string{"invalid-shard-flag"}},
		{"invalid-shard-flag: flags a list", map[string]string{"flow.yaml": withSpec("    shards: {flags: [enable-runtime-v2]}\n")}, []string{"invalid-shard-flag"}},
		{"invalid-shard-flag: another flag a number", map[string]string{"flow.yaml": withSpec("    shards: {flags: {enable-runtime-v2: \"true\", other: 3}}\n")}, []string{"invalid-shard-flag"}},
		{"near miss invalid-shard-flag: another flag a string", map[string]string{"flow.yaml": withSpec("    shards: {flags: {enable-runtime-v2: \"true\", other: \"3\"}}\n")}, nil},

		// parse-error: a field Flow's model types otherwise (schemas.Task)
		{"parse-error: shards.disable a string", map[string]string{"flow.yaml": withSpec("    shards: {disable: \"true\"}\n")}, []string{"parse-error"}},
		{"parse-error: delete a string", map[string]string{"flow.yaml": withSpec("    delete: \"yes\"\n")}, []string{"parse-error"}},
		{"parse-error: shards a list", map[string]string{"flow.yaml": withSpec("    shards: [disable]\n")}, []string{"parse-error"}},
		{"parse-error and invalid-shard-flag together", map[string]string{"flow.yaml": withSpec("    delete: null\n    shards: {disable: 1, flags: \"x\"}\n")}, []string{"invalid-shard-flag", "parse-error", "parse-error"}},
		{"near miss parse-error: booleans", map[string]string{"flow.yaml": withSpec("    delete: false\n    shards: {disable: true, flags: {}}\n")}, nil},

		// sync-schedule-conflict
		{"sync-schedule-conflict: fixed", map[string]string{"flow.yaml": mat(v2, model1h, sf, `{syncSchedule: {syncFrequency: 30m}}`)}, []string{"sync-schedule-conflict"}},
		{"sync-schedule-conflict: zero with other keys", map[string]string{"flow.yaml": mat(v2, model1h, sf, `{syncSchedule: {syncFrequency: 0s, timezone: UTC, fastSyncStartTime: "09:00", fastSyncStopTime: "17:00"}}`)}, []string{"sync-schedule-conflict"}},
		{"sync-schedule-conflict: not an object", map[string]string{"flow.yaml": mat(v2, model1h, sf, `{syncSchedule: 30m}`)}, []string{"invalid-connector-schedule", "sync-schedule-conflict"}},
		{"sync-schedule-conflict: in a config file", map[string]string{"flow.yaml": mat(v2, model1h, sf, "cfg.yaml"), "cfg.yaml": "syncSchedule:\n  syncFrequency: 1h\n"}, []string{"sync-schedule-conflict"}},
		{"near miss sync-schedule-conflict: the carve-out 0s", map[string]string{"flow.yaml": mat(v2, model1h, sf, `{syncSchedule: {syncFrequency: 0s}}`)}, nil},
		{"near miss sync-schedule-conflict: the carve-out 0h0m0s", map[string]string{"flow.yaml": mat(v2, model1h, sf, `{syncSchedule: {syncFrequency: 0h0m0s}}`)}, []string{"off-enum-schedule-value"}},
		{"near miss sync-schedule-conflict: an all-empty remnant", map[string]string{"flow.yaml": mat(v2, model1h, sf, `{syncSchedule: {syncFrequency: "", timezone: null}}`)}, []string{"ack-delay-stacks"}},
		{"near miss sync-schedule-conflict: null", map[string]string{"flow.yaml": mat(v2, model1h, sf, `{syncSchedule: null}`)}, []string{"ack-delay-stacks"}},

		// invalid-connector-schedule
		{"invalid-connector-schedule: days", map[string]string{"flow.yaml": mat(v2, "", sf, `{syncSchedule: {syncFrequency: 15m, timezone: UTC, fastSyncStartTime: "09:00", fastSyncStopTime: "17:00", fastSyncEnabledDays: "Su, T"}}`)}, []string{"invalid-connector-schedule"}},
		{"invalid-connector-schedule: equal by value", map[string]string{"flow.yaml": mat(v2, "", sf, `{syncSchedule: {syncFrequency: 15m, timezone: UTC, fastSyncStartTime: "9:00", fastSyncStopTime: "09:00"}}`)}, []string{"invalid-connector-schedule"}},
		{"invalid-connector-schedule: file sink interval missing", map[string]string{"flow.yaml": mat(v2, "", "ghcr.io/estuary/materialize-s3-csv:v1", `{bucket: b}`)}, []string{"invalid-connector-schedule"}},
		{"invalid-connector-schedule: iceberg days", map[string]string{"flow.yaml": mat(v2, "", "ghcr.io/estuary/materialize-s3-iceberg:v1", `{upload_interval: P1D}`)}, []string{"invalid-connector-schedule"}},
		{"near miss invalid-connector-schedule: ascending days", map[string]string{"flow.yaml": mat("", "", sf, `{syncSchedule: {syncFrequency: 15m, timezone: UTC, fastSyncStartTime: "09:00", fastSyncStopTime: "17:00", fastSyncEnabledDays: "Su,T"}}`)}, nil},

		// ack-delay-stacks
		{"ack-delay-stacks: the 30m default", map[string]string{"flow.yaml": mat(v2, model1h, sf, `{host: h}`)}, []string{"ack-delay-stacks"}},
		{"ack-delay-stacks: no config at all", map[string]string{"flow.yaml": mat(v2, model1h, sf, "")}, []string{"ack-delay-stacks"}},
		{"ack-delay-stacks: file sink", map[string]string{"flow.yaml": mat(v2, model1h, "ghcr.io/estuary/materialize-s3-parquet:v1", `{uploadInterval: 5m}`)}, []string{"ack-delay-stacks"}},
		{"near miss ack-delay-stacks: file sink zeroed", map[string]string{"flow.yaml": mat(v2, model1h, "ghcr.io/estuary/materialize-s3-iceberg:v1", `{upload_interval: PT0S}`)}, nil},

		// legacy-update-delay
		{"legacy-update-delay", map[string]string{"flow.yaml": mat("", "", "ghcr.io/estuary/materialize-bigquery:v1", `{advanced: {updateDelay: 1h}}`)}, []string{"legacy-update-delay"}},
		{"legacy-update-delay beside syncFrequency: present, and refused", map[string]string{"flow.yaml": mat("", "", "ghcr.io/estuary/materialize-bigquery:v1", `{advanced: {updateDelay: 1h}, syncSchedule: {syncFrequency: 15m}}`)}, []string{"invalid-connector-schedule", "legacy-update-delay"}},
		{"legacy-update-delay beside an alternating syncSchedule without syncFrequency", map[string]string{"flow.yaml": mat("", "", "ghcr.io/estuary/materialize-bigquery:v1", `{advanced: {updateDelay: 1h}, syncSchedule: {timezone: UTC, fastSyncStartTime: "09:00", fastSyncStopTime: "10:00"}}`)}, []string{"invalid-connector-schedule", "legacy-update-delay"}},
		{"near miss legacy-update-delay: other advanced keys", map[string]string{"flow.yaml": mat("", "", "ghcr.io/estuary/materialize-bigquery:v1", `{advanced: {disableFieldTruncation: true}}`)}, nil},

		// off-enum-schedule-value
		{"off-enum-schedule-value: 45m", map[string]string{"flow.yaml": mat("", "", sf, `{syncSchedule: {syncFrequency: 45m}}`)}, []string{"off-enum-schedule-value"}},
		{"off-enum-schedule-value: negative", map[string]string{"flow.yaml": mat("", "", sf, `{syncSchedule: {syncFrequency: -1m}}`)}, []string{"off-enum-schedule-value"}},
		{"off-enum-schedule-value: file sink 0s", map[string]string{"flow.yaml": mat("", "", "ghcr.io/estuary/materialize-gcs-parquet:v1", `{uploadInterval: 0s}`)}, []string{"off-enum-schedule-value"}},
		{"near miss off-enum-schedule-value: 4h", map[string]string{"flow.yaml": mat("", "", sf, `{syncSchedule: {syncFrequency: 4h}}`)}, nil},
		{"near miss off-enum-schedule-value: 1m, added 2026-08", map[string]string{"flow.yaml": mat("", "", sf, `{syncSchedule: {syncFrequency: 1m}}`)}, nil},
		{"near miss off-enum-schedule-value: 2m30s, added 2026-08", map[string]string{"flow.yaml": mat("", "", sf, `{syncSchedule: {syncFrequency: 2m30s}}`)}, nil},
		{"near miss off-enum-schedule-value: 20m, added 2026-08", map[string]string{"flow.yaml": mat("", "", sf, `{syncSchedule: {syncFrequency: 20m}}`)}, nil},
		{"off-enum-schedule-value: 20m on a tag before the longer enum", map[string]string{"flow.yaml": mat("", "", "ghcr.io/estuary/materialize-snowflake:v3", `{syncSchedule: {syncFrequency: 20m}}`)}, []string{"off-enum-schedule-value"}},
		{"off-enum-schedule-value: 1m on starburst (removed before the longer enum)", map[string]string{"flow.yaml": mat("", "", "ghcr.io/estuary/materialize-starburst:v1", `{syncSchedule: {syncFrequency: 1m}}`)}, []string{"off-enum-schedule-value"}},

		// connector-schedule-in-use
		{"connector-schedule-in-use: default", map[string]string{"flow.yaml": mat(v2, "", sf, `{host: h}`)}, []string{"connector-schedule-in-use"}},
		{"connector-schedule-in-use: alternating", map[string]string{"flow.yaml": mat(v2, "", sf, `{syncSchedule: {syncFrequency: 0s, timezone: UTC, fastSyncStartTime: "09:00", fastSyncStopTime: "17:00"}}`)}, []string{"connector-schedule-in-use"}},
		{"near miss connector-schedule-in-use: V1", map[string]string{"flow.yaml": mat("", "", sf, `{host: h}`)}, nil},
		{"near miss connector-schedule-in-use: zero", map[string]string{"flow.yaml": mat(v2, "", sf, `{syncSchedule: {syncFrequency: 0s}}`)}, nil},
		{"near miss connector-schedule-in-use: not a scheduling image", map[string]string{"flow.yaml": mat(v2, "", "ghcr.io/estuary/materialize-postgres:v4", `{address: x}`)}, nil},

		// connector-schedule-crashes
		{"connector-schedule-crashes: Monday only in New York", map[string]string{"flow.yaml": mat(v2, "", sf, `{syncSchedule: {syncFrequency: 15m, timezone: America/New_York, fastSyncStartTime: "09:00", fastSyncStopTime: "17:00", fastSyncEnabledDays: M}}`)}, []string{"connector-schedule-crashes", "connector-schedule-in-use"}},
		{"connector-schedule-crashes: V1 too", map[string]string{"flow.yaml": mat("", "", sf, `{syncSchedule: {syncFrequency: 15m, timezone: Europe/London, fastSyncStartTime: "09:00", fastSyncStopTime: "17:00", fastSyncEnabledDays: Su}}`)}, []string{"connector-schedule-crashes"}},
		{"near miss connector-schedule-crashes: Monday to Friday", map[string]string{"flow.yaml": mat(v2, "", sf, `{syncSchedule: {syncFrequency: 15m, timezone: America/New_York, fastSyncStartTime: "09:00", fastSyncStopTime: "17:00", fastSyncEnabledDays: M-F}}`)}, []string{"connector-schedule-in-use"}},
		{"near miss connector-schedule-crashes: no DST", map[string]string{"flow.yaml": mat(v2, "", sf, `{syncSchedule: {syncFrequency: 15m, timezone: Asia/Tokyo, fastSyncStartTime: "09:00", fastSyncStopTime: "17:00", fastSyncEnabledDays: M}}`)}, []string{"connector-schedule-in-use"}},
		{"near miss connector-schedule-crashes: two days", map[string]string{"flow.yaml": mat(v2, "", sf, `{syncSchedule: {syncFrequency: 15m, timezone: America/New_York, fastSyncStartTime: "09:00", fastSyncStopTime: "17:00", fastSyncEnabledDays: "M,Th"}}`)}, []string{"connector-schedule-in-use"}},
		{"near miss connector-schedule-crashes: Monday only at a fixed offset", map[string]string{"flow.yaml": mat(v2, "", sf, `{syncSchedule: {syncFrequency: 15m, timezone: "-05:00", fastSyncStartTime: "09:00", fastSyncStopTime: "17:00", fastSyncEnabledDays: M}}`)}, []string{"connector-schedule-in-use"}},
		{"near miss connector-schedule-crashes: the gap window in a zone without DST", map[string]string{"flow.yaml": mat(v2, "", sf, `{syncSchedule: {syncFrequency: 15m, timezone: Asia/Tokyo, fastSyncStartTime: "02:10", fastSyncStopTime: "02:40"}}`)}, []string{"connector-schedule-in-use"}},
		{"near miss connector-schedule-crashes: fixed, not alternating", map[string]string{"flow.yaml": mat(v2, "", sf, `{syncSchedule: {syncFrequency: 15m}}`)}, []string{"connector-schedule-in-use"}},

		// sealed-schedule
		{"sealed-schedule", map[string]string{"flow.yaml": mat(v2, "", sf, "cfg.yaml"), "cfg.yaml": sealedConfig("syncSchedule:\n    syncFrequency: ENC[AES256_GCM,data:Zm9v,iv:aXY=,tag:dGFn,type:str]\n", "")}, []string{"sealed-schedule"}},
		{"sealed-schedule with a model schedule is a conflict", map[string]string{"flow.yaml": mat(v2, model1h, sf, "cfg.yaml"), "cfg.yaml": sealedConfig("syncSchedule:\n    syncFrequency: ENC[AES256_GCM,data:Zm9v,iv:aXY=,tag:dGFn,type:str]\n", "")}, []string{"sealed-schedule", "sync-schedule-conflict"}},
		// secret-schedule (docs/behaviour.md §4.5)
		{"secret-schedule: a pointer to syncFrequency", map[string]string{"flow.yaml": withSecrets(mat(v2, "", sf, `{host: h, syncSchedule: {syncFrequency: 15m}}`), `{acmeCo/t/snow-sched: /syncSchedule/syncFrequency}`)}, []string{"secret-schedule"}},
		{"secret-schedule: the config root", map[string]string{"flow.yaml": withSecrets(mat(v2, "", sf, `{host: h}`), `{acmeCo/t/whole: ""}`)}, []string{"secret-schedule"}},
		{"secret-schedule: above, folded as the connector folds keys", map[string]string{"flow.yaml": withSecrets(mat(v2, "", sf, `{host: h}`), `{acmeCo/t/s: /SyncSchedule}`)}, []string{"secret-schedule"}},
		{"secret-schedule: a file sink's interval", map[string]string{"flow.yaml": withSecrets(mat(v2, "", "ghcr.io/estuary/materialize-s3-csv:v1", `{bucket: b, uploadInterval: 15m}`), `{acmeCo/t/s: /uploadInterval}`)}, []string{"secret-schedule"}},
		{"secret-schedule with a model schedule is a conflict", map[string]string{"flow.yaml": withSecrets(mat(v2, model1h, sf, `{host: h, syncSchedule: {syncFrequency: 0s}}`), `{acmeCo/t/s: /syncSchedule/syncFrequency}`)}, []string{"secret-schedule", "sync-schedule-conflict"}},
		{"secret-schedule: a stored invalid value it overwrites is no finding", map[string]string{"flow.yaml": withSecrets(mat(v2, "", sf, `{syncSchedule: {syncFrequency: soon}}`), `{acmeCo/t/s: /syncSchedule/syncFrequency}`)}, []string{"secret-schedule"}},
		{"near miss secret-schedule: a pointer elsewhere in the config", map[string]string{"flow.yaml": withSecrets(mat(v2, "", sf, `{host: h, syncSchedule: {syncFrequency: 15m}}`), `{acmeCo/t/pw: /credentials/password}`)}, []string{"connector-schedule-in-use"}},
		{"near miss secret-schedule: a sibling key", map[string]string{"flow.yaml": withSecrets(mat(v2, "", sf, `{host: h, syncSchedule: {syncFrequency: 0s}}`), `{acmeCo/t/s: /syncScheduleX}`)}, nil},

		// defined-in-several-catalogs
		{"defined-in-several-catalogs: two sources nothing imports", map[string]string{"a.flow.yaml": mat(v2, "", sf, `{syncSchedule: {syncFrequency: 0s}}`), "b.flow.yaml": mat(v2, "", sf, `{syncSchedule: {syncFrequency: 0s}}`)}, []string{"defined-in-several-catalogs"}},
		{"defined-in-several-catalogs: three catalogs, one info", map[string]string{"a.flow.yaml": mat(v2, "", sf, `{syncSchedule: {syncFrequency: 0s}}`), "b.flow.yaml": mat(v2, "", sf, `{syncSchedule: {syncFrequency: 0s}}`), "sub/flow.yaml": mat(v2, "", sf, `{syncSchedule: {syncFrequency: 0s}}`)}, []string{"defined-in-several-catalogs"}},
		{"near miss defined-in-several-catalogs: twice in one catalog is Flow's error", map[string]string{"flow.yaml": "import: [a.yaml, b.yaml]\n", "a.yaml": mat(v2, "", sf, `{syncSchedule: {syncFrequency: 0s}}`), "b.yaml": mat(v2, "", sf, `{syncSchedule: {syncFrequency: 0s}}`)}, []string{"parse-error", "parse-error"}},
		{"near miss defined-in-several-catalogs: a source two catalogs import is one definition", map[string]string{"a.flow.yaml": "import: [shared.yaml]\n", "b.flow.yaml": "import: [shared.yaml]\n", "shared.yaml": mat(v2, "", sf, `{syncSchedule: {syncFrequency: 0s}}`)}, nil},
		{"near miss sealed-schedule: overlay overrides", map[string]string{"flow.yaml": mat(v2, model1h, sf, "cfg.yaml"), "cfg.yaml": sealedConfig("syncSchedule:\n    syncFrequency: ENC[AES256_GCM,data:Zm9v,iv:aXY=,tag:dGFn,type:str]\n", "    overlay:\n        syncSchedule:\n            syncFrequency: 0s\n")}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := runCatalog(t, tc.files, nil)
			if diff := cmp.Diff(tc.want, rules(fs)); diff != "" {
				t.Errorf("rules (-want +got):\n%s\nfindings: %+v", diff, fs)
			}
		})
	}
}

// withSecrets gives the materialization of mat's source a secrets
// stanza (docs/behaviour.md §4.5).
func withSecrets(src, secrets string) string {
	return strings.Replace(src, "  acmeCo/t/materialize-x:\n", "  acmeCo/t/materialize-x:\n    secrets: "+secrets+"\n", 1)
}

func sealedConfig(body, overlay string) string {
	return "host: ENC[AES256_GCM,data:aG9zdA==,iv:aXY=,tag:dGFn,type:str]\n" + body +
		"sops:\n    age:\n        - recipient: age1qqq\n          enc: |\n            -----BEGIN AGE ENCRYPTED FILE-----\n            -----END AGE ENCRYPTED FILE-----\n" +
		overlay + "    lastmodified: \"2026-01-01T00:00:00Z\"\n    mac: ENC[AES256_GCM,data:bWFj,iv:aXY=,tag:dGFn,type:str]\n    version: 3.13.3\n"
}

// Messages start with the texts of docs/behaviour.md, and findings point at the node at fault.
func TestMessagesAndPositions(t *testing.T) {
	fs := runCatalog(t, map[string]string{
		"flow.yaml": mat("", model1h, sf, "cfg.yaml"),
		"cfg.yaml":  "host: h\nsyncSchedule:\n  syncFrequency: 45m\n",
	}, nil)
	var out []got
	msgs := map[string]string{}
	for _, f := range fs {
		out = append(out, got{f.Rule, f.Pos.File, f.Pos.Line, f.Pos.Pointer})
		msgs[f.Rule] = f.Message
	}
	want := []got{
		{"sync-schedule-conflict", "cfg.yaml", 3, "/syncSchedule"},
		{"off-enum-schedule-value", "cfg.yaml", 3, "/syncSchedule/syncFrequency"},
		{"requires-runtime-v2", "flow.yaml", 3, "/materializations/acmeCo~1t~1materialize-x/syncSchedule"},
	}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if m := msgs["requires-runtime-v2"]; m != `materialization acmeCo/t/materialize-x uses syncSchedule, which requires the V2 task runtime: set enable-runtime-v2: "true" under its shards.flags` {
		t.Errorf("requires-runtime-v2 message: %s", m)
	}
	if m := msgs["sync-schedule-conflict"]; !strings.HasPrefix(m, "materialization acmeCo/t/materialize-x configures a sync schedule both in its connector config (syncSchedule) and as a materialization sync schedule; remove one") || !strings.Contains(m, `set syncSchedule to {syncFrequency: "0s"}`) {
		t.Errorf("sync-schedule-conflict message: %s", m)
	}
	// The sealed conflict says to use the overlay.
	fs = runCatalog(t, map[string]string{"flow.yaml": mat(v2, model1h, sf, "cfg.yaml"),
		"cfg.yaml": sealedConfig("syncSchedule:\n    syncFrequency: ENC[AES256_GCM,data:Zm9v,iv:aXY=,tag:dGFn,type:str]\n", "")}, nil)
	for _, f := range fs {
		if f.Rule == "sync-schedule-conflict" && !strings.Contains(f.Message, "via sops.overlay") {
			t.Errorf("sealed conflict without the overlay hint: %s", f.Message)
		}
		if f.Rule == "sealed-schedule" && (f.Pos.Pointer != "/syncSchedule/syncFrequency" || f.Pos.Line != 3) {
			t.Errorf("sealed-schedule at %+v", f.Pos)
		}
	}
	// invalid-sync-schedule points at the value at fault.
	fs = runCatalog(t, map[string]string{"flow.yaml": mat(v2, `{baseInterval: 4h, timezone: UTC, windows: [{interval: 1m, start: "9:5", end: "10:00"}]}`, sf, `{syncSchedule: {syncFrequency: 0s}}`)}, nil)
	if len(fs) != 1 || fs[0].Message != `invalid sync schedule: invalid start "9:5" of window 0 (expected HH:MM)` || !strings.HasSuffix(fs[0].Pos.Pointer, "/syncSchedule/windows/0/start") {
		t.Errorf("invalid-sync-schedule: %+v", fs)
	}
}

// connector-schedule-crashes names the first range (docs/behaviour.md §10's vector),
// points at the connector's schedule and says that migrating removes it.
func TestCrashMessage(t *testing.T) {
	fs := runCatalog(t, map[string]string{"flow.yaml": mat(v2, "", sf, `{syncSchedule: {syncFrequency: 15m, timezone: America/New_York, fastSyncStartTime: "09:00", fastSyncStopTime: "17:00", fastSyncEnabledDays: M}}`)}, nil)
	var msg string
	for _, f := range fs {
		if f.Rule == finding.ConnectorScheduleCrashes {
			msg = f.Message
			if f.Severity != finding.Warning || f.Pos.Pointer != "/materializations/acmeCo~1t~1materialize-x/endpoint/connector/config/syncSchedule" {
				t.Errorf("at %+v, severity %v", f.Pos, f.Severity)
			}
		}
	}
	want := "materialization acmeCo/t/materialize-x: its connector panics when its last commit acknowledgement is after Mon 2026-10-26 09:00:00 EDT up to and including 10:00:00 EDT (UTC: after 2026-10-26T13:00:00Z, up to and including 2026-10-26T14:00:00Z): the connector's search for the next fast-window start looks only 7 days ahead, and in America/New_York the next start is further away, so the task crash-loops until the clock is past that range; migrating the schedule into the runtime removes the crash (schedtool migrate)"
	if msg != want {
		t.Errorf("message:\n got %s\nwant %s", msg, want)
	}
}

// The registry's deferral tag turns stacking off for images that have it.
func TestStacksDeferral(t *testing.T) {
	ext, err := connector.ParseRegistry([]byte(`{"families":{},"images":[{"image":"ghcr.io/estuary/materialize-snowflake","family":"syncSchedule","deferralSince":"v4"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	reg, err := connector.Builtin().Extend(ext)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"flow.yaml": mat(v2, model1h, sf, `{host: h}`)}
	if got := rules(runCatalog(t, files, reg)); len(got) != 0 {
		t.Errorf("with the deferral: %v", got)
	}
	files = map[string]string{"flow.yaml": mat(v2, model1h, "ghcr.io/estuary/materialize-snowflake:v3", `{host: h}`)}
	if got := rules(runCatalog(t, files, reg)); len(got) != 1 || got[0] != "ack-delay-stacks" {
		t.Errorf("before the deferral: %v", got)
	}
}

// A field whose type Flow's model refuses is reported at its node, with
// what it must be, what it is, and that Flow refuses the spec.
func TestSpecFieldFindings(t *testing.T) {
	fs := runCatalog(t, map[string]string{"flow.yaml": withSpec("    delete: \"yes\"\n    shards:\n      disable: \"true\"\n      flags: {enable-runtime-v2: \"true\", other: 3}\n")}, nil)
	finding.Sort(fs)
	type one struct {
		Rule    string
		Line    int
		Column  int
		Pointer string
		Message string
	}
	var got []one
	for _, f := range fs {
		got = append(got, one{f.Rule, f.Pos.Line, f.Pos.Column, f.Pos.Pointer, f.Message})
	}
	const p = "/materializations/acmeCo~1t~1materialize-x"
	want := []one{
		{"parse-error", 3, 13, p + "/delete", `materialization acmeCo/t/materialize-x: delete must be a boolean, not the string "yes"; Flow's model refuses the spec, so its build fails (schedtool reads it as a task, not a deletion)`},
		{"parse-error", 5, 16, p + "/shards/disable", `materialization acmeCo/t/materialize-x: shards.disable must be a boolean, not the string "true"; Flow's model refuses the spec, so its build fails`},
		{"invalid-shard-flag", 6, 49, p + "/shards/flags/other", `materialization acmeCo/t/materialize-x: shards.flags.other must be a string, not the number 3; Flow refuses the spec`},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	fs = runCatalog(t, map[string]string{"flow.yaml": withSpec("    shards:\n      flags: \"x\"\n")}, nil)
	if len(fs) != 1 || fs[0].Message != `materialization acmeCo/t/materialize-x: shards.flags must be an object of string values, not the string "x"; Flow refuses the spec, and the task is not on the V2 runtime` || fs[0].Pos.Line != 4 || fs[0].Pos.Pointer != p+"/shards/flags" {
		t.Errorf("flags: %+v", fs)
	}
}

// off-enum-schedule-value is an error in a plaintext config (Flow's config
// encryption checks it against the connector's schema and refuses it,
// docs/behaviour.md §4.1); in a sealed config it is a warning, and info on
// a file sink's 0s/PT0S when the task has a model schedule (the state
// migrate --zero-file-sinks writes), still saying what a form built from
// the connector's schema offers (issue 24).
func TestOffEnumSeverityOfAMigratedFileSink(t *testing.T) {
	const secretsMark = " (with secrets)"
	const csv = "ghcr.io/estuary/materialize-gcs-parquet:v1" // PT0S is no finding: upload_interval publishes no values
	const sops = `, sops: {mac: "ENC[AES256_GCM,data:x,type:str]"}}`
	sealed := func(cfg string) string { return strings.TrimSuffix(cfg, "}") + sops }
	for _, tc := range []struct {
		name, flags, sched, image, config string
		want                              finding.Severity
	}{
		{"sealed file sink 0s with a model schedule: info", v2, model1h, csv, sealed(`{uploadInterval: 0s}`), finding.Info},
		{"sealed file sink 0s with a model schedule, V1 too: info", "", model1h, csv, sealed(`{uploadInterval: 0s}`), finding.Info},
		{"near miss: sealed file sink 0s without a model schedule", v2, "", csv, sealed(`{uploadInterval: 0s}`), finding.Warning},
		{"near miss: a sealed non-zero off-enum interval with a model schedule", v2, model1h, csv, sealed(`{uploadInterval: 7m}`), finding.Warning},
		{"near miss: sealed syncSchedule 45m with a model schedule", v2, model1h, sf, sealed(`{syncSchedule: {syncFrequency: 45m}}`), finding.Warning},
		{"plaintext file sink 0s with a model schedule: error", v2, model1h, csv, `{uploadInterval: 0s}`, finding.Error},
		{"plaintext file sink 0s without a model schedule: error", v2, "", csv, `{uploadInterval: 0s}`, finding.Error},
		{"plaintext syncSchedule 45m: error", v2, "", sf, `{syncSchedule: {syncFrequency: 45m}}`, finding.Error},
		{"plaintext legacy updateDelay 45m on an old tag: error", "", "", "ghcr.io/estuary/materialize-redshift:v1", `{advanced: {updateDelay: 45m}}`, finding.Error},
		{"plaintext 20m on an old tag: error", v2, "", "ghcr.io/estuary/materialize-snowflake:v3", `{syncSchedule: {syncFrequency: 20m}}`, finding.Error},
		{"sealed 20m on an old tag: warning", v2, "", "ghcr.io/estuary/materialize-snowflake:v3", sealed(`{syncSchedule: {syncFrequency: 20m}}`), finding.Warning},
		// Flow takes a config that uses secrets as schema-invalid before
		// the merge (docs/behaviour.md §4.5): not refused, a warning.
		{"plaintext syncSchedule 45m in a task using secrets: warning", v2, "", sf, `{syncSchedule: {syncFrequency: 45m}}` + secretsMark, finding.Warning},
		{"plaintext file sink 0s with a model schedule in a task using secrets: warning", v2, model1h, csv, `{uploadInterval: 0s}` + secretsMark, finding.Warning},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := mat(tc.flags, tc.sched, tc.image, strings.TrimSuffix(tc.config, secretsMark))
			if strings.HasSuffix(tc.config, secretsMark) {
				src = withSecrets(src, `{acmeCo/t/pw: /credentials/password}`)
			}
			fs := runCatalog(t, map[string]string{"flow.yaml": src}, nil)
			var off []finding.Finding
			for _, f := range fs {
				if f.Rule == finding.OffEnumScheduleValue {
					off = append(off, f)
				}
			}
			if len(off) != 1 || off[0].Severity != tc.want {
				t.Fatalf("off-enum findings %+v, want one of severity %v", off, tc.want)
			}
			// A sealed config or a stored spec: what a form would do
			// (docs/behaviour.md §5), also when only a warning.
			wantForm := tc.want == finding.Info || (tc.want == finding.Warning && !strings.HasSuffix(tc.config, secretsMark))
			if form := strings.Contains(off[0].Message, "a form built from the connector's schema"); form != wantForm {
				t.Errorf("message %q", off[0].Message)
			}
			if refuse := strings.Contains(off[0].Message, "flowctl and the dashboard refuse to publish it"); refuse != (tc.want == finding.Error) {
				t.Errorf("message %q", off[0].Message)
			}
		})
	}
}

// validate.Rules and finding.Rules list the same rules in the same order:
// one list of ids, severities and summaries, one rule type beside each.
func TestRulesMatchFinding(t *testing.T) {
	var got, want []string
	for _, r := range Rules {
		got = append(got, r.Info.ID)
		if r.Check == nil {
			t.Errorf("%s: no check", r.Info.ID)
		}
	}
	for _, r := range finding.Rules {
		want = append(want, r.ID)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("validate.Rules differ from finding.Rules (-want +got):\n%s", d)
	}
}

// invalid-sync-schedule names Flow's defect first: a window with equal
// start and end is Flow's error even when an interval is also beyond what
// schedtool evaluates (over 292 years, which Flow accepts); the limit is
// named when Flow finds nothing else (issue 24 §4).
func TestInvalidSyncScheduleNamesFlowsErrorFirst(t *testing.T) {
	for _, tc := range []struct {
		name, sched, want string
	}{
		{"equal start and end beside a huge interval", `{baseInterval: 1h, timezone: UTC, windows: [{interval: 300y, start: "09:00", end: "09:00"}]}`,
			`invalid sync schedule: start and end of window 0 must be different: got "09:00" and "09:00"`},
		{"near miss: only the huge interval", `{baseInterval: 1h, timezone: UTC, windows: [{interval: 300y, start: "09:00", end: "10:00"}]}`,
			`longer than schedtool can evaluate`},
	} {
		fs := runCatalog(t, map[string]string{"flow.yaml": withSpec("    shards: {flags: {enable-runtime-v2: \"true\"}}\n    syncSchedule: " + tc.sched + "\n")}, nil)
		var msgs []string
		for _, f := range fs {
			if f.Rule == finding.InvalidSyncSchedule {
				msgs = append(msgs, f.Message)
			}
		}
		if len(msgs) != 1 || !strings.Contains(msgs[0], tc.want) {
			t.Errorf("%s: invalid-sync-schedule %q, want one containing %q", tc.name, msgs, tc.want)
		}
	}
}
