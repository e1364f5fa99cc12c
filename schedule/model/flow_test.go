package model

import (
	"strings"
	"testing"
	"time"
)

// The unit tests of Flow's crates/models/src/sync_schedule.rs
// (estuary/flow@7bf4baeae67324996fd69b731cf9df15c8e95c52) and the
// validation vectors of docs/behaviour.md §10, as a table: a schedule and Flow's
// verdict ("" accepts; "decode" fails to deserialize; otherwise the text).
func TestFlowValidate(t *testing.T) {
	// windowed() in Flow's tests: 4h base, +00:00, one 15m window 09:00-17:00.
	win := func(windows string) string {
		return `{"baseInterval":"4h","timezone":"+00:00","windows":[` + windows + `]}`
	}
	const w917 = `{"interval":"15m","start":"09:00","end":"17:00"}`
	for _, tc := range []struct{ name, in, want string }{
		{"validate_accepts_a_fixed_schedule", `{"baseInterval":"15m"}`, ""},
		{"validate_accepts_a_full_window", win(w917), ""},
		{"base_interval_is_required_by_serde", `{}`, "decode"},
		{"window_fields_are_required_by_serde", win(`{"interval":"15m","end":"17:00"}`), "decode"},
		{"days_parse_flexibly", win(`{"interval":"15m","start":"09:00","end":"17:00","days":["mon","Tuesday","WED"]}`), ""},
		{"validate_requires_a_timezone_with_windows", `{"baseInterval":"4h","windows":[` + w917 + `]}`, "must provide 'timezone' when windows are configured"},
		{"validate_rejects_a_timezone_without_windows", `{"baseInterval":"15m","timezone":"America/New_York"}`, "'timezone' applies only to windows; remove it or configure a window"},
		{"validate_rejects_a_malformed_offset", `{"baseInterval":"4h","timezone":"+99:99","windows":[` + w917 + `]}`, `invalid timezone "+99:99" (expected an IANA name like America/New_York, or a +HH:MM offset)`},
		{"validate_rejects_an_invalid_iana_name", `{"baseInterval":"4h","timezone":"Mars/Olympus","windows":[` + w917 + `]}`, `invalid timezone "Mars/Olympus" (expected an IANA name like America/New_York, or a +HH:MM offset)`},
		{"validate_accepts_a_valid_iana_name", `{"baseInterval":"4h","timezone":"America/New_York","windows":[` + w917 + `]}`, ""},
		{"validate_rejects_equal_window_times", win(`{"interval":"15m","start":"09:00","end":"09:00"}`), `start and end of window 0 must be different: got "09:00" and "09:00"`},
		{"validate_rejects_equal_window_times_spelled_differently", win(`{"interval":"15m","start":"9:00","end":"09:00"}`), `start and end of window 0 must be different: got "9:00" and "09:00"`},
		{"clock_times_accept_a_single_digit_hour", win(`{"interval":"15m","start":"9:00","end":"17:00"}`), ""},
		{"validate_rejects_empty_days", win(`{"interval":"15m","start":"09:00","end":"17:00","days":[]}`), "days of window 0 must not be empty (omit it to enable all days)"},
		{"validate_rejects_repeated_days", win(`{"interval":"15m","start":"09:00","end":"17:00","days":["Mon","Mon"]}`), "days of window 0 must not repeat: got Mon twice"},
		{"validate_accepts_disjoint_windows", win(`{"interval":"15m","start":"09:00","end":"17:00","days":["Mon","Tue","Wed","Thu","Fri"]},
			{"interval":"15m","start":"17:00","end":"20:00","days":["Mon","Tue","Wed","Thu","Fri"]},
			{"interval":"15m","start":"09:00","end":"12:00","days":["Sat"]}`), ""},
		{"validate_rejects_overlapping_windows", win(w917 + `,{"interval":"15m","start":"16:00","end":"20:00","days":["Wed"]}`), "windows 0 and 1 overlap on Wed at 16:00"},
		{"validate_rejects_overlap_via_a_midnight_straddle", win(`{"interval":"15m","start":"22:00","end":"06:00"},{"interval":"15m","start":"05:00","end":"07:00"}`), "windows 0 and 1 overlap on Sun at 05:00"},
		// docs/behaviour.md §10: the pair Flow names comes from sorting whole tuples.
		{"spec10 same start, shorter second", `{"baseInterval":"4h","timezone":"UTC","windows":[{"interval":"15m","start":"10:00","end":"12:00"},{"interval":"15m","start":"10:00","end":"11:00"}]}`, "windows 1 and 0 overlap on Sun at 10:00"},
		{"spec10 three windows", `{"baseInterval":"4h","timezone":"UTC","windows":[{"interval":"15m","start":"09:00","end":"12:00"},{"interval":"15m","start":"10:00","end":"12:00"},{"interval":"15m","start":"10:00","end":"11:00"}]}`, "windows 0 and 2 overlap on Sun at 10:00"},
		{"same start, same end: the lower index first", `{"baseInterval":"4h","timezone":"UTC","windows":[{"interval":"15m","start":"10:00","end":"11:00"},{"interval":"15m","start":"10:00","end":"11:00"}]}`, "windows 0 and 1 overlap on Sun at 10:00"},
		{"just misses: touching", `{"baseInterval":"4h","timezone":"UTC","windows":[{"interval":"15m","start":"10:00","end":"11:00"},{"interval":"15m","start":"11:00","end":"12:00"}]}`, ""},
		// docs/behaviour.md §10: timezones.
		{"spec10 empty timezone without windows", `{"baseInterval":"1h","timezone":""}`, "'timezone' applies only to windows; remove it or configure a window"},
		{"empty timezone with windows", `{"baseInterval":"1h","timezone":"","windows":[` + w917 + `]}`, `invalid timezone "" (expected an IANA name like America/New_York, or a +HH:MM offset)`},
		{"null timezone is absent", `{"baseInterval":"1h","timezone":null}`, ""},
		{"spec10 offset without a sign", `{"baseInterval":"1h","timezone":"05:30","windows":[` + w917 + `]}`, `invalid timezone "05:30" (expected an IANA name like America/New_York, or a +HH:MM offset)`},
		{"offset with a sign", `{"baseInterval":"1h","timezone":"+5:30","windows":[` + w917 + `]}`, ""},
		{"spec10 localtime", `{"baseInterval":"1h","timezone":"localtime","windows":[` + w917 + `]}`, `invalid timezone "localtime" (expected an IANA name like America/New_York, or a +HH:MM offset)`},
		{"spec10 posixrules", `{"baseInterval":"1h","timezone":"posixrules","windows":[` + w917 + `]}`, `invalid timezone "posixrules" (expected an IANA name like America/New_York, or a +HH:MM offset)`},
		{"spec10 right/UTC", `{"baseInterval":"1h","timezone":"right/UTC","windows":[` + w917 + `]}`, `invalid timezone "right/UTC" (expected an IANA name like America/New_York, or a +HH:MM offset)`},
		{"spec10 posix/Europe/Paris", `{"baseInterval":"1h","timezone":"posix/Europe/Paris","windows":[` + w917 + `]}`, `invalid timezone "posix/Europe/Paris" (expected an IANA name like America/New_York, or a +HH:MM offset)`},
		{"Factory", `{"baseInterval":"1h","timezone":"Factory","windows":[` + w917 + `]}`, `invalid timezone "Factory" (expected an IANA name like America/New_York, or a +HH:MM offset)`},
		{"./UTC", `{"baseInterval":"1h","timezone":"./UTC","windows":[` + w917 + `]}`, `invalid timezone "./UTC" (expected an IANA name like America/New_York, or a +HH:MM offset)`},
		{"America//New_York", `{"baseInterval":"1h","timezone":"America//New_York","windows":[` + w917 + `]}`, `invalid timezone "America//New_York" (expected an IANA name like America/New_York, or a +HH:MM offset)`},
		{"a backward link", `{"baseInterval":"1h","timezone":"US/Eastern","windows":[` + w917 + `]}`, ""},
		{"Rust's quoting of a control character", `{"baseInterval":"1h","timezone":"a\u0001\"b\n","windows":[` + w917 + `]}`, `invalid timezone "a\u{1}\"b\n" (expected an IANA name like America/New_York, or a +HH:MM offset)`},
		// docs/behaviour.md §10: durations.
		{"spec10 1.5h", `{"baseInterval":"1.5h"}`, ""},
		{"spec10 0", `{"baseInterval":"0"}`, ""},
		{"spec10 1wk", `{"baseInterval":"1wk"}`, ""},
		{"spec10 2yrs", `{"baseInterval":"2yrs"}`, ""},
		{"spec10 1µs", `{"baseInterval":"1µs"}`, ""},
		{"spec10 1h 0.5m", `{"baseInterval":"1h 0.5m"}`, ""},
		{"not .5h", `{"baseInterval":".5h"}`, "decode"},
		{"a window interval in the new grammar", win(`{"interval":"0.25h","start":"09:00","end":"17:00"}`), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := DecodeJSON([]byte(tc.in))
			if tc.want == "decode" {
				if err == nil {
					t.Fatalf("decoded %s; Flow refuses it", tc.in)
				}
				return
			}
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			got := ""
			if err := s.Validate(); err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("Validate() = %q\nwant         %q", got, tc.want)
			}
		})
	}
}

