// Package model is Flow's materialization sync schedule (models::SyncSchedule):
// its wire shape, decoding with unknown keys refused, and validation with
// Flow's texts. Standard library only.
package model

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Spec is the wire shape of a model syncSchedule. The JSON Schema published
// by `schedtool schema` is generated from these types.
type Spec struct {
	BaseInterval string       `json:"baseInterval" jsonschema:"title=Base interval,description=Interval between commits outside every window (a humantime duration such as 4h or 1h 30m; 0s commits as fast as possible)."`
	Timezone     string       `json:"timezone,omitempty" jsonschema:"description=IANA timezone name or +HH:MM offset in which windows are read. Required when windows are configured."`
	Windows      []WindowSpec `json:"windows,omitempty" jsonschema:"description=Windows of faster (or slower) commits; the first active window wins."`
}

// WindowSpec is the wire shape of one window.
type WindowSpec struct {
	Interval string   `json:"interval" jsonschema:"description=Interval between commits while the window is active (a humantime duration)."`
	Start    string   `json:"start" jsonschema:"description=Local start time HH:MM (inclusive)."`
	End      string   `json:"end" jsonschema:"description=Local end time HH:MM (exclusive); before start means the window runs overnight."`
	Days     []string `json:"days,omitempty" jsonschema:"description=Days on which the window is enabled (Mon or Monday in any case); absent means every day."`
}

// Schedule is a decoded model schedule. Clocks that do not parse are kept
// as written (Start/End < 0) so that Validate reports them in Flow's order.
type Schedule struct {
	BaseInterval time.Duration
	Timezone     string // "" when absent or empty
	HasTimezone  bool   // timezone was given (null is absent), possibly ""
	Windows      []Window
}

// Window is a decoded window.
type Window struct {
	Interval           time.Duration
	StartText, EndText string
	Start, End         Clock          // -1 when the text is not a clock
	Days               []time.Weekday // nil: every day
	DaysSet            bool           // days was given (possibly empty)
}

// DecodeError is a schedule that does not decode. Path is the JSON pointer
// tokens, relative to the schedule, of the value at fault.
type DecodeError struct {
	Path []string
	Msg  string
	// Limit: the value decodes as Flow reads it, but is longer than
	// schedtool evaluates (MaxDuration). Flow accepts it, so its own
	// errors are named first (Check).
	Limit bool
	// Unknown: the last of Path is a key Flow's SyncSchedule does not
	// have (Msg names the keys it has).
	Unknown bool
}

func (e *DecodeError) Error() string {
	if len(e.Path) == 0 {
		return e.Msg
	}
	return strings.Join(e.Path, ".") + ": " + e.Msg
}

// ValidationError is a decoded schedule that Flow rejects. Path locates the
// value at fault (relative to the schedule); Msg is Flow's text verbatim.
type ValidationError struct {
	Path []string
	Msg  string
}

func (e *ValidationError) Error() string { return e.Msg }

// DecodeJSON decodes a schedule from JSON bytes, as strictly as Flow's
// serde_json: a duplicate key and a lone UTF-16 surrogate escape are
// errors.
func DecodeJSON(b []byte) (*Schedule, error) {
	if err := StrictJSON(b); err != nil {
		return nil, &DecodeError{Msg: err.Error()}
	}
	var v any
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return nil, &DecodeError{Msg: err.Error()}
	}
	return Decode(v)
}

// ScheduleKeys and WindowKeys are the keys of a syncSchedule and of one
// of its windows, in Flow's order.
var (
	ScheduleKeys = []string{"baseInterval", "timezone", "windows"}
	WindowKeys   = []string{"interval", "start", "end", "days"}
)

