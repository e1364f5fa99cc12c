package model

import (
	"sort"
	"time"
)

// Evaluation of a schedule by the V2 leader (SPEC section 3).

// Fire is the next instant strictly after t on the grid {k·p + j},
// counted in whole seconds from the Unix epoch; ok is false when p is 0.
func Fire(t time.Time, p time.Duration, j int64) (time.Time, bool) {
	ps := int64(p / time.Second)
	if ps <= 0 {
		return time.Time{}, false
	}
	ts := t.Unix()
	k := floorDiv(ts-j, ps) + 1
	return time.Unix(k*ps+j, 0).UTC(), true
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// LocalInstant is the instant of a local date and clock (minutes after
// midnight) in loc, as Flow resolves it: an ambiguous time (a fall-back
// fold) takes the earlier instant; a nonexistent one (a spring-forward gap)
// takes the instant the gap ends, found by bisection.
func LocalInstant(loc *time.Location, y int, m time.Month, d, minutes int) time.Time {
	naive := time.Date(y, m, d, minutes/60, minutes%60, 0, 0, time.UTC).Unix()
	offset := func(t int64) int64 {
		_, off := time.Unix(t, 0).In(loc).Zone()
		return int64(off)
	}
	var offs []int64
	for _, probe := range []int64{naive - 86400, naive, naive + 86400} {
		o := offset(probe)
		dup := false
		for _, x := range offs {
			dup = dup || x == o
		}
		if !dup {
			offs = append(offs, o)
		}
	}
	best, found := int64(0), false
	for _, o := range offs {
		if inst := naive - o; offset(inst) == o && (!found || inst < best) {
			best, found = inst, true
		}
	}
	if found {
		return time.Unix(best, 0).UTC()
	}
	// A gap: the offset changes between the two candidates; the gap ends
	// at the first second with the later offset.
	lo, hi := naive-offs[0], naive-offs[0]
	for _, o := range offs {
		lo, hi = min(lo, naive-o), max(hi, naive-o)
	}
	before := offset(lo)
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if offset(mid) == before {
			lo = mid
		} else {
			hi = mid
		}
	}
	return time.Unix(hi, 0).UTC()
}

// Location is the schedule's zone (UTC without a timezone).
func (s *Schedule) Location() *time.Location {
	if s.Timezone == "" {
		return time.UTC
	}
	loc, err := ParseTimezone(s.Timezone)
	if err != nil {
		return time.UTC
	}
	return loc
}

// Active reports whether window i is active at x: x's local weekday is
// enabled and its local clock is in [start, end), or, for a window whose
// end is before its start, at or after start or before end; each local day
// is judged on its own.
func (s *Schedule) Active(i int, x time.Time, loc *time.Location) bool {
	w := s.Windows[i]
	lt := x.In(loc)
	if !w.EnabledDays()[lt.Weekday()] {
		return false
	}
	c := lt.Hour()*3600 + lt.Minute()*60 + lt.Second()
	start, end := int(w.Start)*60, int(w.End)*60
	if start < end {
		return c >= start && c < end
	}
	return c >= start || c < end
}

// Regime is the interval in force at x: the first active window's (in
// config order), else the base interval. window is -1 for the base.
func (s *Schedule) Regime(x time.Time, loc *time.Location) (interval time.Duration, window int) {
	for i := range s.Windows {
		if s.Active(i, x, loc) {
			return s.Windows[i].Interval, i
		}
	}
	return s.BaseInterval, -1
}

// searchDays bounds the search for regime transitions.
const searchDays = 15

// Next is the instant the runtime closes a transaction that opened at
// after, with jitter j seconds. ok is false when the regime in force has a
// zero interval (no hold: commit as fast as possible).
func (s *Schedule) Next(after time.Time, j int64) (time.Time, bool) {
	if len(s.Windows) == 0 {
		return Fire(after, s.BaseInterval, j)
	}
	loc := s.Location()
	cur, _ := s.Regime(after, loc)
	n, ok := Fire(after, cur, j)
	if !ok {
		return time.Time{}, false
	}
	// Walk the regime transitions in (after, n]: the first one into a
	// faster regime fires there instead.
	for _, c := range s.transitions(after, n, loc) {
		if iv, _ := s.Regime(c, loc); iv < cur {
			return c, true
		}
	}
	return n, true
}

// transitions lists, in order, the instants in (after, until] at which the
// regime may change: local midnights and window starts and ends, over at
// most searchDays local days.
func (s *Schedule) transitions(after, until time.Time, loc *time.Location) []time.Time {
	y, m, d := after.In(loc).Date()
	var out []time.Time
	for i := -1; i <= searchDays; i++ {
		day := time.Date(y, m, d+i, 12, 0, 0, 0, time.UTC)
		dy, dm, dd := day.Date()
		midnight := LocalInstant(loc, dy, dm, dd, 0)
		if midnight.After(until) {
			break
		}
		cands := []time.Time{midnight}
		for _, w := range s.Windows {
			cands = append(cands, LocalInstant(loc, dy, dm, dd, int(w.Start)), LocalInstant(loc, dy, dm, dd, int(w.End)))
		}
		for _, c := range cands {
			if c.After(after) && !c.After(until) {
				out = append(out, c)
			}
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Before(out[b]) })
	return out
}