// Flow's clock tests (clock_times_accept_a_single_digit_hour,
// clock_times_reject_off_pattern_spellings).
func TestFlowClock(t *testing.T) {
	for in, want := range map[string]Clock{"9:00": 540, "09:00": 540} {
		if c, ok := ParseClock(in); !ok || c != want {
			t.Errorf("ParseClock(%q) = %v %v", in, c, ok)
		}
	}
	for _, bad := range []string{"9:5", "09:5", "009:00", "+9:00", "9:+05", "24:00", "09:60", "25:99"} {
		if _, ok := ParseClock(bad); ok {
			t.Errorf("ParseClock(%q) accepted", bad)
		}
	}
}

// The spelled-out decoded values of docs/behaviour.md §10's durations.
func TestFlowDurationValues(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"1.5h": 90 * time.Minute, "0": 0, "1wk": 7 * 24 * time.Hour, "2yrs": 2 * 31_557_600 * time.Second,
		"1µs": time.Microsecond, "1h 0.5m": time.Hour + 30*time.Second,
	} {
		s, err := DecodeJSON([]byte(`{"baseInterval":"` + in + `"}`))
		if err != nil || s.BaseInterval != want {
			t.Errorf("%s: %v %v, want %v", in, s, err, want)
		}
	}
	// 1.5h fires every 1h30m.
	s := mustDecode(t, `{"baseInterval":"1.5h"}`)
	if got, _ := s.Next(at("2026-01-01T00:00:00Z"), 0); !got.Equal(at("2026-01-01T01:30:00Z")) {
		t.Errorf("1.5h: next %v", got)
	}
}

