package migrate

import (
	"path/filepath"
	"testing"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/catalog/selection"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/schedule/connector"
)

// UsersTree exposes TestUsersNeverUnpaced's random trees to the saved
// plans' property test (package migrate_test, which imports savedplan,
// an importer of this package).
type UsersTree struct{ ut *usersTree }

// GenUsersTree draws a tree with g.
func GenUsersTree(g func(n int) int) UsersTree { return UsersTree{genUsersTree(g)} }

// Write writes the tree under dir.
func (u UsersTree) Write(t *testing.T, dir string) { u.ut.write(t, dir) }

// Paced is, for every task of the tree under dir, whether it has pacing.
func (u UsersTree) Paced(t *testing.T, dir string) map[string]bool { return u.ut.paced(t, dir, true) }

// Runs are the tree's runs that write in place (those of --out DIR are
// left out).
func (u UsersTree) Runs() []UsersRun {
	var out []UsersRun
	for _, r := range u.ut.runs {
		if !r.outDir {
			out = append(out, UsersRun{r})
		}
	}
	return out
}

// Whole is the run over the whole tree, every V1 task moved to V2:
// the one that leaves the fewest tasks to review, so the most groups.
func (u UsersTree) Whole() UsersRun {
	return UsersRun{usersRun{paths: []string{"."}, enableV2: true, describes: "whole tree, --enable-runtime-v2"}}
}

// UsersRun is one run of a tree.
type UsersRun struct{ r usersRun }

func (r UsersRun) String() string { return r.r.describes }

// Setup is the run over the tree under dir as --write would make it: a
// fresh Migrator, the inputs and the options (Mode Write). ok is false
// when a PATH holds no source (nothing to run).
func (r UsersRun) Setup(dir string) (mg *Migrator, inputs []catalog.Input, ro RunOptions, ok bool) {
	reg := connector.Builtin()
	mg = &Migrator{Planner: &plan.Planner{Registry: reg, Options: plan.Options{EnableRuntimeV2: r.r.enableV2}}, Registry: reg}
	opts := catalog.DefaultOptions()
	if !r.r.noRoot {
		opts.Root = dir
	}
	opts.Select = selection.New(r.r.sel)
	var paths []string
	for _, p := range r.r.paths {
		paths = append(paths, filepath.Join(dir, p))
	}
	inputs, err := input.Resolve(paths, opts)
	if err != nil {
		return nil, nil, ro, false
	}
	return mg, inputs, RunOptions{Load: opts, Mode: Write, Limit: r.r.limit}, true
}
