// The closing notes of a run on standard error.

package migrate

import (
	"fmt"
	"sort"
	"strings"

	"github.com/estuary/schedtool/internal/paths"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/report"
	"github.com/estuary/schedtool/schedule/connector"
)

// summary writes the closing notes to standard error.
func (r *runner) summary() {
	s := r.sum
	acts := make([]string, 0, len(s.Actions))
	// fileSinks counts, apart from the other skips, the file sinks left
	// for want of --zero-file-sinks.
	const fileSinks plan.Action = "file-sinks"
	counts := map[plan.Action]int{plan.Migrate: s.Actions[plan.Migrate], Deferred: s.Deferred(), plan.Review: s.Review(), plan.Skip: s.Skipped() - s.FileSinks, fileSinks: s.FileSinks, plan.None: s.Actions[plan.None]}
	for _, a := range []plan.Action{plan.Migrate, Deferred, plan.Review, plan.Skip, fileSinks, plan.None} {
		if n := counts[a]; n > 0 {
			acts = append(acts, fmt.Sprintf("%d %s", n, map[plan.Action]string{plan.Migrate: "to migrate", Deferred: fmt.Sprintf("deferred (--limit %d)", r.opts.Limit), plan.Review: report.Plural(n, "needs review", "need review"), plan.Skip: "skipped (V1)", fileSinks: "skipped (file sinks: --zero-file-sinks)", plan.None: "with nothing to do"}[a]))
		}
	}
	line := fmt.Sprintf("migrate: %d %s", s.Tasks, report.Plural(s.Tasks, "materialization", "materializations"))
	if s.Definitions != s.Tasks {
		// Names defined in several catalogs: the actions count definitions.
		line += fmt.Sprintf(" in %d definitions (a name in several catalogs is one task)", s.Definitions)
	}
	if s.Disabled > 0 {
		line += fmt.Sprintf(" (%d disabled)", s.Disabled)
	}
	if len(acts) > 0 {
		line += ": " + strings.Join(acts, ", ")
	}
	switch r.opts.Mode {
	case DryRun:
		var what []string
		if s.Files > 0 || s.Rows == 0 {
			what = append(what, fmt.Sprintf("%d %s", s.Files, report.Plural(s.Files, "file", "files")))
		}
		if s.Rows > 0 {
			what = append(what, fmt.Sprintf("%d dump %s", s.Rows, report.Plural(s.Rows, "row", "rows")))
		}
		line += fmt.Sprintf("; %s to change (dry run: %s)", strings.Join(what, " and "), dryRunHint(s))
	default:
		line += fmt.Sprintf("; %d written", s.Written)
	}
	if s.Refused > 0 {
		line += fmt.Sprintf("; %d refused", s.Refused)
	}
	if s.Failed > 0 {
		line += fmt.Sprintf("; %d failed", s.Failed)
	}
	if s.Interrupted != "" {
		line += fmt.Sprintf("; interrupted by %s: the group being renamed was finished, %d %s left as %s were, no temp file is left", s.Interrupted, s.Untouched, report.Plural(s.Untouched, "file", "files"), report.Plural(s.Untouched, "it", "they"))
	}
	// The files written, one a line (as kubectl apply lists what it
	// configured), before the line that sums them up; --quiet keeps
	// that line alone.
	shown := make([]string, len(r.wrote))
	for i, p := range r.wrote {
		shown[i] = paths.Display(p)
	}
	sort.Strings(shown)
	for _, p := range shown {
		r.note("written: %s", report.Escape(p))
	}
	if r.opts.Replay {
		if p := r.published; p != nil {
			r.note("publish each task: %s\nor all at once:    %s", report.Escape(p.Each), report.Escape(p.All))
		}
		return
	}
	fmt.Fprintln(r.errw, line)
	if r.json == nil {
		if text := ChangeLines(r.changes.list()); text != "" {
			r.note("%s", text)
		}
	}
	if r.hold > 0 {
		// Flow applies a changed spec once the task has acknowledged
		// its outstanding transactions: the current one and the
		// pipelined one, each held by the connector (Flow's docs,
		// "Materialization sync schedule").
		r.note("after publishing: a task takes on its change only once its connector has acknowledged the transactions in flight, up to twice its longest delay (%s for %s, whose connector holds a commit up to %s), and sync-now cannot shorten that; to apply a change at once, disable the task and enable it again",
			connector.FormatDelay(2*r.hold), report.Escape(r.holdTask), connector.FormatDelay(r.hold))
	}
	if r.opts.Mode == OutTree {
		if p := r.published; p != nil {
			r.note("publish each task: %s\nor all at once:    %s", report.Escape(p.Each), report.Escape(p.All))
		} else {
			r.note("nothing to publish: no source was written under %s", report.Escape(r.opts.Out))
		}
	}
	if r.mg.Verify {
		v := s.Verify
		if v == nil {
			v = &VerifySummary{MaxDiff: "0s"}
		}
		// Asked for by name: said even with --quiet.
		fmt.Fprintln(r.errw, v.Line())
	}
	if len(r.defers) > 0 {
		r.note("deferred to a later run (--limit %d, catalog name order):\n%s", r.opts.Limit, strings.Join(r.defers, "\n"))
		if r.moreDef > 0 {
			r.note("  ... and %d more (-o json lists them all)", r.moreDef)
		}
	}
	for _, act := range []plan.Action{plan.Review, plan.Skip} {
		r.noteReasons(act)
	}
}

