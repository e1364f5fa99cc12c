package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A project file whose exclude covers every task of the inputs must not
// make the removal gate pass on nothing: census says how many tasks and
// sources were excluded (text, -o json) and --fail-if-remaining exits 2,
// as an input with no rows fails it (docs/behaviour.md §8, §13). An
// exclude that leaves one task says its count and gates on what is left.
func TestCensusAllExcludedFailsGate(t *testing.T) {
	tree := func(t *testing.T, pf string) string {
		dir := t.TempDir()
		writeTree(t, dir, map[string]string{
			".git/HEAD":                "x\n",
			"prod.flow.yaml":           pjSource([3]string{"acmeCo/prod/a", ctV2, "{syncSchedule: {syncFrequency: 0s}}"}),
			"testdata/apply.flow.yaml": pjSource([3]string{"acmeCo/tests/t", "", "{syncSchedule: {syncFrequency: 30m}}"}),
			".schedtool.yaml":          pf,
		})
		return dir
	}
	for _, glob := range []string{`"**"`, `"*"`, `"."`, `"./"`, `prod.flow.yaml, testdata`} {
		dir := tree(t, "exclude: ["+glob+"]\n")
		r := schedtoolIn(t, dir, "census", "--fail-if-remaining", ".")
		expect(t, r, 2, []string{"0 tasks on scheduling images", "2 tasks in 2 sources excluded by the project file (every task of the inputs"},
			[]string{"the removal gate does not pass on nothing", "excluded every task of the inputs (2 tasks in 2 sources)"})
		r = schedtoolIn(t, dir, "census", "-o", "json", "--fail-if-remaining", ".")
		expect(t, r, 2, []string{`"excluded":{"all":true,"sources":2,"tasks":2}`}, nil)
		// Without the gate, the census is a report, exit 0, saying so.
		r = schedtoolIn(t, dir, "census", ".")
		expect(t, r, 0, []string{"excluded by the project file (every task of the inputs"}, nil)
	}
	// exclude leaves the migrated prod task: the gate passes, and says
	// what was left out.
	dir := tree(t, "exclude: [testdata]\n")
	r := schedtoolIn(t, dir, "census", "--fail-if-remaining", ".")
	expect(t, r, 0, []string{"1 task on scheduling images, 0 still relying", "1 task in 1 source excluded by the project file"}, nil)
	if strings.Contains(r.stdout, "every task") {
		t.Errorf("a census with a task read says every task was excluded:\n%s", r.stdout)
	}
	r = schedtoolIn(t, dir, "census", "-o", "json", ".")
	expect(t, r, 0, []string{`"excluded":{"all":false,"sources":1,"tasks":1}`}, nil)
	// Nothing excluded: no word of it.
	dir = tree(t, "exclude: [nothing-here]\n")
	r = schedtoolIn(t, dir, "census", "--fail-if-remaining", "-o", "json", ".")
	if r.code != 2 || strings.Contains(r.stdout, "excluded") {
		t.Errorf("exclude matching nothing: exit %d\n%s%s", r.code, r.stdout, r.stderr)
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
