package connector

import (
	"math/big"
	"path"
	"strings"
	"testing"
	"time"
)

func FuzzParseSyncSchedule(f *testing.F) {
	f.Add("15m", "America/New_York", "09:00", "17:00", "M-F")
	f.Add("0s", "+05:00", "22:00", "6:00", "Su,T-Th")
	f.Add("abc", "", "", "", "")
	f.Add("-5m", "Local", "9:00", "09:00", "Su, T")
	for _, tz := range []string{"America//New_York", "./UTC", "posix/America/New_York", "right/UTC", "localtime", "posixrules", "America/../UTC", "/UTC"} {
		f.Add("15m", tz, "09:00", "17:00", "")
	}
	f.Fuzz(func(t *testing.T, freq, tz, start, stop, days string) {
		p, prob := ParseSyncSchedule(SyncScheduleSpec{freq, tz, start, stop, days})
		if (p == nil) == (prob == nil) {
			t.Fatalf("want exactly one of a schedule and a problem: %v %v", p, prob)
		}
		if p != nil && p.Alternating && p.Start == p.Stop {
			t.Fatalf("accepted equal start and stop %q %q", start, stop)
		}
		// Classification never panics, whatever the shape.
		reg := Builtin()
		e, tag, _ := reg.Lookup("ghcr.io/estuary/materialize-snowflake:v4")
		reg.Classify(e, tag, map[string]any{"syncSchedule": map[string]any{
			"syncFrequency": freq, "timezone": tz, "fastSyncStartTime": start, "fastSyncStopTime": stop, "fastSyncEnabledDays": days}})
	})
}

// A timezone the connectors accept by name is a path in their image: the
// same path cleaned (America//New_York is America/New_York) is accepted
// too, with the same zone, unless cleaning ends at the root; a name
// LoadLocation refuses outright (a "..", a leading slash) is refused.
func FuzzParseTimezone(f *testing.F) {
	for _, tz := range []string{"America//New_York", "./UTC", "posix/America/New_York", "right/UTC", "right/America/New_York", "localtime", "posixrules",
		"America/../UTC", "/UTC", "UTC/", "Etc/./UTC", "+05:30", "Local", "", "zone.tab", "right/Atlantic/Jan_Mayen"} {
		f.Add(tz)
	}
	f.Fuzz(func(t *testing.T, tz string) {
		loc, err := ParseTimezone(tz)
		if err != nil || tz == "" || tz == "Local" || offsetRe.MatchString(tz) {
			return
		}
		if strings.Contains(tz, "..") || tz[0] == '/' || tz[0] == '\\' {
			t.Fatalf("%q accepted: LoadLocation refuses it", tz)
		}
		clean := path.Clean(tz)
		if clean == "." || clean == tz {
			return
		}
		cloc, err := ParseTimezone(clean)
		if err != nil {
			t.Fatalf("%q accepted, its cleaned %q not: %v", tz, clean, err)
		}
		for _, at := range []time.Time{time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC), time.Date(2026, 7, 15, 12, 0, 0, 0, time.UTC)} {
			_, a := at.In(loc).Zone()
			_, b := at.In(cloc).Zone()
			if a != b {
				t.Fatalf("%q and %q differ at %s: %d, %d", tz, clean, at, a, b)
			}
		}
	})
}

func FuzzParseDays(f *testing.F) {
	for _, s := range []string{"Su-S", "M-F", "M,W,F", "Su,T-Th", "Su-M,Th-S", "M-F,", "F-M", "M,Su", "Su, T", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		on, err := ParseDays(s)
		if err != nil {
			return
		}
		n := 0
		for _, d := range on {
			if d {
				n++
			}
		}
		if n == 0 {
			t.Fatalf("%q enables no day", s)
		}
	})
}

func FuzzParseISO8601(f *testing.F) {
	for _, s := range []string{"PT0S", "P0D", "P", "PT", "PT15M", "PT1H30M", "P1D", "PT5H", "PT1.5H", "P0Y0M0W0DT4H"} {
		f.Add(s)
	}
	f.Add("PT8000000H") // wraps around to a negative interval, as the connector's does
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseISO8601(s)
		if err != nil {
			return
		}
		if d > 4*time.Hour {
			t.Fatalf("%q gave %v, over 4h", s, d)
		}
		// The sum of the time parts, exactly; ParseISO8601 gives it in
		// int64 nanoseconds, wrapped around as the connector wraps it,
		// so negative only when the exact sum is beyond int64.
		exact := new(big.Int)
		if _, tpart, ok := strings.Cut(s, "T"); ok {
			num := new(big.Int)
			for _, c := range tpart {
				if c >= '0' && c <= '9' {
					num.Mul(num, big.NewInt(10)).Add(num, big.NewInt(int64(c-'0')))
					continue
				}
				unit := map[rune]time.Duration{'H': time.Hour, 'M': time.Minute, 'S': time.Second}[c]
				exact.Add(exact, num.Mul(num, big.NewInt(int64(unit))))
				num = new(big.Int)
			}
		}
		wrapped := new(big.Int).And(exact, new(big.Int).SetUint64(^uint64(0)))
		if int64(wrapped.Uint64()) != int64(d) {
			t.Fatalf("%q gave %v; its time parts sum to %s ns, %d wrapped to int64", s, d, exact, int64(wrapped.Uint64()))
		}
		if d < 0 && exact.IsInt64() {
			t.Fatalf("%q gave %v without wrapping around", s, d)
		}
	})
}
