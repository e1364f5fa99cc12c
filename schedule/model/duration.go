package model

import (
	"fmt"
	"math"
	"math/bits"
	"regexp"
	"strconv"
	"time"
	"unicode"
	"unicode/utf8"
)

// Durations as Flow reads them: humantime 2.3 (Flow's Cargo.lock pins
// humantime 2.3.0, read through humantime_serde). The grammar, the unit
// list, the exactness rule for fractions and the error texts follow
// humantime's parse_duration.

// humanUnit is one humantime unit: its length in seconds (whole units) and
// in nanoseconds (sub-second units). frac is how a fraction of it is
// scaled: in seconds for hours and longer, in nanoseconds below, and not
// at all for nanoseconds.
type humanUnit struct {
	secs, nanos uint64
	frac        fracScale
}

type fracScale int

const (
	fracNone  fracScale = iota // a fraction of a nanosecond is refused
	fracNanos                  // the fraction is counted in nanoseconds
	fracSecs                   // the fraction is counted in whole seconds
)

// Month and year are humantime's: 30.44 days and 365.25 days.
const (
	monthSecs = 2_630_016
	yearSecs  = 31_557_600
)

var humanUnits = map[string]humanUnit{
	"nanos": {0, 1, fracNone}, "nsec": {0, 1, fracNone}, "ns": {0, 1, fracNone},
	"usec": {0, 1_000, fracNanos}, "us": {0, 1_000, fracNanos}, "µs": {0, 1_000, fracNanos},
	"millis": {0, 1_000_000, fracNanos}, "msec": {0, 1_000_000, fracNanos}, "ms": {0, 1_000_000, fracNanos},
	"seconds": {1, 0, fracNanos}, "second": {1, 0, fracNanos}, "secs": {1, 0, fracNanos}, "sec": {1, 0, fracNanos}, "s": {1, 0, fracNanos},
	"minutes": {60, 0, fracNanos}, "minute": {60, 0, fracNanos}, "min": {60, 0, fracNanos}, "mins": {60, 0, fracNanos}, "m": {60, 0, fracNanos},
	"hours": {3600, 0, fracSecs}, "hour": {3600, 0, fracSecs}, "hr": {3600, 0, fracSecs}, "hrs": {3600, 0, fracSecs}, "h": {3600, 0, fracSecs},
	"days": {86400, 0, fracSecs}, "day": {86400, 0, fracSecs}, "d": {86400, 0, fracSecs},
	"weeks": {604800, 0, fracSecs}, "week": {604800, 0, fracSecs}, "wk": {604800, 0, fracSecs}, "wks": {604800, 0, fracSecs}, "w": {604800, 0, fracSecs},
	"months": {monthSecs, 0, fracSecs}, "month": {monthSecs, 0, fracSecs}, "M": {monthSecs, 0, fracSecs},
	"years": {yearSecs, 0, fracSecs}, "year": {yearSecs, 0, fracSecs}, "yr": {yearSecs, 0, fracSecs}, "yrs": {yearSecs, 0, fracSecs}, "y": {yearSecs, 0, fracSecs},
}

// humantime's error texts.
const (
	errOverflow    = "number is too large or cannot be represented without a lack of precision (values below 1ns are not supported)"
	errEmpty       = "value was empty"
	errUnknownUnit = "unknown time unit %q, supported units: ns, us/µs, ms, sec, min, hours, days, weeks, months, years (and few variations)"
)

// MaxDuration is the longest duration schedtool evaluates: Go's
// time.Duration limit (about 292 years). Flow reads up to 2^64-1 seconds,
// but its runtime wraps or never holds at such values.
const MaxDuration = time.Duration(math.MaxInt64)

// DurationError is a duration that does not read. Reason is humantime's
// text, or the limit of a value humantime reads but schedtool cannot use.
type DurationError struct {
	Input  string
	Reason string
	limit  bool // beyond MaxDuration, which humantime reads
}

func (e *DurationError) Error() string {
	return fmt.Sprintf("invalid duration %q: %s", e.Input, e.Reason)
}

