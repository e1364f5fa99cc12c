package validate

import (
	"fmt"
	"strings"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/tree"
	"github.com/estuary/schedtool/finding"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/schedule/connector"
)

// A Rule is one check of catalog build validation, as go/analysis's
// Analyzer: its id, severity and summary (from finding.Rules, the one
// list of them) and the function that reports what it finds in a Pass.
type Rule struct {
	Info  finding.RuleInfo
	Check func(*Pass)
}

// Rules are the rules Check applies, in the order of finding.Rules.
var Rules = []Rule{
	{info(finding.ParseError), checkParseError},
	{info(finding.InvalidSyncSchedule), checkInvalidSyncSchedule},
	{info(finding.RequiresRuntimeV2), checkRequiresRuntimeV2},
	{info(finding.InvalidShardFlag), checkInvalidShardFlag},
	{info(finding.SyncScheduleConflict), checkSyncScheduleConflict},
	{info(finding.InvalidConnectorSchedule), checkInvalidConnectorSchedule},
	{info(finding.AckDelayStacks), checkAckDelayStacks},
	{info(finding.LegacyUpdateDelay), checkLegacyUpdateDelay},
	{info(finding.OffEnumScheduleValue), checkOffEnumScheduleValue},
	{info(finding.ConnectorScheduleCrashes), checkConnectorScheduleCrashes},
	{info(finding.ConnectorScheduleInUse), checkConnectorScheduleInUse},
	{info(finding.SealedSchedule), checkSealedSchedule},
	{info(finding.SecretSchedule), checkSecretSchedule},
	{info(finding.DefinedInSeveralCatalogs), checkDefinedInSeveralCatalogs},
}

// info is the entry of finding.Rules with this id.
func info(id string) finding.RuleInfo {
	for _, r := range finding.Rules {
		if r.ID == id {
			return r
		}
	}
	panic("validate: no rule " + id + " in finding.Rules")
}

// A Pass is what the rules share about one materialization, computed
// once, and where they report.
type Pass struct {
	c        *Checker
	m        *catalog.Materialization
	v2       bool       // the task is on the V2 runtime
	flag     *tree.Node // shards.flags.enable-runtime-v2, nil when absent
	boolFlag bool       // the flag is a YAML boolean, not a string
	problems []catalog.SpecProblem
	sched    *tree.Node // the materialization syncSchedule, nil when absent

	// state is the task's one decision (plan.StateOf): its runtime,
	// whether its model schedule works, and the connector's effective
	// delay, as every command sees them (docs/behaviour.md §8).
	state plan.State

	// The connector's schedule. entry is nil when the connector has none
	// or its config cannot be read (reported as parse-error): then no
	// connector rule applies.
	entry *connector.Entry
	res   connector.Result
	eff   *tree.Node // the effective config, nil when none

	// others are the other definitions of the task's name, each in a
	// catalog of its own (catalog.Catalog.Several), sorted by file.
	others []*catalog.Materialization

	rule *Rule // the rule running
	out  []finding.Finding
}

func (c *Checker) newPass(m *catalog.Materialization) *Pass {
	p := &Pass{c: c, m: m}
	p.v2, p.flag = m.V2()
	p.boolFlag = p.flag != nil && p.flag.Kind == tree.Bool
	// The fields schedtool reads beside the schedules, typed as Flow's
	// model types them: a value of another type fails Flow's build.
	p.problems = m.SpecProblems()
	p.sched = m.ModelSchedule()
	p.state = plan.StateOf(m, c.Registry)
	if cfg := m.Config; cfg != nil && cfg.Err != "" {
		return p // reported as parse-error; the schedule is unknown
	}
	p.entry, p.res = p.state.Entry, p.state.Result
	if m.Config != nil {
		p.eff = m.Config.Effective
	}
	return p
}

// report adds a finding of the running rule, at its severity.
func (p *Pass) report(n *tree.Node, msg string) { p.reportAs(p.rule.Info.Severity, n, msg) }

// reportAs adds a finding of the running rule at another severity.
func (p *Pass) reportAs(sev finding.Severity, n *tree.Node, msg string) {
	p.out = append(p.out, finding.Finding{Rule: p.rule.Info.ID, Severity: sev, Task: p.m.Name, Pos: catalog.Pos(n), Message: msg})
}

