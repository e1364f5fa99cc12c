package model

import (
	"fmt"
	"strings"
	"time"
	"unicode"
)

// Units of humantime durations, in seconds or nanoseconds, as the Flow
// runtime (Rust humantime) reads them. A month is 30.44 days and a year
// 365.25 days, as in humantime.
var humanUnits = map[string]struct{ secs, nanos uint64 }{
	"nanos": {0, 1}, "nsec": {0, 1}, "ns": {0, 1},
	"usec": {0, 1_000}, "us": {0, 1_000},
	"millis": {0, 1_000_000}, "msec": {0, 1_000_000}, "ms": {0, 1_000_000},
	"seconds": {1, 0}, "second": {1, 0}, "secs": {1, 0}, "sec": {1, 0}, "s": {1, 0},
	"minutes": {60, 0}, "minute": {60, 0}, "min": {60, 0}, "mins": {60, 0}, "m": {60, 0},
	"hours": {3600, 0}, "hour": {3600, 0}, "hr": {3600, 0}, "hrs": {3600, 0}, "h": {3600, 0},
	"days": {86400, 0}, "day": {86400, 0}, "d": {86400, 0},
	"weeks": {604800, 0}, "week": {604800, 0}, "w": {604800, 0},
	"months": {2_630_016, 0}, "month": {2_630_016, 0}, "M": {2_630_016, 0},
	"years": {31_557_600, 0}, "year": {31_557_600, 0}, "y": {31_557_600, 0},
}

// maxSeconds keeps every duration representable as a time.Duration.
const maxSeconds = uint64(1<<63-1) / uint64(time.Second)

// DurationError is a humantime parse failure; its text follows humantime's.
type DurationError struct {
	Input  string
	Reason string
}

func (e *DurationError) Error() string {
	return fmt.Sprintf("invalid duration %q: %s", e.Input, e.Reason)
}

// ParseDuration parses a humantime duration: one or more <integer><unit>
// spans, optionally separated by white space ("30m", "1h 30m", "2h37min").
func ParseDuration(s string) (time.Duration, error) {
	fail := func(format string, args ...any) (time.Duration, error) {
		return 0, &DurationError{Input: s, Reason: fmt.Sprintf(format, args...)}
	}
	rs := []rune(s)
	i := 0
	var secs, nanos uint64
	skipSpace := func() {
		for i < len(rs) && unicode.IsSpace(rs[i]) {
			i++
		}
	}
	skipSpace()
	if i == len(rs) {
		return fail("value was empty")
	}
	for {
		// The number: digits, white space allowed between them.
		if !isDigit(rs[i]) {
			return fail("expected number at %d", byteOffset(rs, i))
		}
		var n uint64
		for i < len(rs) && (isDigit(rs[i]) || unicode.IsSpace(rs[i])) {
			if isDigit(rs[i]) {
				if n > (1<<64-1-9)/10 {
					return fail("number is too large")
				}
				n = n*10 + uint64(rs[i]-'0')
			}
			i++
		}
		if i < len(rs) && !isLetter(rs[i]) {
			return fail("invalid character at %d", byteOffset(rs, i))
		}
		start := i
		for i < len(rs) && isLetter(rs[i]) {
			i++
		}
		unit := string(rs[start:i])
		if i < len(rs) && !isDigit(rs[i]) && !unicode.IsSpace(rs[i]) {
			return fail("invalid character at %d", byteOffset(rs, i))
		}
		u, ok := humanUnits[unit]
		if unit == "" {
			return fail("time unit needed, for example %dsec or %dms", n, n)
		} else if !ok {
			return fail("unknown time unit %q, supported units: ns, us, ms, sec, min, hours, days, weeks, months, years (and few variations)", unit)
		}
		if u.secs > 0 {
			if n > maxSeconds/u.secs || secs+n*u.secs > maxSeconds {
				return fail("number is too large")
			}
			secs += n * u.secs
		} else {
			if n > (1<<63-1)/u.nanos {
				return fail("number is too large")
			}
			add := n * u.nanos
			secs += add / 1e9
			nanos += add % 1e9
			secs += nanos / 1e9
			nanos %= 1e9
			if secs > maxSeconds {
				return fail("number is too large")
			}
		}
		skipSpace()
		if i == len(rs) {
			break
		}
	}
	total := secs*uint64(time.Second) + nanos
	if total > 1<<63-1 {
		return fail("number is too large")
	}
	return time.Duration(total), nil
}

func isDigit(r rune) bool  { return r >= '0' && r <= '9' }
func isLetter(r rune) bool { return (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') }

func byteOffset(rs []rune, i int) int { return len(string(rs[:i])) }

// FormatDuration writes a duration canonically, as humantime formats it:
// "4h", "15m", "1h 30m", "1day 2h", "0s".
func FormatDuration(d time.Duration) string {
	if d <= 0 {
		return "0s"
	}
	secs := uint64(d / time.Second)
	nanos := uint64(d % time.Second)
	years := secs / 31_557_600
	ydays := secs % 31_557_600
	months := ydays / 2_630_016
	mdays := ydays % 2_630_016
	days := mdays / 86400
	dsecs := mdays % 86400
	hours := dsecs / 3600
	minutes := dsecs % 3600 / 60
	seconds := dsecs % 60
	millis := nanos / 1_000_000
	micros := nanos / 1000 % 1000
	nanosec := nanos % 1000
	var parts []string
	plural := func(n uint64, name string) {
		if n == 0 {
			return
		}
		if n > 1 {
			name += "s"
		}
		parts = append(parts, fmt.Sprintf("%d%s", n, name))
	}
	item := func(n uint64, name string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d%s", n, name))
		}
	}
	plural(years, "year")
	plural(months, "month")
	plural(days, "day")
	item(hours, "h")
	item(minutes, "m")
	item(seconds, "s")
	item(millis, "ms")
	item(micros, "us")
	item(nanosec, "ns")
	return strings.Join(parts, " ")
}
