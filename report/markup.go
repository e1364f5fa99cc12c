package report

import (
	"html"
	"strconv"
	"unicode/utf8"
)

// Markup makes text safe in HTML, SVG and any XML 1.0 document: what
// Escape escapes (controls, bidirectional characters), the two
// characters XML forbids that Escape keeps (U+FFFE, U+FFFF) as Go
// escapes, each byte that is not UTF-8 (a lone surrogate among them) as
// \xNN, then the markup characters as entities. Every HTML and SVG
// writer escapes input text with it, and only with it.
func Markup(s string) string {
	if utf8.ValidString(s) && !hasMarkupUnsafe(s) {
		return html.EscapeString(s)
	}
	var b []byte
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			b = append(b, `\x`...)
			b = strconv.AppendUint(b, uint64(s[i])>>4, 16)
			b = strconv.AppendUint(b, uint64(s[i])&0xf, 16)
		case markupUnsafe(r):
			b = append(b, escapeRune(r)...)
		default:
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return html.EscapeString(string(b))
}

// markupUnsafe reports whether a rune is escaped in markup: Unsafe, or
// not a character of XML 1.0 (U+FFFE, U+FFFF; surrogates never decode).
func markupUnsafe(r rune) bool { return Unsafe(r) || r == 0xfffe || r == 0xffff }

func hasMarkupUnsafe(s string) bool {
	for _, r := range s {
		if markupUnsafe(r) {
			return true
		}
	}
	return false
}
