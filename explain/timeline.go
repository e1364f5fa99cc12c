package explain

import (
	"fmt"
	"time"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/internal/words"
	"github.com/estuary/schedtool/jitter"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/schedule/connector"
	"github.com/estuary/schedtool/schedule/model"
	"github.com/estuary/schedtool/verify"
)

// Timeline is one task over a span of days, for explain -o html and -o
// svg: the connector's acknowledgements as configured today, the
// runtime's commits under the model schedule the task has or migrate
// would write, the fast windows of each, the DST transitions, and the
// instants at which the connector panics.
type Timeline struct {
	Explanation
	From, To time.Time
	Loc      *time.Location
	// Acks are the connector's acknowledgements, one after another from
	// From, each the schedule's next tick after the previous (docs/behaviour.md
	// §4.3); none when the connector does not pace. AcksStop is
	// where the chain stops because the connector panics (zero if not).
	Acks      []time.Time
	AcksStop  time.Time
	ConnFast  []Span // the connector's fast windows
	Crashes   []Span // last acknowledgements at which the connector panics
	ModelFrom string // "task": its own schedule; "migrate": the one migrate writes; "": none
	ModelSpec string
	Commits   []time.Time // the runtime's commits under that schedule
	ModelFast []Span      // its windows (any regime other than the base)
	DST       []time.Time
	// Verdict is the verify package's comparison of the connector
	// schedule with the model one over migrate --verify's horizon for
	// From's year and the timeline's own days; nil when there is nothing
	// to compare.
	Verdict *verify.Report
	// LongestWait is the longest wait sync-now cannot collapse: the
	// connector's, whoever else holds (0: none).
	LongestWait time.Duration
}

// Span is a part of the timeline, [From, To).
type Span struct{ From, To time.Time }

// MaxTimelineDays bounds --days: a timeline is for looking at.
const MaxTimelineDays = 62

// TimelineOf draws m from `from` over days days.
func TimelineOf(m *catalog.Materialization, p *plan.Planner, from time.Time, days int) Timeline {
	from = from.UTC()
	tl := Timeline{Explanation: Explain(m, p, from, 10), From: from, To: from.AddDate(0, 0, days)}
	d := p.Decide(m)
	sched := d.Schedule
	tl.ModelFrom = "task"
	if sched == nil && d.Model != nil {
		if s, err := model.Decode(d.Model.Value()); err == nil {
			sched, tl.ModelFrom = s, "migrate"
		}
	}
	if sched == nil {
		tl.ModelFrom = ""
	}
	conn := connectorEvaluator(m, d)
	tl.Loc = time.UTC
	switch {
	case sched != nil:
		tl.Loc = sched.Location()
	case conn != nil && conn.Schedule.Location != nil:
		tl.Loc = conn.Schedule.Location
	}
	if conn != nil {
		tl.LongestWait = d.Delay
		tl.Acks, tl.AcksStop = chain(tl.From, tl.To, func(t time.Time) (time.Time, bool) {
			if conn.Panics(t) {
				return time.Time{}, false
			}
			return conn.Next(t), true
		})
		if conn.Schedule.Alternating {
			tl.ConnFast = spansWhere(tl.From, tl.To, conn.InFastWindow)
			for _, r := range connector.Crashes(conn.Schedule, tl.From, tl.To.Sub(tl.From)) {
				tl.Crashes = append(tl.Crashes, Span{r.Start, r.End})
			}
		}
	}
	if sched != nil {
		tl.ModelSpec = specOf(sched)
		j := jitter.Runtime(jitter.RuntimeSeed(m.Name))
		tl.Commits, _ = chain(tl.From, tl.To, func(t time.Time) (time.Time, bool) {
			n, ok := sched.Next(t, j)
			return n, ok && n.After(t)
		})
		loc := sched.Location()
		tl.ModelFast = spansWhere(tl.From, tl.To, func(t time.Time) bool { _, w := sched.Regime(t, loc); return w >= 0 })
	}
	tl.DST = verify.Transitions(tl.Loc, tl.From, tl.To)
	if conn != nil && sched != nil {
		legacy := conn.Schedule
		spans := append(verify.Horizon(tl.Loc, tl.From.Year()), verify.Span{From: tl.From, To: tl.To})
		if legacy.Alternating {
			spans = append(spans, verify.CrashSpans(legacy, tl.From.Year())...)
		}
		rep := verify.Compare(legacy, sched, verify.Merge(spans))
		tl.Verdict = &rep
	}
	return tl
}

