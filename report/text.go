package report

import (
	"bufio"
	"strconv"

	"github.com/estuary/schedtool/finding"
)

// Text writes "file:line:col: severity rule: message" lines and a summary.
type Text struct {
	w *bufio.Writer
	// Color colours the severity (on a terminal: the command decides).
	Color bool
}

// severityColor is the ANSI colour of a severity.
var severityColor = map[finding.Severity]string{finding.Error: "\033[1;31m", finding.Warning: "\033[33m", finding.Info: "\033[36m"}

func (t *Text) Finding(f *finding.Finding) {
	bw := t.w
	bw.WriteString(Escape(f.Pos.File))
	bw.WriteByte(':')
	bw.WriteString(strconv.Itoa(f.Pos.Line))
	bw.WriteByte(':')
	bw.WriteString(strconv.Itoa(f.Pos.Column))
	bw.WriteString(": ")
	if t.Color {
		bw.WriteString(severityColor[f.Severity] + f.Severity.String() + "\033[0m")
	} else {
		bw.WriteString(f.Severity.String())
	}
	bw.WriteByte(' ')
	bw.WriteString(f.Rule)
	bw.WriteString(": ")
	bw.WriteString(Escape(f.Message))
	bw.WriteByte('\n')
	bw.WriteString(Excerpt(f.Excerpt, f.Pos.Column, "    "))
}

func (t *Text) End(s finding.Summary) error {
	t.w.WriteString(SummaryLine(s))
	t.w.WriteByte('\n')
	return t.w.Flush()
}
