// Package explain tells, for one materialization, who holds its commits:
// its runtime, both schedules, what sync-now collapses and what it cannot,
// the next commit instants, and the migration it would get.
package explain

import (
	"fmt"
	"strings"
	"time"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/jitter"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/schedule/connector"
	"github.com/estuary/schedtool/schedule/model"
)

// Commit is one upcoming commit instant.
type Commit struct {
	UTC   string `json:"utc"`
	Local string `json:"local"`
}

// Explanation is what explain says about a task.
type Explanation struct {
	Task      string `json:"task"`
	File      string `json:"file"`
	Runtime   string `json:"runtime"`
	Disabled  bool   `json:"disabled"` // shards.disable: paces again when enabled
	Image     string `json:"image"`
	Model     string `json:"modelSchedule"`     // "" when none
	Connector string `json:"connectorSchedule"` // its kind
	Delay     string `json:"connectorDelay"`    // longest delay, or "unknown"
	Holds     string `json:"holds"`             // Holder's text: runtime, connector, both (stacked), none
	// Holder is who holds commits, as plan decided it (Holds says it);
	// DelayUnknown, whether the connector's delay cannot be known (Delay
	// then says "unknown").
	Holder       plan.Holder `json:"-"`
	DelayUnknown bool        `json:"-"`
	// Action is what migrate does, as plan decided it (Migration says
	// it).
	Action  plan.Action `json:"-"`
	SyncNow string      `json:"syncNow"`
	Zone    string      `json:"zone"`
	Next    []Commit    `json:"next"`
	// Crash says when the connector's schedule makes it panic within 366
	// days of the explained instant (docs/behaviour.md §4.3); CrashStops, when
	// the listed commits run into it: the connector makes no commit after
	// the last one listed, it panics computing the next.
	Crash      string `json:"connectorCrash,omitempty"`
	CrashStops string `json:"crashStops,omitempty"`
	// ConnectorError is, for a config the connector refuses (kind
	// invalid), the connector's own error and its fix: its delay is
	// unknown, and no flag of migrate's moves it (docs/behaviour.md §8).
	ConnectorError string `json:"connectorError,omitempty"`
	Migration      string `json:"migration"`
	Situation      string `json:"situation"`

	// Status is the task's census status (docs/behaviour.md §8), "" when
	// the image is not a scheduling image: the same decision census,
	// validate and migrate take.
	Status string `json:"status,omitempty"`
	// Deferred, when set, says that the connector's configured delay is
	// off: its image tag defers to the runtime's schedule (docs/behaviour.md §6).
	Deferred string `json:"connectorDeferred,omitempty"`
	// Secrets name the secrets Flow merges over the connector's schedule
	// at task start (docs/behaviour.md §4.5), which make it unknown.
	Secrets string `json:"connectorSecrets,omitempty"`
	// Preview names migrate's decision flags the migration is previewed
	// with ("" without any).
	Preview string `json:"preview,omitempty"`
	// OtherDefinitions are the explanations of the task's other
	// definitions, when its name is defined in several catalogs
	// (docs/behaviour.md §2), each read as itself.
	OtherDefinitions []Explanation `json:"otherDefinitions,omitempty"`
}

