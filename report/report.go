// Package report writes validate's findings: one file per format behind
// one Writer interface.
package report

import (
	"fmt"
	"io"
	"strings"

	"schedtool/finding"
)

// Result is what a validate run found.
type Result struct {
	Findings []finding.Finding
	Summary  finding.Summary
	Version  string
}

// Writer writes a result in one format.
type Writer interface {
	Write(w io.Writer, r *Result) error
}

// Formats lists the format names, for flags and help.
var Formats = []string{"text", "json", "sarif", "github"}

// New returns the writer of a format.
func New(format string) (Writer, error) {
	switch format {
	case "text":
		return Text{}, nil
	case "json":
		return JSON{}, nil
	case "sarif":
		return SARIF{}, nil
	case "github":
		return GitHub{}, nil
	}
	return nil, fmt.Errorf("unknown output format %q (want %s)", format, strings.Join(Formats, ", "))
}

// SummaryLine is the closing line of the text formats.
func SummaryLine(s finding.Summary) string {
	return fmt.Sprintf("%s, %s, %s in %s from %s",
		plural(s.Errors, "error"), plural(s.Warnings, "warning"), plural(s.Infos, "info"),
		plural(s.Tasks, "materialization"), plural(s.Files, "file"))
}

func plural(n int, word string) string {
	if n == 1 || word == "info" {
		if word == "info" && n != 1 {
			return fmt.Sprintf("%d infos", n)
		}
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// Escape makes text safe for a terminal: control characters (newlines and
// ANSI escapes too) become Go escapes.
func Escape(s string) string {
	clean := true
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			q := fmt.Sprintf("%q", string(r))
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
