package words

import "testing"

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "rows", 1: "row", 2: "rows", -1: "rows"} {
		if got := Plural(n, "row", "rows"); got != want {
			t.Errorf("Plural(%d) = %s, want %s", n, got, want)
		}
	}
}
