package report

import (
	"strings"
	"testing"
)

func TestExcerpt(t *testing.T) {
	long := strings.Repeat("x", 100) + "!" + strings.Repeat("y", 100)
	for _, c := range []struct {
		text string
		col  int
		want string
	}{
		{"", 3, ""},
		{"a: b: c", 5, "  a: b: c\n      ^\n"},
		{"\tb: 1", 1, "  \\tb: 1\n  ^\n"},
		{"\tb: @", 5, "  \\tb: @\n       ^\n"},         // the escaped tab is two wide
		{"é: @", 4, "  é: @\n     ^\n"},                // columns count characters
		{"ab", 3, "  ab\n    ^\n"},                     // just past the end
		{"a\x1b[31mb", 3, "  a\\x1b[31mb\n       ^\n"}, // a terminal escape is shown, not run
		{long, 101, "  …" + strings.Repeat("x", 59) + "!" + strings.Repeat("y", 58) + "…\n  " + strings.Repeat(" ", 60) + "^\n"},
	} {
		if got := Excerpt(c.text, c.col, "  "); got != c.want {
			t.Errorf("Excerpt(%q, %d) =\n%s\nwant\n%s", c.text, c.col, got, c.want)
		}
	}
}
