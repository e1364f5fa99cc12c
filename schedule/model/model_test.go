package model

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// humantime 2.3's own unit tests (src/duration.rs), as a table: the input
// and what humantime reads. want is seconds and nanoseconds; err is the
// reason humantime gives ("" when it reads).
func TestParseDurationHumantime(t *testing.T) {
	const over = "number is too large or cannot be represented without a lack of precision (values below 1ns are not supported)"
	for _, tc := range []struct {
		in    string
		secs  uint64
		nanos uint64
		err   string
	}{
		// test_units
		{"17nsec", 0, 17, ""}, {"17nanos", 0, 17, ""}, {"33ns", 0, 33, ""},
		{"3usec", 0, 3000, ""}, {"78us", 0, 78000, ""}, {"163µs", 0, 163000, ""},
		{"31msec", 0, 31_000_000, ""}, {"31millis", 0, 31_000_000, ""}, {"6ms", 0, 6_000_000, ""},
		{"3000s", 3000, 0, ""}, {"300sec", 300, 0, ""}, {"300secs", 300, 0, ""}, {"50seconds", 50, 0, ""}, {"1second", 1, 0, ""},
		{"100m", 6000, 0, ""}, {"12min", 720, 0, ""}, {"12mins", 720, 0, ""}, {"1minute", 60, 0, ""}, {"7minutes", 420, 0, ""},
		{"2h", 7200, 0, ""}, {"7hr", 25200, 0, ""}, {"7hrs", 25200, 0, ""}, {"1hour", 3600, 0, ""}, {"24hours", 86400, 0, ""},
		{"1day", 86400, 0, ""}, {"2days", 172_800, 0, ""}, {"365d", 31_536_000, 0, ""},
		{"1week", 604_800, 0, ""}, {"7weeks", 4_233_600, 0, ""}, {"104wks", 2 * 31_449_600, 0, ""}, {"100wk", 60_480_000, 0, ""}, {"52w", 31_449_600, 0, ""},
		{"1month", 2_630_016, 0, ""}, {"3months", 3 * 2_630_016, 0, ""}, {"12M", 31_560_192, 0, ""},
		{"1year", 31_557_600, 0, ""}, {"7years", 7 * 31_557_600, 0, ""}, {"15yrs", 15 * 31_557_600, 0, ""}, {"10yr", 10 * 31_557_600, 0, ""}, {"17y", 536_479_200, 0, ""},
		// test_fractional_bad_input
		{"1.s", 0, 0, "invalid character at 1"}, // the offset of the point
		{"1..s", 0, 0, "invalid character at 1"},
		{".1s", 0, 0, "expected number at 0"},
		{".", 0, 0, "expected number at 0"},
		{"0.000123456789s", 0, 0, over},
		// test_fractional_units
		{"17.5nsec", 0, 0, over}, {"5.1nanos", 0, 0, over}, {"0.0005ns", 0, 0, over},
		{"3.1usec", 0, 3100, ""}, {"3.1us", 0, 3100, ""}, {"3.01us", 0, 3010, ""}, {"3.001us", 0, 3001, ""},
		{"3.0001us", 0, 0, over}, {"0.0001us", 0, 0, over}, {"0.123456us", 0, 0, over},
		{"31.1msec", 0, 31_100_000, ""}, {"31.1millis", 0, 31_100_000, ""}, {"31.1ms", 0, 31_100_000, ""}, {"31.01ms", 0, 31_010_000, ""},
		{"31.001ms", 0, 31_001_000, ""}, {"31.0001ms", 0, 31_000_100, ""}, {"31.00001ms", 0, 31_000_010, ""}, {"31.000001ms", 0, 31_000_001, ""},
		{"31.0000001ms", 0, 0, over},
		{"300.0sec", 300, 0, ""}, {"300.0secs", 300, 0, ""}, {"300.0seconds", 300, 0, ""}, {"300.0s", 300, 0, ""}, {"0.0s", 0, 0, ""},
		{"0.2s", 0, 200_000_000, ""}, {"1.2s", 1, 200_000_000, ""}, {"1.02s", 1, 20_000_000, ""}, {"1.002s", 1, 2_000_000, ""},
		{"1.0002s", 1, 200_000, ""}, {"1.00002s", 1, 20_000, ""}, {"1.000002s", 1, 2_000, ""}, {"1.0000002s", 1, 200, ""},
		{"1.00000002s", 1, 20, ""}, {"1.000000002s", 1, 2, ""}, {"1.123456789s", 1, 123_456_789, ""},
		{"1.0000000002s", 0, 0, over}, {"0.0000000002s", 0, 0, over},
		{"100.0m", 6000, 0, ""}, {"12.1min", 726, 0, ""}, {"12.1mins", 726, 0, ""}, {"1.5minute", 90, 0, ""}, {"1.5minutes", 90, 0, ""},
		{"2.0h", 7200, 0, ""}, {"2.0hr", 7200, 0, ""}, {"2.0hrs", 7200, 0, ""}, {"2.0hours", 7200, 0, ""}, {"2.5h", 9000, 0, ""}, {"0.5h", 1800, 0, ""},
		{"1.5day", 129600, 0, ""}, {"1.5days", 129600, 0, ""}, {"1.5d", 129600, 0, ""}, {"0.00000005d", 0, 0, over},
		// test_fractional_combined
		{"7.120us 3ns", 0, 7123, ""}, {"7.123us 4ns", 0, 7127, ""}, {"1.234s 789ns", 1, 234_000_789, ""},
		{"1.234s 0.789us", 1, 234_000_789, ""}, {"1.234567s 0.789us", 1, 234_567_789, ""},
		{"1.234s 1.345ms 1.678us 1ns", 1, 235_346_679, ""}, {"1.234s 0.345ms 0.678us 0ns", 1, 234_345_678, ""},
		{"1.234s0.345ms0.678us0ns", 1, 234_345_678, ""},
		// allow_0_with_no_unit, test_combo, the doc examples
		{"0", 0, 0, ""}, {"20 min 17 nsec ", 1200, 17, ""}, {"2h 15m", 8100, 0, ""},
		{"2h 37min", 9420, 0, ""}, {"32ms", 0, 32_000_000, ""}, {"4.2s", 4, 200_000_000, ""},
		// test_overlow
		{"100000000000000000000ns", 0, 0, over}, {"100000000000000000us", 0, 0, over}, {"100000000000000ms", 0, 0, over},
		{"100000000000000000000s", 0, 0, over}, {"10000000000000000000m", 0, 0, over}, {"1000000000000000000h", 0, 0, over},
		{"100000000000000000d", 0, 0, over}, {"10000000000000000w", 0, 0, over}, {"1000000000000000M", 0, 0, over}, {"10000000000000y", 0, 0, over},
		// test_nice_error_message, test_error_cases
		{"123", 0, 0, "time unit needed, for example 123sec or 123ms"},
		{"10 months 1", 0, 0, "time unit needed, for example 1sec or 1ms"},
		{"10nights", 0, 0, `unknown time unit "nights", supported units: ns, us/µs, ms, sec, min, hours, days, weeks, months, years (and few variations)`},
		{"\x00", 0, 0, "expected number at 0"},
		{"\r", 0, 0, "value was empty"},
		{"1~", 0, 0, "invalid character at 1"},
		{"1Nå", 0, 0, "invalid character at 2"},
		{"222nsec221nanosmsec7s5msec572s", 0, 0, `unknown time unit "nanosmsec", supported units: ns, us/µs, ms, sec, min, hours, days, weeks, months, years (and few variations)`},
		// Beyond humantime's own tests: the edges of its grammar.
		{"", 0, 0, "value was empty"},
		{"   ", 0, 0, "value was empty"},
		{"0 ", 0, 0, "time unit needed, for example 0sec or 0ms"},
		{" 0", 0, 0, "time unit needed, for example 0sec or 0ms"},
		{"00", 0, 0, "time unit needed, for example 0sec or 0ms"},
		{"1.5", 0, 0, "time unit needed, for example 1sec or 1ms"},
		{"1.", 0, 0, "invalid character at 1"},
		{"1 0m", 600, 0, ""},
		{"1.5 5h", 5580, 0, ""},
		{"1h 0.5m", 3630, 0, ""},
		{"1.0001h", 0, 0, over}, // 0.36 s: an hour's fraction must be whole seconds
		{"0.5m", 30, 0, ""},
		{"0.1m", 6, 0, ""},
		{"1h  x", 0, 0, "expected number at 3"},
		{"-5m", 0, 0, "expected number at 0"},
		{"+5m", 0, 0, "expected number at 0"},
		{"5m-", 0, 0, "invalid character at 2"},
		{"5 m s", 0, 0, "expected number at 4"},
		{"5µ", 0, 0, `unknown time unit "µ", supported units: ns, us/µs, ms, sec, min, hours, days, weeks, months, years (and few variations)`},
		{"5μs", 0, 0, "invalid character at 1"}, // Greek mu, not the micro sign
		{"1H", 0, 0, `unknown time unit "H", supported units: ns, us/µs, ms, sec, min, hours, days, weeks, months, years (and few variations)`},
		{"18446744073709551615s", 18446744073709551615, 0, ""},
		{"18446744073709551615s 1s", 0, 0, over},
		{"584y", 584 * 31_557_600, 0, ""},
		{"\u00a05m", 300, 0, ""}, // no-break space is white space
	} {
		in := tc.in
		secs, nanos, reason := parseHuman(in)
		if reason != tc.err || (tc.err == "" && (secs != tc.secs || nanos != tc.nanos)) {
			t.Errorf("parseHuman(%q) = %d s %d ns %q; want %d s %d ns %q", in, secs, nanos, reason, tc.secs, tc.nanos, tc.err)
		}
	}
}

