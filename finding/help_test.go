package finding

import "testing"

// Every rule says how to fix what it finds.
func TestEveryRuleHasHelp(t *testing.T) {
	for _, r := range Rules {
		if HowToFix(r.ID) == "" {
			t.Errorf("%s: no help", r.ID)
		}
	}
	if len(ruleFixes) != len(Rules) {
		t.Errorf("%d help texts for %d rules", len(ruleFixes), len(Rules))
	}
}