// at locates a pointer of the effective config, else the config.
func (p *Pass) at(ptr string) *tree.Node {
	if p.eff != nil {
		if n := p.eff.Lookup(ptr); n != nil {
			return n
		}
	}
	return configNode(p.m)
}

// eachProblem calls f with each problem of this kind of the connector's
// schedule (none without a connector schedule).
func (p *Pass) eachProblem(kind connector.ProblemKind, f func(connector.Problem)) {
	if p.entry == nil {
		return
	}
	for _, pr := range p.res.Problems {
		if pr.Kind == kind {
			f(pr)
		}
	}
}

// scheduleKnown reports whether the rules about the connector's delay
// apply: a connector schedule that is not a missing, invalid
// syncSchedule (whose problem is all there is to say).
func (p *Pass) scheduleKnown() bool {
	return p.entry != nil && !(p.res.Kind == connector.KindInvalid && !p.res.Present && p.res.Family == connector.FamilySyncSchedule)
}

// schedAt is where a finding about the connector's schedule points: its
// value, else the config.
func (p *Pass) schedAt() *tree.Node {
	if p.res.Present {
		return p.at(p.res.Pointer)
	}
	return configNode(p.m)
}

// via ends a fix about a sealed config.
func (p *Pass) via() string {
	if p.m.Config != nil && p.m.Config.Sealed {
		return ", via sops.overlay since the config is sealed"
	}
	return ""
}

// conflict reports whether both the materialization (with a schedule
// that works) and its connector configure a schedule
// (sync-schedule-conflict, which ack-delay-stacks then does not repeat).
// Beside a model schedule that does not work, invalid-sync-schedule is
// all there is to say: its fix is not to zero the connector.
func (p *Pass) conflict() bool { return p.state.Conflict() }

// checkParseError: a materialization's delete, shards or shards.disable
// of a type Flow's model refuses (sources that cannot be read are
// reported by catalog).
func checkParseError(p *Pass) {
	for _, pr := range p.problems {
		if pr.RuntimeFlag() || pr.Flag() {
			continue
		}
		msg := fmt.Sprintf("materialization %s: %s; Flow's model refuses the spec, so its build fails", p.m.Name, pr.Describe())
		if pr.Path[0] == "delete" {
			msg += " (schedtool reads it as a task, not a deletion)"
		}
		p.report(pr.Node, msg)
	}
}

// checkInvalidSyncSchedule: the materialization syncSchedule does not
// decode or fails Flow's validation.
func checkInvalidSyncSchedule(p *Pass) {
	if pr := p.state.ModelProblem; pr != nil {
		at := p.sched.Path(pr.Path...)
		if at == nil {
			at = p.sched
		}
		p.report(at, "invalid sync schedule: "+pr.Msg+modelHint(pr, at))
	}
}

// checkRequiresRuntimeV2: a materialization syncSchedule on a task not
// on the V2 runtime.
func checkRequiresRuntimeV2(p *Pass) {
	if p.sched == nil || p.v2 {
		return
	}
	msg := fmt.Sprintf("materialization %s uses syncSchedule, which requires the V2 task runtime: set enable-runtime-v2: \"true\" under its shards.flags", p.m.Name)
	if p.boolFlag {
		msg += fmt.Sprintf(" (its flag is the unquoted YAML boolean %s; quote it)", p.flag.Value)
	}
	if p.entry != nil && p.state.ZeroDelay() {
		// What rolling back the V2 flag leaves (docs/behaviour.md §8).
		msg += "; its connector does not delay either, so nothing paces its commits (census: blocked-v1): schedtool migrate --enable-runtime-v2 sets the flag"
	}
	p.report(p.sched, msg)
}

// checkInvalidShardFlag: shards.flags is not an object of strings.
func checkInvalidShardFlag(p *Pass) {
	for _, pr := range p.problems {
		switch {
		case pr.RuntimeFlag():
			hint := "flag values are strings"
			if p.boolFlag {
				hint = fmt.Sprintf("an unquoted %s is a YAML boolean and flag values are strings; quote it: enable-runtime-v2: %q", p.flag.Value, p.flag.Value)
			}
			p.report(p.flag,
				fmt.Sprintf("materialization %s: shards.flags.enable-runtime-v2 must be a string, not %s (%s); Flow refuses the spec and the task is not on the V2 runtime", p.m.Name, p.flag.Kind, hint))
		case pr.Flag():
			msg := fmt.Sprintf("materialization %s: %s; Flow refuses the spec", p.m.Name, pr.Describe())
			if len(pr.Path) == 2 {
				msg += ", and the task is not on the V2 runtime"
			}
			p.report(pr.Node, msg)
		}
	}
}