// What ParseDuration adds to humantime: the error wording, and the limit
// of Go's time.Duration.
func TestParseDuration(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"30m", 30 * time.Minute, ""},
		{"1h 30m", 90 * time.Minute, ""},
		{"1.5h", 90 * time.Minute, ""},
		{"0", 0, ""},
		{"1wk", 7 * 24 * time.Hour, ""},
		{"2yrs", 2 * 31_557_600 * time.Second, ""},
		{"1µs", time.Microsecond, ""},
		{"1h 0.5m", time.Hour + 30*time.Second, ""},
		{"292y", 292 * 31_557_600 * time.Second, ""},
		{"2562047h 47m 16.854775807s", MaxDuration, ""},
		{"2562047h 47m 16.854775808s", 0, `invalid duration "2562047h 47m 16.854775808s": 9223372036s is longer than schedtool can evaluate (at most 2562047h47m16.854775807s, about 292 years); Flow's runtime misbehaves with such an interval`},
		{"293y", 0, `invalid duration "293y": 9246376800s is longer than schedtool can evaluate (at most 2562047h47m16.854775807s, about 292 years); Flow's runtime misbehaves with such an interval`},
		{"", 0, `invalid duration "": value was empty`},
		{".5h", 0, `invalid duration ".5h": expected number at 0`},
		{"10", 0, `invalid duration "10": time unit needed, for example 10sec or 10ms`},
	} {
		got, err := ParseDuration(tc.in)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("ParseDuration(%q) error = %v, want %s", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

// Every duration schedtool writes fits Flow's published pattern.
func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0s", 4 * time.Hour: "4h", 15 * time.Minute: "15m", 90 * time.Minute: "90m",
		90 * time.Second: "90s", 30 * time.Second: "30s", 24 * time.Hour: "24h", 50 * time.Hour: "50h",
		-time.Minute: "0s", 1500 * time.Millisecond: "1s", 500 * time.Millisecond: "0s",
		time.Hour + time.Second: "3601s", 7 * 24 * time.Hour: "168h",
	} {
		got := FormatDuration(d)
		if got != want || !FitsSchema(got) {
			t.Errorf("FormatDuration(%v) = %q, want %q", d, got, want)
		}
		back, err := ParseDuration(want)
		if err != nil || back != max(d, 0).Truncate(time.Second) {
			t.Errorf("ParseDuration(FormatDuration(%v)) = %v, %v", d, back, err)
		}
	}
}