// Explain explains m, with the next n commits after at.
func Explain(m *catalog.Materialization, p *plan.Planner, at time.Time, n int) Explanation {
	d := p.Decide(m)
	e := Explanation{Task: m.Name, File: m.Source.Name(), Runtime: "v1", Image: m.Image, Situation: string(d.Situation), Status: string(d.Status), Disabled: m.Disabled()}
	if d.V2 {
		e.Runtime = "v2"
	}
	// Who holds commits, and the connector's delay, are the task's one
	// decision (docs/behaviour.md §6, §8): its working model schedule on
	// the V2 runtime, and the connector's effective delay.
	sched := d.Schedule
	if sched != nil {
		e.Model = specOf(sched)
	} else if d.HasModel {
		e.Model = "(invalid)"
	}
	runtime := d.RuntimePaces()
	var conn *connector.Evaluator
	e.Connector, e.Delay, e.DelayUnknown = d.ConnectorText(), d.DelayText(), d.DelayUnknown()
	e.Holder = d.Holds()
	e.Holds = e.Holder.String()
	if d.Entry != nil {
		if d.Result.Kind == connector.KindInvalid {
			e.ConnectorError = InvalidConfigText(d.Result)
		}
		if d.Deferred {
			e.Deferred = DeferredText(d.Tag)
		}
		conn = connectorEvaluator(m, d)
		if len(d.Secrets) > 0 {
			names := make([]string, len(d.Secrets))
			for i, c := range d.Secrets {
				names[i] = c.Describe()
			}
			e.Secrets = strings.Join(names, "; ") + ": Flow merges its value there at task start, so the connector's schedule is unknown"
		}
	}
	switch e.Holder {
	case plan.HoldsUnknown:
		e.SyncNow = "whether anything holds commits is unknown: the local connector may delay its acknowledgements, and schedtool cannot read what it does"
	case plan.HoldsRuntimeAndLocal:
		e.SyncNow = "sync-now collapses the runtime's hold; whether the local connector delays acknowledgements is unknown"
	case plan.HoldsBoth:
		e.SyncNow = "sync-now collapses the runtime's hold, but the connector can still delay the acknowledgement by up to " + e.Delay
	case plan.HoldsRuntime:
		e.SyncNow = "sync-now collapses the runtime's hold: the commit happens at once"
	case plan.HoldsConnector:
		upTo := "by up to " + e.Delay
		if e.DelayUnknown {
			upTo = "for as long as its schedule says, which schedtool cannot read"
		}
		e.SyncNow = "sync-now has nothing to collapse: the connector delays each acknowledgement " + upTo + ", out of the runtime's reach"
	default:
		e.SyncNow = "nothing holds commits: they happen as fast as the data allows"
		if d.Status == plan.StatusBlockedV1 {
			e.SyncNow += " (blocked-v1: the V1 runtime ignores the materialization syncSchedule; migrate --enable-runtime-v2 moves the task to the V2 runtime, where it paces commits)"
		}
	}
	loc := time.UTC
	if sched != nil {
		loc = sched.Location()
	} else if conn != nil && conn.Schedule.Location != nil {
		loc = conn.Schedule.Location
	}
	e.Zone = loc.String()
	if conn != nil && len(d.Crashes) > 0 {
		e.Crash = "the connector panics when its last commit acknowledgement is " + d.Crashes[0].Describe(conn.Schedule.Location) +
			": its search for the next fast-window start looks only 7 days ahead; the task crash-loops until the clock is past that range, and migrating removes the crash"
		if len(d.Crashes) > 1 {
			e.Crash += fmt.Sprintf(" (the first of %d such ranges in the next 366 days)", len(d.Crashes))
		}
	}
	j := jitter.Runtime(jitter.RuntimeSeed(m.Name))
	t := at.UTC()
	for i := 0; i < n && e.Holder != plan.HoldsNone; i++ {
		if conn != nil && conn.Panics(t) {
			last := "the explained instant " + t.Format(time.RFC3339)
			if len(e.Next) > 0 {
				last = "the commit at " + e.Next[len(e.Next)-1].UTC
			}
			e.CrashStops = "after " + last + " the connector panics computing its next acknowledgement: no further commit until the clock is past the crash range"
			break
		}
		next := t
		if runtime {
			if r, ok := sched.Next(t, j); ok {
				next = r
			}
		}
		if conn != nil {
			if c := conn.Next(t); c.After(next) {
				next = c
			}
		}
		if !next.After(t) {
			break // no hold: as fast as possible
		}
		e.Next = append(e.Next, Commit{UTC: next.UTC().Format(time.RFC3339), Local: next.In(loc).Format(time.RFC3339)})
		t = next
	}
	e.Preview = previewOf(p.Options)
	e.Action, e.Migration = d.Action, d.Describe()
	if d.Reason != "" {
		e.Migration += " (" + d.Reason + ")"
	}
	return e
}

// DeferredText says why a connector configured to delay does not: its
// image tag defers to the runtime's schedule.
func DeferredText(tag string) string {
	return "off: image tag " + tag + " defers the connector's delay to the runtime's schedule"
}

// connectorEvaluator evaluates m's connector schedule as configured,
// with its jitter; nil when the connector does not delay (or its delay
// is unknown).
func connectorEvaluator(m *catalog.Materialization, d plan.Decision) *connector.Evaluator {
	if d.Entry == nil || !d.DelayKnown || d.Delay <= 0 {
		return nil
	}
	ps := d.Result.Schedule
	if ps == nil || d.Result.Kind == connector.KindUpdateDelay || d.Result.Kind == connector.KindFileInterval {
		ps = &connector.Parsed{Frequency: d.Result.Interval}
	}
	conn := &connector.Evaluator{Schedule: ps}
	if m.Config != nil && m.Config.Err == "" {
		if seed, ok := jitter.Seed(d.Entry, m.Config.Value()); ok {
			conn.Jitter = jitter.Connector(seed)
		}
	}
	return conn
}

func specOf(s *model.Schedule) string {
	spec := model.Spec{BaseInterval: model.FormatDuration(s.BaseInterval), Timezone: s.Timezone}
	for _, w := range s.Windows {
		ws := model.WindowSpec{Interval: model.FormatDuration(w.Interval), Start: w.Start.String(), End: w.End.String()}
		for _, d := range w.Days {
			ws.Days = append(ws.Days, model.DayName(d))
		}
		spec.Windows = append(spec.Windows, ws)
	}
	return spec.String()
}

// previewOf says which of migrate's decision flags a migration is
// previewed with, or "".
func previewOf(o plan.Options) string {
	var flags []string
	if o.EnableRuntimeV2 {
		flags = append(flags, "--enable-runtime-v2")
	}
	if o.ZeroFileSinks {
		flags = append(flags, "--zero-file-sinks")
	}
	if o.Resolve != "" {
		flags = append(flags, "--resolve="+o.Resolve)
	}
	if o.Absent == "drop" {
		flags = append(flags, "--absent=drop")
	}
	if len(flags) == 0 {
		return ""
	}
	return "Preview: the migration schedtool migrate " + strings.Join(flags, " ") + " would give this task."
}

// InvalidConfigText is the connector's own error for a config it refuses,
// and the fix: a person's, whatever migrate's flags.
func InvalidConfigText(res connector.Result) string {
	msg := "the connector refuses its config"
	for _, p := range res.Problems {
		if p.Kind == connector.ProblemInvalid {
			msg += ": " + p.Msg
			break
		}
	}
	return msg + "; its delay is unknown until the config is fixed (what the connector accepts: schedtool validate names the rule and the fix), and no flag of migrate's moves the task before then"
}
