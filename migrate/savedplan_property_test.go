package migrate_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/estuary/schedtool/internal/groupwrite"
	"github.com/estuary/schedtool/migrate"
	"github.com/estuary/schedtool/savedplan"
)

// snapshot is every file under dir (a symlink as its target), by path
// relative to dir.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			out[rel] = "-> " + target
			return err
		}
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diffSnapshots(a, b map[string]string, skip func(string) bool) string {
	var out []string
	for p, x := range a {
		if skip != nil && skip(p) {
			continue
		}
		if y, ok := b[p]; !ok || x != y {
			out = append(out, fmt.Sprintf("%s:\n%s\n--- against ---\n%s", p, x, y))
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok && (skip == nil || !skip(p)) {
			out = append(out, p+": only in the second tree")
		}
	}
	return strings.Join(out, "\n")
}

// makePlan plans the run over dir, as migrate --plan does, and reads the
// plan back from its document (digest checked).
func makePlan(t *testing.T, r migrate.UsersRun, dir string) (*savedplan.Plan, bool) {
	t.Helper()
	mg, inputs, ro, ok := r.Setup(dir)
	if !ok {
		return nil, false
	}
	root := inputs[0].Root
	var args []string
	for _, in := range inputs {
		args = append(args, savedplan.Rel(savedplan.AbsRoot(root), in.Arg))
	}
	path := filepath.Join(t.TempDir(), "p.plan")
	w, err := savedplan.NewWriter(path, &savedplan.Plan{Schedtool: "(devel)", Args: args})
	if err != nil {
		t.Fatal(err)
	}
	dry := ro
	dry.Mode, dry.Record = migrate.DryRun, savedplan.NewRecorder(w, root)
	sum, err := mg.Run(inputs, dry, io.Discard, io.Discard)
	if err != nil {
		t.Fatalf("%s: %v", r, err)
	}
	if err := w.Close(sum); err != nil {
		t.Fatal(err)
	}
	p, err := savedplan.Open(path, "(devel)", 1<<30)
	if err != nil {
		t.Fatalf("%s: the plan does not read back: %v", r, err)
	}
	return p, true
}

// apply applies p to the tree under dir as schedtool apply does: the
// run's migrate over dir (its options as the plan's), run again with the
// plan's task set, writing what the comparison keeps.
func apply(t *testing.T, p *savedplan.Plan, r migrate.UsersRun, dir string, hooks *groupwrite.Hooks) (*savedplan.Comparer, *migrate.Summary, string) {
	t.Helper()
	mg, inputs, ro, ok := r.Setup(dir)
	if !ok {
		t.Fatalf("%s: no inputs under %s", r, dir)
	}
	if hooks != nil {
		ro.Hooks = *hooks
	}
	var e bytes.Buffer
	c := savedplan.NewComparer(p, inputs[0].Root, &e)
	sum, err := savedplan.Run(mg, inputs, ro, c, io.Discard, &e)
	if err != nil {
		t.Fatalf("apply: %v\n%s", err, e.String())
	}
	return c, sum, e.String()
}

// write is migrate --write over the tree under dir with the plan's
// options and task set: what apply may write, at most.
func write(t *testing.T, p *savedplan.Plan, r migrate.UsersRun, dir string) {
	t.Helper()
	mg, inputs, ro, ok := r.Setup(dir)
	if !ok {
		return
	}
	ro.TaskSet = p.TaskSet
	if ro.TaskSet == nil {
		ro.TaskSet = []string{}
	}
	if _, err := mg.Run(inputs, ro, io.Discard, io.Discard); err != nil {
		t.Fatalf("%s: --write: %v", r, err)
	}
}

// TestPlanProperties, over TestUsersNeverUnpaced's random trees (shared
// config files by every spelling, sealed configs, broken sources) and
// their runs (PATHs, selectors, --limit, --enable-runtime-v2):
//   - plan then apply, in the tree planned or in a copy of it at another
//     path, leaves the tree --write leaves; a plan applied twice changes
//     nothing the second time;
//   - for any plan (honest, stale: a byte of an input changed, or
//     tampered with: its edits, files, zeroes or rows changed, as a plan
//     whose digest was recomputed) and any later tree, apply writes a
//     file only where migrate --write with the plan's options and task
//     set on that tree writes exactly the same bytes, and the bytes the
//     plan holds; never a file outside the root;
//   - an apply killed during a group's renames (a rename fails and so
//     does the rollback: a prefix of the group is new) leaves every task
//     that was paced still paced, and the next apply finishes it.
func TestPlanProperties(t *testing.T) {
	rnd := rand.New(rand.NewPCG(26, 1))
	n := 40
	if testing.Short() {
		n = 10
	}
	for i := range n {
		ut := migrate.GenUsersTree(func(n int) int { return rnd.IntN(n) })
		seed := rnd.Uint64()
		t.Run(fmt.Sprint(i), func(t *testing.T) { checkPlan(t, ut, rand.New(rand.NewPCG(seed, 2))) })
	}
}

// tree writes ut under a fresh root inside a parent holding a file of
// its own beside it (what must never be written), and returns the root.
func tree(t *testing.T, ut migrate.UsersTree) (parent, root string) {
	parent = t.TempDir()
	root = filepath.Join(parent, "root")
	ut.Write(t, root)
	os.WriteFile(filepath.Join(parent, "outside.yaml"), []byte("materializations: {}\n"), 0o644)
	return parent, root
}

func checkPlan(t *testing.T, ut migrate.UsersTree, rnd *rand.Rand) {
	runs := append([]migrate.UsersRun{ut.Whole()}, ut.Runs()...)
	for _, r := range runs {
		_, a := tree(t, ut)
		_, b := tree(t, ut)
		_, c := tree(t, ut) // another path: a clone
		p, ok := makePlan(t, r, a)
		if !ok {
			continue
		}
		apply(t, p, r, a, nil)
		apply(t, p, r, c, nil)
		if mg, inputs, wro, ok := r.Setup(b); ok {
			if _, err := mg.Run(inputs, wro, io.Discard, io.Discard); err != nil {
				t.Fatalf("%s: --write: %v", r, err)
			}
		}
		sa, sb := snapshot(t, a), snapshot(t, b)
		if d := diffSnapshots(sa, sb, nil); d != "" {
			t.Fatalf("%s: plan then apply differs from --write:\n%s", r, d)
		}
		if d := diffSnapshots(snapshot(t, c), sb, nil); d != "" {
			t.Fatalf("%s: plan then apply in a copy at another path differs from --write:\n%s", r, d)
		}
		cmp, sum, msg := apply(t, p, r, a, nil)
		if sum.Written != 0 || cmp.Refused != 0 {
			t.Fatalf("%s: a second apply wrote %d, refused %d:\n%s", r, sum.Written, cmp.Refused, msg)
		}
		if d := diffSnapshots(sa, snapshot(t, a), nil); d != "" {
			t.Fatalf("%s: a second apply changed the tree:\n%s", r, d)
		}
	}
	// The first run with a group to write (the whole tree's, mostly).
	var r migrate.UsersRun
	found := false
	for _, x := range runs {
		_, probe := tree(t, ut)
		if p, ok := makePlan(t, x, probe); ok && len(p.Groups) > 0 {
			r, found = x, true
			break
		}
	}
	if !found {
		return
	}
	// Two of the six kinds of stale or tampered plan a tree: over the
	// trees, every kind is drawn.
	for range 2 {
		stale(t, ut, r, rnd, rnd.IntN(6))
	}

	// A killed apply: the k-th rename fails, and so does every restore.
	_, d := tree(t, ut)
	paced := ut.Paced(t, d)
	p, ok := makePlan(t, r, d)
	if !ok {
		return
	}
	k, renames := 1+rnd.IntN(4), 0
	hooks := groupwrite.Hooks{Fault: func(step, path string) error {
		switch step {
		case "rename":
			renames++
			if renames == k {
				return errors.New("killed")
			}
		case "restore":
			return errors.New("killed")
		}
		return nil
	}}
	apply(t, p, r, d, &hooks)
	for task, now := range ut.Paced(t, d) {
		if paced[task] && !now {
			t.Fatalf("%s: %s lost its pacing when apply was killed at rename %d", r, task, k)
		}
	}
	// And the next apply finishes it: the tree --write leaves.
	if cmp, _, msg := apply(t, p, r, d, nil); cmp.Refused != 0 {
		t.Fatalf("%s: apply after a killed one refuses %d:\n%s", r, cmp.Refused, msg)
	}
	_, b := tree(t, ut)
	write(t, p, r, b)
	if diff := diffSnapshots(snapshot(t, d), snapshot(t, b), nil); diff != "" {
		t.Fatalf("%s: apply after a killed one differs from --write:\n%s", r, diff)
	}
}

// stale makes a plan, then changes the tree (a byte of an input of a
// group) or the plan (as a hand edit with its digest recomputed), by
// kind, and applies it: every file apply writes holds what --write with
// the plan's options and task set writes on the tree as it was before
// apply, and what the plan's edits give; nothing outside the root moves.
func stale(t *testing.T, ut migrate.UsersTree, r migrate.UsersRun, rnd *rand.Rand, kind int) {
	parent, c := tree(t, ut)
	p, ok := makePlan(t, r, c)
	if !ok || len(p.Groups) == 0 {
		return
	}
	g := &p.Groups[rnd.IntN(len(p.Groups))]
	f := &g.Files[rnd.IntN(len(g.Files))]
	what := ""
	switch kind {
	case 0: // a byte changed in the input
		path := filepath.Join(c, filepath.FromSlash(f.Path))
		old, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		mutated := append([]byte(nil), old...)
		if len(mutated) == 0 {
			mutated = []byte{'#'}
		} else {
			mutated[rnd.IntN(len(mutated))] ^= byte(1 + rnd.IntN(255))
		}
		os.WriteFile(path, mutated, 0o644)
		what = "a byte of " + f.Path + " changed"
	case 1: // an edit's bytes
		if len(f.Edits) == 0 {
			return
		}
		f.Edits[0].New += "\n  extra: 1"
		what = "an edit of " + f.Path + " tampered with"
	case 2: // the zeroes and tasks emptied
		f.Zeroes, f.Tasks = nil, nil
		what = "the zeroes of " + f.Path + " emptied"
	case 3: // a file dropped from its group
		if len(g.Files) < 2 {
			return
		}
		g.Files = g.Files[:1]
		what = "a group cut to " + g.Files[0].Path
	case 4: // a path pointed outside the root
		f.Path = "../outside.yaml"
		what = "a path outside the root"
	case 5: // the task set emptied
		p.TaskSet = []string{}
		what = "the task set emptied"
	}
	// What --write with the plan's options and task set writes on this
	// tree: apply may write no other bytes.
	ref := filepath.Join(t.TempDir(), "root")
	copyTree(t, c, ref)
	write(t, p, r, ref)
	want := snapshot(t, ref)
	before := snapshot(t, parent)
	cmp, _, msg := apply(t, p, r, c, nil)
	after := snapshot(t, parent)
	for name, now := range after {
		if now == before[name] {
			continue
		}
		rel, inside := strings.CutPrefix(name, "root"+string(filepath.Separator))
		if !inside {
			t.Fatalf("%s, %s: apply wrote %s, outside the root:\n%s", r, what, name, msg)
		}
		if now != want[rel] {
			t.Fatalf("%s, %s: apply wrote %s, which --write on the tree would not write so:\n%s\n--- --write ---\n%s\n%s", r, what, rel, now, want[rel], msg)
		}
		if !planned(p, c, filepath.ToSlash(rel), now) {
			t.Fatalf("%s, %s: apply wrote %s, which is not the plan's result for it:\n%s", r, what, rel, msg)
		}
	}
	if kind >= 1 && kind <= 4 && g.Refused == "" && cmp.Refused == 0 {
		// A tampered group never passes: the recomputation is not it.
		t.Fatalf("%s, %s: nothing refused:\n%s", r, what, msg)
	}
}

// planned reports whether the plan holds the bytes now as the result of
// the file rel.
func planned(p *savedplan.Plan, root, rel, now string) bool {
	real := func(r string) string {
		if x, err := filepath.EvalSymlinks(filepath.Join(root, filepath.FromSlash(r))); err == nil {
			return x
		}
		return r
	}
	for _, g := range p.Groups {
		for _, f := range g.Files {
			// A planned path that is a symlink writes its target: the
			// result is the plan's for whichever of its names it planned.
			if (f.Path == rel || real(f.Path) == real(rel)) && f.Result == savedplan.Hash([]byte(now)) {
				return true
			}
		}
	}
	return false
}

// copyTree copies the tree under src to dst, symlinks as symlinks.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
