package plan

import (
	"bytes"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/tree"
	"github.com/estuary/schedtool/schedule/connector"
	"github.com/estuary/schedtool/schedule/model"
	"github.com/estuary/schedtool/schemas"
)

// Status is a task's census status (docs/behaviour.md §8). Every command
// takes it from one place, StateOf and Planner.Decide, so validate,
// census, explain and migrate never disagree about a task.
type Status string

const (
	// StatusNeedsReview is decided first for a model schedule that does
	// not work (it does not decode and validate), and last for what no
	// other status takes.
	StatusNeedsReview Status = "needs-review"
	StatusBlockedV1   Status = "blocked-v1"
	StatusConflict    Status = "conflict"
	StatusStacked     Status = "stacked"
	StatusMigrated    Status = "migrated"
	StatusUnaffected  Status = "unaffected"
	StatusReady       Status = "ready"
	// StatusReadyNeedsFlag is ready's second row, counted apart: a file
	// sink migrate converts once given --zero-file-sinks.
	StatusReadyNeedsFlag Status = "ready (needs --zero-file-sinks)"
)

// Remaining reports whether a task of this status still relies on
// connector-side pacing: every status but migrated and unaffected.
func (s Status) Remaining() bool { return s != StatusMigrated && s != StatusUnaffected }

// ModelProblem is why a model syncSchedule does not decode or validate
// (docs/behaviour.md §3): Flow's text, and the path in the schedule it
// is about.
type ModelProblem struct {
	Path []string
	Msg  string
	// Unknown: the last of Path is a key a schedule does not have (a
	// misspelling validate suggests the nearest key for).
	Unknown bool
}

// State is what every command knows of a task before deciding anything:
// its runtime, its model schedule and whether it works, its connector's
// schedule as configured, and the connector's effective delay.
type State struct {
	// V2: the task is on the V2 runtime (shards.flags.enable-runtime-v2
	// is exactly "true").
	V2 bool
	// HasModel: a model syncSchedule is present (any value but null).
	HasModel bool
	// Schedule is the model schedule when it works: it decodes and
	// validates as Flow's does and schedtool can evaluate it. nil when
	// absent or broken.
	Schedule *model.Schedule
	// ModelProblem says why a present model schedule does not work.
	ModelProblem *ModelProblem

	// The connector's schedule as configured. Entry is nil when the
	// image is not a scheduling image.
	Entry  *connector.Entry
	Tag    string
	Result connector.Result
	// Secrets are the entries of the task's secrets stanza that cover a
	// location of its connector schedule (docs/behaviour.md §4.5): Flow
	// merges them into the config at task start, so the schedule's value
	// is unknown, as an encrypted one (Result.Kind is then secret).
	Secrets []SecretCover

	// Deferred: the image tag carries the boilerplate deferral and the
	// runtime paces the task (V2, a working model schedule), so the
	// connector's delay, configured or default (or sealed), is off
	// (docs/behaviour.md §6). Not for a config the connector refuses.
	Deferred bool
	// Delay is the connector's effective delay, when DelayKnown: zero
	// when Deferred, else the configured schedule's longest delay.
	Delay      time.Duration
	DelayKnown bool
	// Local: endpoint.local, a command schedtool does not know (Entry is
	// nil): whether it delays acknowledgements is unknown.
	Local bool
}

// BrokenModel reports whether a model schedule is present that does not
// work: the task then has none, whatever its connector says.
func (s *State) BrokenModel() bool { return s.HasModel && s.Schedule == nil }

// RuntimePaces reports whether the runtime holds the task's commits: a
// working model schedule on the V2 runtime (the V1 runtime ignores it).
func (s *State) RuntimePaces() bool { return s.V2 && s.Schedule != nil }

// ConnectorPaces reports whether the connector holds the task's commits:
// its effective delay is non-zero or unknown.
func (s *State) ConnectorPaces() bool { return s.Entry != nil && (!s.DelayKnown || s.Delay > 0) }

// ZeroDelay reports whether the connector's effective delay is known to
// be zero.
func (s *State) ZeroDelay() bool { return s.DelayKnown && s.Delay == 0 }

