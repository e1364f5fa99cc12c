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
	BrokenModel   Situation = "invalid-model-schedule" // a model schedule that does not decode and validate
)

// Action is what migrate does.
type Action string

const (
	None    Action = "none"    // nothing to do
	Migrate Action = "migrate" // edits below
	Skip    Action = "skip"    // left alone on purpose (blocked-v1)
	Review  Action = "review"  // a person must decide; Reason says why
)

// Cause is why a task needs review or is skipped, or what a note on
// another action is about: what commands compare, where Reason is the
// text they print.
type Cause string

const (
	CauseNone Cause = ""
	// Skips.
	CauseBlockedV1       Cause = "blocked-v1"        // BlockedV1Reason
	CauseUnpacedV1       Cause = "unpaced-v1"        // UnpacedV1Reason
	CauseBlockedV1Review Cause = "blocked-v1-review" // BlockedV1ReviewReason: the flag alone would not move it
	CauseFileSink        Cause = "file-sink"         // FileSinkNote: needs --zero-file-sinks
	CauseFileSinkStacked Cause = "file-sink-stacked" // FileSinkStackedNote: needs --zero-file-sinks
	// Reviews.
	CauseBrokenModel       Cause = "broken-model"        // BrokenModelReason
	CausePlaintextFileSink Cause = "plaintext-file-sink" // PlaintextFileSinkReason
	CauseSecret            Cause = "secret"              // SecretReason
	CauseSealed            Cause = "sealed"              // encrypted without an overlay
	CauseInvalid           Cause = "invalid"             // the connector schedule is invalid
	CauseNoConversion      Cause = "no-conversion"       // no conversion for its kind
	CauseOldTag            Cause = "old-tag"             // the tag takes only advanced.updateDelay
	CauseRefusedModel      Cause = "refused-model"       // the converted schedule is not one Flow accepts
	CauseConflict          Cause = "conflict"            // choose with --resolve
	CauseRefusedSpec       Cause = "refused-spec"        // Flow refuses the spec as it is
	CauseKeyVariants       Cause = "key-variants"        // schedule keys spelled another way
	// CauseMigrate: migrate cannot make the change (a file it cannot
	// edit safely, a user of a file outside the run, --limit).
	CauseMigrate Cause = "migrate"
	// CauseLimit: migrate leaves the task for a later wave of --limit.
	CauseLimit Cause = "limit"
	// CauseTaskSet: a saved plan's replay leaves out a task not in the
	// plan's task set (one added since the plan).
	CauseTaskSet Cause = "task-set"
	// Notes on a migration or on nothing to do.
	CauseMovedToV2 Cause = "moved-to-v2" // UnpacedV1Fix
	CauseResolved  Cause = "resolved"    // --resolve chose
	CauseFinish    Cause = "finish"      // FinishNote
	CauseDeferral  Cause = "deferral"    // DeferredNote
	CauseLocalZone Cause = "local-zone"  // LocalNote
)

// Options are migrate's choices (docs/behaviour.md §7).
type Options struct {
	Absent        string // "preserve" (default) or "drop"
	Resolve       string // "", "model" or "connector"
	ZeroFileSinks bool
	// EnableRuntimeV2 plans a V1 task with a connector delay as a V2 one,
	// and moves it to the V2 runtime in the same change (docs/behaviour.md §7).
	EnableRuntimeV2 bool
	// UpgradeImages plans each task as if its image were at the newest
	// tag the registry names for it (connector.Entry.NewestTag), upgraded
	// in the same change as its migration: census's
	// dry run of an image upgrade (docs/behaviour.md §8). migrate never
	// changes a tag, so no command of its sets it.
	UpgradeImages bool
}

