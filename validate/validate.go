// Package validate checks materializations for schedule correctness: the
// rules of catalog build validation (docs/behaviour.md §5).
package validate

import (
	"github.com/estuary/schedtool/internal/suggest"
	"github.com/estuary/schedtool/internal/tzname"

	"fmt"
	"strings"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/tree"
	"github.com/estuary/schedtool/finding"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/schedule/connector"
	"github.com/estuary/schedtool/schedule/model"
)

// Checker applies the rules with one registry of connector images.
type Checker struct {
	Registry *connector.Registry
	// Crashes finds where alternating connector schedules panic (rule
	// connector-schedule-crashes); nil skips the rule.
	Crashes *connector.CrashFinder
	// NoCache reads every dump row the slow way (the tests compare).
	NoCache bool
	// Except, when set, reports whether a finding is excepted (the
	// project file's unexpired exceptions): it is written, but not
	// counted against --fail-on. Findings rendered by the dump workers
	// carry their severity alone: a caller with exceptions renders none.
	Except func(*finding.Finding) bool
}

// Check returns the findings of one materialization, in no special order:
// each rule of Rules looks at one Pass.
func (c *Checker) Check(m *catalog.Materialization) []finding.Finding {
	return c.CheckIn(nil, m)
}

// CheckIn is Check of a materialization of cat, which knows the other
// definitions of its name (in other catalogs).
func (c *Checker) CheckIn(cat *catalog.Catalog, m *catalog.Materialization) []finding.Finding {
	p := c.newPass(m)
	if cat != nil {
		for _, o := range cat.Several[m.Name] {
			if o != m {
				p.others = append(p.others, o)
			}
		}
	}
	for i := range Rules {
		p.rule = &Rules[i]
		p.rule.Check(p)
	}
	return p.out
}

// pacedV1 reports whether a task is on the V1 runtime and paced by its
// connector (plan.State.PacedV1): no rule finds anything, yet census
// counts it as remaining, so the summary says.
func (c *Checker) pacedV1(m *catalog.Materialization) bool {
	st := plan.StateOf(m, c.Registry)
	return st.PacedV1()
}

func crashMessage(name string, ps *connector.Parsed, rs []connector.CrashRange) string {
	more := ""
	if len(rs) > 1 {
		more = fmt.Sprintf(" (the first of %d such ranges in the next 366 days)", len(rs))
	}
	return fmt.Sprintf("materialization %s: its connector panics when its last commit acknowledgement is %s%s: the connector's search for the next fast-window start looks only 7 days ahead, and in %s the next start is further away, so the task crash-loops until the clock is past that range; migrating the schedule into the runtime removes the crash (schedtool migrate)", name, rs[0].Describe(ps.Location), more, ps.Spec.Timezone)
}

func stacksMessage(m *catalog.Materialization, reg *connector.Registry, e *connector.Entry, res connector.Result, via string) string {
	name := m.Name
	if res.Family == connector.FamilySyncSchedule {
		return fmt.Sprintf("materialization %s has a materialization sync schedule, but its connector still delays every commit acknowledgement by %s (the default when its config has no syncSchedule), so the two stack; set the connector's syncSchedule to {syncFrequency: \"0s\"}%s", name, connector.FormatDelay(res.Delay), via)
	}
	key := connector.PointerPath(reg.Family(e.Family).Pointer)
	if !plan.ZeroPublishable(m, reg, e) {
		// The zero is off the enum: a plaintext config cannot take it
		// (docs/behaviour.md §4.1).
		return fmt.Sprintf("materialization %s has a materialization sync schedule, but its connector still delays every commit acknowledgement by %s (%s), so the two stack; %s %q is outside its published values, which Flow refuses in a plaintext config: seal the config with sops and set it in sops.overlay, use an image tag with the boilerplate deferral, or remove the materialization sync schedule", name, connector.FormatDelay(res.Delay), key, key, reg.Family(e.Family).Zero)
	}
	return fmt.Sprintf("materialization %s has a materialization sync schedule, but its connector still delays every commit acknowledgement by %s (%s), so the two stack; set %s to %q (outside its published values)%s, or remove the materialization sync schedule", name, connector.FormatDelay(res.Delay), key, key, reg.Family(e.Family).Zero, via)
}

func describeDelay(res connector.Result) string {
	switch res.Kind {
	case connector.KindDefault:
		return "the default when its config has no syncSchedule"
	case connector.KindAlternating:
		return fmt.Sprintf("syncSchedule: %s inside its fast window, 4h outside", connector.FormatDelay(max(res.Schedule.Frequency, 0)))
	case connector.KindUpdateDelay:
		return "advanced.updateDelay"
	case connector.KindFileInterval:
		return connector.PointerPath(res.Pointer)
	}
	return "syncSchedule.syncFrequency"
}

// configNode is where a finding about a whole config points.
func configNode(m *catalog.Materialization) *tree.Node {
	if m.Config != nil {
		if m.Config.RefNode != nil {
			return m.Config.RefNode
		}
		if m.Config.Node != nil {
			return m.Config.Node
		}
	}
	if m.ImageNode != nil {
		return m.ImageNode
	}
	return m.Spec
}

// modelHint names what a misspelt key (timeZone) or timezone
// (America/New_Yrok) of a model syncSchedule likely meant, after Flow's
// own text; "" when nothing is near.
func modelHint(p *plan.ModelProblem, at *tree.Node) string {
	if len(p.Path) == 0 {
		return ""
	}
	if p.Unknown {
		last := p.Path[len(p.Path)-1]
		keys := model.ScheduleKeys
		if len(p.Path) > 1 {
			keys = model.WindowKeys
		}
		if l := suggest.Closest(last, keys, 3); len(l) > 0 {
			return " (closest: " + strings.Join(l, ", ") + ")"
		}
		return ""
	}
	return zoneHint(strings.Join(p.Path, "/"), at)
}

// zoneHint names the timezones nearest a timezone value that does not
// load; the pointer (a path) says whether the value is a timezone.
func zoneHint(ptr string, n *tree.Node) string {
	if (ptr != "timezone" && !strings.HasSuffix(ptr, "/timezone")) || n == nil || n.Kind != tree.String {
		return ""
	}
	return tzname.Hint(n.Value)
}

// migratedFileSink reports whether res is a file sink's interval set to
// zero beside a model schedule: the state migrate --zero-file-sinks
// writes (docs/behaviour.md §5), whose off-enum value is info, not a warning.
func migratedFileSink(res connector.Result, sched *tree.Node) bool {
	return sched != nil && res.Kind == connector.KindZero && res.Interval == 0 &&
		(res.Family == connector.FamilyUploadInterval || res.Family == connector.FamilyUploadISO)
}

// migratedFileSinkNote ends the off-enum message of a migrated file sink.
const migratedFileSinkNote = "; a form built from the connector's schema offers only those values, so an edit there would put a delay back, but this is the migrated state (migrate --zero-file-sinks): the materialization syncSchedule paces commits"
