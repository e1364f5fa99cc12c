// Package report writes validate's findings: one file per format behind
// one Writer interface. Writers stream: findings are written as they come,
// so a run over a large dump holds none of them.
package report

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/estuary/schedtool/finding"
	"github.com/estuary/schedtool/internal/words"
)

// Writer writes findings in one format: Finding for each, in order, then
// End with the summary once. The first error is kept and returned by End.
type Writer interface {
	Finding(f *finding.Finding)
	End(s finding.Summary) error
}

// Renderer is a Writer that can render findings ahead, on any goroutine
// (Render keeps no state), and then write them in order (Rendered), as if
// each had been given to Finding.
type Renderer interface {
	Writer
	Render(dst []byte, f *finding.Finding) []byte
	Rendered(b []byte)
	// Escape appends s as Render writes a string's content (the task,
	// file, pointer and message), one rune at a time.
	Escape(dst []byte, s string) []byte
}

// Formats lists the format names, for flags and help.
var Formats = []string{"text", "json", "sarif", "github"}

// New returns a writer of a format to w.
func New(format string, w io.Writer, version string) (Writer, error) {
	bw := bufio.NewWriterSize(w, 256<<10)
	switch format {
	case "text":
		return &Text{w: bw}, nil
	case "json":
		return &JSON{w: bw}, nil
	case "sarif":
		return newSARIF(bw, version), nil
	case "github":
		return &GitHub{w: bw}, nil
	}
	return nil, fmt.Errorf("unknown output format %q (want %s)", format, strings.Join(Formats, ", "))
}

// WriteAll writes a list of findings and the summary.
func WriteAll(w Writer, fs []finding.Finding, s finding.Summary) error {
	for i := range fs {
		w.Finding(&fs[i])
	}
	return w.End(s)
}

// SummaryLine is the closing line of the text formats.
func SummaryLine(s finding.Summary) string {
	line := fmt.Sprintf("%s, %s, %s in %s from %s",
		plural(s.Errors, "error"), plural(s.Warnings, "warning"), plural(s.Infos, "info"),
		plural(s.Tasks, "materialization"), plural(s.Files, "file"))
	if s.Excepted > 0 {
		line = strings.Replace(line, " in ", fmt.Sprintf(" (and %d excepted by the project file) in ", s.Excepted), 1)
	}
	if s.Definitions > s.Tasks {
		line = strings.Replace(line, " from ", fmt.Sprintf(" (%d definitions: a name in several catalogs is one task) from ", s.Definitions), 1)
	}
	if s.Paced > 0 {
		names := strings.Join(s.PacedNames, ", ")
		if more := s.Paced - len(s.PacedNames); more > 0 {
			names += fmt.Sprintf(" and %d more", more)
		}
		them := Plural(s.Paced, "it", "them")
		line += fmt.Sprintf("; %s still paced by %s connector (V1): %s (census lists %s; migrate --enable-runtime-v2 moves %s)",
			plural(s.Paced, "task"), Plural(s.Paced, "its", "their"), Escape(names), them, them)
	}
	return line
}

func plural(n int, word string) string { return fmt.Sprintf("%d %s", n, Plural(n, word, word+"s")) }

// Plural is one when n is 1, else many.
func Plural(n int, one, many string) string { return words.Plural(n, one, many) }

// Escape makes text safe for a terminal: control characters (newlines and
// ANSI escapes too, C1 controls) and the bidirectional formatting
// characters that reorder what a reader sees (Trojan Source) become Go
// escapes.
func Escape(s string) string {
	if strings.IndexFunc(s, Unsafe) < 0 {
		return s
	}
	return string(appendEscaped(nil, s, false))
}

// Unsafe reports whether a rune must not reach a terminal or a rendered
// page as itself: C0 and C1 controls, DEL, and the bidirectional
// embeddings, overrides, isolates and marks.
func Unsafe(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || Bidi(r)
}

// Bidi reports whether r is a bidirectional formatting character:
// U+061C, U+200E-200F, U+202A-202E, U+2066-2069.
func Bidi(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

func escapeRune(r rune) string {
	q := strconv.QuoteRune(r)
	return q[1 : len(q)-1]
}

// EscapeLine is Escape for one line of a file shown in a diff: tabs and
// the line ending (LF or CRLF) stay as they are, the rest of Unsafe is
// escaped.
func EscapeLine(line []byte) []byte {
	body, end := line, []byte(nil)
	if n := len(body); n > 0 && body[n-1] == '\n' {
		body, end = body[:n-1], body[n-1:]
		if n := len(body); n > 0 && body[n-1] == '\r' {
			body, end = body[:n-1], line[n-1:]
		}
	}
	if bytes.IndexFunc(body, func(r rune) bool { return escapes(r, true) }) < 0 {
		return line
	}
	return append(appendEscaped(nil, string(body), true), end...)
}

// escapes reports whether Escape (keepTab false) or EscapeLine (true)
// writes r as a Go escape.
func escapes(r rune, keepTab bool) bool { return Unsafe(r) && !(keepTab && r == '\t') }

// appendEscaped appends s rune by rune (invalid bytes become U+FFFD),
// the runes escapes reports written as Go escapes.
func appendEscaped(dst []byte, s string, keepTab bool) []byte {
	for _, r := range s {
		if escapes(r, keepTab) {
			dst = append(dst, escapeRune(r)...)
			continue
		}
		dst = utf8.AppendRune(dst, r)
	}
	return dst
}