// Strict JSON: what serde_json refuses.
func TestStrictJSON(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"baseInterval":"4h","baseInterval":"1h"}`, "duplicate field `baseInterval`"},
		{`{"baseInterval":"4h","timezone":"UTC","windows":[{"interval":"1m","start":"09:00","end":"10:00","end":"11:00"}]}`, "duplicate field `end`"},
		{`{"baseInterval":"4h","timezone":"\ud800"}`, `lone leading surrogate in hex escape \uD800 at line 1 column 34`},
		{`{"baseInterval":"4h","timezone":"\udc00x"}`, `lone trailing surrogate in hex escape \uDC00 at line 1 column 34`},
		{`{"baseInterval":"4h","timezone":"\ud800\u0041"}`, `lone leading surrogate`},
		{`{"baseInterval":"4h",` + "\n" + `"timezone":"\\\ud800"}`, `at line 2 column 15`},
	} {
		_, err := DecodeJSON([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("DecodeJSON(%s) = %v, want %s", tc.in, err, tc.want)
		}
	}
	// Just misses: a pair, an escaped backslash before u, the same key in
	// two objects.
	for _, in := range []string{
		`{"baseInterval":"4h","timezone":"\ud83d\ude00"}`,
		`{"baseInterval":"4h","timezone":"\\ud800"}`,
		`{"baseInterval":"4h","timezone":"UTC","windows":[{"interval":"1m","start":"09:00","end":"10:00"},{"interval":"1m","start":"11:00","end":"12:00"}]}`,
	} {
		if _, err := DecodeJSON([]byte(in)); err != nil {
			t.Errorf("DecodeJSON(%s) = %v", in, err)
		}
	}
}

func TestZoneNames(t *testing.T) {
	names := ZoneNames()
	if len(names) < 590 || len(names) > 610 {
		t.Errorf("%d zone names; chrono-tz has about 600", len(names))
	}
	has := map[string]bool{}
	for _, n := range names {
		has[n] = true
		if _, ok := LoadZone(n); !ok {
			t.Errorf("LoadZone(%q) failed", n)
		}
	}
	for _, n := range []string{"America/New_York", "US/Eastern", "EST5EDT", "UTC", "Etc/GMT-14", "Europe/London", "America/Havana", "Antarctica/Troll", "Australia/Lord_Howe"} {
		if !has[n] {
			t.Errorf("%s missing", n)
		}
	}
	for _, n := range []string{"Factory", "posixrules", "localtime", "Local", "zone.tab", "iso3166.tab"} {
		if has[n] {
			t.Errorf("%s listed", n)
		}
	}
}