func TestWriteDuration(t *testing.T) {
	for _, tc := range []struct {
		d          time.Duration
		text, want string
	}{
		{90 * time.Minute, "1h30m", "90m"},
		{90 * time.Minute, "90m", "90m"},
		{90 * time.Second, "90s", "90s"},
		{90 * time.Minute, "PT1H30M", "90m"},
		{24 * time.Hour, "24h", "24h"},
		{24 * time.Hour, "1d", "1d"},
		{time.Hour, "60m", "60m"},
		{time.Hour, "3600s", "3600s"},
		{time.Hour, "1h 0m", "1h"},
		{time.Hour, "30m", "1h"}, // fits, but means another value
		{0, "0s", "0s"},
		{0, "0m", "0m"},
		{0, "", "0s"},
	} {
		if got := WriteDuration(tc.d, tc.text); got != tc.want {
			t.Errorf("WriteDuration(%v, %q) = %q, want %q", tc.d, tc.text, got, tc.want)
		}
	}
}

func TestParseClock(t *testing.T) {
	for in, want := range map[string]int{"09:00": 540, "9:00": 540, "0:00": 0, "23:59": 1439, "00:30": 30} {
		c, ok := ParseClock(in)
		if !ok || int(c) != want {
			t.Errorf("ParseClock(%q) = %v, %v; want %d", in, c, ok, want)
		}
	}
	for _, in := range []string{"9:5", "009:00", "+9:00", "24:00", "09:60", "", "9", "09:00:00", "a9:00", "09:0x", "-1:00"} {
		if _, ok := ParseClock(in); ok {
			t.Errorf("ParseClock(%q) accepted", in)
		}
	}
}

