package report

import "testing"

func TestEscapeAndLines(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain é", "plain é"},
		{"a\x1b[2Jb", `a\x1b[2Jb`},
		{"c1 \u009b31m", `c1 \u009b31m`},
		{"bidi \u202eevil\u202c \u2066x\u2069 \u200f \u061c", `bidi \u202eevil\u202c \u2066x\u2069 \u200f \u061c`},
		{"line\nnext", `line\nnext`},
	} {
		if got := Escape(tc.in); got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"\t\"host\": \"x\",\n", "\t\"host\": \"x\",\n"},
		{"  \"h\": \"\u009b\u202e\",\r\n", "  \"h\": \"\\u009b\\u202e\",\r\n"},
		{"no newline \u2067", `no newline \u2067`},
		{"cr inside \r here\n", "cr inside \\r here\n"},
	} {
		if got := string(EscapeLine([]byte(tc.in))); got != tc.want {
			t.Errorf("EscapeLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSARIFURI(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"acmeCo/flow.yaml", "acmeCo/flow.yaml"},
		{"odd dir #1/a?b%c.yaml", "odd%20dir%20%231/a%3Fb%25c.yaml"},
		{"c:/x.yaml", "c%3A/x.yaml"},
		{"é.yaml", "%C3%A9.yaml"},
		{"/tmp/flow.yaml", "/tmp/flow.yaml"},
		// Not a network-path reference (a fuzz run's "// " was "//%20").
		{"//tmp/flow.yaml", "/tmp/flow.yaml"},
		{"/// ", "/%20"},
		{"a//b.yaml", "a//b.yaml"},
	} {
		if got := sarifURI(tc.in); got != tc.want {
			t.Errorf("sarifURI(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
