package migrate

import (
	"fmt"
	"io"
	"sort"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/livespecs"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/report"
)

// Deferred is the action of a task that would migrate but is left for a
// later run by --limit.
const Deferred plan.Action = "defer"

// wave is the set of tasks one run migrates under --limit N: the first N
// tasks that would migrate, in catalog name order (docs/behaviour.md §9). Tasks
// that share a config file migrate together (one edit zeroes the
// connector of all of them), so they are taken or deferred as one.
type wave struct {
	limit int
	take  map[string]bool
	// why is the deferral reason of the tasks of a group that alone is
	// larger than the limit.
	why map[string]string
	// fixed is a saved plan's task set, taken whole (RunOptions.TaskSet).
	fixed bool
}

// fixedWave is the wave of a saved plan's task set: those names and no
// other.
func fixedWave(names []string) *wave {
	w := &wave{take: map[string]bool{}, why: map[string]string{}, fixed: true}
	for _, n := range names {
		w.take[n] = true
	}
	return w
}

// candidate is a task that would migrate, and the group it moves with.
type candidate struct {
	name  string
	group []string // the names migrating together with it, itself included
}

// newWave picks the tasks of this run among the candidates.
func newWave(limit int, cands []candidate) *wave {
	w := &wave{limit: limit, take: map[string]bool{}, why: map[string]string{}}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].name < cands[j].name })
	done := map[string]bool{}
	taken, full := 0, false
	for _, c := range cands {
		if done[c.name] {
			continue
		}
		group := c.group
		if len(group) == 0 {
			group = []string{c.name}
		}
		for _, n := range group {
			done[n] = true
		}
		switch {
		case len(group) > limit:
			// Never fits at this limit: said, and passed over so that
			// it does not hold up the tasks after it.
			for _, n := range group {
				w.why[n] = fmt.Sprintf("deferred: it shares a config file with %d other %s that must migrate with it, more than --limit %d allows; raise --limit to at least %d",
					len(group)-1, report.Plural(len(group)-1, "task", "tasks"), limit, len(group))
			}
		case full || taken+len(group) > limit:
			// The wave is a prefix in name order: the next run goes on
			// from here.
			full = true
		default:
			taken += len(group)
			for _, n := range group {
				w.take[n] = true
			}
		}
	}
	return w
}

// defers reports whether a task that would migrate is left for a later
// run, and why: plan.CauseLimit when only --limit's count leaves it.
func (w *wave) defers(name string) (plan.Cause, string, bool) {
	if w == nil || w.take[name] {
		return plan.CauseNone, "", false
	}
	if why := w.why[name]; why != "" {
		return plan.CauseMigrate, why, true
	}
	if w.fixed {
		return plan.CauseTaskSet, "deferred: not in the saved plan's task set", true
	}
	return plan.CauseLimit, fmt.Sprintf("deferred by --limit %d: this run migrates the first %d in catalog name order; run again for the next wave", w.limit, w.limit), true
}

// oversized reports whether a task is deferred because its group is
// larger than the limit: it never migrates at this limit.
func (w *wave) oversized(name string) bool {
	return w != nil && w.why[name] != ""
}

// deferDecision turns a decision into a deferral.
func deferDecision(d *plan.Decision, cause plan.Cause, reason string) {
	d.Action, d.Cause, d.Reason = Deferred, cause, reason
	d.Model, d.ZeroConnector, d.RemoveUpdateDelay, d.ReplaceModel, d.EnableRuntimeV2 = nil, false, false, false, false
}

// catalogCandidates are the tasks of a catalog that would migrate, with
// the groups that share a config file. plan has already held back every
// file with a user outside the run (mg.Holders: the users come from the
// whole root), so a group here holds every user of its files: the wave
// takes or defers it as one, never part of it.
func (mg *Migrator) catalogCandidates(cat *catalog.Catalog) []candidate {
	all := mg.plan(cat)
	byMat := map[*catalog.Materialization]*one{}
	for _, o := range all {
		byMat[o.m] = o
	}
	// Union the users of each shared config file that migrate.
	parent := map[string]string{}
	var find func(string) string
	find = func(n string) string {
		if p, ok := parent[n]; ok && p != n {
			r := find(p)
			parent[n] = r
			return r
		}
		return n
	}
	for _, cf := range cat.Configs {
		var names []string
		for _, u := range cf.Users {
			if o := byMat[u]; o != nil && o.d.Action == plan.Migrate && o.p.config != nil {
				names = append(names, u.Name)
			}
		}
		for _, n := range names[min(1, len(names)):] {
			a, b := find(names[0]), find(n)
			if a != b {
				parent[b] = a
			}
		}
	}
	groups := map[string][]string{}
	var cands []candidate
	seen := map[string]bool{}
	for _, o := range all {
		if o.d.Action != plan.Migrate || seen[o.m.Name] {
			continue // --limit counts names: a name's definitions are one
		}
		seen[o.m.Name] = true
		root := find(o.m.Name)
		groups[root] = append(groups[root], o.m.Name)
		cands = append(cands, candidate{name: o.m.Name})
	}
	for i := range cands {
		cands[i].group = groups[find(cands[i].name)]
		sort.Strings(cands[i].group)
	}
	return cands
}

// dumpCandidates are the rows of a dump that would migrate.
func (mg *Migrator) dumpCandidates(r io.Reader, name string, opts livespecs.DumpOptions, add func(string)) error {
	return livespecs.ScanDump(r, name, opts, func(rr *livespecs.RowResult) string {
		if rr.Mat == nil {
			return ""
		}
		if d, _, _ := mg.rowPlan(rr.Mat); d.Action == plan.Migrate {
			return rr.Mat.Name
		}
		return ""
	}, func(n string) {
		if n != "" {
			add(n)
		}
	})
}
