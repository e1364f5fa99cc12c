// Package verify checks a migration (docs/behaviour.md §7): it simulates the
// legacy connector schedule (jitter 0) and the model schedule that
// replaces it (seed 0) and compares the next commit instant after every
// minute of a horizon. Every difference is named by its cause, found by
// counterfactual: the connector's UTC-midnight quirk, or a window boundary
// in a DST gap or fold; anything else is reported as unexplained. Minutes
// at which the connector panics (its window-start search gives up) are
// their own cause: the legacy schedule makes no commit there at all.
package verify

import (
	"slices"
	"time"

	"github.com/estuary/schedtool/schedule/connector"
	"github.com/estuary/schedtool/schedule/model"
)

// Causes of a difference.
const (
	QuirkUTCMidnight = "utc-midnight-quirk" // docs/behaviour.md §4.3
	DSTBoundary      = "dst-boundary"       // a window boundary in a DST gap or fold
	ConnectorCrash   = "connector-crash"    // the connector panics there (docs/behaviour.md §4.3): no legacy commit
	Unexplained      = "unexplained"
)

// Mismatch is one minute whose next commits differ.
type Mismatch struct {
	At     time.Time
	Legacy time.Time
	Model  time.Time
	Cause  string
}

// Report is the comparison over a horizon.
type Report struct {
	Minutes    int
	Mismatches int
	ByCause    map[string]int
	// MaxDiff is the largest difference, first seen at MaxAt.
	MaxDiff time.Duration
	MaxAt   time.Time
	First   []Mismatch // the first mismatch of each cause
}

// Equivalent reports whether every difference has a known cause.
func (r *Report) Equivalent() bool { return r.ByCause[Unexplained] == 0 }

// Span is a part of the horizon.
type Span struct{ From, To time.Time }

// Horizon is the default horizon for a zone in a year: 14 days from the
// first Monday of the year, and 4 days around each of its DST transitions.
func Horizon(loc *time.Location, year int) []Span {
	start := time.Date(year, 1, 5, 0, 0, 0, 0, time.UTC)
	spans := []Span{{start, start.AddDate(0, 0, 14)}}
	for _, tr := range Transitions(loc, time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(year+1, 1, 1, 0, 0, 0, 0, time.UTC)) {
		spans = append(spans, Span{tr.Add(-48 * time.Hour), tr.Add(48 * time.Hour)})
	}
	return spans
}

// Transitions lists the instants in [from, to) at which loc's UTC offset
// changes (found hour by hour, then to the second).
func Transitions(loc *time.Location, from, to time.Time) []time.Time {
	var out []time.Time
	off := func(t time.Time) int { _, o := t.In(loc).Zone(); return o }
	for t := from; t.Before(to); t = t.Add(time.Hour) {
		if off(t) == off(t.Add(time.Hour)) {
			continue
		}
		lo, hi := t.Unix(), t.Add(time.Hour).Unix()
		for hi-lo > 1 {
			mid := lo + (hi-lo)/2
			if off(time.Unix(mid, 0)) == off(t) {
				lo = mid
			} else {
				hi = mid
			}
		}
		out = append(out, time.Unix(hi, 0).UTC())
	}
	return out
}

// CrashSpans are the minutes of the year (from its January 1, 366 days)
// at which the legacy schedule crashes the connector, as spans that
// cover each crash range, with an hour on either side.
func CrashSpans(legacy *connector.Parsed, year int) []Span {
	var out []Span
	for _, r := range connector.Crashes(legacy, time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC), connector.CrashHorizon) {
		out = append(out, Span{r.Start.Add(-time.Hour).Truncate(time.Minute), r.End.Add(time.Hour)})
	}
	return out
}

// Merge sorts spans and joins those that overlap or touch, so that no
// minute is compared twice.
func Merge(spans []Span) []Span {
	s := slices.Clone(spans)
	slices.SortFunc(s, func(a, b Span) int { return a.From.Compare(b.From) })
	var out []Span
	for _, sp := range s {
		if n := len(out); n > 0 && !sp.From.After(out[n-1].To) {
			if sp.To.After(out[n-1].To) {
				out[n-1].To = sp.To
			}
			continue
		}
		out = append(out, sp)
	}
	return out
}

// Compare runs the comparison over the spans, minute by minute.
func Compare(legacy *connector.Parsed, m *model.Schedule, spans []Span) Report {
	rep := Report{ByCause: map[string]int{}}
	plain := &connector.Evaluator{Schedule: legacy}
	local := &connector.Evaluator{Schedule: legacy, LocalMidnight: true}
	flow := &connector.Evaluator{Schedule: legacy, LocalMidnight: true, LocalTime: model.LocalInstant}
	seen := map[string]bool{}
	for _, sp := range spans {
		for t := sp.From.Truncate(time.Minute); t.Before(sp.To); t = t.Add(time.Minute) {
			rep.Minutes++
			want, ok := m.Next(t, 0)
			if !ok {
				want = t // no hold
			}
			if plain.Panics(t) {
				rep.Mismatches++
				rep.ByCause[ConnectorCrash]++
				if !seen[ConnectorCrash] {
					seen[ConnectorCrash] = true
					rep.First = append(rep.First, Mismatch{At: t, Model: want, Cause: ConnectorCrash})
				}
				continue
			}
			got := plain.Next(t)
			if got.Equal(want) {
				continue
			}
			cause := Unexplained
			switch {
			case local.Next(t).Equal(want):
				cause = QuirkUTCMidnight
			case flow.Next(t).Equal(want):
				cause = DSTBoundary
			}
			rep.Mismatches++
			rep.ByCause[cause]++
			if !seen[cause] {
				seen[cause] = true
				rep.First = append(rep.First, Mismatch{At: t, Legacy: got, Model: want, Cause: cause})
			}
			diff := got.Sub(want)
			if diff < 0 {
				diff = -diff
			}
			if diff > rep.MaxDiff {
				rep.MaxDiff, rep.MaxAt = diff, t
			}
		}
	}
	return rep
}
