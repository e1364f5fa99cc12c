// Package connector is the connector side of pacing: the registry of
// scheduling images, the three schedule families as the connectors read
// them, and the classification of a config into a kind with its effective
// delay. Standard library only.
package connector

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/estuary/schedtool/schedule/tzdata"
)

// DefaultFrequency is the delay of a syncSchedule-family connector whose
// config has no schedule.
const DefaultFrequency = 30 * time.Minute

// SlowFrequency is the hard-coded interval outside an alternating window.
const SlowFrequency = 4 * time.Hour

// Encrypted stands for a sealed (sops) value whose plaintext is unknown.
type Encrypted struct{ Text string }

// SyncScheduleSpec is the wire shape of the connectors' syncSchedule object.
// The JSON Schema published by `schedtool schema` is generated from it.
type SyncScheduleSpec struct {
	SyncFrequency       string `json:"syncFrequency,omitempty" jsonschema:"title=Sync Frequency,enum=0s,enum=30s,enum=1m,enum=2m30s,enum=5m,enum=15m,enum=20m,enum=30m,enum=1h,enum=2h,enum=4h"`
	Timezone            string `json:"timezone,omitempty" jsonschema:"title=Timezone"`
	FastSyncStartTime   string `json:"fastSyncStartTime,omitempty" jsonschema:"title=Fast Sync Start Time"`
	FastSyncStopTime    string `json:"fastSyncStopTime,omitempty" jsonschema:"title=Fast Sync Stop Time"`
	FastSyncEnabledDays string `json:"fastSyncEnabledDays,omitempty" jsonschema:"title=Fast Sync Enabled Days"`
}

// SyncScheduleDocs are the connectors' descriptions of the syncSchedule
// keys, whole (they hold commas, which a struct tag would cut).
var SyncScheduleDocs = map[string]string{
	"syncFrequency":       "Frequency at which transactions are executed when the materialization is fully caught up and streaming changes. May be enabled only for certain time periods and days of the week if configured below; otherwise it is effective 24/7. Defaults to 30 minutes if unset.",
	"timezone":            "Timezone applicable to sync time windows and active days. Must be a valid IANA time zone name or +HH:MM offset.",
	"fastSyncStartTime":   "Time of day that transactions begin executing at the configured Sync Frequency. Prior to this time transactions will be executed more slowly. Must be in the form of '09:00'.",
	"fastSyncStopTime":    "Time of day that transactions stop executing at the configured Sync Frequency. After this time transactions will be executed more slowly. Must be in the form of '17:00'.",
	"fastSyncEnabledDays": "Days of the week that the configured Sync Frequency is active. On days that are not enabled, transactions will be executed more slowly for the entire day. Examples: 'M-F' (Monday through Friday, inclusive), 'M,W,F' (Monday, Wednesday, and Friday), 'Su-T,Th-S' (Sunday through Tuesday, inclusive; Thursday through Saturday, inclusive). All days are enabled if unset.",
}

// ClockPattern is the pattern the connectors publish for the fast-window
// clocks.
const ClockPattern = `^(0?[0-9]|1[0-9]|2[0-3]):[0-5][0-9]$`

// SyncScheduleKeys are the keys of the syncSchedule object, in order.
var SyncScheduleKeys = []string{"syncFrequency", "timezone", "fastSyncStartTime", "fastSyncStopTime", "fastSyncEnabledDays"}

// LegacyUpdateDelayEnum is what images before mid-2024 accepted as
// /advanced/updateDelay.
var LegacyUpdateDelayEnum = []string{"0s", "15m", "30m", "1h", "2h", "4h"}

// Kind is the shape of a connector schedule, as census reports it.
type Kind string