// ParseDuration reads a humantime 2.3 duration: one or more spans of a
// number (digits, optionally a point and more digits: "1.5") and a unit,
// white space allowed between and inside them ("30m", "1h 30m", "2h37min",
// "1.5h", "1h 0.5m"), or the exact string "0". A value humantime reads
// but that exceeds MaxDuration is an error naming the limit.
func ParseDuration(s string) (time.Duration, error) {
	secs, nanos, reason := parseHuman(s)
	if reason != "" {
		return 0, &DurationError{Input: s, Reason: reason}
	}
	if secs > uint64(MaxDuration/time.Second) || (secs == uint64(MaxDuration/time.Second) && nanos > uint64(MaxDuration%time.Second)) {
		return 0, &DurationError{Input: s, Reason: fmt.Sprintf("%ds is longer than schedtool can evaluate (at most %s, about 292 years); Flow's runtime misbehaves with such an interval", secs, MaxDuration), limit: true}
	}
	return time.Duration(secs)*time.Second + time.Duration(nanos), nil
}

// humanParser walks the text by characters, keeping byte offsets as
// humantime reports them.
type humanParser struct {
	s     string
	i     int    // byte offset of the next character
	secs  uint64 // the sum so far
	nanos uint64 // < 1e9
}

func (p *humanParser) next() (rune, bool) {
	if p.i >= len(p.s) {
		return 0, false
	}
	r, n := utf8.DecodeRuneInString(p.s[p.i:])
	p.i += n
	return r, true
}

