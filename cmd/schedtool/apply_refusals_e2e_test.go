package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/estuary/schedtool/catalog/edit"
	"github.com/estuary/schedtool/finding"
	"github.com/estuary/schedtool/savedplan"
)

// Regression tests from a hostile pass over main after issues 23 §4, 24
// and 26.
// apply checked only the hashes of the files its plan edits: a source
// added after the plan, whose V1 task uses the config file the plan
// zeroes, was never read, and apply zeroed that task's connector while it
// has no model schedule (unpaced, and census passed the gate). apply
// reads the plan's catalog again and refuses the group.
func TestApplyRefusesConfigFileNewlyShared(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		"flow.yaml": `materializations:
  acmeCo/a:
    shards:
      flags:
        enable-runtime-v2: "true"
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config: c.yaml
    bindings: []
`,
		"c.yaml": "host: x\nsyncSchedule:\n  syncFrequency: 1h\n",
	})
	if r := schedtoolIn(t, dir, "migrate", "--plan", "wave.plan", "."); r.code != 2 {
		t.Fatalf("plan: exit %d\n%s", r.code, r.stderr)
	}
	writeFiles(t, dir, map[string]string{"other.flow.yaml": `materializations:
  acmeCo/b:
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config: c.yaml
    bindings: []
`})
	// --out DIR copies the new source into the tree beside the zeroed file.
	out := filepath.Join(t.TempDir(), "out")
	r := schedtoolIn(t, dir, "apply", "--out", out, "wave.plan")
	if r.code != 2 || !strings.Contains(r.stderr, "c.yaml: would not be written: ") || !strings.Contains(r.stderr, "also used by acmeCo/b (other.flow.yaml:3") || !strings.Contains(r.stderr, "nothing written under") {
		t.Errorf("apply --out: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("apply --out wrote a tree")
	}
	r = schedtoolIn(t, dir, "apply", "wave.plan")
	if r.code != 2 || !strings.Contains(r.stderr, "c.yaml: not written: ") || !strings.Contains(r.stderr, "a decision no longer holds") || !strings.Contains(r.stderr, "also used by acmeCo/b (other.flow.yaml:3") {
		t.Errorf("apply: exit %d\n%s", r.code, r.stderr)
	}
	if b := mustRead(t, filepath.Join(dir, "c.yaml")); !strings.Contains(string(b), "syncFrequency: 1h") {
		t.Errorf("the shared config was zeroed:\n%s", b)
	}
	if r := schedtoolIn(t, dir, "census", "--fail-if-remaining", "."); r.code != 2 {
		t.Errorf("census: exit %d\n%s", r.code, r.stderr)
	}
}

// A stacked task (a model schedule already, the connector still delaying)
// is finished by zeroing its connector alone: the plan's group is the
// config file, and its source, where the model schedule and the V2 flag
// are, was never hashed. Removing either after the plan left apply
// zeroing the connector of a task with no working model schedule on the
// V2 runtime (unpaced; the gate passed). apply asks the one decision of
// the task again.
func TestApplyRefusesStackedTaskChangedInUneditedSource(t *testing.T) {
	const src = `materializations:
  acmeCo/a:
    shards: {flags: {enable-runtime-v2: "true"}}
    syncSchedule: {baseInterval: 1h}
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config: c.yaml
    bindings: []
`
	for _, tc := range []struct{ name, old, new string }{
		{"model removed", "    syncSchedule: {baseInterval: 1h}\n", ""},
		{"flag removed", `    shards: {flags: {enable-runtime-v2: "true"}}` + "\n", ""},
		{"model broken", "{baseInterval: 1h}", "{baseInterval: 1h, timezone: UTC}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "flow.yaml": src, "c.yaml": "host: x\n"})
			if r := schedtoolIn(t, dir, "migrate", "--plan", "wave.plan", "."); r.code != 2 {
				t.Fatalf("plan: exit %d\n%s", r.code, r.stderr)
			}
			writeFiles(t, dir, map[string]string{"flow.yaml": strings.Replace(src, tc.old, tc.new, 1)})
			r := schedtoolIn(t, dir, "apply", "wave.plan")
			if r.code != 2 || !strings.Contains(r.stderr, "c.yaml: not written: ") {
				t.Errorf("apply: exit %d\n%s", r.code, r.stderr)
			}
			if b := mustRead(t, filepath.Join(dir, "c.yaml")); string(b) != "host: x\n" {
				t.Errorf("the connector was zeroed:\n%s", b)
			}
		})
	}
}