// Conflict reports whether a working model schedule sits beside a
// configured connector syncSchedule (docs/behaviour.md §5): Flow's build
// rejects the pair.
func (s *State) Conflict() bool {
	return s.Schedule != nil && s.Entry != nil && s.Entry.Family == connector.FamilySyncSchedule && s.Result.Configured
}

// Stacked reports whether the runtime and the connector both hold the
// task's commits without a conflict: a working model schedule on the V2
// runtime and a known, non-zero effective connector delay (the 30m
// default, a file-sink interval).
func (s *State) Stacked() bool {
	return s.RuntimePaces() && !s.Conflict() && s.DelayKnown && s.Delay > 0
}

// Holder is who holds a task's commits (docs/behaviour.md §6): the
// runtime, the connector, both (stacked) or none; for a local command
// schedtool does not know, unknown.
type Holder int

const (
	HoldsNone      Holder = iota // nothing: commits happen as fast as the data allows
	HoldsRuntime                 // a working model schedule on the V2 runtime
	HoldsConnector               // the connector's effective delay
	HoldsBoth                    // both: stacked
	// HoldsUnknown: endpoint.local, no runtime schedule: whether the
	// local command delays acknowledgements is unknown.
	HoldsUnknown
	// HoldsRuntimeAndLocal: the runtime, and perhaps the local command.
	HoldsRuntimeAndLocal
)

// String is how explain says it.
func (h Holder) String() string {
	switch h {
	case HoldsRuntime:
		return "runtime"
	case HoldsConnector:
		return "connector"
	case HoldsBoth:
		return "both (stacked)"
	case HoldsUnknown:
		return "unknown"
	case HoldsRuntimeAndLocal:
		return "the runtime, and perhaps the local connector (unknown)"
	}
	return "none"
}

// Holds says who holds the task's commits.
func (s *State) Holds() Holder {
	r := s.RuntimePaces()
	if s.Local {
		// A local command is no image schedtool knows: whether it holds
		// acknowledgements (its config may even seal a schedule) is not
		// known, and an unknown is not a zero.
		if r {
			return HoldsRuntimeAndLocal
		}
		return HoldsUnknown
	}
	switch c := s.ConnectorPaces(); {
	case r && c:
		return HoldsBoth
	case r:
		return HoldsRuntime
	case c:
		return HoldsConnector
	}
	return HoldsNone
}

// DelayUnknown reports whether the connector's effective delay cannot be
// known (a sealed or invalid schedule, a secret, a local command).
func (s *State) DelayUnknown() bool { return s.Local || !s.DelayKnown }

// DelayText is the connector's effective delay as census and explain
// print it: "0s" when it does not delay (or is no scheduling image),
// "unknown" when it cannot be known, else its longest delay.
func (s *State) DelayText() string {
	switch {
	case s.DelayUnknown():
		return "unknown"
	case s.Delay == 0:
		return "0s"
	}
	return connector.FormatDelay(s.Delay)
}

// ConnectorText names the connector's schedule as explain prints it: its
// kind, "none" for an image that is not a scheduling one, or why it is
// unknown for endpoint.local.
func (s *State) ConnectorText() string {
	switch {
	case s.Local:
		return "unknown (endpoint.local runs a command schedtool does not know)"
	case s.Entry == nil:
		return "none"
	}
	return string(s.Result.Kind)
}

// PacedV1 reports whether a task is on the V1 runtime and paced by its
// connector (no materialization syncSchedule, a known connector delay):
// validate finds nothing to say of it, yet census counts it remaining.
func (s *State) PacedV1() bool {
	return !s.V2 && !s.HasModel && s.DelayKnown && s.Delay > 0
}

// StateOf reads a task's state with a registry: the one place its
// runtime, model schedule, and the connector's effective delay are
// decided (docs/behaviour.md §6, §8).
func StateOf(m *catalog.Materialization, reg *connector.Registry) State {
	v2, _ := m.V2()
	s := State{V2: v2}
	if n := m.ModelSchedule(); n != nil {
		s.HasModel = true
		s.Schedule, s.ModelProblem = WorkingModel(n)
	}
	s.Entry, s.Tag, s.Result = m.ConnectorSchedule(reg)
	s.coverSecrets(m, reg)
	s.settle()
	s.Local = s.Entry == nil && m.Endpoint == "local"
	return s
}

