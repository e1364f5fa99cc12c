package report

import (
	"testing"

	"github.com/estuary/schedtool/finding"
)

// The summary names the V1 tasks still paced by their connector, which
// no rule reports (census counts them as remaining).
func TestSummaryLinePaced(t *testing.T) {
	var s finding.Summary
	s.Tasks, s.Files = 3, 1
	if got, want := SummaryLine(s), "0 errors, 0 warnings, 0 infos in 3 materializations from 1 file"; got != want {
		t.Errorf("%q", got)
	}
	s.AddPaced("acmeCo/a")
	if got, want := SummaryLine(s), "0 errors, 0 warnings, 0 infos in 3 materializations from 1 file; 1 task still paced by its connector (V1): acmeCo/a (census lists it; migrate --enable-runtime-v2 moves it)"; got != want {
		t.Errorf("%q\nwant %q", got, want)
	}
	for _, n := range []string{"b", "c", "d", "e", "f", "g\x1b[31m"} {
		s.AddPaced(n)
	}
	if got, want := SummaryLine(s), "0 errors, 0 warnings, 0 infos in 3 materializations from 1 file; 7 tasks still paced by their connector (V1): acmeCo/a, b, c, d, e and 2 more (census lists them; migrate --enable-runtime-v2 moves them)"; got != want {
		t.Errorf("%q\nwant %q", got, want)
	}
}
