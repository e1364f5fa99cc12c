package suggest

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"
)

func TestClosest(t *testing.T) {
	zones := []string{"America/New_York", "America/Chicago", "America/Denver", "Europe/Paris", "UTC", "US/Eastern"}
	keys := []string{"syncFrequency", "timezone", "fastSyncStartTime", "fastSyncStopTime", "fastSyncEnabledDays"}
	names := []string{"acmeCo/warehouse/materialize-snowflake", "acmeCo/warehouse/materialize-bigquery", "acmeCo/lake/materialize-s3-parquet"}
	for _, c := range []struct {
		target string
		cands  []string
		want   []string
	}{
		{"America/New_Yrok", zones, []string{"America/New_York"}}, // a transposition
		{"america/new_york", zones, []string{"America/New_York"}}, // case
		{"Amerika/Chicgo", zones, []string{"America/Chicago"}},    // two edits
		{"Mars/Olympus_Mons", zones, nil},                         // nothing near: no suggestion
		{"timeZone", keys, []string{"timezone"}},                  // a key in another case
		{"syncFrequncy", keys, []string{"syncFrequency"}},         // a missing letter
		{"fastSyncStrtTime", keys, []string{"fastSyncStartTime", "fastSyncStopTime"}},
		{"acmeCo/warehouse/materialize-snowflak", names, []string{"acmeCo/warehouse/materialize-snowflake"}},
		{"acmeCo/other/thing", names, nil},
		{"x", []string{"y", "xy", "X"}, []string{"X"}}, // too short for an edit: only case
		{"UTX", []string{"UTC", "EST", "MST"}, []string{"UTC"}},
	} {
		if got := Closest(c.target, c.cands, 3); !reflect.DeepEqual(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
			t.Errorf("Closest(%q) = %q, want %q", c.target, got, c.want)
		}
	}
}

// The bounded distance agrees with the full one wherever it is within
// the bound, and the result does not depend on the candidates' order.
func TestDistanceAgreesWithFull(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	word := func() string {
		b := make([]byte, r.Intn(12))
		for i := range b {
			b[i] = "abcAB/-"[r.Intn(7)]
		}
		return string(b)
	}
	for range 20000 {
		a, b := word(), word()
		s := New(a, 3)
		full := osa(a, b)
		if got := s.distance(b); min(got, s.bound+1) != min(full, s.bound+1) {
			t.Fatalf("distance(%q, %q) = %d, full %d (bound %d)", a, b, got, full, s.bound)
		}
	}
	cands := make([]string, 300)
	for i := range cands {
		cands[i] = word()
	}
	want := Closest("abcab", cands, 3)
	for range 20 {
		r.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
		if got := Closest("abcab", cands, 3); !reflect.DeepEqual(got, want) {
			t.Fatalf("order-dependent: %q then %q", want, got)
		}
	}
}

// osa is the textbook table, for the test.
func osa(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if fold(a[i-1]) == fold(b[j-1]) {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && fold(a[i-1]) == fold(b[j-2]) && fold(a[i-2]) == fold(b[j-1]) {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

func names(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("acmeCo/tenant-%07d/warehouse/materialize-snowflake", i)
	}
	return out
}

// A miss on 1,000,000 names costs about what a hit (an exact lookup
// over the same names) does: compare ns/op of the two.
func BenchmarkMiss1M(b *testing.B) {
	ns := names(1_000_000)
	b.ResetTimer()
	for range b.N {
		if got := Closest("acmeCo/tenant-0500000/warehouse/materialize-snowflak", ns, 3); len(got) == 0 {
			b.Fatal("no suggestion")
		}
	}
}

func BenchmarkMissUnrelated1M(b *testing.B) {
	ns := names(1_000_000)
	b.ResetTimer()
	for range b.N {
		if got := Closest("someoneElse/entirely/different", ns, 3); len(got) != 0 {
			b.Fatalf("unrelated suggestion %q", got)
		}
	}
}

func BenchmarkHit1M(b *testing.B) {
	ns := names(1_000_000)
	b.ResetTimer()
	for range b.N {
		found := false
		for _, n := range ns {
			if n == "acmeCo/tenant-0500000/warehouse/materialize-snowflake" {
				found = true
			}
		}
		if !found {
			b.Fatal("no hit")
		}
	}
}