// SecretCover is a secret whose pointer covers a schedule location.
type SecretCover struct {
	catalog.Secret
	Location string // the schedule location it covers (a JSON pointer)
}

// Describe names the secret and what it covers for a message.
func (c SecretCover) Describe() string {
	return c.Secret.Describe() + ", which covers " + connector.PointerPath(c.Location)
}

// coverSecrets finds the secrets that cover a location of the connector
// schedule (the pointer equals it, is above it, the config root
// included, or below it): the value the connector reads there is the
// secret's, merged at task start, so the schedule is unknown and counts
// as configured. A problem of the stored config at a covered pointer may
// be overwritten too, and is dropped, but for an off-enum value (Flow
// takes a config that uses secrets as schema-invalid before the merge:
// validate warns).
func (s *State) coverSecrets(m *catalog.Materialization, reg *connector.Registry) {
	if s.Entry == nil || (m.Config != nil && m.Config.Err != "") {
		return
	}
	secrets := m.Secrets()
	if len(secrets) == 0 {
		return
	}
	locs := reg.ScheduleLocations(s.Entry, s.Tag)
	for _, sec := range secrets {
		for _, loc := range locs {
			if !sec.Valid || connector.Covers(sec.Pointer, loc) {
				s.Secrets = append(s.Secrets, SecretCover{sec, loc})
				break
			}
		}
	}
	if len(s.Secrets) == 0 {
		return
	}
	r := s.Result
	var kept []connector.Problem
	for _, p := range r.Problems {
		if p.Kind == connector.ProblemOffEnum || !s.secretCovers(p.Pointer) {
			kept = append(kept, p)
		}
	}
	s.Result = connector.Result{Family: r.Family, Kind: connector.KindSecret, Configured: true,
		Pointer: r.Pointer, Present: r.Present, Problems: kept, KeyVariants: r.KeyVariants}
}

// secretCovers reports whether a secret of s.Secrets covers ptr.
func (s *State) secretCovers(ptr string) bool {
	for _, c := range s.Secrets {
		if !c.Valid || connector.Covers(c.Pointer, ptr) {
			return true
		}
	}
	return false
}

// settle computes the effective delay from the rest.
func (s *State) settle() {
	s.Deferred, s.Delay, s.DelayKnown = false, 0, false
	if s.Entry == nil {
		s.DelayKnown = true
		return
	}
	// A config the connector refuses fails the task before the deferral
	// is reached: its delay stays unknown, for a person to look at.
	// A secret's value is unknown the same way, and the task stays a
	// person's (docs/behaviour.md §4.5).
	if s.RuntimePaces() && s.Entry.HasDeferral(s.Tag) && s.Result.Kind != connector.KindInvalid && s.Result.Kind != connector.KindSecret {
		s.Deferred, s.DelayKnown = true, true
		return
	}
	s.Delay, s.DelayKnown = s.Result.Delay, s.Result.Known
}

// upgraded is the state the task would have with its image at the
// newest tag the registry names (Options.UpgradeImages), its config as it
// is read today: the upgrade and the migration are one change, so a
// legacy advanced.updateDelay the newer tag refuses is converted and
// removed in it. s when its tag is that one or newer, or not a version.
func (s State) upgraded() State {
	if s.Entry == nil {
		return s
	}
	newest := s.Entry.NewestTag()
	if newest == "" || !connector.IsVersion(s.Tag) || !connector.TagBefore(s.Tag, newest) {
		return s
	}
	s.Tag = newest
	s.settle()
	return s
}

// asV2 is the state the task would have on the V2 runtime (what
// --enable-runtime-v2 plans it as).
func (s State) asV2() State {
	s.V2 = true
	s.settle()
	return s
}

// modelVerdicts remembers WorkingModel's answer by the schedule's exact
// bytes: stored specs repeat the same few schedules thousands of times.
var (
	modelVerdicts sync.Map // string -> modelVerdict
	verdictCount  atomic.Int64
)

