package connector

import "time"

// Legacy evaluation: when a connector acknowledges a commit (docs/behaviour.md
// §4.3), ported from its behaviour.

// gridNext is the next tick strictly after t on the grid {k·p + j}
// counted in nanoseconds from the Unix epoch. A period of zero or less
// has no ticks: the answer is t itself (no delay).
func gridNext(t time.Time, p, j time.Duration) time.Time {
	if p <= 0 {
		return t
	}
	elapsed := (t.UnixNano() - int64(j)) / int64(p)
	return time.Unix(0, (elapsed+1)*int64(p)+int64(j)).UTC()
}

// Evaluator computes the connector's schedule. LocalMidnight replaces the
// connector's UTC-midnight day boundary (the quirk of docs/behaviour.md §4.3) by
// local midnight: a counterfactual that tells where the quirk matters.
type Evaluator struct {
	Schedule      *Parsed
	Jitter        time.Duration
	LocalMidnight bool
	// LocalTime, if set, replaces Go's time.Date for building local clock
	// times (another counterfactual: Flow's resolution of gaps and folds).
	LocalTime func(loc *time.Location, y int, m time.Month, d, minutes int) time.Time
}

// Next is the schedule's next tick after t.
func (e *Evaluator) Next(t time.Time) time.Time {
	s := e.Schedule
	if !s.Alternating {
		return gridNext(t, s.Frequency, e.Jitter)
	}
	// Outside the fast window the slow grid runs; the boundary is the next
	// window start. Inside, the fast grid; the boundary is the window end.
	this, other := SlowFrequency, s.Frequency
	bound := e.nextStart(t)
	if e.active(t) {
		this, other = s.Frequency, SlowFrequency
		bound = e.nextEnd(t)
	}
	n := gridNext(t, this, e.Jitter)
	// A tick at or past the boundary is cut there only when the schedule on
	// the other side is faster.
	if !n.Before(bound) && other < this {
		n = bound
	}
	return n
}

// clockOn is the instant of a clock time on dt's local date, as the
// connector builds it (Go's time.Date normalisation in gaps and folds).
func (e *Evaluator) clockOn(dt time.Time, minutes int) time.Time {
	loc := e.Schedule.Location
	y, m, d := dt.In(loc).Date()
	if e.LocalTime != nil {
		return e.LocalTime(loc, y, m, d, minutes)
	}
	return time.Date(y, m, d, minutes/60, minutes%60, 0, 0, loc)
}

// active reports whether the fast window is active at dt: dt's local day
// is enabled and its local clock is in [start, stop), or for an overnight
// window at or after start or before stop, each local day on its own.
func (e *Evaluator) active(dt time.Time) bool {
	s := e.Schedule
	if !s.Days[dt.In(s.Location).Weekday()] {
		return false
	}
	start, stop := e.clockOn(dt, s.Start), e.clockOn(dt, s.Stop)
	if start.After(stop) {
		return !start.After(dt) || stop.After(dt)
	}
	return !dt.Before(start) && dt.Before(stop)
}

// InFastWindow reports whether an alternating schedule's fast window is
// active at t, as the connector judges it (false for a fixed schedule).
func (e *Evaluator) InFastWindow(t time.Time) bool {
	return e.Schedule.Alternating && e.active(t)
}

// midnight is the day boundary the connector uses: UTC midnight of dt's
// UTC date (or, counterfactually, local midnight of its local date).
func (e *Evaluator) midnight(dt time.Time) time.Time {
	if e.LocalMidnight {
		return e.clockOn(dt, 0)
	}
	y, m, d := dt.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// nextStart is when the fast window next begins after dt: a window start
// on an enabled day, or a midnight at which an overnight window is
// already active (its after-midnight part on a day after a disabled one).
func (e *Evaluator) nextStart(dt time.Time) time.Time {
	if t, ok := e.searchStart(dt); ok {
		return t
	}
	// The connector panics here (see Panics); a year later stands in.
	return dt.UTC().AddDate(1, 0, 0)
}

// searchStart is the connector's search for the next window start: it
// tries dt and the 6 days after it (each day's start clock on dt's local
// date plus i UTC days, or the next day's when that is already past, and
// the UTC midnight after it), and gives up after those 7 tries. The
// connector does not give up gracefully: it panics (see Panics).
func (e *Evaluator) searchStart(dt time.Time) (time.Time, bool) {
	dt = dt.UTC()
	for i := 0; i < 7; i++ {
		today := dt.AddDate(0, 0, i)
		tomorrow := today.AddDate(0, 0, 1)
		start := e.clockOn(today, e.Schedule.Start)
		if start.Before(today) {
			start = e.clockOn(tomorrow, e.Schedule.Start)
		}
		mid := e.midnight(tomorrow)
		if e.active(mid) && (mid.Before(start) || !e.active(start)) {
			return mid, true
		}
		if e.active(start) {
			return start, true
		}
	}
	return time.Time{}, false
}

// Panics reports whether the connector panics when it computes the next
// tick after t: an alternating schedule always searches for the next
// window start first, inside the window too, and that search gives up
// after 7 days with a panic that nothing recovers (docs/behaviour.md §4.3).
// Fixed schedules never panic.
func (e *Evaluator) Panics(t time.Time) bool {
	if !e.Schedule.Alternating {
		return false
	}
	_, ok := e.searchStart(t)
	return !ok
}

// nextEnd is when the fast window next ends after dt: its stop time, or
// the coming midnight when the next day is not enabled.
func (e *Evaluator) nextEnd(dt time.Time) time.Time {
	dt = dt.UTC()
	end := e.clockOn(dt, e.Schedule.Stop)
	if !end.After(dt) {
		end = end.AddDate(0, 0, 1)
	}
	mid := e.midnight(dt.AddDate(0, 0, 1))
	if !e.active(mid) && mid.Before(end) {
		return mid
	}
	return end
}

// Ack says when the connector acknowledges a commit that is ready at now,
// given the previous acknowledgement: at once for the first one after the
// connector opened, when the backfill exemption applies (see Backfilling),
// or when the tick is already past; else at the schedule's next tick after
// prevAck.
func (e *Evaluator) Ack(prevAck, now time.Time, first, exempt bool) time.Time {
	if first || exempt {
		return now
	}
	if tick := e.Next(prevAck); tick.After(now) {
		return tick
	}
	return now
}

// BackfillThreshold is the document count from which a transaction counts
// as part of a backfill.
const BackfillThreshold = 1_000_000

// Backfilling reports whether the backfill exemption applies, given the
// document counts of the transactions that stored anything, newest last:
// the connector delays an acknowledgement only after at least 5 such
// transactions, none of the last 5 of which stored BackfillThreshold
// documents or more. So fewer than 5, or one large one among the last 5,
// means no delay.
func Backfilling(stored []int) bool {
	if len(stored) < 5 {
		return true
	}
	for _, n := range stored[len(stored)-5:] {
		if n >= BackfillThreshold {
			return true
		}
	}
	return false
}
