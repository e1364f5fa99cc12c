package report

import (
	"bufio"
	"fmt"
	"strings"

	"schedtool/finding"
)

// GitHub writes workflow commands (::error file=...::message), one per
// finding, and the summary as a notice.
type GitHub struct {
	w *bufio.Writer
}

var ghData = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
var ghProp = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")

func (g *GitHub) Finding(f *finding.Finding) {
	cmd := "notice"
	switch f.Severity {
	case finding.Error:
		cmd = "error"
	case finding.Warning:
		cmd = "warning"
	}
	fmt.Fprintf(g.w, "::%s file=%s,line=%d,col=%d,title=%s::%s\n", cmd,
		ghProp.Replace(f.Pos.File), f.Pos.Line, f.Pos.Column, ghProp.Replace(f.Rule), ghData.Replace(f.Message))
}

func (g *GitHub) End(s finding.Summary) error {
	fmt.Fprintf(g.w, "::notice title=schedtool::%s\n", ghData.Replace(SummaryLine(s)))
	return g.w.Flush()
}
