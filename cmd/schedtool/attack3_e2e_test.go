package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/estuary/schedtool/savedplan"
)

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

// The Markdown body of a pull request notifies no one: a file under a
// directory named @someone is named with the mention broken. And a
// command line of many PATHs (a glob) is cut: no part is over GitHub's
// comment limit, whatever one line of the head holds.
func TestMarkdownPlanNoMentionNoHugeLine(t *testing.T) {
	dir := copyFixtures(t)
	cat := filepath.Join(dir, "fixtures/catalog")
	if err := os.Rename(filepath.Join(cat, "acmeCo/lake"), filepath.Join(cat, "@octocat")); err != nil {
		t.Fatal(err)
	}
	root := string(mustRead(t, filepath.Join(cat, "flow.yaml")))
	if !strings.Contains(root, "acmeCo/lake/flow.yaml") {
		t.Fatal("the fixture moved: flow.yaml does not import acmeCo/lake/flow.yaml")
	}
	os.WriteFile(filepath.Join(cat, "flow.yaml"), []byte(strings.ReplaceAll(root, "acmeCo/lake/flow.yaml", `"@octocat/flow.yaml"`)), 0o644)
	// Many PATHs (a glob): a plan holds each relative to the root.
	args := []string{"migrate", "-o", "markdown", "fixtures/catalog"}
	for i := range 20 {
		name := fmt.Sprintf("fixtures/many/%03d-%s.flow.yaml", i, strings.Repeat("x", 200))
		writeFiles(t, dir, map[string]string{name: "materializations: {}\n"})
		args = append(args, name)
	}
	r := schedtoolIn(t, dir, args...)
	if r.code != 2 || !strings.Contains(r.stdout, "## schedtool migrate plan") {
		t.Fatalf("migrate -o markdown: exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "@\u2060octocat/flow.yaml") {
		t.Errorf("the file under @octocat is not named:\n%s", r.stdout)
	}
	for i, line := range strings.Split(r.stdout, "\n") {
		if strings.Contains(line, "@octocat") && !strings.HasPrefix(line, "+") && !strings.HasPrefix(line, "-") && !strings.HasPrefix(line, " ") {
			t.Errorf("line %d mentions @octocat outside the diff block: %s", i+1, line)
		}
	}
	for i, part := range strings.Split(r.stdout, "<!-- schedtool part") {
		if len(part) >= savedplan.CommentLimit {
			t.Errorf("part %d is %d bytes, over GitHub's %d", i, len(part), savedplan.CommentLimit)
		}
	}
	if !strings.Contains(r.stdout, "(cut: ") {
		t.Errorf("the command line of 20 long PATHs is not said to be cut:\n%s", r.stdout)
	}
}

// A crafted --history file: counts no census makes are refused with the
// file named; an instant 2,000 years back does not give a pace over a
// span saturated at 292 years; a scope of megabytes is cut in the
// warning, its escapes escaped.
func TestCensusHostileHistory(t *testing.T) {
	dir := copyFixtures(t)
	r := schedtoolIn(t, dir, "census", "-o", "json", "--summary", "--now", "2026-12-04T00:00:00Z", "fixtures/catalog")
	if r.code != 0 {
		t.Fatalf("census --summary: exit %d\n%s", r.code, r.stderr)
	}
	write := func(name string, edit func(d map[string]any)) string {
		var d map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
			t.Fatal(err)
		}
		edit(d)
		b, _ := json.Marshal(d)
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		return p
	}
	summary := func(d map[string]any) map[string]any { return d["summary"].(map[string]any) }
	for _, c := range []struct {
		name string
		edit func(d map[string]any)
	}{
		{"negative.json", func(d map[string]any) { summary(d)["remaining"] = -5 }},
		{"more-than-tasks.json", func(d map[string]any) { summary(d)["remaining"] = 1e15 }},
		{"negative-status.json", func(d map[string]any) { summary(d)["byStatus"].(map[string]any)["ready"] = -1 }},
	} {
		p := write(c.name, c.edit)
		got := schedtoolIn(t, dir, "census", "-o", "markdown", "--history", p, "fixtures/catalog")
		if got.code != 1 || !strings.Contains(got.stderr, c.name+": not a census document") || !strings.Contains(got.stderr, "which no census counts") {
			t.Errorf("%s: exit %d, want 1 naming the file\n%s", c.name, got.code, got.stderr)
		}
	}
	old := write("old.json", func(d map[string]any) {
		d["generatedAt"] = "0001-01-01T00:00:00Z"
		summary(d)["tasks"], summary(d)["remaining"] = 1e15, 1e15
	})
	got := schedtoolIn(t, dir, "census", "-o", "markdown", "--now", "2026-12-04T00:00:00Z", "--history", old, "fixtures/catalog")
	// Its lanes do not add up to its remaining count: it is read without
	// them, so nothing is projected from it.
	if got.code != 0 || !strings.Contains(got.stdout, "No projection yet") || strings.Contains(got.stdout, "106752 days") {
		t.Errorf("a history point of year 1: exit %d\n%s\n%s", got.code, got.stderr, got.stdout)
	}
	huge := write("scope.json", func(d map[string]any) {
		d["scope"].(map[string]any)["inputs"] = []string{"\x1b]0;pwned\x07\x1b[2J" + strings.Repeat("A", 1<<20)}
	})
	got = schedtoolIn(t, dir, "census", "-o", "markdown", "--history", huge, "fixtures/catalog")
	if got.code != 0 || !strings.Contains(got.stderr, "covers a different scope") || len(got.stderr) > 4000 || strings.Contains(got.stderr, "\x1b") {
		t.Errorf("a scope of 1 MiB: exit %d, %d bytes of standard error:\n%.600q", got.code, len(got.stderr), got.stderr)
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
	var out []byte
	at := 0
	for _, e := range es {
		if e.Start < at || e.End < e.Start || e.End > len(old) {
			t.Fatalf("edit [%d, %d) does not fit %d bytes", e.Start, e.End, len(old))
		}
		out = append(append(out, old[at:e.Start]...), e.New...)
		at = e.End
	}
	return append(out, old[at:]...)
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// explain previews what migrate does, not what the task's own plan
// would: a V2 task sharing its config file with a V1 task needs review
// in migrate (zeroing the file would unpace the V1 task), so explain
// shows no migration for it, in text, json and the timeline.
func TestExplainPreviewIsMigratesSharedConfig(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "flow.yaml"), []byte(`materializations:
  acme/a:
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config: shared.config.yaml
    bindings: []
    shards:
      flags:
        enable-runtime-v2: "true"
  acme/b:
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config: shared.config.yaml
    bindings: []
`), 0o644)
	os.WriteFile(filepath.Join(dir, "shared.config.yaml"), []byte("host: x\nsyncSchedule:\n  syncFrequency: 30m\n"), 0o644)
	m := schedtoolIn(t, dir, "migrate", "-o", "json", ".")
	if !strings.Contains(m.stdout, `"action":"review"`) || !strings.Contains(m.stdout, "config file shared.config.yaml is shared") {
		t.Fatalf("migrate does not review acme/a:\n%s", m.stdout)
	}
	r := schedtoolIn(t, dir, "explain", "-o", "json", "acme/a", ".")
	var e struct{ Migration string }
	if err := json.Unmarshal([]byte(r.stdout), &e); err != nil {
		t.Fatalf("explain -o json: %v\n%s\n%s", err, r.stdout, r.stderr)
	}
	if !strings.HasPrefix(e.Migration, "review (config file shared.config.yaml is shared") {
		t.Errorf("explain previews a migration migrate refuses: %q", e.Migration)
	}
	html := schedtoolIn(t, dir, "explain", "-o", "html", "acme/a", ".")
	if html.code != 0 || strings.Contains(html.stdout, "the schedule migrate writes") {
		t.Errorf("explain -o html draws the schedule migrate would not write (exit %d)", html.code)
	}
	// With --enable-runtime-v2 both migrate, and the preview is shown.
	v2 := schedtoolIn(t, dir, "explain", "-o", "html", "--enable-runtime-v2", "acme/a", ".")
	if !strings.Contains(v2.stdout, "the schedule migrate writes") {
		t.Errorf("explain --enable-runtime-v2 -o html does not draw migrate's schedule")
	}
}
