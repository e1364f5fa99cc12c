package model

import (
	"testing"
	"time"
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
	f.Add([]byte(`{"baseInterval":"4h","baseInterval":"1h"}`))
	f.Add([]byte(`{"baseInterval":"4h","timezone":"\ud800"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := DecodeJSON(b)
		if err != nil {
			return
		}
		_ = s.Validate()
		// A decoded schedule's interval writes to Flow's schema pattern and
		// reads back as the same whole seconds.
		w := FormatDuration(s.BaseInterval)
		if back, err := ParseDuration(w); err != nil || !FitsSchema(w) || back != s.BaseInterval.Truncate(time.Second) {
			t.Fatalf("written %q of %v reads back as %v, %v", w, s.BaseInterval, back, err)
		}
	})
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"30m", "1h 30m", "2h37min", "0s", "10", "1.5h", "99999999999999999999h", "1 0m", "5 years 3months",
		"0", "1h 0.5m", "1.234s0.345ms0.678us0ns", "1wk", "2yrs", "1µs", "1..s", ".5h", "293y", "18446744073709551615s", "1.0001h"} {
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
		w := FormatDuration(d)
		if back, err := ParseDuration(w); err != nil || !FitsSchema(w) || back != d.Truncate(time.Second) {
			t.Fatalf("%q: %v formats as %q which reads %v, %v", s, d, w, back, err)
		}
		// What humantime reads, with white space added between spans,
		// reads the same.
		if secs, nanos, reason := parseHuman(s + " 0s"); s != "0" && (reason != "" || time.Duration(secs)*time.Second+time.Duration(nanos) != d) {
			t.Fatalf("%q + 0s: %d s %d ns %q, want %v", s, secs, nanos, reason, d)
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
