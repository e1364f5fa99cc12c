package model

import (
	"testing"
)

func FuzzDecodeSchedule(f *testing.F) {
	for _, s := range []string{
		`{"baseInterval":"4h","timezone":"+00:00","windows":[{"interval":"15m","start":"09:00","end":"17:00"},{"interval":"15m","start":"16:00","end":"20:00","days":["Wed"]}]}`,
		`{"baseInterval":"15m","timezone":"America/New_York"}`,
		`{"baseInterval":"4h","timezone":"UTC","windows":[{"interval":"1m","start":"22:00","end":"00:00","days":["mon","Tuesday"]}]}`,
		`{}`, `[]`, `null`, `{"baseInterval":"1h 30m","windows":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := DecodeJSON(b)
		if err != nil {
			return
		}
		_ = s.Validate()
		// A decoded schedule's interval writes canonically and reads back.
		if back, err := ParseDuration(FormatDuration(s.BaseInterval)); err != nil || (s.BaseInterval > 0 && back != s.BaseInterval) {
			t.Fatalf("canonical %q of %v reads back as %v, %v", FormatDuration(s.BaseInterval), s.BaseInterval, back, err)
		}
	})
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"30m", "1h 30m", "2h37min", "0s", "10", "1.5h", "99999999999999999999h", "1 0m", "5 years 3months"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDuration(s)
		if err != nil {
			return
		}
		if d < 0 {
			t.Fatalf("negative duration %v from %q", d, s)
		}
		if back, err := ParseDuration(FormatDuration(d)); err != nil || back != d && d > 0 {
			t.Fatalf("%q: %v formats as %q which reads %v, %v", s, d, FormatDuration(d), back, err)
		}
	})
}

func FuzzTimezone(f *testing.F) {
	for _, s := range []string{"+05:30", "++05:00", "America/New_York", "-0:0", "+24:00", "Local"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = ParseTimezone(s)
		_, _ = ParseClock(s)
		_, _ = ParseDay(s)
	})
}