func isUnitChar(r rune) bool {
	return (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || r == 'µ'
}

// parseHuman returns the duration as seconds and nanoseconds (humantime's
// full range) or humantime's error text.
func parseHuman(s string) (secs, nanos uint64, reason string) {
	if s == "0" {
		return 0, 0, ""
	}
	p := &humanParser{s: s}
	n, ok, reason := p.firstDigit()
	if reason != "" {
		return 0, 0, reason
	}
	if !ok {
		return 0, 0, errEmpty
	}
	for {
		// The number: digits and white space, then a unit letter or a point.
		var frac *fraction
		off := p.i
	number:
		for {
			c, more := p.next()
			if !more {
				break
			}
			switch {
			case c >= '0' && c <= '9':
				hi, lo := bits.Mul64(n, 10)
				sum, carry := bits.Add64(lo, uint64(c-'0'), 0)
				if hi != 0 || carry != 0 {
					return 0, 0, errOverflow
				}
				n = sum
			case unicode.IsSpace(c):
			case isUnitChar(c):
				break number
			case c == '.':
				f, r := p.fraction(&off)
				if r != "" {
					return 0, 0, r
				}
				frac = &f
				break number
			default:
				return 0, 0, fmt.Sprintf("invalid character at %d", off)
			}
			off = p.i
		}
		// The unit: letters up to white space, a digit (the next span) or
		// the end.
		start := off
		off = p.i
		nextSpan := false
		for {
			c, more := p.next()
			if !more {
				break
			}
			if c >= '0' && c <= '9' {
				if r := p.addSpan(n, frac, start, off); r != "" {
					return 0, 0, r
				}
				n, nextSpan = uint64(c-'0'), true
				break
			}
			if unicode.IsSpace(c) {
				break
			}
			if !isUnitChar(c) {
				return 0, 0, fmt.Sprintf("invalid character at %d", off)
			}
			off = p.i
		}
		if nextSpan {
			continue
		}
		if r := p.addSpan(n, frac, start, off); r != "" {
			return 0, 0, r
		}
		n, ok, reason = p.firstDigit()
		if reason != "" {
			return 0, 0, reason
		}
		if !ok {
			return p.secs, p.nanos, ""
		}
	}
}

// firstDigit skips white space to the first digit of a span; ok is false
// at the end of the text.
func (p *humanParser) firstDigit() (n uint64, ok bool, reason string) {
	off := p.i
	for {
		c, more := p.next()
		if !more {
			return 0, false, ""
		}
		switch {
		case c >= '0' && c <= '9':
			return uint64(c - '0'), true, ""
		case unicode.IsSpace(c):
		default:
			return 0, false, fmt.Sprintf("expected number at %d", off)
		}
	}
}

// fraction is the digits after a point: num / den, den a power of ten.
type fraction struct{ num, den uint64 }

func (p *humanParser) fraction(off *int) (fraction, string) {
	f := fraction{0, 1}
	leadingZeros := true
	for {
		c, more := p.next()
		if !more {
			break
		}
		switch {
		case c >= '0' && c <= '9':
			if c != '0' {
				leadingZeros = false
			}
			hi, lo := bits.Mul64(f.den, 10)
			if hi != 0 {
				return f, errOverflow
			}
			f.den = lo
			if !leadingZeros {
				hi, lo = bits.Mul64(f.num, 10)
				sum, carry := bits.Add64(lo, uint64(c-'0'), 0)
				if hi != 0 || carry != 0 {
					return f, errOverflow
				}
				f.num = sum
			}
		case unicode.IsSpace(c):
		case isUnitChar(c):
			if f.den == 1 {
				return f, fmt.Sprintf("invalid character at %d", *off)
			}
			return f, ""
		default:
			return f, fmt.Sprintf("invalid character at %d", *off)
		}
		*off = p.i
	}
	if f.den == 1 {
		return f, fmt.Sprintf("invalid character at %d", *off)
	}
	return f, ""
}

// addSpan adds n (and its fraction) of the unit s[start:end].
func (p *humanParser) addSpan(n uint64, frac *fraction, start, end int) string {
	name := p.s[start:end]
	u, ok := humanUnits[name]
	if !ok {
		if name == "" {
			return fmt.Sprintf("time unit needed, for example %dsec or %dms", n, n)
		}
		return fmt.Sprintf(errUnknownUnit, name)
	}
	var secs, nanos uint64
	var over bool
	if u.secs > 0 {
		secs, over = mul(n, u.secs)
	} else {
		nanos, over = mul(n, u.nanos)
	}
	if over || !p.add(secs, nanos) {
		return errOverflow
	}
	if frac == nil {
		return ""
	}
	// A fraction must come out whole: in nanoseconds below an hour, in
	// seconds from an hour up. Nothing is rounded.
	var scale uint64
	switch u.frac {
	case fracNone:
		return errOverflow
	case fracNanos:
		scale = u.nanos
		if u.secs > 0 {
			scale = u.secs * uint64(time.Second)
		}
	case fracSecs:
		scale = u.secs
	}
	v, over := mul(frac.num, scale)
	if over || v%frac.den != 0 {
		return errOverflow
	}
	v /= frac.den
	if u.frac == fracSecs {
		secs, nanos = v, 0
	} else {
		secs, nanos = 0, v
	}
	if !p.add(secs, nanos) {
		return errOverflow
	}
	return ""
}

// add adds to the sum, carrying nanoseconds into seconds; false on
// overflow.
func (p *humanParser) add(secs, nanos uint64) bool {
	ns, carry := bits.Add64(p.nanos, nanos, 0)
	if carry != 0 {
		return false
	}
	if ns >= uint64(time.Second) {
		var c uint64
		secs, c = bits.Add64(secs, ns/uint64(time.Second), 0)
		if c != 0 {
			return false
		}
		ns %= uint64(time.Second)
	}
	total, c := bits.Add64(p.secs, secs, 0)
	if c != 0 {
		return false
	}
	p.secs, p.nanos = total, ns
	return true
}

func mul(a, b uint64) (uint64, bool) {
	hi, lo := bits.Mul64(a, b)
	return lo, hi != 0
}

// schemaDuration is the pattern of Flow's published catalog schema for a
// duration, which the UI checks: one integer and one unit.
var schemaDuration = regexp.MustCompile(`^\d+(s|m|h|d)$`)

// FitsSchema reports whether text matches Flow's published duration
// pattern ^\d+(s|m|h|d)$.
func FitsSchema(text string) bool { return schemaDuration.MatchString(text) }

// FormatDuration writes a duration as schedtool writes every model
// duration, to fit Flow's published schema: one integer and one unit,
// hours when the value is a whole number of hours, else minutes, else
// seconds ("4h", "90m", "90s", "24h", "0s"). The runtime counts whole
// seconds, so a fraction of a second is dropped; a negative duration
// writes "0s".
func FormatDuration(d time.Duration) string {
	secs := int64(d / time.Second)
	switch {
	case secs <= 0:
		return "0s"
	case secs%3600 == 0:
		return strconv.FormatInt(secs/3600, 10) + "h"
	case secs%60 == 0:
		return strconv.FormatInt(secs/60, 10) + "m"
	}
	return strconv.FormatInt(secs, 10) + "s"
}

// WriteDuration is FormatDuration, except that the user's own text is
// kept when it already fits Flow's schema pattern and reads as the same
// whole seconds ("60m" stays "60m").
func WriteDuration(d time.Duration, text string) string {
	if FitsSchema(text) {
		if v, err := ParseDuration(text); err == nil && v/time.Second == max(d, 0)/time.Second {
			return text
		}
	}
	return FormatDuration(d)
}
