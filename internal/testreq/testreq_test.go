package testreq

import "testing"

func TestRequested(t *testing.T) {
	for _, c := range []struct {
		value string
		want  bool
	}{{"", false}, {"0", false}, {"1", true}, {"true", true}} {
		t.Setenv("SCHEDTOOL_REQUIRE_TESTREQ", c.value)
		if got := Requested("SCHEDTOOL_REQUIRE_TESTREQ"); got != c.want {
			t.Errorf("Requested with %q = %v, want %v", c.value, got, c.want)
		}
	}
}

// recorder notes whether a test failed or skipped, without ending it.
type recorder struct {
	testing.TB
	failed, skipped bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Fatalf(string, ...any) { r.failed = true }
func (r *recorder) Skipf(string, ...any)  { r.skipped = true }

func TestMissing(t *testing.T) {
	t.Setenv("CI", "true") // CI=true alone never turns a skip into a failure
	for _, c := range []struct {
		value         string
		fail, skipped bool
	}{{"", false, true}, {"0", false, true}, {"1", true, false}} {
		t.Setenv("SCHEDTOOL_REQUIRE_TESTREQ", c.value)
		r := &recorder{TB: t}
		Missing(r, "SCHEDTOOL_REQUIRE_TESTREQ", "x is missing")
		if r.failed != c.fail || r.skipped != c.skipped {
			t.Errorf("Missing with %q: failed %v skipped %v, want %v %v", c.value, r.failed, r.skipped, c.fail, c.skipped)
		}
	}
}
