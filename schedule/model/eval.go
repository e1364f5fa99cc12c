package model

import (
	"time"
)

// Evaluation of a schedule by the V2 leader (docs/behaviour.md §3).

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

// Active reports whether window i is active at x, as the runtime judges
// it: x's local weekday is enabled and, with S and E the instants of the
// window's start and end clock times on x's local date (LocalInstant),
// S <= x < E, or for S > E (overnight) x >= S or x < E. Instants are
// compared, not clock readings: on a fall-back day a window that ended
// in the first pass of the repeated hour is not active in the second, and
// a window whose two ends fall in one spring-forward gap (S = E) is
// inactive that whole local day.
func (s *Schedule) Active(i int, x time.Time, loc *time.Location) bool {
	w := s.Windows[i]
	lt := x.In(loc)
	if !w.EnabledDays()[lt.Weekday()] {
		return false
	}
	y, m, d := lt.Date()
	start := LocalInstant(loc, y, m, d, int(w.Start))
	end := LocalInstant(loc, y, m, d, int(w.End))
	if start.After(end) {
		return !x.Before(start) || x.Before(end)
	}
	return !x.Before(start) && x.Before(end)
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

// searchDays bounds the search for the next start of a window.
const searchDays = 15

// Next is the instant the runtime closes a transaction that opened at
// after, with jitter j seconds. ok is false when the regime in force has a
// zero interval (no hold: commit as fast as possible).
//
// It follows the V2 leader: the next grid instant n of the regime at
// after, then a walk over the regime's transitions in (after, n] (out of
// the active window at its end or at a local midnight where it is off;
// into the window that starts first), stopping at the first one into a
// faster regime than the one at after.
func (s *Schedule) Next(after time.Time, j int64) (time.Time, bool) {
	if len(s.Windows) == 0 {
		return Fire(after, s.BaseInterval, j)
	}
	loc := s.Location()
	period, active := s.Regime(after, loc)
	n, ok := Fire(after, period, j)
	if !ok {
		return time.Time{}, false
	}
	cursor := after
	for {
		var bound time.Time
		if active >= 0 {
			bound = s.nextEnd(active, cursor, loc)
		} else {
			found := false
			for i := range s.Windows {
				if b, ok := s.nextStart(i, cursor, loc); ok && (!found || b.Before(bound)) {
					bound, found = b, true
				}
			}
			if !found {
				return n, true
			}
		}
		if bound.After(n) {
			return n, true
		}
		bp, ba := s.Regime(bound, loc)
		if bp/time.Second < period/time.Second {
			return bound, true
		}
		cursor, active = bound, ba
	}
}

// localDate is the local calendar date of x, days days later.
func localDate(x time.Time, loc *time.Location, days int) (int, time.Month, int) {
	y, m, d := x.In(loc).Date()
	return time.Date(y, m, d+days, 12, 0, 0, 0, time.UTC).Date()
}

// nextEnd is when the active window i turns off after x: the next instant
// strictly after x with its end clock time, or the next local midnight
// when the window is off there and it comes first.
func (s *Schedule) nextEnd(i int, x time.Time, loc *time.Location) time.Time {
	w := s.Windows[i]
	y, m, d := localDate(x, loc, 0)
	end := LocalInstant(loc, y, m, d, int(w.End))
	if !end.After(x) {
		y2, m2, d2 := localDate(x, loc, 1)
		end = LocalInstant(loc, y2, m2, d2, int(w.End))
	}
	y, m, d = localDate(x, loc, 1)
	midnight := LocalInstant(loc, y, m, d, 0)
	if !s.Active(i, midnight, loc) && midnight.Before(end) {
		return midnight
	}
	return end
}

// nextStart is the first instant at or after x at which window i is
// active, among the local midnights and start instants of the next
// searchDays local days; ok is false when there is none.
func (s *Schedule) nextStart(i int, x time.Time, loc *time.Location) (time.Time, bool) {
	w := s.Windows[i]
	for k := 0; k < searchDays; k++ {
		y, m, d := localDate(x, loc, k)
		for _, c := range []time.Time{LocalInstant(loc, y, m, d, 0), LocalInstant(loc, y, m, d, int(w.Start))} {
			if !c.Before(x) && s.Active(i, c, loc) {
				return c, true
			}
		}
	}
	return time.Time{}, false
}
