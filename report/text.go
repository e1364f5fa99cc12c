package report

import (
	"bufio"
	"io"
	"strconv"
)

// Text writes "file:line:col: severity rule: message" lines and a summary.
type Text struct{}

func (Text) Write(w io.Writer, r *Result) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	for i := range r.Findings {
		f := &r.Findings[i]
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
	}
	bw.WriteString(SummaryLine(r.Summary))
	bw.WriteByte('\n')
	return bw.Flush()
}