// The check of a stacked task's source is by definition: a name defined
// in several catalogs under the root (prod and staging) is one task with
// a definition per config file, and an unchanged plan applies.
func TestApplyStackedTaskInSeveralCatalogs(t *testing.T) {
	const src = `materializations:
  acmeCo/a:
    shards: {flags: {enable-runtime-v2: "true"}}
    syncSchedule: {baseInterval: 1h}
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config: c.yaml
    bindings: []
`
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "prod/flow.yaml": src, "prod/c.yaml": "host: x\n", "staging/flow.yaml": src, "staging/c.yaml": "host: x\n"})
	if r := schedtoolIn(t, dir, "migrate", "--plan", "wave.plan", "."); r.code != 2 {
		t.Fatalf("plan: exit %d\n%s", r.code, r.stderr)
	}
	if r := schedtoolIn(t, dir, "apply", "--check", "wave.plan"); r.code != 0 {
		t.Fatalf("apply --check of an unchanged plan: exit %d\n%s", r.code, r.stderr)
	}
	writeFiles(t, dir, map[string]string{"staging/flow.yaml": strings.Replace(src, "    syncSchedule: {baseInterval: 1h}\n", "", 1)})
	r := schedtoolIn(t, dir, "apply", "wave.plan")
	if r.code != 2 || !strings.Contains(r.stderr, "staging/c.yaml: not written: ") {
		t.Errorf("apply: exit %d\n%s", r.code, r.stderr)
	}
	if b := mustReadString(t, filepath.Join(dir, "staging/c.yaml")); b != "host: x\n" {
		t.Errorf("staging's connector was zeroed:\n%s", b)
	}
}