// checkSyncScheduleConflict: a materialization syncSchedule beside a
// configured connector schedule.
func checkSyncScheduleConflict(p *Pass) {
	if !p.scheduleKnown() || !p.conflict() {
		return
	}
	key, fix := "syncSchedule", `set syncSchedule to {syncFrequency: "0s"}`
	if p.res.Pointer == "/advanced/updateDelay" {
		key, fix = "advanced.updateDelay", `remove advanced.updateDelay and set syncSchedule to {syncFrequency: "0s"}`
	}
	if len(p.state.Secrets) > 0 {
		// The stored value is overwritten at task start: the fix is in
		// the secret (docs/behaviour.md §4.5).
		fix = "set the connector's off state in the secret that covers it, or move the schedule out of the secret (secret-schedule)"
	}
	p.report(p.schedAt(),
		fmt.Sprintf("materialization %s configures a sync schedule both in its connector config (%s) and as a materialization sync schedule; remove one (to keep the materialization schedule, %s%s)", p.m.Name, key, fix, p.via()))
}

// checkInvalidConnectorSchedule: a connector schedule its connector
// would refuse.
func checkInvalidConnectorSchedule(p *Pass) {
	p.eachProblem(connector.ProblemInvalid, func(pr connector.Problem) {
		n := p.at(pr.Pointer)
		p.report(n, pr.Msg+zoneHint(pr.Pointer, n))
	})
}

// checkAckDelayStacks: a materialization syncSchedule while the
// connector, without the boilerplate deferral, still delays its
// acknowledgements.
func checkAckDelayStacks(p *Pass) {
	if !p.scheduleKnown() || p.conflict() {
		return
	}
	// The task is stacked (docs/behaviour.md §8): on an image tag with
	// the deferral the connector's delay is off, so nothing stacks.
	if p.state.Stacked() {
		p.report(p.schedAt(), stacksMessage(p.m, p.c.Registry, p.entry, p.res, p.via()))
	}
}

// checkLegacyUpdateDelay: advanced.updateDelay, which current images
// reject.
func checkLegacyUpdateDelay(p *Pass) {
	p.eachProblem(connector.ProblemUpdateDelay, func(pr connector.Problem) {
		p.report(p.at(pr.Pointer), pr.Msg)
	})
}

// checkOffEnumScheduleValue: a schedule value the connector accepts but
// its published schema does not list. An error in a plaintext config,
// which Flow's config encryption checks against the schema and refuses
// (docs/behaviour.md §4.1, §5); a warning in a sealed config or a stored
// spec; info for a file sink migrate zeroed there.
//
// A config that uses secrets is a warning whatever it is: Flow takes it
// as legitimately schema-invalid before the secrets are merged in
// (docs/behaviour.md §4.5).
func checkOffEnumScheduleValue(p *Pass) {
	refused := p.m.Where() == connector.Plaintext && !p.m.UsesSecrets()
	p.eachProblem(connector.ProblemOffEnum, func(pr connector.Problem) {
		switch {
		case refused && migratedFileSink(p.res, p.sched):
			p.reportAs(finding.Error, p.at(pr.Pointer), pr.Msg+plaintextMigratedFileSinkNote)
		case refused:
			p.reportAs(finding.Error, p.at(pr.Pointer), pr.Msg+plaintextOffEnumNote)
		case p.m.UsesSecrets():
			p.reportAs(finding.Warning, p.at(pr.Pointer), pr.Msg+secretsOffEnumNote)
		case migratedFileSink(p.res, p.sched):
			p.reportAs(finding.Info, p.at(pr.Pointer), pr.Msg+migratedFileSinkNote)
		default:
			p.report(p.at(pr.Pointer), pr.Msg+formOffEnumNote)
		}
	})
}

