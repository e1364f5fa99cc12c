package census

import (
	"fmt"
	"math"
	"time"

	"github.com/estuary/schedtool/report"
)

// Projection by lane (docs/behaviour.md §8): the remaining tasks fall in
// lanes, one per row kind of what unblocks what (every image upgrade one
// lane) and a person's. The lane that needs no decision projects from
// its own pace; a decision's lane, and a person's, only once it moved in
// the history, else it waits on that decision. The whole gets a date
// only when every lane has one: a straight line over the total would
// promise a date that the lanes waiting on a decision never meet.

// Lanes are the lanes in the order the page lists them.
var Lanes = func() []string {
	var out []string
	for _, s := range DrySets {
		out = append(out, s.Kind)
	}
	return append(out, UnblockPerson)
}()

// LaneProjection is one lane's remaining tasks and when they reach zero.
type LaneProjection struct {
	Lane      string `json:"lane"`
	Remaining int    `json:"remaining"`
	// PerWeek is how many fewer tasks a week the lane had over the
	// window (0 when it did not fall, or without history).
	PerWeek float64 `json:"perWeek"`
	// ZeroAround is the day the lane reaches zero at that pace (the
	// census's own day when it is at zero), null when it does not move.
	ZeroAround *string `json:"zeroAround"`
	// Over is the window the pace is measured over ("" without history).
	Over string `json:"-"`
}

// Projection is the census's projection: each lane, and the whole.
type Projection struct {
	Lanes []LaneProjection `json:"lanes"`
	// ZeroAround is when every lane is at zero, null unless every lane
	// has a date.
	ZeroAround *string `json:"zeroAround"`
	// StallsAt is the count the remaining tasks stall at until the
	// decisions are made: the tasks of the lanes without a date.
	StallsAt int `json:"stallsAt"`
	// History is whether two censuses or more counted tasks by lane.
	History bool `json:"history"`
}

// lanesOf counts a census's remaining tasks per lane from what unblocks
// what; nil when the census made no dry runs.
func lanesOf(t *Totals) map[string]int {
	if t.unblocks == nil {
		return nil
	}
	m := map[string]int{}
	for _, u := range Unblocks(t) {
		m[u.Kind] += u.Tasks
	}
	return m
}

// laneDay is an instant as the day a projection names.
func laneDay(t time.Time) *string {
	s := t.UTC().Format("2006-01-02")
	return &s
}

// ProjectionOf projects a burndown's points (points: the history, then
// this census) by lane, this census taken at at; nil when it has no
// lanes (no dry runs).
func ProjectionOf(pts []Snapshot, t *Totals, at time.Time) *Projection {
	now := lanesOf(t)
	if now == nil {
		return nil
	}
	var lp []Snapshot // the points that count tasks by lane
	for _, p := range pts {
		if p.Lanes != nil {
			lp = append(lp, p)
		}
	}
	p := &Projection{History: len(lp) >= 2}
	var last, first Snapshot
	secs := 0.0
	if p.History {
		last, first = lp[len(lp)-1], lp[len(lp)-2]
		for i := len(lp) - 2; i >= 0; i-- {
			if last.At.Sub(lp[i].At) > projectionWindow {
				break
			}
			first = lp[i]
		}
		// In seconds, not a Duration: one saturates at 292 years, and a
		// history file may say any instant.
		secs = float64(last.At.Unix()-first.At.Unix()) + float64(last.At.Nanosecond()-first.At.Nanosecond())/1e9
		p.History = secs > 0
	}
	var latest time.Time
	dated := true
	for _, lane := range Lanes {
		l := LaneProjection{Lane: lane, Remaining: now[lane]}
		switch {
		case l.Remaining == 0:
			if !at.IsZero() {
				l.ZeroAround = laneDay(at) // at zero already
			}
			p.Lanes = append(p.Lanes, l)
			continue
		case p.History:
			l.Over = spanWords(time.Duration(min(secs, float64(math.MaxInt64/int64(time.Second))) * float64(time.Second)))
			fell := first.Lanes[lane] - last.Lanes[lane]
			if fell > 0 {
				perDay := float64(fell) / secs * 86400
				l.PerWeek = math.Round(perDay*7*10) / 10
				if days := float64(l.Remaining) / perDay; days <= 100*365 {
					z := last.At.Add(time.Duration(days * 24 * float64(time.Hour)))
					l.ZeroAround = laneDay(z)
					if z.After(latest) {
						latest = z
					}
				}
			}
		}
		if l.ZeroAround == nil {
			dated = false
			p.StallsAt += l.Remaining
		}
		p.Lanes = append(p.Lanes, l)
	}
	if dated && p.History {
		if latest.IsZero() {
			latest = last.At
		}
		p.ZeroAround = laneDay(latest)
	}
	return p
}