// Decision is the plan of one materialization: its State (the one
// decision of its runtime, model schedule and effective connector delay),
// its census Status, and what migrate does.
type Decision struct {
	State
	// Status is the task's census status (docs/behaviour.md §8); "" when
	// the image is not a scheduling image.
	Status Status

	Situation Situation
	Action    Action
	Cause     Cause  // why Review or Skip, or what the note is about
	Reason    string // Cause as the user reads it

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

// Decide plans one materialization: the one function every command
// takes a task's runtime, effective connector delay, status and
// migration from (docs/behaviour.md §6, §8).
func (p *Planner) Decide(m *catalog.Materialization) Decision {
	d := p.decide(m)
	if p.Crashes != nil && d.Result.Schedule != nil && !d.Deferred {
		d.Crashes = p.Crashes.Find(d.Result.Schedule)
	}
	// A task migrate converts, now or once given --zero-file-sinks: what
	// Flow refuses, or a key the connector reads another way, makes it a
	// task for a person whatever the flags.
	converts := d.Action == Migrate || d.NeedsZeroFileSinks()
	if converts {
		// Flow refuses the spec as it is: a migration would be refused
		// too, or would paper over a value nobody has decided (flags: "x").
		// The runtime flag's own value is what --enable-runtime-v2 writes.
		for _, sp := range m.SpecProblems() {
			if d.EnableRuntimeV2 && sp.RuntimeFlag() {
				continue
			}
			d.review(CauseRefusedSpec, "Flow refuses the spec as it is ("+sp.Describe()+"); fix that first")
			return d
		}
	}
	if converts && (d.ZeroConnector || d.RemoveUpdateDelay || d.Action != Migrate) && len(d.Result.KeyVariants) > 0 {
		// The connector reads keys case-insensitively: writing the
		// sanctioned spelling beside another would merge the two.
		d.review(CauseKeyVariants, "the connector config spells its schedule keys differently ("+strings.Join(d.Result.KeyVariants, ", ")+"), which the connector reads case-insensitively; rename them to their documented spelling first")
	}
	return d
}

// review turns a migration into a task for a person, for reason: nothing
// of the migration is left to write. A task that would have been ready
// then needs review.
func (d *Decision) review(cause Cause, reason string) {
	d.Action, d.Model, d.ZeroConnector, d.RemoveUpdateDelay, d.ReplaceModel, d.EnableRuntimeV2 = Review, nil, false, false, false, false
	d.Cause, d.Reason = cause, reason
	if d.Status == StatusReady || d.Status == StatusReadyNeedsFlag {
		d.Status = StatusNeedsReview
	}
}

func (p *Planner) decide(m *catalog.Materialization) Decision {
	d := Decision{State: StateOf(m, p.Registry)}
	if p.Options.UpgradeImages {
		d.State = d.upgraded()
	}
	if d.Entry == nil {
		d.Situation, d.Action = NotScheduling, None
		return d
	}
	// The statuses in docs/behaviour.md §8's order: the first that applies.
	if d.BrokenModel() {
		// 0: no working model schedule, whatever the connector says:
		// zeroing the connector beside it would leave the task unpaced.
		d.Status, d.Situation, d.Action = StatusNeedsReview, BrokenModel, Review
		d.Cause, d.Reason = CauseBrokenModel, BrokenModelReason(d.ModelProblem)
		return d
	}
	if !d.V2 && (!d.ZeroDelay() || d.HasModel) {
		// 1: blocked-v1, also what rolling the V2 flag back leaves (a
		// model schedule the V1 runtime ignores beside a zero connector).
		if p.Options.EnableRuntimeV2 {
			// The operator opts in: plan it as the V2 task it is to become.
			v := p.decideV2(Decision{State: d.asV2()}, m)
			v.State, v.Status, v.Crashes = d.State, StatusBlockedV1, nil
			switch {
			case v.Situation == Migrated:
				// Only the flag is missing.
				v.Situation, v.Action, v.Cause, v.Reason = BlockedV1, Migrate, CauseMovedToV2, UnpacedV1Fix
				v.EnableRuntimeV2 = true
			case v.Action == Migrate:
				v.EnableRuntimeV2 = true
			}
			return v
		}
		d.Status, d.Situation, d.Action = StatusBlockedV1, BlockedV1, Skip
		d.Cause, d.Reason = CauseBlockedV1, BlockedV1Reason
		switch _, why := unconvertible(&d.State); {
		case d.ZeroDelay():
			d.Cause, d.Reason = CauseUnpacedV1, UnpacedV1Reason
		case why != "":
			// --enable-runtime-v2 alone would not move it: say so
			// rather than send the operator to the flag.
			d.Cause, d.Reason = CauseBlockedV1Review, BlockedV1ReviewReason(why)
		}
		return d
	}
	return p.decideV2(d, m)
}

// BlockedV1Reason is why a V1 task paced by its connector is skipped,
// with the advice census, explain and migrate give alike
// (docs/behaviour.md §8).
const BlockedV1Reason = "a V1 task: a materialization syncSchedule would be rejected; migrate --enable-runtime-v2 moves it to the V2 runtime with its schedule"

// BlockedV1ReviewReason is why a V1 task whose connector schedule cannot
// be converted (why) is skipped: the flag alone would not move it.
func BlockedV1ReviewReason(why string) string {
	return "a V1 task whose connector schedule needs a person before migrate --enable-runtime-v2 can move it: " + why
}

// UnpacedV1Reason is why a V1 task with a model schedule and no
// connector delay is skipped: what rolling back the V2 flag leaves.
const UnpacedV1Reason = "a V1 task with a materialization syncSchedule and no connector delay: the V1 runtime ignores the syncSchedule, so nothing paces its commits; migrate --enable-runtime-v2 moves it to the V2 runtime, where its syncSchedule paces it"

// UnpacedV1Fix notes the change --enable-runtime-v2 makes to such a task.
const UnpacedV1Fix = "a V1 task with a materialization syncSchedule and no connector delay, which nothing paced: moved to the V2 runtime, where its syncSchedule paces it"

// IsBlockedV1Review reports whether a task was skipped as a V1 task
// whose connector schedule needs a person first (BlockedV1ReviewReason).
func IsBlockedV1Review(action Action, cause Cause) bool {
	return action == Skip && cause == CauseBlockedV1Review
}

// IsUnpacedV1 reports whether a task was skipped as a V1 task that
// nothing paces (UnpacedV1Reason).
func IsUnpacedV1(action Action, cause Cause) bool {
	return action == Skip && cause == CauseUnpacedV1
}

// BrokenModelReason is why a task whose model schedule does not work
// needs review.
func BrokenModelReason(p *ModelProblem) string {
	msg := "it does not decode"
	if p != nil {
		msg = p.Msg
	}
	return "the materialization syncSchedule does not work (invalid sync schedule: " + msg + "), so it paces nothing: fix it first; zeroing the connector beside it would leave the task unpaced"
}

// decideV2 decides the rows of the table after blocked-v1, for a task
// on the V2 runtime (or planned as one) without a broken model schedule.
func (p *Planner) decideV2(d Decision, m *catalog.Materialization) Decision {
	res := d.Result
	zero := d.ZeroDelay()
	switch {
	case d.Conflict():
		d.Status = StatusConflict
		return p.conflict(d, m)
	case zero && d.HasModel:
		d.Status, d.Situation, d.Action = StatusMigrated, Migrated, None
		if d.Deferred && res.Known && res.Delay > 0 {
			d.Cause, d.Reason = CauseDeferral, DeferredNote(d.Tag)
		}
		return d
	case zero:
		d.Status, d.Situation, d.Action = StatusUnaffected, NoDelay, None
		return d
	case d.Stacked():
		// A model schedule and a delay that is not configured (the 30m
		// default) or does not conflict (a file-sink interval).
		d.Status, d.Situation = StatusStacked, Stacked
		switch {
		case res.Family == connector.FamilySyncSchedule:
			d.Action, d.ZeroConnector = Migrate, true
		case !ZeroPublishable(m, p.Registry, d.Entry):
			d.Action, d.Cause, d.Reason = Review, CausePlaintextFileSink, PlaintextFileSinkReason(p.Registry, d.Entry)
		case p.Options.ZeroFileSinks:
			d.Action, d.ZeroConnector = Migrate, true
		default:
			d.Action, d.Cause, d.Reason = Skip, CauseFileSinkStacked, FileSinkStackedNote
		}
		return d
	}
	if cause, reason := unconvertible(&d.State); reason != "" {
		d.Status, d.Situation, d.Action, d.Cause, d.Reason = StatusNeedsReview, Unconvertible, Review, cause, reason
		return d
	}
	d = p.convert(d, m, p.intervalText(m, d))
	switch {
	case d.Action == Migrate && d.Situation == FileInterval && d.ZeroConnector:
		d.Status = StatusReadyNeedsFlag
	case d.Action == Migrate:
		d.Status = StatusReady
	case d.NeedsZeroFileSinks():
		d.Status = StatusReadyNeedsFlag
	default:
		d.Status = StatusNeedsReview
	}
	return d
}

// SecretReason is why a task whose connector schedule a secret covers
// needs review (docs/behaviour.md §4.5): migrate never writes under a
// covered location, since Flow merges the secret's value over it at
// task start, and the value schedtool would convert is unknown.
func SecretReason(cs []SecretCover) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Describe()
	}
	return "the connector schedule is set at task start by " + strings.Join(names, "; ") +
		", so its value is unknown and migrate writes nothing under it: move the schedule out of the secret (remove the pointer, or point it elsewhere, and write the schedule in the config; then migrate moves it), or set the connector's off state in the secret itself and add the materialization syncSchedule by hand (schedtool cannot read the secret, so census keeps the task remaining)"
}

