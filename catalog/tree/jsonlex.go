package tree

// What the building parser (json.go) and the skipping scanner (jsonskip.go)
// share: syntax errors, limits, whitespace and numbers.

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// SyntaxError is a document that does not parse, at a position.
type SyntaxError struct {
	File      string
	Line, Col int
	Msg       string
	// Text is the source line at Line (without its line ending), when
	// the error was given the source (WithLine): text output shows it
	// with a caret under Col.
	Text string
}

// WithLine sets the error's Text from the document's source.
func (e *SyntaxError) WithLine(src []byte) *SyntaxError {
	e.Text = LineText(src, e.Line)
	return e
}

// LineText is line n (1-based) of src without its line ending, or ""
// past the end.
func LineText(src []byte, n int) string {
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(src, '\n')
		if j < 0 {
			return ""
		}
		src = src[j+1:]
	}
	if j := bytes.IndexByte(src, '\n'); j >= 0 {
		src = src[:j]
	}
	return string(bytes.TrimSuffix(src, []byte("\r")))
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// Limits bound what a parser accepts.
type Limits struct {
	MaxDepth int // nesting of objects and arrays
	MaxNodes int // nodes in one document (aliases expanded, for YAML)
	// Expanded, when set, is shared by the documents of one run: it
	// counts the values that YAML alias expansion added, and their sum
	// over every document is held to MaxNodes too. (Per document, 31
	// small files could each expand to MaxNodes values, all in memory.)
	Expanded *int
}

// DefaultLimits are generous for catalogs and refuse pathological input.
var DefaultLimits = Limits{MaxDepth: 200, MaxNodes: 1_000_000}

// dupErr is the error for a duplicate key at p.pos, whose first
// occurrence is at offset first.
func (p *jsonParser) dupErr(key string, first int) error {
	if p.doc == &scanDoc {
		return errScan // no line table for the scanner's shared Doc
	}
	line, _ := p.doc.LineCol(first)
	return p.errf("duplicate key %q (first at line %d)", key, line+p.doc.LineBase)
}

func (p *jsonParser) errf(format string, args ...any) error {
	if p.doc == &scanDoc {
		// ScanRow's errors only mean "the slow path", and its Doc is
		// shared by every goroutine: LineCol would build its line table.
		return errScan
	}
	line, col := p.doc.LineCol(p.pos)
	return &SyntaxError{File: p.doc.File, Line: line + p.doc.LineBase, Col: col, Msg: sprintf(format, args...)}
}

// sprintf is fmt.Sprintf, without its cost for the messages of most
// errors (no verb, or one %s of a string): a dump of garbage lines has
// one per row.
func sprintf(format string, args ...any) string {
	i := strings.IndexByte(format, '%')
	switch {
	case i < 0 && len(args) == 0:
		return format
	case i >= 0 && len(args) == 1 && strings.HasPrefix(format[i:], "%s") && strings.IndexByte(format[i+2:], '%') < 0:
		if s, ok := args[0].(string); ok {
			return format[:i] + s + format[i+2:]
		}
	}
	return fmt.Sprintf(format, args...)
}

func (p *jsonParser) what() string {
	if p.pos >= len(p.src) {
		return "end of input"
	}
	r, _ := utf8.DecodeRune(p.src[p.pos:])
	if r == utf8.RuneError {
		return "invalid UTF-8"
	}
	return strconv.QuoteRune(r)
}

func (p *jsonParser) ws() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case '\n':
			p.line++
			p.lineStart = p.pos + 1
		case ' ', '\t', '\r':
		default:
			return
		}
		p.pos++
	}
}

func (p *jsonParser) number() error {
	s := p.src
	i := p.pos
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		p.pos = i
		return p.errf("invalid number")
	}
	if i < len(s) && s[i] == '.' {
		i++
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == j {
			p.pos = i
			return p.errf("invalid number: digits expected after '.'")
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == j {
			p.pos = i
			return p.errf("invalid number: digits expected in the exponent")
		}
	}
	p.pos = i
	return nil
}

func hex4(s []byte, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(s[i:i+4]), 16, 32)
	return rune(v), err == nil
}
