package report

import (
	"bufio"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/estuary/schedtool/finding"
)

// GitHub writes workflow commands (::error file=...::message), one per
// finding, and the summary as a notice.
type GitHub struct {
	w *bufio.Writer
	// PathPrefix is put before every path (--path-prefix).
	PathPrefix string
}

var ghDataR = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
var ghPropR = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")

// ghData and ghProp escape per the workflow-command rules, then escape
// the other control characters (an ANSI sequence in the log) as text.
type ghEscaper struct{ r *strings.Replacer }

func (e ghEscaper) Replace(s string) string { return Escape(e.r.Replace(s)) }

var ghData, ghProp = ghEscaper{ghDataR}, ghEscaper{ghPropR}

func (g *GitHub) Finding(f *finding.Finding) {
	cmd := "notice"
	switch f.Severity {
	case finding.Error:
		cmd = "error"
	case finding.Warning:
		cmd = "warning"
	}
	fmt.Fprintf(g.w, "::%s file=%s,line=%d,col=%d,title=%s::%s\n", cmd,
		ghProp.Replace(joinPrefix(g.PathPrefix, filepath.ToSlash(f.Pos.File))), f.Pos.Line, f.Pos.Column, ghProp.Replace(f.Rule), ghData.Replace(f.Message))
}

func (g *GitHub) End(s finding.Summary) error {
	fmt.Fprintf(g.w, "::notice title=schedtool::%s\n", ghData.Replace(SummaryLine(s)))
	return g.w.Flush()
}
