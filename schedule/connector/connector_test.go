package connector

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseDays(t *testing.T) {
	for _, ok := range []string{"Su-S", "M-F", "M,W,F", "Su,T-Th", "Su-M,Th-S", "", "S", "Su", "Th"} {
		if _, err := ParseDays(ok); err != nil {
			t.Errorf("ParseDays(%q): %v", ok, err)
		}
	}
	on, _ := ParseDays("Su,T-Th")
	if on != [7]bool{true, false, true, true, true, false, false} {
		t.Errorf("ParseDays(Su,T-Th) = %v", on)
	}
	for in, want := range map[string]string{
		"M-F,":    `invalid day specification: ""`,
		"F-M":     `invalid day specification: "F-M" (days of a range must be different and in increasing order)`,
		"M-M":     `invalid day specification: "M-M" (days of a range must be different and in increasing order)`,
		"M,Su":    `days specified in "M,Su" must be in ascending order and not repeat`,
		"Su, T":   `invalid day specification: " T"`,
		"m-f":     `invalid day specification: "m"`,
		"mon-sun": `invalid day specification: "mon"`,
		"M-sun":   `invalid day specification: "sun"`,
		"M-":      `invalid day specification: ""`,
		"-F":      `invalid day specification: ""`,
		"M-W,T":   `days specified in "M-W,T" must be in ascending order and not repeat`,
		"M-W,T-F": `days specified in "M-W,T-F" must be in ascending order and not repeat`,
		"Mon":     `invalid day specification: "Mon"`,
		"M-F-S":   `invalid day specification: "M-F-S"`,
		"x-F-S":   `invalid day specification: "x-F-S"`,
	} {
		_, err := ParseDays(in)
		if err == nil || err.Error() != want {
			t.Errorf("ParseDays(%q) = %v, want %s", in, err, want)
		}
	}
}

func TestLoadTimezone(t *testing.T) {
	for _, ok := range []string{"America/New_York", "US/Eastern", "EST5EDT", "UTC", "Local", "+05:00", "-08:00", "+24:00", "+05:60"} {
		if _, good := LoadTimezone(ok); !good {
			t.Errorf("LoadTimezone(%q) refused", ok)
		}
	}
	for _, bad := range []string{"+5:30", "america/new_york", "Mars/Base", "+0500", "05:00", ""} {
		if _, good := LoadTimezone(bad); good {
			t.Errorf("LoadTimezone(%q) accepted", bad)
		}
	}
	// Local is the connector container's zone, UTC, whatever the host says.
	if loc, err := ParseTimezone("Local"); err != nil || loc != time.UTC {
		t.Errorf("ParseTimezone(Local) = %v, %v; want UTC", loc, err)
	}
	for in, want := range map[string]string{
		"+5:30":     `error parsing "+5:30": parsing time "+5:30" as "-07:00": cannot parse "+5:30" as "-07:00"`,
		"+25:00":    `error parsing "+25:00": parsing time "+25:00": time zone offset hour out of range`,
		"Mars/Base": `unknown or invalid timezone "Mars/Base": timezone must be a valid IANA timezone name or +HH:MM offset`,
		"+0500":     `unknown or invalid timezone "+0500": timezone must be a valid IANA timezone name or +HH:MM offset`,
	} {
		if _, err := ParseTimezone(in); err == nil || err.Error() != want {
			t.Errorf("ParseTimezone(%q) = %v, want %s", in, err, want)
		}
	}
}

