// Package connector is the connector side of pacing: the registry of
// scheduling images, the three schedule families as the connectors read
// them, and the classification of a config into a kind with its effective
// delay. Standard library only: connector images import it through the
// boilerplate package.
package connector

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // timezones must not depend on the host's zoneinfo
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
	SyncFrequency       string `json:"syncFrequency,omitempty" jsonschema:"title=Sync Frequency,description=Frequency at which transactions are executed when the materialization is fully caught up and streaming changes. May be enabled only for certain time periods and days of the week if configured below; otherwise it is effective 24/7. Defaults to 30 minutes if unset.,enum=0s,enum=30s,enum=5m,enum=15m,enum=30m,enum=1h,enum=2h,enum=4h"`
	Timezone            string `json:"timezone,omitempty" jsonschema:"title=Timezone,description=Timezone applicable to sync time windows and active days. Must be a valid IANA time zone name or +HH:MM offset."`
	FastSyncStartTime   string `json:"fastSyncStartTime,omitempty" jsonschema:"title=Fast Sync Start Time,description=Time of day that transactions begin executing at the configured Sync Frequency. Prior to this time transactions will be executed more slowly. Must be in the form of '09:00'."`
	FastSyncStopTime    string `json:"fastSyncStopTime,omitempty" jsonschema:"title=Fast Sync Stop Time,description=Time of day that transactions stop executing at the configured Sync Frequency. After this time transactions will be executed more slowly. Must be in the form of '17:00'."`
	FastSyncEnabledDays string `json:"fastSyncEnabledDays,omitempty" jsonschema:"title=Fast Sync Enabled Days,description=Days of the week that the configured Sync Frequency is active. On days that are not enabled, transactions will be executed more slowly for the entire day. Examples: 'M-F' (Monday through Friday, inclusive), 'M,W,F' (Monday, Wednesday, and Friday), 'Su-T,Th-S' (Sunday through Tuesday, inclusive; Thursday through Saturday, inclusive). All days are enabled if unset."`
}

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
	KindInvalid      Kind = "invalid"
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
	// sync-schedule-conflict (SPEC section 5).
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
}

// Classify reads the schedule of one connector config (a generic JSON
// value, with Encrypted for sealed values) for the image's family.
func (reg *Registry) Classify(e *Entry, tag string, config any) Result {
	info := reg.Family(e.Family)
	res := Result{Family: e.Family, Pointer: info.Pointer}
	obj, ok := config.(map[string]any)
	if !ok {
		res.Kind = KindInvalid
		res.Pointer = ""
		res.Problems = append(res.Problems, Problem{ProblemInvalid, "", "connector config must be an object, got " + describe(config)})
		return res
	}
	switch e.Family {
	case FamilySyncSchedule:
		if adv, ok := obj["advanced"].(map[string]any); ok {
			if d, ok := adv["updateDelay"]; ok && d != nil && d != "" {
				return classifyUpdateDelay(e, tag, d, res)
			}
		}
		return classifySyncSchedule(info, obj, res)
	default:
		return classifyInterval(e.Family, info, obj, res)
	}
}

func classifyUpdateDelay(e *Entry, tag string, v any, res Result) Result {
	res.Kind, res.Pointer, res.Present = KindUpdateDelay, "/advanced/updateDelay", true
	since := "current"
	if e.UpdateDelayBefore != "" {
		since = e.UpdateDelayBefore + " and later"
	}
	verdict := "which " + since + " images reject"
	if !e.AcceptsSyncSchedule(tag) {
		verdict = "which this image tag still reads, but " + since + " images reject"
	}
	switch x := v.(type) {
	case Encrypted:
		res.Kind, res.Configured = KindSealed, true
		res.Problems = append(res.Problems, Problem{ProblemSealed, res.Pointer, "advanced.updateDelay is encrypted, so its delay is unknown"})
		return res
	case string:
		d, err := time.ParseDuration(x)
		if err != nil {
			res.Kind = KindInvalid
			res.Problems = append(res.Problems, Problem{ProblemInvalid, res.Pointer, "parsing advanced.updateDelay: " + err.Error()})
			return res
		}
		res.Interval, res.Known, res.Configured = d, true, d != 0
		res.Delay = max(d, 0)
		res.Problems = append(res.Problems, Problem{ProblemUpdateDelay, res.Pointer,
			fmt.Sprintf("advanced.updateDelay %q is the legacy setting, %s; it counts as a connector schedule of %s", x, verdict, fmtDelay(res.Delay))})
		if !contains(LegacyUpdateDelayEnum, x) {
			res.Problems = append(res.Problems, offEnum("advanced.updateDelay", res.Pointer, x, LegacyUpdateDelayEnum, d))
		}
		return res
	default:
		res.Kind = KindInvalid
		res.Problems = append(res.Problems, Problem{ProblemInvalid, res.Pointer, "json: cannot unmarshal " + describe(v) + " into Go struct field advanced.updateDelay of type string"})
		return res
	}
}