func TestParseDay(t *testing.T) {
	for in, want := range map[string]time.Weekday{"mon": time.Monday, "Tuesday": time.Tuesday, "WED": time.Wednesday, "sun": time.Sunday, "SATURDAY": time.Saturday} {
		d, ok := ParseDay(in)
		if !ok || d != want {
			t.Errorf("ParseDay(%q) = %v, %v", in, d, ok)
		}
	}
	for _, in := range []string{"Mo", "tues", "", "Funday"} {
		if _, ok := ParseDay(in); ok {
			t.Errorf("ParseDay(%q) accepted", in)
		}
	}
}

func TestParseTimezone(t *testing.T) {
	for in, off := range map[string]int{"+05:30": 19800, "+5:30": 19800, "+05:3": 18180, "++05:00": 18000, "-08:00": -28800, "+00:00": 0, "-0:-0": 0, "+23:59": 86340} {
		loc, err := ParseTimezone(in)
		if err != nil {
			t.Errorf("ParseTimezone(%q): %v", in, err)
			continue
		}
		if _, got := time.Date(2026, 1, 1, 0, 0, 0, 0, loc).Zone(); got != off {
			t.Errorf("ParseTimezone(%q) offset %d, want %d", in, got, off)
		}
	}
	for _, in := range []string{"America/New_York", "UTC", "US/Eastern", "EST5EDT", "Etc/GMT+5", "GMT", "Asia/Kolkata", "Europe/Kiev", "America/Coyhaique"} {
		if _, err := ParseTimezone(in); err != nil {
			t.Errorf("ParseTimezone(%q): %v", in, err)
		}
	}
	for _, in := range []string{"+24:00", "+05:60", "+99:99", "Mars/Olympus", "america/new_york", "Local", "", "+0500", "+05:00:00", "+-05:00", "+05:", "05:30", "05:00",
		"localtime", "posixrules", "Factory", "posix/Europe/Paris", "right/UTC", "./UTC", "America//New_York", "America/New_York/", "/usr/share/zoneinfo/UTC", "zone.tab", "leap-seconds.list", "tzdata.zi", "+5:30 ", " UTC"} {
		if _, err := ParseTimezone(in); err == nil {
			t.Errorf("ParseTimezone(%q) accepted", in)
		}
	}
}

func decode(t *testing.T, js string) (*Schedule, error) {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(js), &v); err != nil {
		t.Fatal(err)
	}
	return Decode(v)
}