// craftPlan makes a plan of the fixtures, lets edit change it, and writes
// it back with its digest recomputed (a digest is no signature: anyone
// can recompute it).
func craftPlan(t *testing.T, dir string, edit func(p *savedplan.Plan)) string {
	t.Helper()
	if r := schedtoolIn(t, dir, "migrate", "--plan", "wave.plan", "fixtures/catalog"); r.code != 2 {
		t.Fatalf("migrate --plan: exit %d\n%s", r.code, r.stderr)
	}
	p, err := savedplan.Open(filepath.Join(dir, "wave.plan"), "(devel)", 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	edit(p)
	if err := p.Write(filepath.Join(dir, "crafted.plan")); err != nil {
		t.Fatal(err)
	}
	return "crafted.plan"
}

// A crafted plan that zeroes connectors without adding their model
// schedules (and says it zeroes nothing) is refused: migrate's planning,
// run again, does not give those edits.
func TestApplyRefusesCraftedPlanThatUnpaces(t *testing.T) {
	dir := copyFixtures(t)
	src := filepath.Join(dir, "fixtures/catalog/acmeCo/warehouse/flow.yaml")
	old := mustRead(t, src)
	plan := craftPlan(t, dir, func(p *savedplan.Plan) {
		for gi := range p.Groups {
			g := &p.Groups[gi]
			for _, f := range g.Files {
				if f.Path != "acmeCo/warehouse/flow.yaml" { // relative to the root, fixtures/catalog
					continue
				}
				var keep []savedplan.Edit
				for _, e := range f.Edits {
					if !strings.Contains(e.New, "syncSchedule:") {
						keep = append(keep, e)
					}
				}
				if len(keep) == 0 {
					t.Fatal("the fixture moved: no zeroing edit in acmeCo/warehouse/flow.yaml")
				}
				f.Edits, f.Models, f.Zeroes = keep, nil, nil
				f.Result = savedplan.Hash(patch(t, old, keep))
				g.Files = []savedplan.File{f}
				p.Groups = []savedplan.Group{*g}
				return
			}
		}
		t.Fatal("the fixture moved: no group edits acmeCo/warehouse/flow.yaml")
	})
	for _, check := range []bool{true, false} {
		args := []string{"apply", plan}
		if check {
			args = []string{"apply", "--check", plan}
		}
		r := schedtoolIn(t, dir, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "schedtool: fixtures/catalog/acmeCo/warehouse/flow.yaml: ") ||
			!strings.Contains(r.stderr, "not be written: migrate would now write it together with") && !strings.Contains(r.stderr, "not written: migrate would now write it together with") {
			t.Errorf("%v: exit %d, want 2 naming the file\n%s", args, r.code, r.stderr)
		}
	}
	if got := mustRead(t, src); string(got) != string(old) {
		t.Errorf("the crafted plan zeroed connectors with no model schedule:\n%s", got)
	}
}

// A crafted plan cannot write a file that migrate would not write: one
// outside the root, or one that is not a source or config file.
func TestApplyRefusesCraftedPlanOutsideCatalog(t *testing.T) {
	dir := copyFixtures(t)
	victim := filepath.Join(t.TempDir(), "victim.txt")
	if err := os.WriteFile(victim, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	notSource := filepath.Join(dir, "fixtures/catalog/notes.txt")
	if err := os.WriteFile(notSource, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The root is fixtures/catalog (no git work tree): a plan's paths are
	// relative to it.
	for _, target := range []string{victim, "notes.txt", "../../../" + filepath.Base(filepath.Dir(victim)) + "/victim.txt"} {
		plan := craftPlan(t, dir, func(p *savedplan.Plan) {
			e := []savedplan.Edit{{Line: 1, Start: 0, End: 5, New: "pwned"}}
			g := p.Groups[0]
			g.Files = []savedplan.File{{Path: target, Size: 6, SHA256: savedplan.Hash([]byte("hello\n")), Edits: e, Result: savedplan.Hash(patch(t, []byte("hello\n"), e)), Tasks: g.Files[0].Tasks}}
			p.Groups = []savedplan.Group{g}
		})
		r := schedtoolIn(t, dir, "apply", plan)
		if r.code != 2 || !strings.Contains(r.stderr, filepath.Base(target)+": not written: ") || strings.Contains(r.stderr, "written: "+target) {
			t.Errorf("%s: exit %d, want 2\n%s", target, r.code, r.stderr)
		}
	}
	for _, p := range []string{victim, notSource} {
		if got := mustReadString(t, p); got != "hello\n" {
			t.Errorf("a crafted plan wrote %s: %q", p, got)
		}
	}
}

// A crafted plan of stored specs whose row edits zero the connector but
// drop the model schedule is refused: neither the rows file nor the
// publishable tree gets a row that nothing paces.
func TestApplyRefusesCraftedRowThatUnpaces(t *testing.T) {
	dir := copyFixtures(t)
	// The fixture's dump holds a row that does not parse (exit 1): the
	// plan is written all the same.
	if r := schedtoolIn(t, dir, "migrate", "--plan", "rows.plan", "fixtures/live_specs.ndjson"); !strings.Contains(r.stderr, "plan written: rows.plan") {
		t.Fatalf("migrate --plan: exit %d\n%s", r.code, r.stderr)
	}
	p, err := savedplan.Open(filepath.Join(dir, "rows.plan"), "(devel)", 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Dumps) != 1 || len(p.Dumps[0].Rows) == 0 {
		t.Fatal("the fixture moved: no migrated row")
	}
	row := &p.Dumps[0].Rows[0]
	var keep []savedplan.Edit
	for _, e := range row.Edits {
		if !strings.Contains(e.New, "syncSchedule") {
			keep = append(keep, e)
		}
	}
	if len(keep) == len(row.Edits) {
		t.Fatal("the fixture moved: the row's edits add no syncSchedule")
	}
	var src []byte
	for _, l := range strings.Split(mustReadString(t, filepath.Join(dir, "fixtures/live_specs.ndjson")), "\n") {
		if savedplan.Hash([]byte(l)) == row.SHA256 {
			src = []byte(l)
		}
	}
	if src == nil {
		t.Fatal("the planned row is not a line of the dump")
	}
	row.Edits, row.Result = keep, savedplan.Hash(patch(t, src, keep))
	p.Dumps[0].Rows = p.Dumps[0].Rows[:1]
	if err := p.Write(filepath.Join(dir, "crafted.plan")); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{"rows.ndjson", "tree"} {
		args := []string{"apply", "--out", out, "crafted.plan"}
		if out == "tree" {
			args = []string{"apply", "--out", out + "/", "crafted.plan"}
		}
		r := schedtoolIn(t, dir, args...)
		if r.code != 2 || !strings.Contains(r.stderr, row.Name+": not written: the row is the one planned on, but migrate would now migrate it otherwise") {
			t.Errorf("%v: exit %d, want 2 naming the row\n%s", args, r.code, r.stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, out)); err == nil {
			if files := treeFiles(t, dir); strings.Contains(strings.Join(mapValues(files), "\n"), `"syncFrequency":"0s"`) {
				t.Errorf("%v wrote a row with its connector zeroed and no model schedule", args)
			}
		}
	}
}

// patch applies edits (sorted, not overlapping) to old, as a hand editor
// of a plan would to compute its result.
func patch(t *testing.T, old []byte, es []savedplan.Edit) []byte {
	t.Helper()
	tes := make([]finding.TextEdit, len(es))
	at := 0
	for i, e := range es {
		if e.Start < at || e.End < e.Start || e.End > len(old) {
			t.Fatalf("edit [%d, %d) does not fit %d bytes", e.Start, e.End, len(old))
		}
		tes[i] = finding.TextEdit{Start: e.Start, End: e.End, NewText: []byte(e.New)}
		at = e.End
	}
	return edit.Apply(old, tes)
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}