func TestParseISO8601(t *testing.T) {
	for in, want := range map[string]time.Duration{"PT0S": 0, "P0D": 0, "P": 0, "PT": 0, "PT15M": 15 * time.Minute, "PT1H30M": 90 * time.Minute, "PT4H": 4 * time.Hour, "PT90S": 90 * time.Second, "P0Y0M0W0DT1H": time.Hour} {
		got, err := ParseISO8601(in)
		if err != nil || got != want {
			t.Errorf("ParseISO8601(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	const over = " is invalid: must be no greater than 4 hours"
	for in, want := range map[string]string{
		"P1D":                      `upload_interval "P1D"` + over,
		"P1Y":                      `upload_interval "P1Y"` + over,
		"P1M":                      `upload_interval "P1M"` + over,
		"P1W":                      `upload_interval "P1W"` + over,
		"P1DT0H":                   `upload_interval "P1DT0H"` + over,
		"PT5H":                     `upload_interval "PT5H"` + over,
		"PT4H1S":                   `upload_interval "PT4H1S"` + over,
		"PT241M":                   `upload_interval "PT241M"` + over,
		"PT1.5H":                   "could not parse duration string",
		"15m":                      "could not parse duration string",
		"PT15":                     "could not parse duration string",
		"PT1M1H":                   "could not parse duration string",
		"pt15m":                    "could not parse duration string",
		"PTT1M":                    "could not parse duration string",
		"PT-1M":                    "could not parse duration string",
		"":                         "could not parse duration string",
		"PT999999999999999999999M": `strconv.Atoi: parsing "999999999999999999999": value out of range`,
	} {
		_, err := ParseISO8601(in)
		if err == nil || err.Error() != want {
			t.Errorf("ParseISO8601(%q) = %v, want %s", in, err, want)
		}
	}
	// The connector sums in int64 nanoseconds: a huge count wraps around
	// to a negative interval, which it accepts.
	if d, err := ParseISO8601("PT9223372037S"); err != nil || d >= 0 {
		t.Errorf("ParseISO8601(PT9223372037S) = %v, %v; want a negative duration", d, err)
	}
}

// The connector's validation texts, verbatim, in its order.
func TestParseSyncScheduleTexts(t *testing.T) {
	const p = "validating schedule configuration: "
	for _, tc := range []struct {
		spec SyncScheduleSpec
		ptr  string
		want string
	}{
		{SyncScheduleSpec{SyncFrequency: "15m", FastSyncStartTime: "09:00"}, "",
			p + "must provide 'timezone', 'syncFrequency', 'fastSyncStartTime', and 'fastSyncStopTime' when configuring sync frequency active times"},
		{SyncScheduleSpec{FastSyncEnabledDays: "M-F"}, "",
			p + "must provide 'timezone', 'syncFrequency', 'fastSyncStartTime', and 'fastSyncStopTime' when configuring sync frequency active times"},
		{SyncScheduleSpec{SyncFrequency: "abc"}, "/syncFrequency", p + `parsing interval in CreateSchedule: time: invalid duration "abc"`},
		{SyncScheduleSpec{SyncFrequency: "15m", Timezone: "UTC", FastSyncStartTime: "09:00", FastSyncStopTime: "09:00"}, "/fastSyncStopTime",
			p + `alternateStart and alternateEnd must be different: got "09:00" and "09:00"`},
		{SyncScheduleSpec{SyncFrequency: "15m", Timezone: "UTC", FastSyncStartTime: "9:00", FastSyncStopTime: "09:00"}, "/fastSyncStopTime",
			p + `alternateStart and alternateEnd must be different: got "9:00" and "09:00"`},
		{SyncScheduleSpec{SyncFrequency: "fast", Timezone: "UTC", FastSyncStartTime: "09:00", FastSyncStopTime: "17:00"}, "/syncFrequency",
			p + `building alternate schedule: parsing interval "fast": time: invalid duration "fast"`},
		{SyncScheduleSpec{SyncFrequency: "15m", Timezone: "Mars/Base", FastSyncStartTime: "09:00", FastSyncStopTime: "17:00"}, "/timezone",
			p + `unknown or invalid timezone "Mars/Base": timezone must be a valid IANA timezone name or +HH:MM offset`},
		{SyncScheduleSpec{SyncFrequency: "15m", Timezone: "UTC", FastSyncStartTime: "25:00", FastSyncStopTime: "17:00"}, "/fastSyncStartTime",
			p + `invalid alternate start time "25:00" (time of day should look like '13:00'): could not parse "25:00" as clock time: parsing time "25:00": hour out of range`},
		{SyncScheduleSpec{SyncFrequency: "15m", Timezone: "UTC", FastSyncStartTime: "09:00", FastSyncStopTime: "5pm"}, "/fastSyncStopTime",
			p + `invalid alternate end time "5pm" (time of day should look like '13:00'): could not parse "5pm" as clock time: parsing time "5pm" as "15:04": cannot parse "pm" as ":"`},
		{SyncScheduleSpec{SyncFrequency: "15m", Timezone: "+5:30", FastSyncStartTime: "09:00", FastSyncStopTime: "17:00"}, "/timezone",
			p + `error parsing "+5:30": parsing time "+5:30" as "-07:00": cannot parse "+5:30" as "-07:00"`},
		{SyncScheduleSpec{SyncFrequency: "15m", Timezone: "UTC", FastSyncStartTime: "09:00", FastSyncStopTime: "17:00", FastSyncEnabledDays: "mon-sun"}, "/fastSyncEnabledDays",
			p + `parsing alternate active days: invalid day specification: "mon"`},
		{SyncScheduleSpec{SyncFrequency: "15m", Timezone: "UTC", FastSyncStartTime: "09:00", FastSyncStopTime: "17:00", FastSyncEnabledDays: "Su, T"}, "/fastSyncEnabledDays",
			p + `parsing alternate active days: invalid day specification: " T"`},
	} {
		_, prob := ParseSyncSchedule(tc.spec)
		if prob == nil || prob.Msg != tc.want || prob.Pointer != tc.ptr {
			t.Errorf("ParseSyncSchedule(%+v) = %+v\nwant %s at %q", tc.spec, prob, tc.want, tc.ptr)
		}
	}
	p2, prob := ParseSyncSchedule(SyncScheduleSpec{SyncFrequency: "0s", Timezone: "America/New_York", FastSyncStartTime: "22:00", FastSyncStopTime: "6:00", FastSyncEnabledDays: "M-F"})
	if prob != nil || !p2.Alternating || p2.Start != 22*60 || p2.Stop != 6*60 || p2.Days != [7]bool{false, true, true, true, true, true, false} {
		t.Errorf("ParseSyncSchedule(overnight) = %+v, %+v", p2, prob)
	}
}

func classify(t *testing.T, image string, cfg any) Result {
	t.Helper()
	reg := Builtin()
	e, tag, ok := reg.Lookup(image)
	if !ok {
		t.Fatalf("no entry for %s", image)
	}
	return reg.Classify(e, tag, cfg)
}

func TestClassify(t *testing.T) {
	const sf = "ghcr.io/estuary/materialize-snowflake:v4"
	obj := func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	for _, tc := range []struct {
		name       string
		image      string
		cfg        any
		kind       Kind
		delay      time.Duration
		known      bool
		configured bool
		problems   []ProblemKind
	}{
		{"absent is the 30m default", sf, obj(), KindDefault, 30 * time.Minute, true, false, nil},
		{"null is absent", sf, obj("syncSchedule", nil), KindDefault, 30 * time.Minute, true, false, nil},
		{"all-empty remnant", sf, obj("syncSchedule", obj("syncFrequency", "", "timezone", nil)), KindDefault, 30 * time.Minute, true, false, nil},
		{"carve-out 0s", sf, obj("syncSchedule", obj("syncFrequency", "0s")), KindZero, 0, true, false, nil},
		{"carve-out 0h0m0s", sf, obj("syncSchedule", obj("syncFrequency", "0h0m0s")), KindZero, 0, true, false, []ProblemKind{ProblemOffEnum}},
		{"carve-out 0", sf, obj("syncSchedule", obj("syncFrequency", "0", "timezone", "")), KindZero, 0, true, false, []ProblemKind{ProblemOffEnum}},
		{"zero with a timezone is configured", sf, obj("syncSchedule", obj("syncFrequency", "0s", "timezone", "UTC")), KindInvalid, 0, false, true, []ProblemKind{ProblemInvalid}},
		{"fixed 1h", sf, obj("syncSchedule", obj("syncFrequency", "1h")), KindFixed, time.Hour, true, true, nil},
		{"off-enum 45m", sf, obj("syncSchedule", obj("syncFrequency", "45m")), KindFixed, 45 * time.Minute, true, true, []ProblemKind{ProblemOffEnum}},
		{"negative means no delay", sf, obj("syncSchedule", obj("syncFrequency", "-5m")), KindFixed, 0, true, true, []ProblemKind{ProblemOffEnum}},
		{"alternating", sf, obj("syncSchedule", obj("syncFrequency", "15m", "timezone", "UTC", "fastSyncStartTime", "09:00", "fastSyncStopTime", "17:00")), KindAlternating, 4 * time.Hour, true, true, nil},
		{"invalid frequency", sf, obj("syncSchedule", obj("syncFrequency", "soon")), KindInvalid, 0, false, true, []ProblemKind{ProblemInvalid}},
		{"unknown key", sf, obj("syncSchedule", obj("syncFrequency", "1h", "cron", "* * *")), KindInvalid, 0, false, true, []ProblemKind{ProblemInvalid}},
		{"not an object", sf, obj("syncSchedule", "1h"), KindInvalid, 0, false, true, []ProblemKind{ProblemInvalid}},
		{"number frequency", sf, obj("syncSchedule", obj("syncFrequency", 5.0)), KindInvalid, 0, false, true, []ProblemKind{ProblemInvalid}},
		{"sealed frequency", sf, obj("syncSchedule", obj("syncFrequency", Encrypted{"ENC[AES256_GCM,data:x]"})), KindSealed, 0, false, true, []ProblemKind{ProblemSealed}},
		{"legacy updateDelay", "ghcr.io/estuary/materialize-snowflake:v2", obj("advanced", obj("updateDelay", "2h")), KindUpdateDelay, 2 * time.Hour, true, true, []ProblemKind{ProblemUpdateDelay}},
		{"legacy updateDelay off-enum", "ghcr.io/estuary/materialize-redshift:v1", obj("advanced", obj("updateDelay", "45m")), KindUpdateDelay, 45 * time.Minute, true, true, []ProblemKind{ProblemUpdateDelay, ProblemOffEnum}},
		{"file sink interval", "ghcr.io/estuary/materialize-s3-parquet:v1", obj("uploadInterval", "15m"), KindFileInterval, 15 * time.Minute, true, true, nil},
		{"file sink zero is off-enum", "ghcr.io/estuary/materialize-s3-csv:v1", obj("uploadInterval", "0s"), KindZero, 0, true, false, []ProblemKind{ProblemOffEnum}},
		{"file sink missing", "ghcr.io/estuary/materialize-gcs-csv:v1", obj(), KindInvalid, 0, false, false, []ProblemKind{ProblemInvalid}},
		{"file sink bad", "ghcr.io/estuary/materialize-gcs-csv:v1", obj("uploadInterval", "often"), KindInvalid, 0, false, true, []ProblemKind{ProblemInvalid}},
		{"iceberg interval", "ghcr.io/estuary/materialize-s3-iceberg:v1", obj("upload_interval", "PT15M"), KindFileInterval, 15 * time.Minute, true, true, nil},
		{"iceberg zero", "ghcr.io/estuary/materialize-s3-iceberg:v1", obj("upload_interval", "PT0S"), KindZero, 0, true, false, nil},
		{"iceberg days refused", "ghcr.io/estuary/materialize-s3-iceberg:v1", obj("upload_interval", "P1D"), KindInvalid, 0, false, true, []ProblemKind{ProblemInvalid}},
		{"config not an object", sf, "a string", KindInvalid, 0, false, false, []ProblemKind{ProblemInvalid}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := classify(t, tc.image, tc.cfg)
			if r.Kind != tc.kind || r.Delay != tc.delay || r.Known != tc.known || r.Configured != tc.configured {
				t.Errorf("got kind=%s delay=%v known=%v configured=%v; want %s %v %v %v", r.Kind, r.Delay, r.Known, r.Configured, tc.kind, tc.delay, tc.known, tc.configured)
			}
			var kinds []ProblemKind
			for _, p := range r.Problems {
				kinds = append(kinds, p.Kind)
			}
			if len(kinds) != len(tc.problems) {
				t.Fatalf("problems %+v, want kinds %v", r.Problems, tc.problems)
			}
			for i := range kinds {
				if kinds[i] != tc.problems[i] {
					t.Errorf("problem %d kind %v, want %v (%+v)", i, kinds[i], tc.problems[i], r.Problems)
				}
			}
		})
	}
}

func TestRegistry(t *testing.T) {
	reg := Builtin()
	if n := len(reg.Images); n != 17 {
		t.Errorf("builtin registry has %d images, want 17", n)
	}
	if e, _, ok := reg.Lookup("ghcr.io/estuary/materialize-starburst:v1"); !ok || e.Family != FamilySyncSchedule || len(e.Seed) != 1 || e.Seed[0].Pointer != "/account" {
		t.Errorf("starburst: %+v", e)
	}
	for ref, want := range map[string]string{
		"ghcr.io/estuary/materialize-snowflake:v4":          "v4",
		"ghcr.io/estuary/materialize-snowflake":             "",
		"ghcr.io/estuary/materialize-snowflake@sha256:abcd": "",
		// Pinned: cut at '@' first, then at the tag's ':'.
		"ghcr.io/estuary/materialize-snowflake:v4@sha256:abcd": "v4",
	} {
		e, tag, ok := reg.Lookup(ref)
		if !ok || e.Family != FamilySyncSchedule || tag != want {
			t.Errorf("Lookup(%q) = %v, %q, %v", ref, e, tag, ok)
		}
	}
	for ref, want := range map[string][2]string{
		"ghcr.io/estuary/materialize-snowflake:v4@sha256:ab": {"ghcr.io/estuary/materialize-snowflake", "v4"},
		"ghcr.io/estuary/materialize-snowflake@sha256:ab":    {"ghcr.io/estuary/materialize-snowflake", ""},
		"localhost:5000/x:v1@sha256:ab":                      {"localhost:5000/x", "v1"},
		"localhost:5000/x@sha256:ab":                         {"localhost:5000/x", ""},
		"localhost:5000/x":                                   {"localhost:5000/x", ""},
		"x:v1":                                               {"x", "v1"},
	} {
		if name, tag := SplitImage(ref); name != want[0] || tag != want[1] {
			t.Errorf("SplitImage(%q) = %q, %q, want %q", ref, name, tag, want)
		}
	}
	if _, _, ok := reg.Lookup("ghcr.io/estuary/materialize-postgres:v4"); ok {
		t.Error("postgres is not a scheduling image")
	}
	if !TagBefore("v2", "v3") || TagBefore("v3", "v3") || TagBefore("v3.1", "v3") || TagBefore("dev", "v3") || !TagBefore("v2.9", "v3") {
		t.Error("TagBefore")
	}
	ext, err := ParseRegistry([]byte(`{"families":{},"images":[
		{"image":"ghcr.io/acme/materialize-custom","family":"syncSchedule"},
		{"image":"ghcr.io/estuary/materialize-snowflake","family":"syncSchedule","deferralSince":"v5"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	merged, err := reg.Extend(ext)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := merged.Lookup("ghcr.io/acme/materialize-custom:v1"); !ok {
		t.Error("extension image missing")
	}
	e, _, _ := merged.Lookup("ghcr.io/estuary/materialize-snowflake:v5")
	if !e.HasDeferral("v5") || e.HasDeferral("v4") || e.HasDeferral("dev") {
		t.Error("deferral override")
	}
	if bad, err := ParseRegistry([]byte(`{"families":{},"images":[{"image":"x","family":"nope"}]}`)); err != nil {
		t.Fatal(err)
	} else if _, err := reg.Extend(bad); err == nil {
		t.Error("unknown family accepted")
	}
	if _, err := ParseRegistry([]byte(`{"families":{},"images":[],"extra":1}`)); err == nil {
		t.Error("unknown key accepted")
	}
}

// The published enum is per image and tag: the syncSchedule family's
// enum grew 1m, 2m30s and 20m in 2026-08 (estuary/connectors#5125), which
// tags from an image's enumSince publish; older tags, and starburst
// (removed before), publish the shorter list (issue 24).
func TestEnumForAndPublishable(t *testing.T) {
	reg := Builtin()
	long := []string{"0s", "30s", "1m", "2m30s", "5m", "15m", "20m", "30m", "1h", "2h", "4h"}
	short := []string{"0s", "30s", "5m", "15m", "30m", "1h", "2h", "4h"}
	for _, tc := range []struct {
		image string
		want  []string
	}{
		{"ghcr.io/estuary/materialize-snowflake:v4", long},
		{"ghcr.io/estuary/materialize-snowflake:v4.2", long},
		{"ghcr.io/estuary/materialize-snowflake:dev", long},
		{"ghcr.io/estuary/materialize-snowflake", long},
		{"ghcr.io/estuary/materialize-snowflake:v3", short},
		{"ghcr.io/estuary/materialize-bigquery:v2", short},
		{"ghcr.io/estuary/materialize-bigquery:v3", long},
		{"ghcr.io/estuary/materialize-clickhouse:v1", long},
		{"ghcr.io/estuary/materialize-starburst:v1", short},
		{"ghcr.io/estuary/materialize-starburst:v9", short},
		{"ghcr.io/estuary/materialize-s3-csv:v1", []string{"1s", "1m", "5m", "15m", "30m", "1h"}},
		{"ghcr.io/estuary/materialize-gcs-csv:v1", []string{"5m", "15m", "30m", "1h"}},
		{"ghcr.io/estuary/materialize-s3-iceberg:v1", nil},
	} {
		e, tag, ok := reg.Lookup(tc.image)
		if !ok {
			t.Fatalf("%s: not in the registry", tc.image)
		}
		if got := reg.EnumFor(e, tag); !slices.Equal(got, tc.want) {
			t.Errorf("%s: enum %v, want %v", tc.image, got, tc.want)
		}
	}
	pub := func(image string, where Where, v string) bool {
		e, tag, _ := reg.Lookup(image)
		return reg.Publishable(e, tag, where, v)
	}
	for _, tc := range []struct {
		image string
		where Where
		value string
		want  bool
	}{
		{"ghcr.io/estuary/materialize-snowflake:v4", Plaintext, "20m", true},
		{"ghcr.io/estuary/materialize-snowflake:v3", Plaintext, "20m", false},
		{"ghcr.io/estuary/materialize-snowflake:v3", Sealed, "20m", true},
		{"ghcr.io/estuary/materialize-snowflake:v3", Stored, "45m", true},
		{"ghcr.io/estuary/materialize-snowflake:v4", Plaintext, "0s", true},
		{"ghcr.io/estuary/materialize-snowflake:v4", Plaintext, "0", false},
		{"ghcr.io/estuary/materialize-gcs-csv:v1", Plaintext, "0s", false},
		{"ghcr.io/estuary/materialize-gcs-csv:v1", Sealed, "0s", true},
		{"ghcr.io/estuary/materialize-gcs-csv:v1", Stored, "0s", true},
		{"ghcr.io/estuary/materialize-s3-iceberg:v1", Plaintext, "PT0S", true},
	} {
		if got := pub(tc.image, tc.where, tc.value); got != tc.want {
			t.Errorf("Publishable(%s, %d, %q) = %v, want %v", tc.image, tc.where, tc.value, got, tc.want)
		}
	}
}

// Timezones are read as the connectors' time.LoadLocation reads them in
// their image (tzdata.LoadImage), never from the host's files or $ZONEINFO
// (issue 24 §4, issue 31 §4): the image's spellings load, as its files
// say; names it has no TZif file for are unknown.
func TestParseTimezoneIsTheImages(t *testing.T) {
	t.Setenv("ZONEINFO", t.TempDir())
	for _, tz := range []string{"posix/Europe/Paris", "../UTC", "/usr/share/zoneinfo/UTC", "/UTC", "America/../UTC", "america/new_york", "zone1970.tab", "UTC/", "Local/Zone"} {
		if _, err := ParseTimezone(tz); err == nil || !strings.HasPrefix(err.Error(), "unknown or invalid timezone") {
			t.Errorf("ParseTimezone(%q) = %v, want unknown", tz, err)
		}
	}
	for tz, off := range map[string]int{"UTC": 0, "Local": 0, "America/New_York": -5 * 3600, "US/Eastern": -5 * 3600, "EST5EDT": -5 * 3600, "Factory": 0, "+05:30": 5*3600 + 1800, "Asia/Kolkata": 5*3600 + 1800,
		"America//New_York": -5 * 3600, "./UTC": 0, "right/UTC": 0, "localtime": 0, "posixrules": -5 * 3600, "right/America/New_York": -5 * 3600} {
		loc, err := ParseTimezone(tz)
		if err != nil {
			t.Errorf("ParseTimezone(%q): %v", tz, err)
			continue
		}
		if _, got := time.Date(2026, 1, 15, 12, 0, 0, 0, loc).Zone(); got != off {
			t.Errorf("%s: offset %d, want %d", tz, got, off)
		}
	}
}

// enumSince must be a version tag: another word would silently mean
// "every tag publishes the whole enum".
func TestEnumSinceMustBeAVersion(t *testing.T) {
	o, err := ParseRegistry([]byte(`{"images": [{"image": "x/materialize-y", "family": "syncSchedule", "enumSince": "latest"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Builtin().Extend(o); err == nil || !strings.Contains(err.Error(), `enumSince "latest" is not a version tag`) {
		t.Errorf("Extend: %v", err)
	}
	o, _ = ParseRegistry([]byte(`{"images": [{"image": "x/materialize-y", "family": "syncSchedule", "enumSince": "v2"}]}`))
	r, err := Builtin().Extend(o)
	if err != nil {
		t.Fatal(err)
	}
	e, tag, _ := r.Lookup("x/materialize-y:v1")
	if got := r.EnumFor(e, tag); slices.Contains(got, "20m") {
		t.Errorf("v1 before enumSince v2 publishes %v", got)
	}
}
