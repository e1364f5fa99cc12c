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
func makePlan(t *testing.T, r migrate.UsersRun, dir string) (*savedplan.Plan, migrate.RunOptions, bool) {
	t.Helper()
	mg, inputs, ro, ok := r.Setup(dir)
	if !ok {
		return nil, ro, false
	}
	// The PATHs, as migrate --plan records them: apply reads the
	// catalog again to check who uses a file it zeroes.
	var args []string
	for _, in := range inputs {
		args = append(args, in.Arg)
	}
	rec := savedplan.NewRecorder("(devel)", args, nil, nil)
	for _, in := range inputs {
		rec.Plan.Roots = append(rec.Plan.Roots, in.Root)
	}
	dry := ro
	dry.Mode, dry.Record = migrate.DryRun, rec
	sum, err := mg.Run(inputs, dry, io.Discard, io.Discard)
	if err != nil {
		t.Fatalf("%s: %v", r, err)
	}
	rec.Plan.Summary = sum
	b, err := rec.Plan.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	p, err := savedplan.Parse("plan", b, "(devel)")
	if err != nil {
		t.Fatalf("%s: the plan does not read back: %v", r, err)
	}
	return p, ro, true
}

func apply(t *testing.T, p *savedplan.Plan, ro migrate.RunOptions, opts savedplan.ApplyOptions) (*savedplan.Outcome, string) {
	t.Helper()
	var e bytes.Buffer
	opts.Load = ro.Load
	o, err := savedplan.Apply(p, opts, &e)
	if err != nil {
		t.Fatalf("apply: %v\n%s", err, e.String())
	}
	return o, e.String()
}

// TestPlanProperties, over TestUsersNeverUnpaced's random trees (shared
// config files by every spelling, sealed configs, broken sources) and
// their runs (PATHs, selectors, --limit, --enable-runtime-v2):
//   - plan then apply leaves the tree --write leaves;
//   - a plan applied twice changes nothing the second time;
//   - any byte changed in an input of a group refuses exactly that
//     group: its files stay as they were, every other group is written
//     (none with --all-or-nothing);
//   - an apply killed during a group's renames (a rename fails and so
//     does the rollback: a prefix of the group is new) leaves every task
//     that was paced still paced: old, new or stacked.
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

