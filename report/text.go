package report

import (
	"bufio"
	"strconv"

	"schedtool/finding"
)

// Text writes "file:line:col: severity rule: message" lines and a summary.
type Text struct {
	w *bufio.Writer
}

func (t *Text) Finding(f *finding.Finding) {
	bw := t.w
	bw.WriteString(Escape(f.Pos.File))
	bw.WriteByte(':')
	bw.WriteString(strconv.Itoa(f.Pos.Line))
	bw.WriteByte(':')
	bw.WriteString(strconv.Itoa(f.Pos.Column))
	bw.WriteString(": ")
	bw.WriteString(f.Severity.String())
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