// Flow's validation texts, verbatim, and docs/behaviour.md §10's vectors.
func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"vector overlap", `{"baseInterval":"4h","timezone":"+00:00","windows":[{"interval":"15m","start":"09:00","end":"17:00"},{"interval":"15m","start":"16:00","end":"20:00","days":["Wed"]}]}`,
			"windows 0 and 1 overlap on Wed at 16:00"},
		{"vector timezone without windows", `{"baseInterval":"15m","timezone":"America/New_York"}`,
			"'timezone' applies only to windows; remove it or configure a window"},
		{"vector equal by value", `{"baseInterval":"4h","timezone":"UTC","windows":[{"interval":"15m","start":"9:00","end":"09:00"}]}`,
			`start and end of window 0 must be different: got "9:00" and "09:00"`},
		{"vector touching and day-disjoint", `{"baseInterval":"4h","timezone":"UTC","windows":[
			{"interval":"15m","start":"09:00","end":"17:00","days":["Mon","Tue","Wed","Thu","Fri"]},
			{"interval":"15m","start":"17:00","end":"20:00","days":["Mon","Tue","Wed","Thu","Fri"]},
			{"interval":"15m","start":"09:00","end":"12:00","days":["Sat"]}]}`, ""},
		{"windows without timezone", `{"baseInterval":"4h","windows":[{"interval":"15m","start":"09:00","end":"17:00"}]}`,
			"must provide 'timezone' when windows are configured"},
		{"bad timezone", `{"baseInterval":"4h","timezone":"Mars/Base","windows":[{"interval":"15m","start":"09:00","end":"17:00"}]}`,
			`invalid timezone "Mars/Base" (expected an IANA name like America/New_York, or a +HH:MM offset)`},
		{"bad start", `{"baseInterval":"4h","timezone":"UTC","windows":[{"interval":"15m","start":"9:5","end":"17:00"}]}`,
			`invalid start "9:5" of window 0 (expected HH:MM)`},
		{"bad end", `{"baseInterval":"4h","timezone":"UTC","windows":[{"interval":"15m","start":"09:00","end":"24:00"}]}`,
			`invalid end "24:00" of window 0 (expected HH:MM)`},
		{"empty days", `{"baseInterval":"4h","timezone":"UTC","windows":[{"interval":"15m","start":"09:00","end":"17:00","days":[]}]}`,
			"days of window 0 must not be empty (omit it to enable all days)"},
		{"repeated day", `{"baseInterval":"4h","timezone":"UTC","windows":[{"interval":"15m","start":"09:00","end":"17:00","days":["Mon","monday"]}]}`,
			"days of window 0 must not repeat: got Mon twice"},
		{"second window bad", `{"baseInterval":"4h","timezone":"UTC","windows":[{"interval":"15m","start":"09:00","end":"10:00"},{"interval":"1h","start":"11:00","end":"9:60"}]}`,
			`invalid end "9:60" of window 1 (expected HH:MM)`},
		{"overnight overlaps next morning", `{"baseInterval":"4h","timezone":"UTC","windows":[{"interval":"15m","start":"22:00","end":"06:00"},{"interval":"5m","start":"05:00","end":"07:00","days":["Tue"]}]}`,
			"windows 0 and 1 overlap on Tue at 05:00"},
		{"overnight ending at midnight", `{"baseInterval":"4h","timezone":"UTC","windows":[{"interval":"15m","start":"22:00","end":"00:00"},{"interval":"5m","start":"00:00","end":"07:00"}]}`, ""},
		{"overlap on Sunday first", `{"baseInterval":"4h","timezone":"UTC","windows":[{"interval":"15m","start":"09:00","end":"17:00","days":["Sat","Sun"]},{"interval":"5m","start":"10:00","end":"11:00"}]}`,
			"windows 0 and 1 overlap on Sun at 10:00"},
		{"first failure wins", `{"baseInterval":"4h","timezone":"Nowhere","windows":[{"interval":"15m","start":"bad","end":"17:00"}]}`,
			`invalid timezone "Nowhere" (expected an IANA name like America/New_York, or a +HH:MM offset)`},
		{"zero interval is fine", `{"baseInterval":"0s"}`, ""},
		{"offset quirk", `{"baseInterval":"1h","timezone":"++05:00","windows":[{"interval":"1m","start":"01:00","end":"02:00"}]}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := decode(t, tc.in)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			err = s.Validate()
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("Validate() = %q\nwant         %q", got, tc.want)
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{}`, "missing field `baseInterval`"},
		{`{"baseInterval":"4h","extra":1}`, "extra: unknown field `extra`, expected one of `baseInterval`, `timezone`, `windows`"},
		{`{"baseInterval":"soon"}`, `baseInterval: invalid duration "soon": expected number at 0`},
		{`{"baseInterval":4}`, "baseInterval: invalid type: number `4`, expected a duration string such as \"4h\""},
		{`{"baseInterval":"4h","windows":[{"interval":"1m","start":"09:00"}]}`, "windows.0: missing field `end`"},
		{`{"baseInterval":"4h","windows":[{"interval":"1m","start":"09:00","end":"10:00","days":["Someday"]}]}`, `windows.0.days.0: unknown day "Someday" (expected a day name such as Mon or Monday)`},
		{`"4h"`, "invalid type: string \"4h\", expected struct SyncSchedule"},
		{`{"baseInterval":"4h","windows":{}}`, "windows: invalid type: map, expected a sequence"},
	} {
		_, err := decode(t, tc.in)
		var de *DecodeError
		if !errors.As(err, &de) || err.Error() != tc.want {
			t.Errorf("Decode(%s) = %v\nwant %s", tc.in, err, tc.want)
		}
	}
	s, err := DecodeJSON([]byte(`{"baseInterval":"1h 30m","timezone":null,"windows":[]}`))
	if err != nil || s.BaseInterval != 90*time.Minute || s.Timezone != "" || len(s.Windows) != 0 {
		t.Errorf("DecodeJSON = %+v, %v", s, err)
	}
}