// formOffEnumNote ends the off-enum message of a sealed config or a
// stored spec, which Flow publishes as it is (docs/behaviour.md §5).
const formOffEnumNote = "; a form built from the connector's schema (the dashboard's) offers only those values, so an edit there would change it without meaning to"

// secretsOffEnumNote ends the off-enum message of a config that uses
// secrets.
const secretsOffEnumNote = "; the task uses secrets, so Flow does not hold its stored config to that schema (the secrets complete it at task start): a warning, not an error"

// plaintextOffEnumNote ends the off-enum message of a plaintext config.
const plaintextOffEnumNote = "; the config is plaintext (no sops stanza), so Flow checks it against that schema before publishing: flowctl and the dashboard refuse to publish it. Use a listed value, seal the config with sops, or move the schedule to the materialization's syncSchedule"

// plaintextMigratedFileSinkNote ends it for a file sink zeroed beside a
// model schedule in a plaintext config.
const plaintextMigratedFileSinkNote = "; the config is plaintext (no sops stanza), so Flow checks it against that schema before publishing: flowctl and the dashboard refuse to publish it. Seal the config with sops and set the 0 in sops.overlay, or use an image tag with the boilerplate deferral and a listed value"

// checkConnectorScheduleCrashes: an alternating connector schedule that
// panics its connector within the next 366 days, unless the runtime's
// schedule paces a connector that defers to it.
func checkConnectorScheduleCrashes(p *Pass) {
	ps := p.res.Schedule
	if !p.scheduleKnown() || p.c.Crashes == nil || ps == nil || !ps.Alternating || p.state.Deferred {
		return
	}
	if rs := p.c.Crashes.Find(ps); len(rs) > 0 {
		p.report(p.schedAt(), crashMessage(p.m.Name, ps, rs))
	}
}

// checkConnectorScheduleInUse: a V2 task paced by its connector, a
// migration candidate.
func checkConnectorScheduleInUse(p *Pass) {
	if !p.scheduleKnown() || p.sched != nil || !p.v2 || !p.state.DelayKnown || p.state.Delay <= 0 {
		return
	}
	p.report(p.schedAt(),
		fmt.Sprintf("materialization %s is paced by its connector, which delays commit acknowledgements by up to %s (%s); sync-now cannot collapse that delay: run schedtool migrate to move the schedule into the runtime", p.m.Name, connector.FormatDelay(p.res.Delay), describeDelay(p.res)))
}

// checkSealedSchedule: an encrypted schedule value, whose effect is
// unknown.
func checkSealedSchedule(p *Pass) {
	p.eachProblem(connector.ProblemSealed, func(pr connector.Problem) {
		p.report(p.at(pr.Pointer), fmt.Sprintf("materialization %s: %s; set it in sops.overlay to make it known", p.m.Name, pr.Msg))
	})
}

// checkSecretSchedule: a secret merged into the config at task start
// covers a schedule location (docs/behaviour.md §4.5), so the schedule's
// value is unknown: one finding per secret, at its pointer.
func checkSecretSchedule(p *Pass) {
	if p.entry == nil {
		return
	}
	for _, c := range p.state.Secrets {
		p.report(c.Node, fmt.Sprintf("materialization %s: %s; Flow merges the secret's value there at task start, so the connector's schedule is unknown (it counts as configured; census: needs-review, and migrate writes nothing under it): move the schedule out of the secret, or set the connector's off state in the secret itself", p.m.Name, c.Describe()))
	}
}

// checkDefinedInSeveralCatalogs: a name defined in several catalogs
// (docs/behaviour.md §2), reported once, at its first definition, naming
// the others. Flow builds each catalog on its own, so it is no error.
func checkDefinedInSeveralCatalogs(p *Pass) {
	if len(p.others) == 0 || p.others[0].Source.File < p.m.Source.File {
		return
	}
	var at []string
	for _, o := range p.others {
		pos := catalog.Pos(o.Spec)
		at = append(at, fmt.Sprintf("%s:%d:%d", pos.File, pos.Line, pos.Column))
	}
	p.report(p.m.Spec, fmt.Sprintf("materialization %s is also defined at %s, in another catalog (a source no other source imports, which Flow builds on its own): each definition is validated and migrated as itself, and census counts the name once, with its least migrated definition", p.m.Name, strings.Join(at, ", ")))
}