const (
	KindDefault      Kind = "default"
	KindZero         Kind = "zero"
	KindFixed        Kind = "fixed"
	KindAlternating  Kind = "alternating"
	KindFileInterval Kind = "file-interval"
	KindUpdateDelay  Kind = "update-delay"
	KindSealed       Kind = "sealed"
	// KindSecret: a secret merged into the config at task start covers
	// the schedule (docs/behaviour.md §4.5), so its value is unknown.
	KindSecret  Kind = "secret"
	KindInvalid Kind = "invalid"
)

// ProblemKind says what a Problem is about.
type ProblemKind int

const (
	ProblemInvalid     ProblemKind = iota // the connector refuses the config
	ProblemOffEnum                        // accepted, but outside the published enum
	ProblemUpdateDelay                    // legacy /advanced/updateDelay
	ProblemSealed                         // an encrypted schedule value
)

// Problem is something about a connector schedule worth reporting, at a
// JSON pointer into the config.
type Problem struct {
	Kind    ProblemKind
	Pointer string
	Msg     string
}

// Parsed is a readable syncSchedule-family schedule.
type Parsed struct {
	Alternating bool
	Frequency   time.Duration // the fixed frequency, or the fast one
	Spec        SyncScheduleSpec
	Location    *time.Location // alternating only
	Start, Stop int            // minutes after midnight, alternating only
	Days        [7]bool        // alternating only, Sunday first
}

// Result is a classified connector schedule.
type Result struct {
	Family Family
	Kind   Kind
	// Delay is the longest delay between acknowledgements, when Known.
	Delay time.Duration
	Known bool
	// Configured is whether the schedule counts as configured for
	// sync-schedule-conflict (docs/behaviour.md §5).
	Configured bool
	// Pointer is where the schedule lives in the config; Present is
	// whether a value is there.
	Pointer string
	Present bool
	// Schedule is the syncSchedule-family schedule (fixed, alternating,
	// default or zero); Interval the file-sink interval or update delay.
	Schedule *Parsed
	Interval time.Duration
	Problems []Problem
	// KeyVariants are the pointers of config keys that the connector
	// reads only because encoding/json matches keys case-insensitively
	// (SyncSchedule, syncfrequency, ſyncFrequency).
	KeyVariants []string
}

var offsetRe = regexp.MustCompile(`^[-+][0-9]{1,2}:[0-9]{2}$`)

// LoadTimezone reads a timezone as the connectors do, and reports
// whether they accept it (see ParseTimezone).
func LoadTimezone(tz string) (*time.Location, bool) {
	if tz == "" {
		return nil, false
	}
	loc, err := ParseTimezone(tz)
	return loc, err == nil
}

// ParseTimezone reads a timezone as the connectors do: time.LoadLocation
// as it resolves a name in the connectors' image (tzdata.LoadImage: the
// image's /usr/share/zoneinfo, embedded, never the host's, so
// America//New_York, right/UTC, posixrules and localtime load), else a
// value shaped like an offset parsed with layout "-07:00". "Local" is the connector container's zone, which
// is UTC (the images set no TZ), whatever the machine running schedtool
// says. The errors are the connector's texts.
func ParseTimezone(tz string) (*time.Location, error) {
	if tz == "Local" {
		return time.UTC, nil
	}
	if loc, err := tzdata.LoadImage(tz); err == nil {
		return loc, nil
	}
	if offsetRe.MatchString(tz) {
		t, err := time.Parse("-07:00", tz)
		if err != nil {
			return nil, fmt.Errorf("error parsing %q: %w", tz, err)
		}
		_, off := t.Zone()
		return time.FixedZone(tz, off), nil
	}
	return nil, fmt.Errorf("unknown or invalid timezone %q: timezone must be a valid IANA timezone name or +HH:MM offset", tz)
}