// Check names Flow's defect first: a schedule Flow refuses for one reason
// (equal window start and end, a bad day) whose interval is also beyond
// what schedtool evaluates (Flow accepts up to 2^64-1 s) reports Flow's
// error; the limit only when Flow finds nothing else (issue 24 §4).
func TestCheckNamesFlowsDefectFirst(t *testing.T) {
	const huge = "300y" // about 9.5e9 s: Flow reads it, Go's Duration cannot
	for _, tc := range []struct {
		name, in, want string
	}{
		{"equal start and end, huge window interval", `{"baseInterval":"1h","timezone":"UTC","windows":[{"interval":"` + huge + `","start":"09:00","end":"09:00"}]}`,
			`start and end of window 0 must be different: got "09:00" and "09:00"`},
		{"equal start and end, huge base", `{"baseInterval":"` + huge + `","timezone":"UTC","windows":[{"interval":"1h","start":"09:00","end":"9:00"}]}`,
			`start and end of window 0 must be different: got "09:00" and "9:00"`},
		{"timezone without windows, huge base", `{"baseInterval":"` + huge + `","timezone":"UTC"}`,
			"'timezone' applies only to windows; remove it or configure a window"},
		{"a later decode error is Flow's too", `{"baseInterval":"` + huge + `","timezone":"UTC","windows":[{"interval":"1h","start":"09:00","end":"10:00","days":["Funday"]}]}`,
			`windows.0.days.0: unknown day "Funday" (expected a day name such as Mon or Monday)`},
		{"near miss: only the limit", `{"baseInterval":"` + huge + `"}`,
			"baseInterval: invalid duration \"300y\": 9467280000s is longer than schedtool can evaluate"},
		{"near miss: valid windows, huge interval", `{"baseInterval":"1h","timezone":"UTC","windows":[{"interval":"` + huge + `","start":"09:00","end":"10:00"}]}`,
			"windows.0.interval: invalid duration \"300y\""},
	} {
		var v any
		if err := json.Unmarshal([]byte(tc.in), &v); err != nil {
			t.Fatal(err)
		}
		_, err := Check(v)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: Check = %v, want %s", tc.name, err, tc.want)
		}
		// Decode alone still refuses the value it cannot evaluate.
		if _, err := Decode(v); err == nil {
			t.Errorf("%s: Decode accepted it", tc.name)
		}
	}
}
