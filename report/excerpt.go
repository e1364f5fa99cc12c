package report

import (
	"strings"
	"unicode/utf8"
)

// excerptWidth bounds each side of the column shown from a source line
// (a minified JSON file is one line).
const excerptWidth = 60

// Excerpt renders a source line and a caret under its 1-based character
// column, each line indented by indent and ending in a newline, as
// compilers and yamllint show a syntax error. Unsafe runes are escaped
// (a tab shows as \t, and the caret stays under its character); a long
// line is cut around the column with "…". Empty text renders nothing.
func Excerpt(text string, col int, indent string) string {
	if text == "" {
		return ""
	}
	i := 0
	for n := 1; n < col && i < len(text); n++ {
		_, size := utf8.DecodeRuneInString(text[i:])
		i += size
	}
	before := Escape(text[:i])
	after := Escape(text[i:])
	if n := utf8.RuneCountInString(before); n > excerptWidth {
		before = "…" + string([]rune(before)[n-excerptWidth+1:])
	}
	if r := []rune(after); len(r) > excerptWidth {
		after = string(r[:excerptWidth-1]) + "…"
	}
	var b strings.Builder
	b.WriteString(indent + before + after + "\n")
	b.WriteString(indent + strings.Repeat(" ", utf8.RuneCountInString(before)) + "^\n")
	return b.String()
}