// Decode decodes a generic JSON value (map[string]any, []any, string,
// float64 or json.Number, bool, nil) into a Schedule. Unknown keys, missing
// required keys, wrong types, bad durations and bad day names are errors.
//
// A duration longer than MaxDuration, which Flow reads, is an error with
// Limit set that Decode returns only once the rest decodes: then s is the
// schedule with that duration clamped to MaxDuration, for Check to apply
// Flow's validation first. Any other error returns a nil schedule.
func Decode(v any) (s *Schedule, err error) {
	var limit *DecodeError
	if s, err = decodeSchedule(v, &limit); err == nil && limit != nil {
		return s, limit
	}
	return s, err
}

// Check decodes and validates a schedule, naming Flow's defect first: a
// value Flow refuses to decode, then Flow's validation, then a duration
// beyond what schedtool evaluates (which Flow accepts). The error is a
// *DecodeError or a *ValidationError.
func Check(v any) (*Schedule, error) {
	s, err := Decode(v)
	if de, ok := err.(*DecodeError); ok && de.Limit && s != nil {
		if verr := s.Validate(); verr != nil {
			return nil, verr
		}
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}

func decodeSchedule(v any, limit **DecodeError) (*Schedule, error) {
	obj, err := object(v, nil, "struct SyncSchedule", ScheduleKeys...)
	if err != nil {
		return nil, err
	}
	s := &Schedule{}
	raw, ok := obj["baseInterval"]
	if !ok || raw == nil {
		return nil, &DecodeError{Msg: "missing field `baseInterval`"}
	}
	if s.BaseInterval, err = duration(raw, []string{"baseInterval"}, limit); err != nil {
		return nil, err
	}
	if tz, ok := obj["timezone"]; ok && tz != nil {
		str, isStr := tz.(string)
		if !isStr {
			return nil, typeError(tz, []string{"timezone"}, "a string")
		}
		s.Timezone, s.HasTimezone = str, true
	}
	if ws, ok := obj["windows"]; ok {
		list, isList := ws.([]any)
		if !isList {
			return nil, typeError(ws, []string{"windows"}, "a sequence")
		}
		for i, w := range list {
			win, err := decodeWindow(w, []string{"windows", fmt.Sprint(i)}, limit)
			if err != nil {
				return nil, err
			}
			s.Windows = append(s.Windows, win)
		}
	}
	return s, nil
}

func decodeWindow(v any, path []string, limit **DecodeError) (Window, error) {
	obj, err := object(v, path, "struct Window", WindowKeys...)
	if err != nil {
		return Window{}, err
	}
	var w Window
	for _, k := range []string{"interval", "start", "end"} {
		if x, ok := obj[k]; !ok || x == nil {
			return w, &DecodeError{Path: path, Msg: "missing field `" + k + "`"}
		}
	}
	if w.Interval, err = duration(obj["interval"], append(path[:len(path):len(path)], "interval"), limit); err != nil {
		return w, err
	}
	for _, k := range []string{"start", "end"} {
		str, ok := obj[k].(string)
		if !ok {
			return w, typeError(obj[k], append(path[:len(path):len(path)], k), "a time of day HH:MM")
		}
		c, valid := ParseClock(str)
		if !valid {
			c = -1
		}
		if k == "start" {
			w.StartText, w.Start = str, c
		} else {
			w.EndText, w.End = str, c
		}
	}
	if d, ok := obj["days"]; ok && d != nil {
		list, isList := d.([]any)
		if !isList {
			return w, typeError(d, append(path[:len(path):len(path)], "days"), "a sequence")
		}
		w.DaysSet = true
		w.Days = []time.Weekday{}
		for i, x := range list {
			p := append(path[:len(path):len(path)], "days", fmt.Sprint(i))
			str, ok := x.(string)
			if !ok {
				return w, typeError(x, p, "a day name")
			}
			day, ok := ParseDay(str)
			if !ok {
				return w, &DecodeError{Path: p, Msg: fmt.Sprintf("unknown day %q (expected a day name such as Mon or Monday)", str)}
			}
			w.Days = append(w.Days, day)
		}
	}
	return w, nil
}

func object(v any, path []string, what string, keys ...string) (map[string]any, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, typeError(v, path, what)
	}
	var unknown []string
	for k := range obj {
		known := false
		for _, want := range keys {
			known = known || k == want
		}
		if !known {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, &DecodeError{Path: append(path[:len(path):len(path)], unknown[0]),
			Msg: fmt.Sprintf("unknown field `%s`, expected %s", unknown[0], oneOf(keys)), Unknown: true}
	}
	return obj, nil
}

func oneOf(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = "`" + k + "`"
	}
	if len(q) == 1 {
		return q[0]
	}
	return "one of " + strings.Join(q, ", ")
}

