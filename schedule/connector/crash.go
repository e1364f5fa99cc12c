package connector

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// CrashHorizon is how far ahead the crash finder looks.
const CrashHorizon = 366 * 24 * time.Hour

// CrashRange is a run of instants [Start, End) (to the nanosecond) such
// that the connector panics when its previous acknowledgement was at any
// of them.
type CrashRange struct {
	Start, End time.Time
}

// First and Last are the first and the last instant of the range.
func (r CrashRange) First() time.Time { return r.Start }
func (r CrashRange) Last() time.Time  { return r.End.Add(-time.Nanosecond) }

// Describe says when the range is, in loc and in UTC: "after Mon
// 2026-10-26 09:00 EDT up to and including 10:00 EDT
// (2026-10-26T13:00:00Z to 14:00:00Z)". A bound exactly one nanosecond
// past a whole second reads "after" that second; a bound one nanosecond
// before one reads "before" it.
func (r CrashRange) Describe(loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	first, last := r.First(), r.Last()
	fromWord, fromAt, fromUTC := "from ", first, first.UTC().Format(time.RFC3339Nano)
	if first.Nanosecond() == 1 {
		fromAt = first.Add(-time.Nanosecond)
		fromWord, fromUTC = "after ", "after "+fromAt.UTC().Format(time.RFC3339)
	}
	toWord, toAt, toUTC := "up to and including ", last, "up to and including "+last.UTC().Format(time.RFC3339Nano)
	if last.Nanosecond() == 999_999_999 {
		toAt = last.Add(time.Nanosecond)
		toWord, toUTC = "before ", "before "+toAt.UTC().Format(time.RFC3339)
	}
	fy, fm, fd := fromAt.In(loc).Date()
	ty, tm, td := toAt.In(loc).Date()
	sameDay := fy == ty && fm == tm && fd == td
	return fmt.Sprintf("%s%s %s%s (UTC: %s, %s)", fromWord, localStamp(fromAt, loc, true), toWord, localStamp(toAt, loc, !sameDay), fromUTC, toUTC)
}

// UTC is the range in UTC alone: "after 2026-10-26T13:00:00Z, up to and
// including 2026-10-26T14:00:00Z".
func (r CrashRange) UTC() string {
	d := r.Describe(time.UTC)
	i := strings.Index(d, "(UTC: ")
	return strings.TrimSuffix(d[i+len("(UTC: "):], ")")
}

// localStamp is "Mon 2026-10-26 09:00:00 EDT", or "09:00:00 EDT" without
// the date.
func localStamp(t time.Time, loc *time.Location, date bool) string {
	t = t.In(loc)
	layout := "15:04:05 MST"
	if date {
		layout = "Mon 2006-01-02 15:04:05 MST"
	}
	s := t.Format(layout)
	if t.Nanosecond() != 0 {
		s = t.Format(layout[:len(layout)-4] + ".999999999 MST")
	}
	return s
}

// Crashes lists every range of instants in [from, from+horizon) at which
// the connector panics (see Evaluator.Panics), in order. Only an
// alternating schedule can crash; jitter and frequencies do not matter.
//
// The answer is exact, not sampled: the search depends on its starting
// instant only through the local date of that instant plus 0 to 7 UTC
// days, how it compares with the start clock on those dates, and the UTC
// dates it reaches. So whether it panics can change only at a UTC
// midnight, or at a local date change or a start-clock instant moved back
// by 0 to 8 whole days. Between two such instants it cannot change; the
// finder evaluates the search at each of them and once in each gap.
func Crashes(p *Parsed, from time.Time, horizon time.Duration) []CrashRange {
	if p == nil || !p.Alternating || p.Location == nil || horizon <= 0 {
		return nil
	}
	e := &Evaluator{Schedule: p}
	from = from.UTC()
	to := from.Add(horizon)
	points := breakpoints(e, from, to)

	var out []CrashRange
	var open *CrashRange
	mark := func(start, end time.Time, crash bool) {
		switch {
		case crash && open != nil && open.End.Equal(start):
			open.End = end
		case crash:
			out = append(out, CrashRange{start, end})
			open = &out[len(out)-1]
		default:
			open = nil
		}
	}
	for i, b := range points {
		if b.Before(from) || !b.Before(to) {
			continue
		}
		mark(b, b.Add(time.Nanosecond), e.Panics(b))
		next := to
		if i+1 < len(points) && points[i+1].Before(to) {
			next = points[i+1]
		}
		if gap := next.Sub(b); gap > time.Nanosecond {
			mid := b.Add(gap / 2)
			mark(b.Add(time.Nanosecond), next, e.Panics(mid))
		}
	}
	return out
}