// DeferredNote says why a task whose connector is configured to delay is
// migrated all the same: its image tag defers to the runtime.
func DeferredNote(tag string) string {
	return "image tag " + tag + " defers the connector's delay to the runtime's schedule (the boilerplate deferral): the connector does not delay"
}

// PlaintextFileSinkReason is why a file sink whose config is plaintext
// needs review: the zero that turns its interval off is off its enum, so
// the control plane refuses to publish it (docs/behaviour.md §4.1, §7).
func PlaintextFileSinkReason(reg *connector.Registry, e *connector.Entry) string {
	return fmt.Sprintf("a file sink with a plaintext config: %s %q, the only value that turns its interval off, is not among its published values, so flowctl and the dashboard refuse to publish it; seal the config with sops (then migrate --zero-file-sinks writes it through sops.overlay), or move the task to an image tag with the deferral (then migrate adds the materialization syncSchedule alone)",
		connector.PointerPath(reg.Family(e.Family).Pointer), fileSinkZero(reg, e))
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
func unconvertible(s *State) (Cause, string) {
	res := s.Result
	switch {
	case res.Kind == connector.KindSecret:
		return CauseSecret, SecretReason(s.Secrets)
	case res.Kind == connector.KindSealed:
		return CauseSealed, "the connector schedule is encrypted (sops) and no sops.overlay gives it in plaintext: its value is unknown"
	case res.Kind == connector.KindInvalid:
		msg := "the connector schedule is invalid"
		for _, pr := range res.Problems {
			if pr.Kind == connector.ProblemInvalid {
				return CauseInvalid, msg + ": " + pr.Msg
			}
		}
		return CauseInvalid, msg
	}
	return CauseNone, ""
}

// convert plans a V2 task without a model schedule whose connector delays.
// Every duration it writes fits Flow's published schema (^\d+(s|m|h|d)$);
// the user's own text is kept when it fits and means the same (text is
// the interval's text for a file sink or an update delay).
func (p *Planner) convert(d Decision, m *catalog.Materialization, text string) Decision {
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
			d.Cause, d.Reason = CauseLocalZone, LocalNote
		}
	case connector.KindUpdateDelay:
		d.Situation = UpdateDelay
		d.Model = &model.Spec{BaseInterval: model.WriteDuration(res.Interval, text)}
		if d.Entry.AcceptsSyncSchedule(d.Tag) {
			d.RemoveUpdateDelay, d.ZeroConnector = true, true
		} else {
			d.Action, d.Cause = Review, CauseOldTag
			d.Reason = fmt.Sprintf("image tag %q takes only advanced.updateDelay (syncSchedule arrived in %s): removing the delay needs an image upgrade first", d.Tag, d.Entry.UpdateDelayBefore)
			d.Model = nil
		}
	case connector.KindFileInterval:
		d.Situation = FileInterval
		d.Model = &model.Spec{BaseInterval: model.WriteDuration(res.Interval, text)}
		if d.Entry.HasDeferral(d.Tag) {
			// The shim turns the required interval off under the
			// runtime's schedule: the model schedule alone migrates it.
			return p.check(d)
		}
		d.ZeroConnector = true
		d = p.check(d)
		switch {
		case d.Action != Migrate:
		case !ZeroPublishable(m, p.Registry, d.Entry):
			// The zero is off the enum of a plaintext config: the
			// control plane refuses it, whatever the flags.
			d.Action, d.Model, d.ZeroConnector, d.Cause, d.Reason = Review, nil, false, CausePlaintextFileSink, PlaintextFileSinkReason(p.Registry, d.Entry)
		case !p.Options.ZeroFileSinks:
			// The model schedule alone would stack on the interval the
			// connector requires: the sink is left as it is.
			d.Action, d.Model, d.ZeroConnector, d.Cause, d.Reason = Skip, nil, false, CauseFileSink, FileSinkNote
		}
		return d
	default:
		d.Situation, d.Action, d.Cause = Unconvertible, Review, CauseNoConversion
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
		d.ZeroConnector, d.RemoveUpdateDelay, d.Cause = false, false, CauseRefusedModel
		d.Reason = "the converted schedule is not one Flow accepts: " + err.Error()
	}
	return d
}