// laneName is a lane as the page names it.
var laneName = map[string]string{
	UnblockMigrate:       "No decision (migrate as it is)",
	UnblockZeroFileSinks: "--zero-file-sinks",
	UnblockRuntimeV2:     "--enable-runtime-v2",
	UnblockBoth:          "--zero-file-sinks with --enable-runtime-v2",
	UnblockResolve:       "--resolve",
	UnblockImageUpgrade:  "image upgrades",
	UnblockPerson:        "a person's review",
}

// waitsOn is what a lane that did not move waits on.
var waitsOn = map[string]string{
	UnblockMigrate:       "someone to run migrate --write and publish",
	UnblockZeroFileSinks: "the decision to set file sinks' interval to 0s",
	UnblockRuntimeV2:     "the decision to move V1 tasks to the V2 runtime",
	UnblockBoth:          "both decisions",
	UnblockResolve:       "the choice of which schedule stays",
	UnblockImageUpgrade:  "the image upgrades",
	UnblockPerson:        "a person's review of each task",
}

// Says is the projection of the whole in a sentence.
func (p *Projection) Says() string {
	total := 0
	for _, l := range p.Lanes {
		total += l.Remaining
	}
	switch {
	case total == 0:
		return "No task remains."
	case !p.History:
		return fmt.Sprintf("No projection yet: it needs two censuses that count tasks by lane (this one and a --history file from schedtool with lanes); %d %s remain.", total, report.Plural(total, "task", "tasks"))
	case p.ZeroAround != nil:
		return fmt.Sprintf("Every lane moves: zero around %s, when its slowest lane reaches zero.", *p.ZeroAround)
	case p.StallsAt == total:
		return fmt.Sprintf("No lane moves: the count stalls at %d until the decisions are made.", total)
	}
	return fmt.Sprintf("The count stalls at %d until the decisions are made: the lanes that move reach zero, the others wait.", p.StallsAt)
}

// LaneSays is one lane's projection in a sentence.
func (l *LaneProjection) LaneSays() string {
	name := laneName[l.Lane]
	n := fmt.Sprintf("%s: %d %s", name, l.Remaining, report.Plural(l.Remaining, "task", "tasks"))
	switch {
	case l.Remaining == 0:
		return n + "."
	case l.ZeroAround != nil:
		return fmt.Sprintf("%s, %s fewer a week over the last %s: zero around %s.", n, perWeek(l.PerWeek), l.Over, *l.ZeroAround)
	case l.Over == "":
		return n + "."
	case l.PerWeek > 0:
		return fmt.Sprintf("%s, %s fewer a week over the last %s: zero is more than a century away.", n, perWeek(l.PerWeek), l.Over)
	case l.Lane == UnblockMigrate:
		return fmt.Sprintf("%s, stalled over the last %s: waits on %s.", n, l.Over, waitsOn[l.Lane])
	}
	return fmt.Sprintf("%s, unmoved over the last %s: waits on %s.", n, l.Over, waitsOn[l.Lane])
}
