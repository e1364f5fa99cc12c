// Package plan decides, for one materialization, what migrating its
// connector schedule into the runtime means (docs/behaviour.md §7): the situation,
// the action, the model schedule to write and the connector change. It
// decides only; migrate edits files, census counts, explain tells.
package plan

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/schedule/connector"
	"github.com/estuary/schedtool/schedule/model"
)

// Situation is a row of the docs/behaviour.md §7 table.
type Situation string

const (
	NotScheduling Situation = "not-scheduling" // not a scheduling image
	NoDelay       Situation = "no-delay"       // zero delay, no model schedule
	Migrated      Situation = "migrated"       // model schedule, zero connector delay
	BlockedV1     Situation = "blocked-v1"     // V1 task with a connector delay
	Fixed         Situation = "fixed"          // V2, fixed syncFrequency > 0
	Default       Situation = "default"        // V2, syncSchedule absent or empty (30m)
	Alternating   Situation = "alternating"    // V2, alternating schedule
	UpdateDelay   Situation = "update-delay"   // V2, legacy advanced.updateDelay
	FileInterval  Situation = "file-interval"  // V2, file sink interval > 0
	Stacked       Situation = "stacked"        // model schedule and an unconfigured delay (30m default, file sink)
	Conflict      Situation = "conflict"       // model schedule and a configured connector schedule
	Unconvertible Situation = "not-convertible"
)

// Action is what migrate does.
type Action string

const (
	None    Action = "none"    // nothing to do
	Migrate Action = "migrate" // edits below
	Skip    Action = "skip"    // left alone on purpose (blocked-v1)
	Review  Action = "review"  // a person must decide; Reason says why
)

// Options are migrate's choices (docs/behaviour.md §7).
type Options struct {
	Absent        string // "preserve" (default) or "drop"
	Resolve       string // "", "model" or "connector"
	ZeroFileSinks bool
	// EnableRuntimeV2 plans a V1 task with a connector delay as a V2 one,
	// and moves it to the V2 runtime in the same change (docs/behaviour.md §7).
	EnableRuntimeV2 bool
}

// Decision is the plan of one materialization.
type Decision struct {
	Situation Situation
	Action    Action
	Reason    string // why Review or Skip, or a note

	// Model is the model schedule to write (nil: leave the model as it is).
	Model *model.Spec
	// ReplaceModel: Model replaces an existing model schedule.
	ReplaceModel bool
	// ZeroConnector: set the connector to its sanctioned off state
	// (syncSchedule {syncFrequency: "0s"}, or the file-sink zero).
	ZeroConnector bool
	// RemoveUpdateDelay: delete advanced.updateDelay.
	RemoveUpdateDelay bool
	// EnableRuntimeV2: set shards.flags.enable-runtime-v2: "true" (a V1
	// task moved to the V2 runtime with its schedule, --enable-runtime-v2).
	EnableRuntimeV2 bool

	V2       bool
	HasModel bool
	Entry    *connector.Entry // nil when not a scheduling image
	Tag      string
	Result   connector.Result
	// Crashes are the ranges of last acknowledgements at which the
	// connector's alternating schedule panics (docs/behaviour.md §4.3), within
	// the Planner's crash horizon; a migration removes them.
	Crashes []connector.CrashRange
}

// Planner decides with one registry.
type Planner struct {
	Registry *connector.Registry
	Options  Options
	// Crashes, if set, finds where an alternating connector schedule
	// panics (Decision.Crashes).
	Crashes *connector.CrashFinder
}

// Decide plans one materialization.
func (p *Planner) Decide(m *catalog.Materialization) Decision {
	d := p.decide(m)
	if p.Crashes != nil && d.Result.Schedule != nil {
		d.Crashes = p.Crashes.Find(d.Result.Schedule)
	}
	if d.Action == Migrate {
		// Flow refuses the spec as it is: a migration would be refused
		// too, or would paper over a value nobody has decided (flags: "x").
		// The runtime flag's own value is what --enable-runtime-v2 writes.
		for _, sp := range m.SpecProblems() {
			if d.EnableRuntimeV2 && sp.RuntimeFlag() {
				continue
			}
			d.review("Flow refuses the spec as it is (" + sp.Describe() + "); fix that first")
			return d
		}
	}
	if d.Action == Migrate && (d.ZeroConnector || d.RemoveUpdateDelay) && len(d.Result.KeyVariants) > 0 {
		// The connector reads keys case-insensitively: writing the
		// sanctioned spelling beside another would merge the two.
		d.review("the connector config spells its schedule keys differently (" + strings.Join(d.Result.KeyVariants, ", ") + "), which the connector reads case-insensitively; rename them to their documented spelling first")
	}
	return d
}