// maxMarks bounds the instants of a lane (a 1s schedule over 62 days
// would be millions).
const maxMarks = 20000

// chain follows next from from until past to; stop is where next gave
// up (the zero time when it never did).
func chain(from, to time.Time, next func(time.Time) (time.Time, bool)) (out []time.Time, stop time.Time) {
	for t := from; ; {
		n, ok := next(t)
		if !ok {
			return out, t
		}
		if n.After(to) || !n.After(t) || len(out) >= maxMarks {
			return out, time.Time{}
		}
		out = append(out, n)
		t = n
	}
}

// spansWhere are the runs of minutes in [from, to) where in holds.
func spansWhere(from, to time.Time, in func(time.Time) bool) []Span {
	var out []Span
	on := false
	for t := from.Truncate(time.Minute); t.Before(to); t = t.Add(time.Minute) {
		v := in(t)
		switch {
		case v && !on:
			out = append(out, Span{From: t})
		case !v && on:
			out[len(out)-1].To = t
		}
		on = v
	}
	if on {
		out[len(out)-1].To = to
	}
	return out
}

// Caption says, in sentences: who holds commits, the longest wait
// sync-now cannot collapse, and whether the migration is equivalent.
func (tl *Timeline) Caption() []string {
	lines := []string{"Who holds commits: " + tl.Holds + ". " + tl.SyncNow + "."}
	switch {
	case tl.DelayUnknown:
		lines = append(lines, "The longest wait sync-now cannot collapse: unknown (the connector's delay cannot be known).")
	case tl.LongestWait > 0:
		lines = append(lines, "The longest wait sync-now cannot collapse: "+connector.FormatDelay(tl.LongestWait)+", the connector's; after migrating, none.")
	default:
		lines = append(lines, "The longest wait sync-now cannot collapse: none.")
	}
	switch {
	case tl.Verdict == nil && tl.ModelFrom == "":
		lines = append(lines, "Migration: "+tl.Migration+".")
	case tl.Verdict == nil:
		lines = append(lines, "Migration: nothing to compare (the connector does not pace this task).")
	case tl.Verdict.Equivalent() && tl.Verdict.Mismatches == 0:
		lines = append(lines, fmt.Sprintf("Migration equivalent: the runtime commits when the connector acknowledged, at every one of %d minutes compared (migrate --verify's horizon and these days).", tl.Verdict.Minutes))
	case tl.Verdict.Equivalent():
		lines = append(lines, fmt.Sprintf("Migration equivalent: %d of %d minutes %s, every one for a known cause (%s).", tl.Verdict.Mismatches, tl.Verdict.Minutes, words.Plural(tl.Verdict.Mismatches, "differs", "differ"), causes(tl.Verdict)))
	default:
		lines = append(lines, fmt.Sprintf("Migration NOT equivalent: %d of %d minutes %s (%s); the largest difference is %s, first at %s.",
			tl.Verdict.Mismatches, tl.Verdict.Minutes, words.Plural(tl.Verdict.Mismatches, "differs", "differ"), causes(tl.Verdict), model.FormatDuration(tl.Verdict.MaxDiff), tl.Verdict.MaxAt.UTC().Format(time.RFC3339)))
	}
	if tl.Crash != "" {
		lines = append(lines, "Connector crash: "+tl.Crash+".")
	}
	return lines
}

func causes(r *verify.Report) string {
	s := ""
	for _, c := range []string{verify.ConnectorCrash, verify.DSTBoundary, verify.QuirkUTCMidnight, verify.Unexplained} {
		if n := r.ByCause[c]; n > 0 {
			if s != "" {
				s += ", "
			}
			s += fmt.Sprintf("%s: %d", c, n)
		}
	}
	return s
}
