package census

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/estuary/schedtool/report"
)

// markdown: a report for a pull request or a job summary: the verdict,
// what unblocks what, the groups, the burndown, then a table of tasks per
// status. GitHub refuses a job summary over 1 MiB: the task tables are cut
// to stay well under it whatever the fleet (the statuses share
// mdTaskBudget: none gets more than an equal share of what the others
// leave), with a count of the rest.
type markdownWriter struct {
	w       *bufio.Writer
	rows    map[string]*mdRows
	history []Snapshot // earlier censuses, for the burndown
	now     time.Time
	scope   *Scope
	kept
}

// mdTaskBudget bounds the bytes of the task tables; the rest of the
// document is bounded by maxListed entries per list.
const mdTaskBudget = 640 << 10

// MarkdownLimit is the size a Markdown census stays under: GitHub's job
// summary limit.
const MarkdownLimit = 1 << 20

type mdRows struct {
	b    []byte
	n    int // rows of the status
	kept int // rows in b
}

func (m *markdownWriter) Row(r *Row) {
	if m.rows == nil {
		m.rows = map[string]*mdRows{}
	}
	g := m.rows[r.Status]
	if g == nil {
		g = &mdRows{}
		m.rows[strings.Clone(r.Status)] = g
	}
	g.n++
	if g.kept < g.n-1 {
		return // the table is already cut: keep it in order
	}
	model := "-"
	if r.Model {
		model = "yes"
	}
	reason := r.Reason
	if r.Crash != "" {
		reason = strings.TrimPrefix(reason+"; the connector crashes: last ack "+r.Crash, "; ")
	}
	line := fmt.Sprintf("| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", mdCell(r.Task), mdCell(r.Image), mdCell(r.Tag), r.Runtime, r.Kind, r.Delay, model, yesDash(r.Disabled), mdCell(reason))
	if len(g.b)+len(line) > mdTaskBudget {
		return
	}
	g.b = append(g.b, line...)
	g.kept++
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

// share cuts the task tables to mdTaskBudget between them, at row ends:
// the smallest tables whole, the rest an equal share of what is left.
func (m *markdownWriter) share() {
	var gs []*mdRows
	for _, g := range m.rows {
		gs = append(gs, g)
	}
	sort.Slice(gs, func(i, j int) bool { return len(gs[i].b) < len(gs[j].b) })
	left := mdTaskBudget
	for i, g := range gs {
		allow := left / (len(gs) - i)
		if len(g.b) > allow {
			cut := bytes.LastIndexByte(g.b[:allow], '\n') + 1
			g.b = g.b[:cut]
			g.kept = bytes.Count(g.b, []byte{'\n'})
		}
		left -= len(g.b)
	}
}

// mdCut shortens a long text (a quoted value, an error) for a cell.
func mdCut(s string) string {
	const max = 300
	if len(s) <= max {
		return s
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

func (m *markdownWriter) End(t *Totals) error {
	w := m.w
	fmt.Fprintf(w, "## Connector-side pacing census\n\n**%s**\n\n%s.\n", Verdict(t), SummaryLine(t))
	pts := points(m.history, t, m.now)
	p := ProjectionOf(pts, t, m.now)
	if list := Unblocks(t); len(list) > 0 {
		fmt.Fprintln(w, "\n### What unblocks what\n\n| decision or action | tasks it moves | how |\n|---|---:|---|")
		for _, u := range list { // bounded: maxListed images and reasons, the rest in one entry
			how := "review each task (`schedtool explain NAME`)"
			if u.Command != "" {
				how = "`" + strings.ReplaceAll(u.Command, "|", "\\|") + "`"
			}
			fmt.Fprintf(w, "| %s | %d | %s |\n", mdCell(mdCut(u.Says())), u.Tasks, how)
		}
	}
	if p != nil {
		fmt.Fprintf(w, "\n### When it ends\n\n%s\n", p.Says())
		if p.History {
			fmt.Fprintln(w)
			for _, l := range p.Lanes {
				if l.Remaining > 0 {
					fmt.Fprintf(w, "- %s\n", l.LaneSays())
				}
			}
		}
	}
	fmt.Fprintln(w, "\n### Groups\n\n| status | tasks |\n|---|---:|")
	for _, s := range Statuses {
		fmt.Fprintf(w, "| %s | %d |\n", s, t.ByStatus[s])
	}
	fmt.Fprintln(w, "\n| image | tasks | remaining | oldest tag in use |\n|---|---:|---:|---|")
	images := Keys(t.ByImage)
	for _, img := range images[:min(len(images), maxListed)] {
		fmt.Fprintf(w, "| %s | %d | %d | %s |\n", mdCell(mdCut(img)), t.ByImage[img], t.RemainingByImage[img], mdCell(mdCut(t.OldestTag[img])))
	}
	if more := len(images) - maxListed; more > 0 {
		fmt.Fprintf(w, "\n... and %d more images (the first %d are listed)\n", more, maxListed)
	}
	if len(t.ByKind) > 0 {
		fmt.Fprintln(w, "\n| kind | tasks |\n|---|---:|")
		for _, k := range Keys(t.ByKind) {
			fmt.Fprintf(w, "| %s | %d |\n", mdCell(k), t.ByKind[k])
		}
		fmt.Fprintln(w, "\n| runtime | tasks |\n|---|---:|")
		for _, k := range Keys(t.ByRuntime) {
			fmt.Fprintf(w, "| %s | %d |\n", mdCell(k), t.ByRuntime[k])
		}
	}
	if len(pts) >= 2 {
		writeMermaidBurndown(w, pts)
	}
	m.share()
	for _, s := range Statuses {
		g := m.rows[s]
		if g == nil || g.n == 0 {
			continue
		}
		fmt.Fprintf(w, "\n### %s (%d)\n\n| task | image | tag | runtime | kind | delay | model | disabled | reason |\n|---|---|---|---|---|---|---|---|---|\n", s, g.n)
		w.Write(g.b)
		if more := g.n - g.kept; more > 0 {
			fmt.Fprintf(w, "\n... and %d more %s tasks, not listed to keep this under GitHub's 1 MiB job summary (the first %d are listed; `-o csv` lists every task)\n", more, s, g.kept)
		}
	}
	if len(m.bad) > 0 {
		fmt.Fprintf(w, "\n### unreadable (%d)\n\nCounted, not skipped: an unknown is not a zero.\n", t.Unreadable)
		for _, g := range groupUnreadable(m.bad) {
			fmt.Fprintf(w, "\n%s (%d):\n\n", mdCell(mdCut(g.Reason)), len(g.Where))
			for i, p := range g.Where {
				if g.Message[i] != "" {
					fmt.Fprintf(w, "- %s (… is %s)\n", mdCell(mdCut(p)), mdCell(mdCut(g.Message[i])))
					continue
				}
				fmt.Fprintf(w, "- %s\n", mdCell(mdCut(p)))
			}
		}
		if more := t.Unreadable - len(m.bad); more > 0 {
			fmt.Fprintf(w, "\n... and %d more (the first %d are listed)\n", more, len(m.bad))
		}
	}
	if m.scope != nil {
		fmt.Fprintf(w, "\n### Scope\n\nThis census covers %s.\n", mdCell(mdCut(m.scope.Describe())))
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