// noteReasons lists the tasks of one action (review, skip) by reason: a
// line per reason with its count, then its first tasks.
func (r *runner) noteReasons(act plan.Action) {
	var gs []*ReasonGroup
	n := 0
	for _, g := range r.reasons.sorted() {
		if g.Action == act {
			gs = append(gs, g)
			n += g.Count
		}
	}
	if len(gs) == 0 {
		return
	}
	head := map[plan.Action]string{plan.Review: "needs review", plan.Skip: "skipped"}[act]
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d %s, %d %s", head, n, report.Plural(n, "task", "tasks"), len(gs), report.Plural(len(gs), "reason", "reasons"))
	for _, g := range gs {
		fmt.Fprintf(&b, "\n  %d %s: %s", g.Count, report.Plural(g.Count, "task", "tasks"), report.Escape(g.Reason))
		for _, l := range g.lines {
			b.WriteString("\n    " + l)
		}
		if more := g.Count - len(g.lines); more > 0 {
			fmt.Fprintf(&b, "\n    ... and %d more (-o json lists them all)", more)
		}
	}
	r.note("%s", b.String())
}

// textTasks is how many tasks of a reason the text lists.
const textTasks = 20

// ReasonGroup is the tasks that need review, or were skipped, for one
// reason.
type ReasonGroup struct {
	Action plan.Action `json:"action"` // review or skip
	Reason string      `json:"reason"`
	Count  int         `json:"count"`
	Tasks  []string    `json:"tasks,omitempty"` // every one (-o json)
	lines  []string    // the first textTasks, placed, for the text
}

// reasonKey is a group's action and reason.
type reasonKey struct {
	action plan.Action
	reason string
}

// reasons groups tasks by action and reason, in the order first seen.
type reasons struct {
	by    map[reasonKey]*ReasonGroup
	order []*ReasonGroup
}

// Reasons groups tasks that need review or were skipped by reason as
// they stream by (the run's notes do, and a saved plan's Markdown).
type Reasons struct{ rs reasons }

// Add counts t under its reason, and returns its group.
func (r *Reasons) Add(t *Task) *ReasonGroup { return r.rs.add(t, false) }

// Sorted are the groups, review before skip, most tasks first, then by
// reason.
func (r *Reasons) Sorted() []*ReasonGroup { return r.rs.sorted() }

// add counts t under its reason; all keeps every task's name (-o json).
func (rs *reasons) add(t *Task, all bool) *ReasonGroup {
	key := reasonKey{t.Action, t.Reason}
	g := rs.by[key]
	if g == nil {
		if rs.by == nil {
			rs.by = map[reasonKey]*ReasonGroup{}
		}
		g = &ReasonGroup{Action: t.Action, Reason: t.Reason}
		rs.by[key] = g
		rs.order = append(rs.order, g)
	}
	g.Count++
	if len(g.lines) < textTasks {
		g.lines = append(g.lines, t.where())
	}
	if all {
		g.Tasks = append(g.Tasks, t.Task)
	}
	return g
}

// sorted are the groups, review before skip, most tasks first, then by
// reason.
func (rs *reasons) sorted() []*ReasonGroup {
	gs := append([]*ReasonGroup(nil), rs.order...)
	sort.SliceStable(gs, func(i, j int) bool {
		a, b := gs[i], gs[j]
		if a.Action != b.Action {
			return a.Action == plan.Review
		}
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.Reason < b.Reason
	})
	return gs
}

// dryRunHint says how to apply a dry run: --write changes catalog files in
// place, but stored specs cannot be written back (their rows go to
// --out FILE, or to a publishable tree under --out DIR).
func dryRunHint(s *Summary) string {
	switch {
	case s.Rows == 0:
		return "--write applies, --out writes elsewhere"
	case s.Files == 0:
		return "--out FILE writes the migrated rows, --out DIR a tree to publish"
	}
	return "--write applies to the files; the dump rows go to --out FILE or --out DIR, in a run of their own"
}