// duration decodes a duration; one beyond MaxDuration is noted in limit
// (the first one) and read as MaxDuration.
func duration(v any, path []string, limit **DecodeError) (time.Duration, error) {
	s, ok := v.(string)
	if !ok {
		return 0, typeError(v, path, "a duration string such as \"4h\"")
	}
	d, err := ParseDuration(s)
	if de, ok := err.(*DurationError); ok && de.limit {
		if *limit == nil {
			*limit = &DecodeError{Path: path, Msg: err.Error(), Limit: true}
		}
		return MaxDuration, nil
	}
	if err != nil {
		return 0, &DecodeError{Path: path, Msg: err.Error()}
	}
	return d, nil
}

// typeError words a type mismatch as serde does.
func typeError(v any, path []string, want string) error {
	var got string
	switch x := v.(type) {
	case nil:
		got = "null"
	case bool:
		got = fmt.Sprintf("boolean `%v`", x)
	case string:
		got = fmt.Sprintf("string %q", x)
	case float64, json.Number, int, int64:
		got = fmt.Sprintf("number `%v`", x)
	case []any:
		got = "sequence"
	case map[string]any:
		got = "map"
	default:
		got = fmt.Sprintf("%T", v)
	}
	return &DecodeError{Path: path, Msg: fmt.Sprintf("invalid type: %s, expected %s", got, want)}
}

// Validate applies Flow's checks, first failure wins, with Flow's texts.
func (s *Schedule) Validate() error {
	if len(s.Windows) == 0 && s.HasTimezone {
		return &ValidationError{Path: []string{"timezone"}, Msg: "'timezone' applies only to windows; remove it or configure a window"}
	}
	if len(s.Windows) == 0 {
		return nil
	}
	if !s.HasTimezone {
		return &ValidationError{Msg: "must provide 'timezone' when windows are configured"}
	}
	if _, err := ParseTimezone(s.Timezone); err != nil {
		return &ValidationError{Path: []string{"timezone"}, Msg: fmt.Sprintf("invalid timezone %s (expected an IANA name like America/New_York, or a +HH:MM offset)", RustQuote(s.Timezone))}
	}
	for i, w := range s.Windows {
		at := func(k string) []string { return []string{"windows", fmt.Sprint(i), k} }
		if w.Start < 0 {
			return &ValidationError{Path: at("start"), Msg: fmt.Sprintf("invalid start %s of window %d (expected HH:MM)", RustQuote(w.StartText), i)}
		}
		if w.End < 0 {
			return &ValidationError{Path: at("end"), Msg: fmt.Sprintf("invalid end %s of window %d (expected HH:MM)", RustQuote(w.EndText), i)}
		}
		if w.Start == w.End {
			return &ValidationError{Path: at("end"), Msg: fmt.Sprintf("start and end of window %d must be different: got %s and %s", i, RustQuote(w.StartText), RustQuote(w.EndText))}
		}
		if w.DaysSet && len(w.Days) == 0 {
			return &ValidationError{Path: at("days"), Msg: fmt.Sprintf("days of window %d must not be empty (omit it to enable all days)", i)}
		}
		var seen [7]bool
		for j, d := range w.Days {
			if seen[d] {
				return &ValidationError{Path: []string{"windows", fmt.Sprint(i), "days", fmt.Sprint(j)}, Msg: fmt.Sprintf("days of window %d must not repeat: got %s twice", i, DayName(d))}
			}
			seen[d] = true
		}
	}
	return s.checkOverlap()
}