// breakpoints lists, sorted and without repeats, the instants in [from,
// to] at which the connector's search may change its outcome, with from
// itself first.
func breakpoints(e *Evaluator, from, to time.Time) []time.Time {
	const day = 24 * time.Hour
	loc := e.Schedule.Location
	lo, hi := from.Add(-2*day), to.Add(9*day)
	var events []time.Time
	// UTC midnights.
	for t := from.Truncate(day).Add(-day); !t.After(hi); t = t.Add(day) {
		events = append(events, t)
	}
	// Local date changes: inside each span of constant offset the local
	// date changes where local time is midnight; a change of offset may
	// change it too.
	for t := lo; t.Before(hi); {
		_, off := t.In(loc).Zone()
		start, end := t.In(loc).ZoneBounds()
		if !start.IsZero() {
			events = append(events, start)
		}
		if end.IsZero() || end.After(hi) {
			end = hi
		}
		o := time.Duration(off) * time.Second
		for m := t.Add(o).Truncate(day).Add(-o); m.Before(end); m = m.Add(day) {
			if !m.Before(t) {
				events = append(events, m)
			}
		}
		if !end.After(t) {
			break
		}
		t = end
	}
	// Start clocks on each local date, as the connector builds them.
	y, m, d := lo.In(loc).Date()
	for k := 0; ; k++ {
		s := time.Date(y, m, d+k, e.Schedule.Start/60, e.Schedule.Start%60, 0, 0, loc)
		if s.After(hi) {
			break
		}
		events = append(events, s)
	}
	points := []time.Time{from}
	for _, ev := range events {
		for k := 0; k <= 8; k++ {
			b := ev.Add(-time.Duration(k) * day)
			if !b.Before(from) && !b.After(to) {
				points = append(points, b.UTC())
			}
		}
	}
	slices.SortFunc(points, func(a, b time.Time) int { return a.Compare(b) })
	return slices.CompactFunc(points, func(a, b time.Time) bool { return a.Equal(b) })
}

// CrashFinder answers Crashes for a fixed starting instant, once per
// schedule shape: the zone, the window and its days (frequencies and
// jitter do not matter). Safe for concurrent use.
type CrashFinder struct {
	From    time.Time
	Horizon time.Duration
	cache   sync.Map // crashKey -> []CrashRange
}

type crashKey struct {
	zone        string
	start, stop int
	days        [7]bool
}

// NewCrashFinder finds crashes in the CrashHorizon after from.
func NewCrashFinder(from time.Time) *CrashFinder {
	return &CrashFinder{From: from, Horizon: CrashHorizon}
}

// Find is Crashes(p, f.From, f.Horizon), remembered by shape.
func (f *CrashFinder) Find(p *Parsed) []CrashRange {
	if p == nil || !p.Alternating || p.Location == nil {
		return nil
	}
	k := crashKey{p.Location.String(), p.Start, p.Stop, p.Days}
	if p.Spec.Timezone != "" {
		k.zone = p.Spec.Timezone // "Local" and "UTC" are one zone; offsets are named by their text
	}
	if v, ok := f.cache.Load(k); ok {
		return v.([]CrashRange)
	}
	r := Crashes(p, f.From, f.Horizon)
	f.cache.Store(k, r)
	return r
}
