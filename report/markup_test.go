package report

import "testing"

// Markup escapes what XML 1.0 forbids and what Escape escapes, then the
// markup characters; valid text passes as it is.
func TestMarkup(t *testing.T) {
	for in, want := range map[string]string{
		"acmeCo/x":           "acmeCo/x",
		`<a&"'>`:             "&lt;a&amp;&#34;&#39;&gt;",
		"a\ufffeb\uffff":     `a\ufffeb\uffff`,
		"a\xed\xa0\x80b":     `a\xed\xa0\x80b`,
		"a\xffb":             `a\xffb`,
		"a\x01\u202e\u0085b": `a\x01\u202e\u0085b`,
		"é\U0001F600\ufffd":  "é\U0001F600\ufffd",
	} {
		if got := Markup(in); got != want {
			t.Errorf("Markup(%q) = %q, want %q", in, got, want)
		}
	}
}
