package report

import (
	"testing"

	"github.com/estuary/schedtool/finding"
)

// A SARIF fingerprint follows the task, rule and pointer, never the line.
func TestFingerprint(t *testing.T) {
	base := finding.Finding{Rule: "ack-delay-stacks", Task: "acmeCo/a", Pos: finding.Position{File: "flow.yaml", Line: 7, Column: 5, Pointer: "/materializations/acmeCo~1a"}}
	moved := base
	moved.Pos.Line, moved.Pos.Column = 40, 9
	if Fingerprint(&base) != Fingerprint(&moved) {
		t.Error("a finding moved down the file changed its fingerprint")
	}
	for _, change := range []func(*finding.Finding){
		func(f *finding.Finding) { f.Task = "acmeCo/b" },
		func(f *finding.Finding) { f.Rule = "legacy-update-delay" },
		func(f *finding.Finding) { f.Pos.Pointer = "/materializations/acmeCo~1a/syncSchedule" },
	} {
		other := base
		change(&other)
		if Fingerprint(&base) == Fingerprint(&other) {
			t.Errorf("%+v and %+v share a fingerprint", base, other)
		}
	}
}
