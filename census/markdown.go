package census

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/estuary/schedtool/report"
)

// markdown: a report for a pull request: the summary, then a table per status.
type markdownWriter struct {
	w       *bufio.Writer
	rows    map[string][]Row
	history []Snapshot // earlier censuses, for the burndown
	now     time.Time
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
	if m.history != nil {
		writeMermaidBurndown(w, append(m.history, SnapshotOf(t, m.now)))
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

// writeMermaidBurndown draws the remaining users per status against time
// as a Mermaid xychart (GitHub renders it in pull requests and job
// summaries), then gives the same numbers as a table: xychart-beta has no
// legend, and a chart is no text alternative.
func writeMermaidBurndown(w io.Writer, points []Snapshot) {
	labels := make([]string, len(points))
	top := 1
	for i, p := range points {
		labels[i] = strconv.Quote(snapshotLabel(p.At))
		top = max(top, p.Remaining)
	}
	statuses := RemainingStatuses()
	fmt.Fprintf(w, "\n### Burndown\n\n```mermaid\nxychart-beta\n    title \"Remaining users of connector-side pacing\"\n    x-axis [%s]\n    y-axis \"tasks\" 0 --> %d\n", strings.Join(labels, ", "), top)
	fmt.Fprintf(w, "    line %s\n", mermaidSeries(points, func(p Snapshot) int { return p.Remaining }))
	for _, s := range statuses {
		fmt.Fprintf(w, "    line %s\n", mermaidSeries(points, func(p Snapshot) int { return p.ByStatus[s] }))
	}
	fmt.Fprintf(w, "```\n\nThe lines, in order: remaining (the sum of the others), then %s.\n\n| taken | remaining | %s |\n|---|---:|%s\n",
		strings.Join(statuses, ", "), strings.Join(statuses, " | "), strings.Repeat("---:|", len(statuses)))
	for _, p := range points {
		fmt.Fprintf(w, "| %s | %d |", snapshotLabel(p.At), p.Remaining)
		for _, s := range statuses {
			fmt.Fprintf(w, " %d |", p.ByStatus[s])
		}
		fmt.Fprintln(w)
	}
}

func mermaidSeries(points []Snapshot, v func(Snapshot) int) string {
	parts := make([]string, len(points))
	for i, p := range points {
		parts[i] = strconv.Itoa(v(p))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// snapshotLabel names a census's instant on an axis: the date, with the
// time when it is not midnight UTC; "now" when the census has none.
func snapshotLabel(at time.Time) string {
	if at.IsZero() {
		return "now"
	}
	at = at.UTC()
	if at.Hour() == 0 && at.Minute() == 0 && at.Second() == 0 {
		return at.Format("2006-01-02")
	}
	return at.Format("2006-01-02 15:04")
}
