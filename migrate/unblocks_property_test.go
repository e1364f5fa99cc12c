package migrate_test

import (
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/estuary/schedtool/census"
	"github.com/estuary/schedtool/migrate"
	"github.com/estuary/schedtool/plan"
)

// TestUnblocksAreMarginalDryRuns, over TestUsersNeverUnpaced's random
// trees (shared config files by every spelling, sealed configs, broken
// sources, V1 and V2 users of one file) and their PATHs and selectors:
// census's what unblocks what puts each remaining task in the row of
// exactly the sets of decisions under which migrate's dry run migrates it
// and no set with fewer decisions does, a person's when none does, and
// the rows add up to the remaining count.
func TestUnblocksAreMarginalDryRuns(t *testing.T) {
	rnd := rand.New(rand.NewPCG(32, 8))
	n := 30
	if testing.Short() {
		n = 8
	}
	for i := range n {
		ut := migrate.GenUsersTree(func(n int) int { return rnd.IntN(n) })
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			dir := t.TempDir()
			ut.Write(t, dir)
			for _, r := range append([]migrate.UsersRun{ut.Whole()}, ut.Runs()...) {
				checkUnblocks(t, r, dir)
			}
		})
	}
}

func checkUnblocks(t *testing.T, r migrate.UsersRun, dir string) {
	t.Helper()
	mg, inputs, ro, ok := r.Setup(dir)
	if !ok {
		return
	}
	ro.Limit = 0 // what unblocks what is of a whole run
	rp := migrate.NewReplay(inputs, ro.Load)
	replay := func(set plan.Options, want func(string) bool, each func(string, plan.Action, string)) error {
		m := &migrate.Migrator{Planner: &plan.Planner{Registry: mg.Registry, Options: set}, Registry: mg.Registry}
		return rp.Tasks(m, want, func(t *migrate.Task) { each(t.Task, plan.Action(t.Action), t.Reason) })
	}
	dry := func(set plan.Options, each func(string, plan.Action, string)) error {
		m := &migrate.Migrator{Planner: &plan.Planner{Registry: mg.Registry, Options: set}, Registry: mg.Registry}
		run := ro
		run.Mode, run.Record = migrate.DryRun, taskRecorder(each)
		_, err := m.Run(inputs, run, io.Discard, io.Discard)
		return err
	}
	// Each set's tasks, every definition migrated (or left with nothing
	// to do), straight from migrate's dry runs.
	moved := make([]map[string]bool, len(census.DrySets))
	for i, set := range census.DrySets {
		moved[i] = map[string]bool{}
		for _, opts := range set.Runs {
			out, not := map[string]bool{}, map[string]bool{}
			if err := dry(opts, func(task string, a plan.Action, _ string) {
				if a == plan.Migrate || a == plan.None {
					out[task] = true
				} else {
					not[task] = true
				}
			}); err != nil {
				t.Fatal(err)
			}
			for n := range out {
				if !not[n] {
					moved[i][n] = true
				}
			}
		}
	}
	var rows []census.Row
	c := &census.Census{Planner: &plan.Planner{Registry: mg.Registry}, DryRun: replay}
	tot, err := c.Run(inputs, ro.Load, rowWriter{&rows})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	for _, row := range rows {
		if !row.Remaining() {
			continue
		}
		kind := census.UnblockPerson
		for i, set := range census.DrySets {
			marginal := moved[i][row.Task]
			for _, f := range set.Fewer {
				marginal = marginal && !moved[f][row.Task]
			}
			if marginal {
				kind = set.Kind
				break
			}
		}
		want[kind]++
	}
	got := map[string]int{}
	sum := 0
	for _, u := range census.Unblocks(tot) {
		got[u.Kind] += u.Tasks
		sum += u.Tasks
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s: unblocks %v, migrate's dry runs give %v", r, got, want)
	}
	if sum != tot.Remaining {
		t.Errorf("%s: the rows move %d tasks, %d remain", r, sum, tot.Remaining)
	}
}

// taskRecorder hands a dry run's tasks to a function.
type taskRecorder func(string, plan.Action, string)

func (f taskRecorder) Task(t *migrate.Task)             { f(t.Task, plan.Action(t.Action), t.Reason) }
func (taskRecorder) Group([]*migrate.File, string) bool { return true }
func (taskRecorder) Row(string, *migrate.Row) bool      { return true }

// rowWriter keeps a census's rows.
type rowWriter struct{ rows *[]census.Row }

func (w rowWriter) Row(r *census.Row)           { *w.rows = append(*w.rows, *r) }
func (rowWriter) Unreadable(*census.Unreadable) {}
func (rowWriter) End(*census.Totals) error      { return nil }
