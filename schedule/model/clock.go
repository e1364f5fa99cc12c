package model

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Clock is a time of day in minutes after midnight, 0..1439.
type Clock int

// ParseClock accepts exactly ^([01]?[0-9]|2[0-3]):[0-5][0-9]$.
func ParseClock(s string) (Clock, bool) {
	h, m, ok := strings.Cut(s, ":")
	if !ok || len(m) != 2 || len(h) < 1 || len(h) > 2 {
		return 0, false
	}
	for _, c := range h + m {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	hh, _ := strconv.Atoi(h)
	mm, _ := strconv.Atoi(m)
	if hh > 23 || mm > 59 {
		return 0, false
	}
	return Clock(hh*60 + mm), true
}

func (c Clock) String() string { return fmt.Sprintf("%02d:%02d", int(c)/60, int(c)%60) }

// Weekday names as the model writes them, Sunday first like time.Weekday.
var dayNames = [7]string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}
var longDayNames = [7]string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"}

// DayName is the canonical short name of a weekday ("Mon").
func DayName(d time.Weekday) string { return dayNames[d] }

// ParseDay accepts a short or long English day name in any case.
func ParseDay(s string) (time.Weekday, bool) {
	l := strings.ToLower(s)
	for i := range dayNames {
		if l == strings.ToLower(dayNames[i]) || l == longDayNames[i] {
			return time.Weekday(i), true
		}
	}
	return 0, false
}

var errTimezone = errors.New("invalid timezone")

// ParseTimezone reads the model's timezone as Flow does: an IANA name that
// chrono-tz knows (exact case; see LoadZone), or an offset that starts
// with '+' or '-', whose rest splits on the first ':' into an hour and a
// minute, each read as a Rust i32 (an optional sign, then digits), hour
// 0..23 and minute 0..59. So "+5:30" and "++05:00" pass, "05:30" does not.
func ParseTimezone(s string) (*time.Location, error) {
	if loc, ok := LoadZone(s); ok {
		return loc, nil
	}
	var rest string
	sign := 1
	switch {
	case strings.HasPrefix(s, "+"):
		rest = s[1:]
	case strings.HasPrefix(s, "-"):
		rest, sign = s[1:], -1
	default:
		return nil, errTimezone
	}
	h, m, ok := strings.Cut(rest, ":")
	if !ok {
		return nil, errTimezone
	}
	hh, err1 := parseSignedInt(h)
	mm, err2 := parseSignedInt(m)
	if err1 != nil || err2 != nil || hh < 0 || hh > 23 || mm < 0 || mm > 59 {
		return nil, errTimezone
	}
	return time.FixedZone(s, sign*(hh*3600+mm*60)), nil
}

// parseSignedInt is Rust's i32 parsing: an optional sign, then ASCII digits.
func parseSignedInt(s string) (int, error) {
	digits := strings.TrimPrefix(strings.TrimPrefix(s, "+"), "-")
	if len(digits) != len(s) && len(digits) != len(s)-1 {
		return 0, errTimezone
	}
	if digits == "" {
		return 0, errTimezone
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, errTimezone
		}
	}
	v, err := strconv.ParseInt(s, 10, 32)
	return int(v), err
}