func classifySyncSchedule(info FamilyInfo, obj map[string]any, res Result) Result {
	key := strings.TrimPrefix(info.Pointer, "/")
	v, present := obj[key]
	defaultSchedule := func() Result {
		res.Kind, res.Known, res.Delay = KindDefault, true, DefaultFrequency
		res.Schedule = &Parsed{Frequency: DefaultFrequency}
		return res
	}
	if !present || v == nil {
		return defaultSchedule()
	}
	res.Present = true
	m, isObj := v.(map[string]any)
	if !isObj {
		res.Configured = true
		if _, sealed := v.(Encrypted); sealed {
			res.Kind = KindSealed
			res.Problems = append(res.Problems, Problem{ProblemSealed, res.Pointer, key + " is encrypted, so its effect is unknown"})
			return res
		}
		res.Kind = KindInvalid
		res.Problems = append(res.Problems, Problem{ProblemInvalid, res.Pointer, "json: cannot unmarshal " + describe(v) + " into Go struct field ." + key + " of type schedule.Config"})
		return res
	}
	// Decode strictly, as the connector does.
	var spec SyncScheduleSpec
	var sealed []string
	var decodeErr *Problem
	for _, k := range sortedKeys(m) {
		at := res.Pointer + "/" + escape(k)
		var dst *string
		switch k {
		case "syncFrequency":
			dst = &spec.SyncFrequency
		case "timezone":
			dst = &spec.Timezone
		case "fastSyncStartTime":
			dst = &spec.FastSyncStartTime
		case "fastSyncStopTime":
			dst = &spec.FastSyncStopTime
		case "fastSyncEnabledDays":
			dst = &spec.FastSyncEnabledDays
		}
		switch x := m[k].(type) {
		case nil:
		case Encrypted:
			sealed = append(sealed, at)
		case string:
			if dst != nil {
				*dst = x
			}
		default:
			if dst != nil && decodeErr == nil {
				decodeErr = &Problem{ProblemInvalid, at, "json: cannot unmarshal " + describe(x) + " into Go struct field ." + key + "." + k + " of type string"}
			}
		}
		if dst == nil && decodeErr == nil {
			decodeErr = &Problem{ProblemInvalid, at, fmt.Sprintf("json: unknown field %q", k)}
		}
	}
	if len(sealed) > 0 {
		res.Kind, res.Configured = KindSealed, true
		for _, p := range sealed {
			res.Problems = append(res.Problems, Problem{ProblemSealed, p, strings.TrimPrefix(strings.ReplaceAll(p, "/", "."), ".") + " is encrypted, so the schedule's effect is unknown"})
		}
		return res
	}
	if decodeErr != nil {
		res.Kind, res.Configured = KindInvalid, true
		res.Problems = append(res.Problems, *decodeErr)
		return res
	}
	alternating := spec.Timezone != "" || spec.FastSyncStartTime != "" || spec.FastSyncStopTime != "" || spec.FastSyncEnabledDays != ""
	if !alternating && spec.SyncFrequency == "" {
		return defaultSchedule() // a remnant: every value null or ""
	}
	if !alternating {
		if d, err := time.ParseDuration(spec.SyncFrequency); err == nil && d == 0 {
			res.Kind, res.Known, res.Schedule = KindZero, true, &Parsed{Spec: spec}
			if !contains(info.Enum, spec.SyncFrequency) {
				res.Problems = append(res.Problems, offEnum(key+".syncFrequency", res.Pointer+"/syncFrequency", spec.SyncFrequency, info.Enum, 0))
			}
			return res // the carve-out: not configured
		}
	}
	res.Configured = true
	p, prob := ParseSyncSchedule(spec)
	if prob != nil {
		prob.Pointer = res.Pointer + prob.Pointer
		res.Kind = KindInvalid
		res.Problems = append(res.Problems, *prob)
		return res
	}
	res.Schedule, res.Known = p, true
	if p.Alternating {
		res.Kind, res.Delay = KindAlternating, max(p.Frequency, SlowFrequency)
	} else {
		res.Kind, res.Delay = KindFixed, max(p.Frequency, 0)
	}
	if !contains(info.Enum, spec.SyncFrequency) {
		res.Problems = append(res.Problems, offEnum(key+".syncFrequency", res.Pointer+"/syncFrequency", spec.SyncFrequency, info.Enum, p.Frequency))
	}
	return res
}