// review turns a migration into a task for a person, for reason: nothing
// of the migration is left to write.
func (d *Decision) review(reason string) {
	d.Action, d.Model, d.ZeroConnector, d.RemoveUpdateDelay, d.ReplaceModel, d.EnableRuntimeV2 = Review, nil, false, false, false, false
	d.Reason = reason
}

func (p *Planner) decide(m *catalog.Materialization) Decision {
	v2, _ := m.V2()
	d := Decision{V2: v2, HasModel: m.ModelSchedule() != nil}
	d.Entry, d.Tag, d.Result = m.ConnectorSchedule(p.Registry)
	if d.Entry == nil {
		d.Situation, d.Action = NotScheduling, None
		return d
	}
	res := d.Result
	zero := res.Known && res.Delay == 0
	if !v2 && !zero && p.Options.EnableRuntimeV2 {
		// The operator opts in: plan it as the V2 task it is to become.
		d.V2, v2 = true, true
		d = p.decideV2(d, m, res, zero)
		d.V2 = false
		if d.Action == Migrate {
			d.EnableRuntimeV2 = true
		}
		return d
	}
	return p.decideV2(d, m, res, zero)
}

// decideV2 decides the rows of the table after blocked-v1.
func (p *Planner) decideV2(d Decision, m *catalog.Materialization, res connector.Result, zero bool) Decision {
	v2 := d.V2
	// The order is census's (docs/behaviour.md §8): the first that applies.
	switch {
	case !v2 && !zero:
		d.Situation, d.Action = BlockedV1, Skip
		d.Reason = "a V1 task: a materialization syncSchedule would be rejected; move the task to the V2 runtime first"
		return d
	case d.HasModel && res.Configured && d.Entry.Family == connector.FamilySyncSchedule:
		return p.conflict(d, m)
	case zero && d.HasModel:
		d.Situation, d.Action = Migrated, None
		return d
	case zero:
		d.Situation, d.Action = NoDelay, None
		return d
	case d.HasModel && res.Known:
		// A model schedule and a delay that is not configured (the 30m
		// default) or does not conflict (a file-sink interval).
		d.Situation = Stacked
		if res.Family == connector.FamilySyncSchedule || p.Options.ZeroFileSinks {
			d.Action, d.ZeroConnector = Migrate, true
			return d
		}
		d.Action, d.Reason = Skip, FileSinkStackedNote
		return d
	}
	if reason := unconvertible(res, m); reason != "" {
		d.Situation, d.Action, d.Reason = Unconvertible, Review, reason
		return d
	}
	return p.convert(d, p.intervalText(m, d))
}

// intervalText is the connector's interval as the user wrote it (a file
// sink's interval or advanced.updateDelay), or "": the model duration
// keeps it when it already fits Flow's schema.
func (p *Planner) intervalText(m *catalog.Materialization, d Decision) string {
	res := d.Result
	if res.Kind != connector.KindUpdateDelay && res.Kind != connector.KindFileInterval || m.Config == nil || res.Pointer == "" {
		return ""
	}
	n := m.Config.Effective
	for _, tok := range connector.PointerTokens(res.Pointer) {
		if n == nil {
			return ""
		}
		n = n.Get(tok)
	}
	s, _ := n.Str()
	return s
}

// unconvertible says why a connector schedule cannot be moved, or "".
func unconvertible(res connector.Result, m *catalog.Materialization) string {
	switch {
	case res.Kind == connector.KindSealed:
		return "the connector schedule is encrypted (sops) and no sops.overlay gives it in plaintext: its value is unknown"
	case res.Kind == connector.KindInvalid:
		msg := "the connector schedule is invalid"
		for _, pr := range res.Problems {
			if pr.Kind == connector.ProblemInvalid {
				return msg + ": " + pr.Msg
			}
		}
		return msg
	}
	return ""
}

