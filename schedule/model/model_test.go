package model

import (
	"encoding/json"
	"errors"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"30m", 30 * time.Minute, ""},
		{"4h", 4 * time.Hour, ""},
		{"1h 30m", 90 * time.Minute, ""},
		{"2h37min", 2*time.Hour + 37*time.Minute, ""},
		{"0s", 0, ""},
		{"15 minutes", 15 * time.Minute, ""},
		{"1d", 24 * time.Hour, ""},
		{"1w", 7 * 24 * time.Hour, ""},
		{"1M", 2_630_016 * time.Second, ""},
		{"1y", 31_557_600 * time.Second, ""},
		{"500ms", 500 * time.Millisecond, ""},
		{"1hr 5secs", time.Hour + 5*time.Second, ""},
		{"  10m  ", 10 * time.Minute, ""},
		{"", 0, `invalid duration "": value was empty`},
		{"abc", 0, `invalid duration "abc": expected number at 0`},
		{"10", 0, `invalid duration "10": time unit needed, for example 10sec or 10ms`},
		{"10x", 0, `invalid duration "10x": unknown time unit "x", supported units: ns, us, ms, sec, min, hours, days, weeks, months, years (and few variations)`},
		{"1.5h", 0, `invalid duration "1.5h": invalid character at 1`},
		{"-5m", 0, `invalid duration "-5m": expected number at 0`},
		{"99999999999999999999h", 0, `invalid duration "99999999999999999999h": number is too large`},
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

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0s", 4 * time.Hour: "4h", 15 * time.Minute: "15m", 90 * time.Minute: "1h 30m",
		30 * time.Second: "30s", 24 * time.Hour: "1day", 50 * time.Hour: "2days 2h",
		-time.Minute: "0s", 1500 * time.Millisecond: "1s 500ms",
	} {
		if got := FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%v) = %q, want %q", d, got, want)
		}
		back, err := ParseDuration(want)
		if err != nil || (d > 0 && back != d) {
			t.Errorf("ParseDuration(FormatDuration(%v)) = %v, %v", d, back, err)
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
	for in, off := range map[string]int{"+05:30": 19800, "+5:30": 19800, "+05:3": 18180, "++05:00": 18000, "-08:00": -28800, "+00:00": 0, "05:00": 18000} {
		loc, err := ParseTimezone(in)
		if err != nil {
			t.Errorf("ParseTimezone(%q): %v", in, err)
			continue
		}
		if _, got := time.Date(2026, 1, 1, 0, 0, 0, 0, loc).Zone(); got != off {
			t.Errorf("ParseTimezone(%q) offset %d, want %d", in, got, off)
		}
	}
	for _, in := range []string{"America/New_York", "UTC", "US/Eastern", "EST5EDT"} {
		if _, err := ParseTimezone(in); err != nil {
			t.Errorf("ParseTimezone(%q): %v", in, err)
		}
	}
	for _, in := range []string{"+24:00", "+05:60", "Mars/Olympus", "america/new_york", "Local", "", "+0500", "+05:00:00", "+-05:00", "+05:"} {
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

// Flow's validation texts, verbatim, and SPEC section 10's vectors.
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