// ParseSyncSchedule validates a syncSchedule object as the connector does,
// in its order and with its texts. The Problem's pointer is relative to the
// object.
func ParseSyncSchedule(s SyncScheduleSpec) (*Parsed, *Problem) {
	fail := func(ptr, format string, args ...any) (*Parsed, *Problem) {
		return nil, &Problem{ProblemInvalid, ptr, "validating schedule configuration: " + fmt.Sprintf(format, args...)}
	}
	alternating := s.Timezone != "" || s.FastSyncStartTime != "" || s.FastSyncStopTime != "" || s.FastSyncEnabledDays != ""
	if !alternating {
		if s.SyncFrequency == "" {
			return &Parsed{Frequency: DefaultFrequency, Spec: s}, nil
		}
		d, err := time.ParseDuration(s.SyncFrequency)
		if err != nil {
			return fail("/syncFrequency", "parsing interval in CreateSchedule: %v", err)
		}
		return &Parsed{Frequency: d, Spec: s}, nil
	}
	if s.SyncFrequency == "" || s.Timezone == "" || s.FastSyncStartTime == "" || s.FastSyncStopTime == "" {
		return fail("", "must provide 'timezone', 'syncFrequency', 'fastSyncStartTime', and 'fastSyncStopTime' when configuring sync frequency active times")
	}
	if s.FastSyncStartTime == s.FastSyncStopTime {
		return fail("/fastSyncStopTime", "alternateStart and alternateEnd must be different: got %q and %q", s.FastSyncStartTime, s.FastSyncStopTime)
	}
	freq, err := time.ParseDuration(s.SyncFrequency)
	if err != nil {
		return fail("/syncFrequency", "building alternate schedule: parsing interval %q: %v", s.SyncFrequency, err)
	}
	loc, err := ParseTimezone(s.Timezone)
	if err != nil {
		return fail("/timezone", "%v", err)
	}
	start, err := time.ParseInLocation("15:04", s.FastSyncStartTime, loc)
	if err != nil {
		return fail("/fastSyncStartTime", "invalid alternate start time %q (time of day should look like '13:00'): could not parse %q as clock time: %v", s.FastSyncStartTime, s.FastSyncStartTime, err)
	}
	stop, err := time.ParseInLocation("15:04", s.FastSyncStopTime, loc)
	if err != nil {
		return fail("/fastSyncStopTime", "invalid alternate end time %q (time of day should look like '13:00'): could not parse %q as clock time: %v", s.FastSyncStopTime, s.FastSyncStopTime, err)
	}
	days, err := ParseDays(s.FastSyncEnabledDays)
	if err != nil {
		return fail("/fastSyncEnabledDays", "parsing alternate active days: %v", err)
	}
	p := &Parsed{Alternating: true, Frequency: freq, Spec: s, Location: loc,
		Start: start.Hour()*60 + start.Minute(), Stop: stop.Hour()*60 + stop.Minute(), Days: days}
	if p.Start == p.Stop {
		// The connector compares strings and then crashes at run time.
		return fail("/fastSyncStopTime", "alternateStart and alternateEnd must be different: got %q and %q", s.FastSyncStartTime, s.FastSyncStopTime)
	}
	return p, nil
}

// sortedKeys lists a small map's keys in order, without sort's overhead.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		i := len(keys)
		keys = append(keys, k)
		for i > 0 && keys[i-1] > k {
			keys[i] = keys[i-1]
			i--
		}
		keys[i] = k
	}
	return keys
}

func offEnum(name, ptr, value string, enum []string, d time.Duration) Problem {
	msg := fmt.Sprintf("%s %q is accepted by the connector but not listed in its published schema (%s)", name, value, strings.Join(enum, ", "))
	if d < 0 {
		msg += "; a negative duration means no delay at all"
	}
	return Problem{ProblemOffEnum, ptr, msg}
}

func fmtDelay(d time.Duration) string {
	if d <= 0 {
		return "no delay"
	}
	return FormatDelay(d)
}

// FormatDelay writes a delay as Go writes durations, without zero units
// ("30m", "4h", "1h30m").
func FormatDelay(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func describe(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case string:
		return "string"
	case map[string]any, Object:
		return "object"
	case []any:
		return "array"
	default:
		return "number"
	}
}

func escape(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}
