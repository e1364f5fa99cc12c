package main

import (
	"testing"
)

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
