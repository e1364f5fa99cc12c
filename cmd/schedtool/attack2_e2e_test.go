package main

import (
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

// The project file is one YAML document: keys in a second one (after
// ---) were read by no one and checked by no one; now an error at the
// second document's line. A tag that is not a string says its tag.
func TestProjectFileOneDocument(t *testing.T) {
	for _, c := range []struct{ pf, want string }{
		{"exclude: [x]\n---\nexceptions: 5\n", ".schedtool.yaml:2:1: a second YAML document: the project file is one document"},
		{"root: !!binary aGVsbG8=\n", ".schedtool.yaml:1:7: root must be a string, not a !!binary value"},
	} {
		dir := t.TempDir()
		writeTree(t, dir, map[string]string{
			".git/HEAD":       "x\n",
			"prod.flow.yaml":  pjSource([3]string{"acmeCo/prod/a", ctV2, "{syncSchedule: {syncFrequency: 0s}}"}),
			".schedtool.yaml": c.pf,
		})
		r := schedtoolIn(t, dir, "census", "--fail-if-remaining", ".")
		expect(t, r, 1, nil, []string{c.want})
	}
	// One document with a leading --- is one document.
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".git/HEAD":       "x\n",
		"prod.flow.yaml":  pjSource([3]string{"acmeCo/prod/a", ctV2, "{syncSchedule: {syncFrequency: 0s}}"}),
		".schedtool.yaml": "---\nexclude: [nothing]\n",
	})
	expect(t, schedtoolIn(t, dir, "census", "--fail-if-remaining", "."), 0, []string{"1 task on scheduling images"}, nil)
}