// convert plans a V2 task without a model schedule whose connector delays.
// Every duration it writes fits Flow's published schema (^\d+(s|m|h|d)$);
// the user's own text is kept when it fits and means the same (text is
// the interval's text for a file sink or an update delay).
func (p *Planner) convert(d Decision, text string) Decision {
	res := d.Result
	d.Action = Migrate
	switch res.Kind {
	case connector.KindDefault:
		d.Situation, d.ZeroConnector = Default, true
		if p.Options.Absent != "drop" {
			d.Model = &model.Spec{BaseInterval: model.FormatDuration(connector.DefaultFrequency)}
		}
	case connector.KindFixed:
		d.Situation, d.ZeroConnector = Fixed, true
		d.Model = &model.Spec{BaseInterval: model.WriteDuration(res.Schedule.Frequency, res.Schedule.Spec.SyncFrequency)}
	case connector.KindAlternating:
		d.Situation, d.ZeroConnector = Alternating, true
		d.Model = AlternatingModel(res.Schedule)
		if res.Schedule.Spec.Timezone == "Local" {
			d.Reason = LocalNote
		}
	case connector.KindUpdateDelay:
		d.Situation = UpdateDelay
		d.Model = &model.Spec{BaseInterval: model.WriteDuration(res.Interval, text)}
		if d.Entry.AcceptsSyncSchedule(d.Tag) {
			d.RemoveUpdateDelay, d.ZeroConnector = true, true
		} else {
			d.Action = Review
			d.Reason = fmt.Sprintf("image tag %q takes only advanced.updateDelay (syncSchedule arrived in %s): removing the delay needs an image upgrade first", d.Tag, d.Entry.UpdateDelayBefore)
			d.Model = nil
		}
	case connector.KindFileInterval:
		d.Situation = FileInterval
		d.Model = &model.Spec{BaseInterval: model.WriteDuration(res.Interval, text)}
		d.ZeroConnector = true
		if d = p.check(d); d.Action == Migrate && !p.Options.ZeroFileSinks {
			// The model schedule alone would stack on the interval the
			// connector requires: the sink is left as it is.
			d.Action, d.Model, d.ZeroConnector, d.Reason = Skip, nil, false, FileSinkNote
		}
		return d
	default:
		d.Situation, d.Action = Unconvertible, Review
		d.Reason = "no conversion for a connector schedule of kind " + string(res.Kind)
		return d
	}
	return p.check(d)
}

// verdicts remembers check's answers by schedule text: a dump converts
// the same few schedules over and over.
var verdicts sync.Map // string -> error (nil: valid)

// check validates the model schedule to write as Flow would.
func (p *Planner) check(d Decision) Decision {
	if d.Model == nil {
		return d
	}
	key := d.Model.String()
	var err error
	if v, ok := verdicts.Load(key); ok {
		err, _ = v.(error)
	} else {
		s, derr := model.Decode(d.Model.Value())
		if err = derr; err == nil {
			err = s.Validate()
		}
		verdicts.Store(key, err)
	}
	if err != nil {
		d.Situation, d.Action, d.Model = Unconvertible, Review, nil
		d.ZeroConnector, d.RemoveUpdateDelay = false, false
		d.Reason = "the converted schedule is not one Flow accepts: " + err.Error()
	}
	return d
}

func (p *Planner) conflict(d Decision, m *catalog.Materialization) Decision {
	d.Situation = Conflict
	switch p.Options.Resolve {
	case "model":
		d.Action, d.ZeroConnector = Migrate, true
		d.RemoveUpdateDelay = d.Result.Kind == connector.KindUpdateDelay && d.Entry.AcceptsSyncSchedule(d.Tag)
		d.Reason = "--resolve=model: the materialization schedule stays, the connector's is zeroed"
		if d.Result.Kind == connector.KindUpdateDelay && !d.RemoveUpdateDelay {
			d.Action, d.ZeroConnector = Review, false
			d.Reason = "--resolve=model, but this image tag takes only advanced.updateDelay: upgrade the image first"
		}
		return d
	case "connector":
		if reason := unconvertible(d.Result, m); reason != "" {
			d.Action, d.Reason = Review, "--resolve=connector, but "+reason
			return d
		}
		c := p.convert(Decision{V2: d.V2, HasModel: true, Entry: d.Entry, Tag: d.Tag, Result: d.Result}, p.intervalText(m, d))
		c.Situation, c.ReplaceModel, c.HasModel = Conflict, c.Model != nil, true
		if c.Action == Migrate {
			c.Reason = "--resolve=connector: the connector's schedule replaces the materialization schedule"
		}
		return c
	}
	if p.agrees(d, m) {
		// The model schedule is the connector's, converted: a migration
		// stopped between its two files (the model written first, so the
		// task stayed paced). Both --resolve choices give the same result.
		d.Action, d.ZeroConnector = Migrate, true
		d.RemoveUpdateDelay = d.Result.Kind == connector.KindUpdateDelay
		d.Reason = FinishNote
		return d
	}
	d.Action = Review
	d.Reason = "both a materialization syncSchedule and a configured connector schedule (the build rejects this); choose with --resolve=model or --resolve=connector"
	return d
}