func checkPlan(t *testing.T, ut migrate.UsersTree, rnd *rand.Rand) {
	a, b := t.TempDir(), t.TempDir()
	ut.Write(t, a)
	ut.Write(t, b)
	runs := append([]migrate.UsersRun{ut.Whole()}, ut.Runs()...)
	for _, r := range runs {
		p, ro, ok := makePlan(t, r, a)
		if !ok {
			continue
		}
		apply(t, p, ro, savedplan.ApplyOptions{})
		if mg, inputs, wro, ok := r.Setup(b); ok {
			if _, err := mg.Run(inputs, wro, io.Discard, io.Discard); err != nil {
				t.Fatalf("%s: --write: %v", r, err)
			}
		}
		sa, sb := snapshot(t, a), snapshot(t, b)
		if d := diffSnapshots(sa, sb, nil); d != "" {
			t.Fatalf("%s: plan then apply differs from --write:\n%s", r, d)
		}
		o, msg := apply(t, p, ro, savedplan.ApplyOptions{})
		if o.Written != 0 || o.Changed != 0 {
			t.Fatalf("%s: a second apply wrote %d, refused %d:\n%s", r, o.Written, o.Changed, msg)
		}
		if d := diffSnapshots(sa, snapshot(t, a), nil); d != "" {
			t.Fatalf("%s: a second apply changed the tree:\n%s", r, d)
		}
	}
	// The first run with a group to write (the whole tree's, mostly).
	var r migrate.UsersRun
	found := false
	for _, x := range runs {
		probe := t.TempDir()
		ut.Write(t, probe)
		if p, _, ok := makePlan(t, x, probe); ok && len(p.Groups) > 0 {
			r, found = x, true
			break
		}
	}
	if !found {
		return
	}

	// A byte changed in one input of one group.
	c := t.TempDir()
	ut.Write(t, c)
	p, ro, ok := makePlan(t, r, c)
	if !ok {
		return
	}
	var open []int
	for gi, g := range p.Groups {
		if g.Refused == "" {
			open = append(open, gi)
		}
	}
	if len(open) > 0 {
		ref := t.TempDir()
		ut.Write(t, ref)
		if rp, rro, ok := makePlan(t, r, ref); ok {
			apply(t, rp, rro, savedplan.ApplyOptions{})
		}
		g := p.Groups[open[rnd.IntN(len(open))]]
		f := g.Files[rnd.IntN(len(g.Files))]
		old, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		mutated := append([]byte(nil), old...)
		if len(mutated) == 0 {
			mutated = []byte{'#'}
		} else {
			at := rnd.IntN(len(mutated))
			mutated[at] ^= byte(1 + rnd.IntN(255))
		}
		os.WriteFile(f.Path, mutated, 0o644)
		before := snapshot(t, c)
		// --all-or-nothing: nothing at all. The changed file's group is
		// refused; so may be another group, whose zeroed file the changed
		// source might now use (apply reads the catalog again).
		if o, msg := apply(t, p, ro, savedplan.ApplyOptions{AllOrNothing: true}); o.Written != 0 || o.Changed < len(g.Files) {
			t.Fatalf("%s: --all-or-nothing with %s changed: %d written, %d refused:\n%s", r, f.Path, o.Written, o.Changed, msg)
		}
		if d := diffSnapshots(before, snapshot(t, c), nil); d != "" {
			t.Fatalf("%s: --all-or-nothing wrote:\n%s", r, d)
		}
		o, msg := apply(t, p, ro, savedplan.ApplyOptions{})
		if o.Changed < len(g.Files) || !strings.Contains(msg, f.Path+": not written: changed since the plan") {
			t.Fatalf("%s: a byte changed in %s: %d refused, want its group's %d:\n%s", r, f.Path, o.Changed, len(g.Files), msg)
		}
		// The group's files, by every name (a symlink's target, a hard
		// link's other name).
		inGroup := map[string]bool{}
		var infos []os.FileInfo
		for _, gf := range g.Files {
			if st, err := os.Stat(gf.Path); err == nil {
				infos = append(infos, st)
			}
		}
		filepath.WalkDir(c, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			st, err := os.Stat(p)
			for _, gi := range infos {
				if err == nil && os.SameFile(st, gi) {
					rel, _ := filepath.Rel(c, p)
					inGroup[rel] = true
				}
			}
			return nil
		})
		after := snapshot(t, c)
		if d := diffSnapshots(before, after, func(p string) bool { return !inGroup[p] }); d != "" {
			t.Fatalf("%s: the refused group was written:\n%s", r, d)
		}
		// Every other file is as without the change, or untouched (its
		// group refused whole by the re-read of the catalog).
		want := snapshot(t, ref)
		for name, now := range after {
			if !inGroup[name] && now != want[name] && now != before[name] {
				t.Fatalf("%s: %s is neither as without the change nor untouched:\n%s", r, name, now)
			}
		}
	}

	// A killed apply: the k-th rename fails, and so does every restore.
	d := t.TempDir()
	ut.Write(t, d)
	paced := ut.Paced(t, d)
	p, ro, ok = makePlan(t, r, d)
	if !ok {
		return
	}
	k, renames := 1+rnd.IntN(4), 0
	hooks := ro.Hooks
	hooks.Fault = func(step, path string) error {
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
	}
	apply(t, p, ro, savedplan.ApplyOptions{Hooks: hooks})
	for task, now := range ut.Paced(t, d) {
		if paced[task] && !now {
			t.Fatalf("%s: %s lost its pacing when apply was killed at rename %d", r, task, k)
		}
	}
	// And the next apply finishes it: every group written or applied.
	o, msg := apply(t, p, ro, savedplan.ApplyOptions{})
	if o.Changed != 0 {
		t.Fatalf("%s: apply after a killed one refuses %d:\n%s", r, o.Changed, msg)
	}
}
