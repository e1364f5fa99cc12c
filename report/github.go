package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"schedtool/finding"
)

// GitHub writes workflow commands (::error file=...::message), one per
// finding, and the summary as a notice.
type GitHub struct{}

var ghData = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
var ghProp = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")

func (GitHub) Write(w io.Writer, r *Result) error {
	bw := bufio.NewWriter(w)
	for _, f := range r.Findings {
		cmd := "notice"
		switch f.Severity {
		case finding.Error:
			cmd = "error"
		case finding.Warning:
			cmd = "warning"
		}
		fmt.Fprintf(bw, "::%s file=%s,line=%d,col=%d,title=%s::%s\n", cmd,
			ghProp.Replace(f.Pos.File), f.Pos.Line, f.Pos.Column, ghProp.Replace(f.Rule), ghData.Replace(f.Message))
	}
	fmt.Fprintf(bw, "::notice title=schedtool::%s\n", ghData.Replace(SummaryLine(r.Summary)))
	return bw.Flush()
}