// EnabledDays reports the days on which the window is enabled.
func (w Window) EnabledDays() [7]bool {
	var on [7]bool
	if !w.DaysSet {
		return [7]bool{true, true, true, true, true, true, true}
	}
	for _, d := range w.Days {
		on[d] = true
	}
	return on
}

type segment struct {
	day        int
	start, end int // minutes, end may be 1440
	window     int
}

func (s *Schedule) checkOverlap() error {
	var segs []segment
	for i, w := range s.Windows {
		on := w.EnabledDays()
		for d := 0; d < 7; d++ {
			if !on[d] {
				continue
			}
			if w.Start < w.End {
				segs = append(segs, segment{d, int(w.Start), int(w.End), i})
				continue
			}
			if w.End != 0 {
				segs = append(segs, segment{d, 0, int(w.End), i})
			}
			segs = append(segs, segment{d, int(w.Start), 1440, i})
		}
	}
	// Sorted as whole tuples (day, start, end, window), as Flow sorts them:
	// the pair reported is the first neighbouring pair that overlaps.
	sort.Slice(segs, func(a, b int) bool {
		x, y := segs[a], segs[b]
		switch {
		case x.day != y.day:
			return x.day < y.day
		case x.start != y.start:
			return x.start < y.start
		case x.end != y.end:
			return x.end < y.end
		}
		return x.window < y.window
	})
	for k := 1; k < len(segs); k++ {
		prev, next := segs[k-1], segs[k]
		if prev.day == next.day && prev.window != next.window && next.start < prev.end {
			return &ValidationError{Path: []string{"windows", fmt.Sprint(next.window)},
				Msg: fmt.Sprintf("windows %d and %d overlap on %s at %s", prev.window, next.window, dayNames[next.day], Clock(next.start))}
		}
	}
	return nil
}

// Value is the spec as a generic JSON value, as Decode reads it.
func (s *Spec) Value() any {
	m := map[string]any{"baseInterval": s.BaseInterval}
	if s.Timezone != "" {
		m["timezone"] = s.Timezone
	}
	if len(s.Windows) > 0 {
		ws := make([]any, len(s.Windows))
		for i, w := range s.Windows {
			x := map[string]any{"interval": w.Interval, "start": w.Start, "end": w.End}
			if w.Days != nil {
				days := make([]any, len(w.Days))
				for j, d := range w.Days {
					days[j] = d
				}
				x["days"] = days
			}
			ws[i] = x
		}
		m["windows"] = ws
	}
	return m
}

// String writes the spec in YAML flow style, clocks quoted:
// {baseInterval: 4h, timezone: America/New_York, windows: [{interval: 15m, start: "09:00", end: "17:00", days: [Mon, Fri]}]}.
func (s *Spec) String() string {
	var b strings.Builder
	b.WriteString("{baseInterval: " + s.BaseInterval)
	if s.Timezone != "" {
		b.WriteString(", timezone: " + yamlScalar(s.Timezone))
	}
	if len(s.Windows) > 0 {
		b.WriteString(", windows: [")
		for i, w := range s.Windows {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "{interval: %s, start: %q, end: %q", w.Interval, w.Start, w.End)
			if w.Days != nil {
				b.WriteString(", days: [" + strings.Join(w.Days, ", ") + "]")
			}
			b.WriteString("}")
		}
		b.WriteString("]")
	}
	b.WriteString("}")
	return b.String()
}

// yamlScalar quotes a string unless it is plainly safe in YAML flow style.
func yamlScalar(s string) string {
	for _, c := range s {
		if !(c == '/' || c == '_' || c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
			return fmt.Sprintf("%q", s)
		}
	}
	if s == "" || s[0] == '-' || (s[0] >= '0' && s[0] <= '9') {
		return fmt.Sprintf("%q", s)
	}
	return s
}