func (p *Planner) conflict(d Decision, m *catalog.Materialization) Decision {
	d.Situation = Conflict
	if len(d.Secrets) > 0 {
		// Whatever --resolve says: zeroing the connector would write
		// under a location the secret overwrites at task start.
		d.Action, d.Cause, d.Reason = Review, CauseSecret, SecretReason(d.Secrets)
		return d
	}
	switch p.Options.Resolve {
	case "model":
		d.Action, d.ZeroConnector = Migrate, true
		d.RemoveUpdateDelay = d.Result.Kind == connector.KindUpdateDelay && d.Entry.AcceptsSyncSchedule(d.Tag)
		d.Cause, d.Reason = CauseResolved, "--resolve=model: the materialization schedule stays, the connector's is zeroed"
		if d.Result.Kind == connector.KindUpdateDelay && !d.RemoveUpdateDelay {
			d.Action, d.ZeroConnector, d.Cause = Review, false, CauseOldTag
			d.Reason = "--resolve=model, but this image tag takes only advanced.updateDelay: upgrade the image first"
		}
		return d
	case "connector":
		if cause, reason := unconvertible(&d.State); reason != "" {
			d.Action, d.Cause, d.Reason = Review, cause, "--resolve=connector, but "+reason
			return d
		}
		c := p.convert(Decision{State: d.State, Status: d.Status}, m, p.intervalText(m, d))
		c.Situation, c.ReplaceModel = Conflict, c.Model != nil
		if c.Action == Migrate {
			c.Cause, c.Reason = CauseResolved, "--resolve=connector: the connector's schedule replaces the materialization schedule"
		}
		return c
	}
	if p.agrees(d, m) {
		// The model schedule is the connector's, converted: a migration
		// stopped between its two files (the model written first, so the
		// task stayed paced). Both --resolve choices give the same result.
		d.Action, d.ZeroConnector = Migrate, true
		d.RemoveUpdateDelay = d.Result.Kind == connector.KindUpdateDelay
		d.Cause, d.Reason = CauseFinish, FinishNote
		return d
	}
	d.Action, d.Cause = Review, CauseConflict
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
// --zero-file-sinks (a cause of CauseFileSink or CauseFileSinkStacked).
func NeedsZeroFileSinks(action Action, cause Cause) bool {
	return action == Skip && (cause == CauseFileSink || cause == CauseFileSinkStacked)
}

// NeedsZeroFileSinks reports whether d skips a task for want of
// --zero-file-sinks.
func (d *Decision) NeedsZeroFileSinks() bool { return NeedsZeroFileSinks(d.Action, d.Cause) }

// FinishNote explains a conflict that migrate finishes on its own.
const FinishNote = "the materialization syncSchedule already equals the connector's, converted (a migration that stopped half way): the connector's is zeroed"

// agrees reports whether the task's model schedule means exactly what the
// conversion of its connector schedule would write.
func (p *Planner) agrees(d Decision, m *catalog.Materialization) bool {
	if _, reason := unconvertible(&d.State); reason != "" {
		return false
	}
	c := p.convert(Decision{State: d.State}, m, p.intervalText(m, d))
	if c.Action != Migrate || c.Model == nil || (d.Result.Kind == connector.KindUpdateDelay && !c.RemoveUpdateDelay) {
		return false
	}
	want, err := model.Decode(c.Model.Value())
	if err != nil {
		return false
	}
	return d.Schedule != nil && sameSchedule(want, d.Schedule)
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