type cachedZone struct {
	loc *time.Location
	err error
}

var zones sync.Map // name -> cachedZone

// loadLocation is time.LoadLocation, remembered: loading reads tzdata.
func loadLocation(name string) (*time.Location, error) {
	if z, ok := zones.Load(name); ok {
		return z.(cachedZone).loc, z.(cachedZone).err
	}
	loc, err := time.LoadLocation(name)
	zones.Store(name, cachedZone{loc, err})
	return loc, err
}

var offsetRe = regexp.MustCompile(`^[-+][0-9]{1,2}:[0-9]{2}$`)

// LoadTimezone reads a timezone as the connectors do: time.LoadLocation,
// else a +HH:MM offset parsed with layout "-07:00".
func LoadTimezone(tz string) (*time.Location, bool) {
	if tz == "" {
		return nil, false
	}
	if loc, err := loadLocation(tz); err == nil {
		return loc, true
	}
	if !offsetRe.MatchString(tz) {
		return nil, false
	}
	t, err := time.Parse("-07:00", tz)
	if err != nil {
		return nil, false
	}
	_, off := t.Zone()
	return time.FixedZone(tz, off), true
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
	loc, ok := LoadTimezone(s.Timezone)
	if !ok {
		return fail("/timezone", "unknown or invalid timezone %q: timezone must be a valid IANA timezone name or +HH:MM offset", s.Timezone)
	}
	start, err := time.Parse("15:04", s.FastSyncStartTime)
	if err != nil {
		return fail("/fastSyncStartTime", "invalid alternate start time %q (time of day should look like '13:00'): %v", s.FastSyncStartTime, err)
	}
	stop, err := time.Parse("15:04", s.FastSyncStopTime)
	if err != nil {
		return fail("/fastSyncStopTime", "invalid alternate end time %q (time of day should look like '13:00'): %v", s.FastSyncStopTime, err)
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

func classifyInterval(f Family, info FamilyInfo, obj map[string]any, res Result) Result {
	key := strings.TrimPrefix(info.Pointer, "/")
	v, present := obj[key]
	if !present || v == nil || v == "" {
		res.Kind = KindInvalid
		if info.Required {
			res.Problems = append(res.Problems, Problem{ProblemInvalid, "", fmt.Sprintf("%s is required", key)})
			return res
		}
		res.Kind, res.Known = KindZero, true
		return res
	}
	res.Present, res.Configured = true, true
	var d time.Duration
	var err error
	switch x := v.(type) {
	case Encrypted:
		res.Kind = KindSealed
		res.Problems = append(res.Problems, Problem{ProblemSealed, res.Pointer, key + " is encrypted, so its interval is unknown"})
		return res
	case string:
		if info.ISO8601 {
			d, err = ParseISO8601(x)
		} else if d, err = time.ParseDuration(x); err != nil {
			err = fmt.Errorf("parsing %s: %v", key, err)
		}
		if err != nil {
			res.Kind = KindInvalid
			res.Problems = append(res.Problems, Problem{ProblemInvalid, res.Pointer, err.Error()})
			return res
		}
		if len(info.Enum) > 0 && !contains(info.Enum, x) {
			res.Problems = append(res.Problems, offEnum(key, res.Pointer, x, info.Enum, d))
		}
	default:
		res.Kind = KindInvalid
		res.Problems = append(res.Problems, Problem{ProblemInvalid, res.Pointer, "json: cannot unmarshal " + describe(v) + " into Go struct field ." + key + " of type string"})
		return res
	}
	res.Interval, res.Known, res.Delay = d, true, max(d, 0)
	res.Configured = d != 0
	if d <= 0 {
		res.Kind = KindZero
	} else {
		res.Kind = KindFileInterval
	}
	return res
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
	case map[string]any:
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
