package connector

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// The connectors' config structs, as far as schedules go: decoding with
// them is the connector's answer.
type goScheduleConfig struct {
	SyncFrequency       string `json:"syncFrequency,omitempty"`
	Timezone            string `json:"timezone,omitempty"`
	FastSyncStartTime   string `json:"fastSyncStartTime,omitempty"`
	FastSyncStopTime    string `json:"fastSyncStopTime,omitempty"`
	FastSyncEnabledDays string `json:"fastSyncEnabledDays,omitempty"`
}

type goAdvanced struct {
	FeatureFlags string `json:"feature_flags,omitempty"`
}

type goConfig struct {
	Schedule goScheduleConfig `json:"syncSchedule,omitempty"`
	Advanced goAdvanced       `json:"advanced,omitempty"`
}

func jsonOf(v any) string {
	switch x := v.(type) {
	case Object:
		var b strings.Builder
		b.WriteByte('{')
		for i, f := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(f.Key)
			b.Write(k)
			b.WriteByte(':')
			b.WriteString(jsonOf(f.Value))
		}
		b.WriteByte('}')
		return b.String()
	default:
		out, _ := json.Marshal(x)
		return string(out)
	}
}

// Generated configs with keys in every casing, repeated, out of order,
// with null, wrong types and unknown keys: Classify reads the schedule
// encoding/json reads, and reports the error it reports.
func TestClassifyMatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	spell := func(k string) string {
		switch rng.Intn(6) {
		case 0:
			return strings.ToUpper(k)
		case 1:
			return strings.ToLower(k)
		case 2:
			return strings.Replace(k, "s", "ſ", 1) // folds to s
		case 3:
			return strings.ToUpper(k[:1]) + k[1:]
		}
		return k
	}
	values := []any{nil, "", "15m", "1h", "0s", "UTC", "09:00", "17:00", "M-F", 5.0, true, []any{}, Object{}}
	inner := func() Object {
		var o Object
		for n := rng.Intn(5); n > 0; n-- {
			k := SyncScheduleKeys[rng.Intn(5)]
			if rng.Intn(12) == 0 {
				k = "cron"
			}
			o = append(o, Field{spell(k), values[rng.Intn(len(values))]})
		}
		return o
	}
	reg := Builtin()
	e, tag, _ := reg.Lookup("ghcr.io/estuary/materialize-snowflake:v4")
	for i := 0; i < 3000; i++ {
		var cfg Object
		for n := 1 + rng.Intn(3); n > 0; n-- {
			switch rng.Intn(9) {
			case 8: // a near miss, which encoding/json refuses as unknown
				k := []string{"sync_schedule", "syncSchedule ", " syncSchedule", "ｓyncSchedule", "sync-schedule", "Sync Schedule", "uploadInterval", "upload_interval", "sync\u200bSchedule", "ѕyncSchedule"}[rng.Intn(10)]
				cfg = append(cfg, Field{k, inner()})
			case 0:
				cfg = append(cfg, Field{spell("syncSchedule"), nil})
			case 1:
				cfg = append(cfg, Field{spell("syncSchedule"), values[rng.Intn(len(values))]})
			default:
				cfg = append(cfg, Field{spell("syncSchedule"), inner()})
			}
		}
		src := jsonOf(cfg)
		var want goConfig
		d := json.NewDecoder(bytes.NewReader([]byte(src)))
		d.DisallowUnknownFields()
		werr := d.Decode(&want)
		got := reg.Classify(e, tag, cfg)
		if werr != nil {
			msg := strings.Replace(werr.Error(), "connector.goScheduleConfig", goScheduleType, 1)
			msg = strings.Replace(msg, "goScheduleConfig.", goScheduleStruct+".", 1)
			msg = strings.Replace(msg, "goConfig.", goConfigStruct+".", 1)
			// A near miss of a schedule key gets the key to use after
			// the connector's text.
			if got.Kind != KindInvalid || len(got.Problems) == 0 || got.Problems[0].Msg != msg && !strings.HasPrefix(got.Problems[0].Msg, msg+"; ") {
				t.Fatalf("%s: got %s %+v, want %s", src, got.Kind, got.Problems, msg)
			}
			continue
		}
		if got.Kind == KindInvalid && strings.HasPrefix(got.Problems[0].Msg, "json:") {
			t.Fatalf("%s: got %+v, encoding/json accepts it", src, got.Problems)
		}
		spec := SyncScheduleSpec(want.Schedule)
		var gotSpec SyncScheduleSpec
		if got.Schedule != nil {
			gotSpec = got.Schedule.Spec
		} else if got.Kind == KindInvalid {
			continue // refused later by the connector's own validation
		}
		if got.Kind != KindDefault && gotSpec != spec {
			t.Fatalf("%s: got %+v, encoding/json reads %+v", src, gotSpec, spec)
		}
		if got.Kind == KindDefault && spec.SyncFrequency != "" {
			t.Fatalf("%s: read as the default, encoding/json reads %+v", src, spec)
		}
	}
}