type modelVerdict struct {
	s *model.Schedule
	p *ModelProblem
}

const maxVerdicts = 1 << 14

// WorkingModel decodes and validates a model schedule as Flow does
// (docs/behaviour.md §3): the structure by the published schema, the
// JSON read strictly, then durations (within what schedtool can
// evaluate), days and Flow's validation. It gives the schedule when it
// works, else why not.
func WorkingModel(n *tree.Node) (*model.Schedule, *ModelProblem) {
	if n.End <= n.Offset || n.Doc.Format != tree.JSON {
		return checkModelTree(n)
	}
	key := n.Doc.Src[n.Offset:n.End]
	if v, ok := modelVerdicts.Load(string(key)); ok {
		mv := v.(modelVerdict)
		return mv.s, mv.p
	}
	var s *model.Schedule
	var p *ModelProblem
	if bytes.Contains(key, []byte(`\u`)) {
		// Flow reads the spec with serde_json, which refuses a lone
		// surrogate escape that the tree's reader turns into U+FFFD.
		if err := model.StrictJSON(key); err != nil {
			p = &ModelProblem{Msg: err.Error()}
		}
	}
	if p == nil {
		s, p = checkModelTree(n)
	}
	if verdictCount.Add(1) <= maxVerdicts {
		if p != nil { // kept: its strings must not pin a source's bytes
			kept := &ModelProblem{Msg: strings.Clone(p.Msg), Unknown: p.Unknown}
			for _, t := range p.Path {
				kept.Path = append(kept.Path, strings.Clone(t))
			}
			p = kept
		}
		if s != nil {
			s = cloneSchedule(s)
		}
		modelVerdicts.Store(string(key), modelVerdict{s, p})
	}
	return s, p
}

// cloneSchedule copies a schedule kept in modelVerdicts: its strings
// must not pin a source's bytes.
func cloneSchedule(s *model.Schedule) *model.Schedule {
	c := *s
	c.Timezone = strings.Clone(s.Timezone)
	c.Windows = make([]model.Window, len(s.Windows))
	for i, w := range s.Windows {
		w.StartText, w.EndText = strings.Clone(w.StartText), strings.Clone(w.EndText)
		w.Days = slices.Clone(w.Days)
		c.Windows[i] = w
	}
	return &c
}

func checkModelTree(n *tree.Node) (*model.Schedule, *ModelProblem) {
	v := n.Interface(nil)
	if p := schemas.CheckModel(v); p != nil {
		return nil, &ModelProblem{Path: p.Path, Msg: p.Msg, Unknown: p.Unknown}
	}
	// Flow's defect first (model.Check): a duration beyond what schedtool
	// evaluates, which Flow accepts, is named only when Flow finds nothing.
	s, err := model.Check(v)
	switch e := err.(type) {
	case nil:
		return s, nil
	case *model.DecodeError:
		return nil, &ModelProblem{Path: e.Path, Msg: e.Error(), Unknown: e.Unknown}
	case *model.ValidationError:
		return nil, &ModelProblem{Path: e.Path, Msg: e.Msg}
	}
	return nil, &ModelProblem{Msg: err.Error()}
}

// ZeroPublishable reports whether the file-sink zero migrate would write
// into the task's config can be published (docs/behaviour.md §7): the
// control plane checks a plaintext config against the image's published
// schema and refuses a value off its enum, so only a sealed config
// (written through sops.overlay), a stored spec, or an image whose enum
// lists the zero (or that publishes none, as s3-iceberg's
// upload_interval) can take it.
func ZeroPublishable(m *catalog.Materialization, reg *connector.Registry, e *connector.Entry) bool {
	if e == nil || e.Family == connector.FamilySyncSchedule {
		return true // "0s" is on the syncSchedule enum of every tag
	}
	return reg.Publishable(e, m.Tag(), m.Where(), fileSinkZero(reg, e))
}

// fileSinkZero is the value that turns a file sink's interval off: its
// family's zero, "0s" when the registry gives none.
func fileSinkZero(reg *connector.Registry, e *connector.Entry) string {
	if zero := reg.Family(e.Family).Zero; zero != "" {
		return zero
	}
	return "0s"
}
