package census

import (
	"bufio"
	"fmt"
	"strings"

	"schedtool/report"
)

// markdown: a report for a pull request: the summary, then a table per status.
type markdownWriter struct {
	w    *bufio.Writer
	rows map[string][]Row
	kept
}

func (m *markdownWriter) Row(r *Row) {
	if m.rows == nil {
		m.rows = map[string][]Row{}
	}
	m.rows[r.Status] = append(m.rows[r.Status], *r)
}

// mdNeutral keeps a cell's text from becoming markup: table pipes, code,
// HTML, links and images ([, ], !), autolinks (a word joiner, U+2060,
// breaks "://" and "www.") and @mentions (the same after the @, so that
// no one is notified by a census in a pull request).
var mdNeutral = strings.NewReplacer("\\", "\\\\", "|", "\\|", "\n", " ", "\r", " ", "`", "\\`", "<", "&lt;",
	"[", "\\[", "]", "\\]", "!", "\\!", "@", "@\u2060", "://", ":\u2060//", "www.", "www\u2060.")

// mdCell escapes a table cell.
func mdCell(s string) string {
	s = mdNeutral.Replace(report.Escape(s))
	if s == "" {
		return "-"
	}
	return s
}

func (m *markdownWriter) End(t *Totals) error {
	w := m.w
	fmt.Fprintf(w, "## Connector-side pacing census\n\n%s.\n\n", SummaryLine(t))
	fmt.Fprintln(w, "| status | tasks |\n|---|---:|")
	for _, s := range Statuses {
		fmt.Fprintf(w, "| %s | %d |\n", s, t.ByStatus[s])
	}
	fmt.Fprintln(w, "\n| image | tasks | remaining | oldest tag in use |\n|---|---:|---:|---|")
	for _, img := range Keys(t.ByImage) {
		fmt.Fprintf(w, "| %s | %d | %d | %s |\n", mdCell(img), t.ByImage[img], t.RemainingByImage[img], mdCell(t.OldestTag[img]))
	}
	for _, s := range Statuses {
		rows := m.rows[s]
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n### %s (%d)\n\n| task | image | tag | runtime | kind | delay | model | disabled | reason |\n|---|---|---|---|---|---|---|---|---|\n", s, len(rows))
		for _, r := range rows {
			model := "-"
			if r.Model {
				model = "yes"
			}
			reason := r.Reason
			if r.Crash != "" {
				reason = strings.TrimPrefix(reason+"; the connector crashes: last ack "+r.Crash, "; ")
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", mdCell(r.Task), mdCell(r.Image), mdCell(r.Tag), r.Runtime, r.Kind, r.Delay, model, yesDash(r.Disabled), mdCell(reason))
		}
	}
	if len(m.bad) > 0 {
		fmt.Fprintf(w, "\n### unreadable (%d)\n\n| file | line | problem |\n|---|---:|---|\n", t.Unreadable)
		for _, u := range m.bad {
			fmt.Fprintf(w, "| %s | %d | %s |\n", mdCell(u.File), u.Line, mdCell(u.Message))
		}
		if more := t.Unreadable - len(m.bad); more > 0 {
			fmt.Fprintf(w, "\n... and %d more (the first %d are listed)\n", more, len(m.bad))
		}
	}
	return w.Flush()
}