// FileSinkNote is why a file sink is skipped without --zero-file-sinks:
// a model schedule added while the interval its connector requires stays
// would stack the two, the state migrate removes (docs/behaviour.md §7).
const FileSinkNote = "a file sink: a materialization syncSchedule beside the interval its connector requires would stack the two; --zero-file-sinks writes the schedule and sets the interval to 0s (outside its published values) in one change"

// FileSinkStackedNote is why a file sink already stacked is skipped
// without --zero-file-sinks.
const FileSinkStackedNote = "a file sink whose interval stacks on its materialization syncSchedule: --zero-file-sinks sets the interval to 0s (outside its published values)"

// NeedsZeroFileSinks reports whether a task was skipped for want of
// --zero-file-sinks (a reason of FileSinkNote or FileSinkStackedNote).
func NeedsZeroFileSinks(action Action, reason string) bool {
	return action == Skip && (reason == FileSinkNote || reason == FileSinkStackedNote)
}

// FinishNote explains a conflict that migrate finishes on its own.
const FinishNote = "the materialization syncSchedule already equals the connector's, converted (a migration that stopped half way): the connector's is zeroed"

// agrees reports whether the task's model schedule means exactly what the
// conversion of its connector schedule would write.
func (p *Planner) agrees(d Decision, m *catalog.Materialization) bool {
	if unconvertible(d.Result, m) != "" {
		return false
	}
	c := p.convert(Decision{V2: d.V2, Entry: d.Entry, Tag: d.Tag, Result: d.Result}, p.intervalText(m, d))
	if c.Action != Migrate || c.Model == nil || (d.Result.Kind == connector.KindUpdateDelay && !c.RemoveUpdateDelay) {
		return false
	}
	want, err := model.Decode(c.Model.Value())
	if err != nil {
		return false
	}
	have, err := model.Decode(m.ModelSchedule().Interface(nil))
	if err != nil {
		return false
	}
	return sameSchedule(want, have)
}

// sameSchedule compares two decoded schedules by meaning: durations,
// timezone, and per window its interval, clocks and enabled days.
func sameSchedule(a, b *model.Schedule) bool {
	if a.BaseInterval != b.BaseInterval || a.Timezone != b.Timezone || len(a.Windows) != len(b.Windows) {
		return false
	}
	for i, w := range a.Windows {
		v := b.Windows[i]
		if w.Interval != v.Interval || w.Start != v.Start || w.End != v.End || w.EnabledDays() != v.EnabledDays() {
			return false
		}
	}
	return true
}

// AlternatingModel maps an alternating connector schedule (docs/behaviour.md §7):
// 4h outside one window of the fast frequency, days Sunday first.
func AlternatingModel(s *connector.Parsed) *model.Spec {
	w := model.WindowSpec{
		Interval: model.WriteDuration(max(s.Frequency, 0), s.Spec.SyncFrequency),
		Start:    model.Clock(s.Start).String(),
		End:      model.Clock(s.Stop).String(),
	}
	if s.Spec.FastSyncEnabledDays != "" {
		for d := 0; d < 7; d++ {
			if s.Days[d] {
				w.Days = append(w.Days, model.DayName(time.Weekday(d)))
			}
		}
	}
	tz := s.Spec.Timezone
	if tz == "Local" {
		tz = "UTC" // the connector container's zone
	}
	return &model.Spec{BaseInterval: model.FormatDuration(connector.SlowFrequency), Timezone: tz, Windows: []model.WindowSpec{w}}
}

// LocalNote explains the timezone written for a connector schedule in
// Local.
const LocalNote = "the connector's timezone Local is its container's zone, which is UTC: the materialization schedule says timezone: UTC"

// Describe is a one-line account of a decision.
func (d Decision) Describe() string {
	var parts []string
	if d.Model != nil {
		verb := "write"
		if d.ReplaceModel {
			verb = "replace with"
		}
		parts = append(parts, verb+" syncSchedule "+d.Model.String())
	}
	if d.ZeroConnector && d.Entry != nil {
		switch d.Entry.Family {
		case connector.FamilySyncSchedule:
			parts = append(parts, `set the connector's syncSchedule to {syncFrequency: "0s"}`)
		default:
			parts = append(parts, "set the connector's interval to zero")
		}
	}
	if d.RemoveUpdateDelay {
		parts = append(parts, "remove advanced.updateDelay")
	}
	if d.EnableRuntimeV2 {
		parts = append(parts, `set shards.flags.enable-runtime-v2: "true" (move to the V2 runtime)`)
	}
	if len(parts) == 0 {
		return string(d.Action)
	}
	return strings.Join(parts, "; ")
}