func TestClassifyTexts(t *testing.T) {
	sf := "ghcr.io/estuary/materialize-snowflake:v4"
	o := func(kv ...any) Object {
		var out Object
		for i := 0; i+1 < len(kv); i += 2 {
			out = append(out, Field{kv[i].(string), kv[i+1]})
		}
		return out
	}
	for _, tc := range []struct {
		name, image string
		cfg         Object
		kind        Kind
		ptr, msg    string
	}{
		{"top-level SyncSchedule is the schedule", sf, o("SyncSchedule", o("syncFrequency", "1h")), KindFixed, "", ""},
		{"inner keys fold", sf, o("syncSchedule", o("SyncFrequency", "2h")), KindFixed, "", ""},
		{"the long s folds to s", sf, o("syncSchedule", o("ſyncFrequency", "2h")), KindFixed, "", ""},
		{"last match wins", sf, o("syncSchedule", o("syncFrequency", "1h", "syncfrequency", "0s")), KindZero, "", ""},
		{"null leaves the value", sf, o("syncSchedule", o("syncFrequency", "1h", "syncfrequency", nil)), KindFixed, "", ""},
		{"a later object merges", sf, o("syncSchedule", o("syncFrequency", "0s"), "SyncSchedule", o("timezone", "UTC")), KindInvalid, "/SyncSchedule",
			"validating schedule configuration: must provide 'timezone', 'syncFrequency', 'fastSyncStartTime', and 'fastSyncStopTime' when configuring sync frequency active times"},
		{"first defect in document order: unknown key", sf, o("syncSchedule", o("zzz", "x", "syncFrequency", 5.0)), KindInvalid, "/syncSchedule/zzz", `json: unknown field "zzz"`},
		{"first defect in document order: type", sf, o("syncSchedule", o("syncFrequency", 5.0, "aaa", "x")), KindInvalid, "/syncSchedule/syncFrequency",
			"json: cannot unmarshal number into Go struct field ScheduleConfig.syncSchedule.syncFrequency of type string"},
		{"the type error names the field, not the key", sf, o("syncSchedule", o("TIMEZONE", true)), KindInvalid, "/syncSchedule/TIMEZONE",
			"json: cannot unmarshal bool into Go struct field ScheduleConfig.syncSchedule.timezone of type string"},
		{"not an object", sf, o("syncSchedule", "1h"), KindInvalid, "/syncSchedule",
			"json: cannot unmarshal string into Go struct field config.syncSchedule of type materialize.ScheduleConfig"},
		// The schedule's Go type is upstream's materialize.ScheduleConfig
		// (go/materialize/schedule_config.go in estuary/connectors: package
		// materialize), whatever the case of the key (encoding/json folds).
		{"an array", sf, o("syncSchedule", []any{}), KindInvalid, "/syncSchedule",
			"json: cannot unmarshal array into Go struct field config.syncSchedule of type materialize.ScheduleConfig"},
		{"SyncSchedule not an object", sf, o("SyncSchedule", "1h"), KindInvalid, "/SyncSchedule",
			"json: cannot unmarshal string into Go struct field config.syncSchedule of type materialize.ScheduleConfig"},
		{"SYNCSCHEDULE an array", sf, o("SYNCSCHEDULE", []any{}), KindInvalid, "/SYNCSCHEDULE",
			"json: cannot unmarshal array into Go struct field config.syncSchedule of type materialize.ScheduleConfig"},
		{"updateDelay on a current tag", sf, o("advanced", o("updateDelay", "2h")), KindInvalid, "/advanced/updateDelay", `json: unknown field "updateDelay"`},
		{"an empty updateDelay too", sf, o("advanced", o("updateDelay", "")), KindInvalid, "/advanced/updateDelay", `json: unknown field "updateDelay"`},
		{"a null updateDelay too", sf, o("advanced", o("UpdateDelay", nil)), KindInvalid, "/advanced/UpdateDelay", `json: unknown field "UpdateDelay"`},
		{"updateDelay on an old tag", "ghcr.io/estuary/materialize-snowflake:v2", o("advanced", o("updateDelay", "2h")), KindUpdateDelay, "", ""},
		{"old tag: both set", "ghcr.io/estuary/materialize-snowflake:v2", o("syncSchedule", o("syncFrequency", "1h"), "advanced", o("updateDelay", "2h")), KindInvalid, "/advanced/updateDelay",
			"validating schedule configuration: cannot specify both Sync Frequency and Update Delay"},
		{"old tag: alternating without its own frequency", "ghcr.io/estuary/materialize-bigquery:v1", o("syncSchedule", o("timezone", "UTC"), "advanced", o("updateDelay", "2h")), KindInvalid, "/syncSchedule",
			"validating schedule configuration: must provide 'timezone', 'syncFrequency', 'fastSyncStartTime', and 'fastSyncStopTime' when configuring sync frequency active times"},
		{"old tag: an empty updateDelay is ignored", "ghcr.io/estuary/materialize-snowflake:v2", o("syncSchedule", o("syncFrequency", "1h"), "advanced", o("updateDelay", "")), KindFixed, "", ""},
		{"old tag: a bad updateDelay", "ghcr.io/estuary/materialize-redshift:v1", o("advanced", o("updateDelay", "soon")), KindInvalid, "/advanced/updateDelay",
			"could not parse updateDelay 'soon': must be a valid Go duration string"},
		{"file sink missing", "ghcr.io/estuary/materialize-s3-parquet:v1", o(), KindInvalid, "", "missing 'uploadInterval'"},
		{"file sink empty", "ghcr.io/estuary/materialize-gcs-csv:v1", o("uploadInterval", ""), KindInvalid, "", "missing 'uploadInterval'"},
		{"azure parses an empty interval", "ghcr.io/estuary/materialize-azure-blob-parquet:v1", o("uploadInterval", ""), KindInvalid, "/uploadInterval", `parsing upload interval "": time: invalid duration ""`},
		// AzureBlobConfig.Validate (filesink/store.go in estuary/connectors)
		// does not require uploadInterval: an absent or null one is parsed.
		{"azure parses an absent interval", "ghcr.io/estuary/materialize-azure-blob-parquet:v1", o(), KindInvalid, "/uploadInterval", `parsing upload interval "": time: invalid duration ""`},
		{"azure parses a null interval", "ghcr.io/estuary/materialize-azure-blob-parquet:v1", o("uploadInterval", nil), KindInvalid, "/uploadInterval", `parsing upload interval "": time: invalid duration ""`},
		{"gcs requires it", "ghcr.io/estuary/materialize-gcs-parquet:v1", o("uploadInterval", nil), KindInvalid, "", "missing 'uploadInterval'"},
		{"file sink bad", "ghcr.io/estuary/materialize-gcs-csv:v1", o("uploadInterval", "often"), KindInvalid, "/uploadInterval", `parsing upload interval "often": time: invalid duration "often"`},
		{"file sink key folds", "ghcr.io/estuary/materialize-gcs-csv:v1", o("UploadInterval", "15m"), KindFileInterval, "", ""},
		// A file sink's config embeds its store's struct (filesink/store.go,
		// store_s3.go in estuary/connectors), which encoding/json names in
		// the field path (issue 24).
		{"file sink type", "ghcr.io/estuary/materialize-gcs-csv:v1", o("uploadInterval", 5.0), KindInvalid, "/uploadInterval",
			"json: cannot unmarshal number into Go struct field config.GCSStoreConfig.uploadInterval of type string"},
		{"file sink type, gcs-parquet", "ghcr.io/estuary/materialize-gcs-parquet:v1", o("uploadInterval", true), KindInvalid, "/uploadInterval",
			"json: cannot unmarshal bool into Go struct field config.GCSStoreConfig.uploadInterval of type string"},
		{"file sink type, s3-parquet", "ghcr.io/estuary/materialize-s3-parquet:v1", o("uploadInterval", o()), KindInvalid, "/uploadInterval",
			"json: cannot unmarshal object into Go struct field config.S3StoreConfig.uploadInterval of type string"},
		{"file sink type, s3-csv, key folded", "ghcr.io/estuary/materialize-s3-csv:v1", o("UPLOADINTERVAL", 5.0), KindInvalid, "/UPLOADINTERVAL",
			"json: cannot unmarshal number into Go struct field config.S3StoreConfig.uploadInterval of type string"},
		{"file sink type, azure", "ghcr.io/estuary/materialize-azure-blob-parquet:v1", o("uploadInterval", []any{}), KindInvalid, "/uploadInterval",
			"json: cannot unmarshal array into Go struct field config.AzureBlobConfig.uploadInterval of type string"},
		{"near miss: s3-iceberg embeds no store struct", "ghcr.io/estuary/materialize-s3-iceberg:v1", o("upload_interval", 5.0), KindInvalid, "/upload_interval",
			"json: cannot unmarshal number into Go struct field config.upload_interval of type string"},
		// A near miss of a schedule key is an unknown field to the
		// connector, which refuses the whole config (issue 24 §4).
		{"misspelled: sync_schedule", sf, o("sync_schedule", o("syncFrequency", "1h")), KindInvalid, "/sync_schedule",
			`json: unknown field "sync_schedule"; the connector refuses the whole config: this image's schedule key is syncSchedule`},
		{"misspelled: a trailing space", sf, o("syncSchedule ", o("syncFrequency", "1h")), KindInvalid, "/syncSchedule ",
			`json: unknown field "syncSchedule "; the connector refuses the whole config: this image's schedule key is syncSchedule`},
		{"misspelled: a leading space, even null", sf, o(" syncSchedule", nil), KindInvalid, "/ syncSchedule",
			`json: unknown field " syncSchedule"; the connector refuses the whole config: this image's schedule key is syncSchedule`},
		{"misspelled: words", sf, o("Sync-Schedule", o()), KindInvalid, "/Sync-Schedule",
			`json: unknown field "Sync-Schedule"; the connector refuses the whole config: this image's schedule key is syncSchedule`},
		{"misspelled: Cyrillic es", sf, o("ѕyncSchedule", o()), KindInvalid, "/ѕyncSchedule",
			`json: unknown field "ѕyncSchedule"; the connector refuses the whole config: this image's schedule key is syncSchedule`},
		{"misspelled: a zero-width space", sf, o("sync\u200bSchedule", o()), KindInvalid, "/sync\u200bSchedule",
			`json: unknown field "sync\u200bSchedule"; the connector refuses the whole config: this image's schedule key is syncSchedule`},
		{"another family's key on a warehouse", sf, o("uploadInterval", "5m"), KindInvalid, "/uploadInterval",
			`json: unknown field "uploadInterval"; the connector refuses the whole config: uploadInterval is another connector family's schedule key, and this image's is syncSchedule`},
		{"misspelled beside the right key: still refused", sf, o("syncSchedule", o("syncFrequency", "1h"), "sync_schedule", "x"), KindInvalid, "/sync_schedule",
			`json: unknown field "sync_schedule"; the connector refuses the whole config: this image's schedule key is syncSchedule`},
		{"the first defect in document order", sf, o("syncSchedule", o("syncFrequency", 5.0), "sync_schedule", "x"), KindInvalid, "/syncSchedule/syncFrequency",
			"json: cannot unmarshal number into Go struct field ScheduleConfig.syncSchedule.syncFrequency of type string"},
		{"file sink: fullwidth u", "ghcr.io/estuary/materialize-gcs-csv:v1", o("ｕploadInterval", "5m"), KindInvalid, "/ｕploadInterval",
			`json: unknown field "ｕploadInterval"; the connector refuses the whole config: this image's schedule key is uploadInterval`},
		{"file sink: trailing space", "ghcr.io/estuary/materialize-s3-csv:v1", o("uploadInterval ", "5m"), KindInvalid, "/uploadInterval ",
			`json: unknown field "uploadInterval "; the connector refuses the whole config: this image's schedule key is uploadInterval`},
		{"file sink: the ISO key", "ghcr.io/estuary/materialize-gcs-csv:v1", o("upload_interval", "PT5M", "uploadInterval", "5m"), KindInvalid, "/upload_interval",
			`json: unknown field "upload_interval"; the connector refuses the whole config: this image's schedule key is uploadInterval`},
		{"file sink: syncSchedule", "ghcr.io/estuary/materialize-s3-parquet:v1", o("uploadInterval", "5m", "syncSchedule", o("syncFrequency", "0s")), KindInvalid, "/syncSchedule",
			`json: unknown field "syncSchedule"; the connector refuses the whole config: syncSchedule is another connector family's schedule key, and this image's is uploadInterval`},
		{"s3-iceberg: uploadInterval", "ghcr.io/estuary/materialize-s3-iceberg:v1", o("uploadInterval", "PT5M"), KindInvalid, "/uploadInterval",
			`json: unknown field "uploadInterval"; the connector refuses the whole config: this image's schedule key is upload_interval`},
		{"near miss: another case folds", sf, o("SYNC_SCHEDULE", nil, "SYNCSCHEDULE", o("syncFrequency", "1h")), KindInvalid, "/SYNC_SCHEDULE",
			`json: unknown field "SYNC_SCHEDULE"; the connector refuses the whole config: this image's schedule key is syncSchedule`},
		{"not a near miss: another case", sf, o("SYNCSCHEDULE", o("syncFrequency", "1h")), KindFixed, "", ""},
		{"not a near miss: other keys", sf, o("schedule", "x", "syncScheduleV2", 1.0, "sync", true, "host", "h", "syncFrequency", "1h"), KindDefault, "", ""},
		{"not a near miss: a file sink's other keys", "ghcr.io/estuary/materialize-gcs-csv:v1", o("bucket", "b", "uploadIntervals", "x", "interval", "5m", "uploadInterval", "5m"), KindFileInterval, "", ""},
		{"s3-parquet publishes 1m", "ghcr.io/estuary/materialize-s3-parquet:v1", o("uploadInterval", "1m"), KindFileInterval, "", ""},
		{"iceberg missing", "ghcr.io/estuary/materialize-s3-iceberg:v1", o(), KindInvalid, "", "missing 'upload_interval'"},
		{"iceberg days", "ghcr.io/estuary/materialize-s3-iceberg:v1", o("upload_interval", "P1D"), KindInvalid, "/upload_interval", `upload_interval "P1D" is invalid: must be no greater than 4 hours`},
		{"iceberg bad", "ghcr.io/estuary/materialize-s3-iceberg:v1", o("upload_interval", "15m"), KindInvalid, "/upload_interval", "could not parse duration string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := classify(t, tc.image, tc.cfg)
			if r.Kind != tc.kind {
				t.Fatalf("kind %s, want %s (%+v)", r.Kind, tc.kind, r.Problems)
			}
			if tc.msg == "" {
				for _, p := range r.Problems {
					if p.Kind == ProblemInvalid || p.Kind == ProblemOffEnum {
						t.Errorf("unexpected problem %+v", p)
					}
				}
				return
			}
			if len(r.Problems) == 0 || r.Problems[0].Msg != tc.msg || r.Problems[0].Pointer != tc.ptr {
				t.Errorf("problems %+v\nwant %s at %q", r.Problems, tc.msg, tc.ptr)
			}
		})
	}
	// Fold-only matches are listed, so a migration does not add a second key.
	r := classify(t, sf, o("SyncSchedule", o("syncFrequency", "1h")))
	if fmt.Sprint(r.KeyVariants) != "[/SyncSchedule]" || r.Pointer != "/SyncSchedule" {
		t.Errorf("KeyVariants %v, Pointer %s", r.KeyVariants, r.Pointer)
	}
}

// PointerPath names a pointer's key as messages do: unescaped tokens
// joined by dots.
func TestPointerPath(t *testing.T) {
	for p, want := range map[string]string{
		"":                      "",
		"/":                     "",
		"/uploadInterval":       "uploadInterval",
		"/advanced/updateDelay": "advanced.updateDelay",
		"/a~1b/c~0d":            "a/b.c~d",
	} {
		if got := PointerPath(p); got != want {
			t.Errorf("PointerPath(%q) = %q, want %q", p, got, want)
		}
	}
}
