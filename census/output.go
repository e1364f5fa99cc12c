package census

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"schedtool/report"
)

// Writer writes a census in one format: Row and Unreadable as they come,
// then End once.
type Writer interface {
	Row(r *Row)
	Unreadable(u *Unreadable)
	End(t *Totals) error
}

// Renderer is a Writer whose rows can be rendered ahead, on the workers
// that read them: Render appends a row's bytes, RowBytes writes them (in
// order) instead of Row.
//
// Shared renders what a row has in common with the other rows of its
// verdict (everything but task, file and line); RenderShared renders a
// row around those bytes.
type Renderer interface {
	Writer
	Render(b []byte, r *Row) []byte
	Shared(r *Row) []byte
	RenderShared(b []byte, r *Row, shared []byte) []byte
	RowBytes(b []byte)
}

// Formats lists the format names.
var Formats = []string{"table", "wide", "json", "csv", "markdown"}

// NewWriter returns a writer of a format to w. A format that has no place
// for unreadable inputs (csv: one row per task) lists them on errw.
func NewWriter(format string, w, errw io.Writer) (Writer, error) {
	bw := bufio.NewWriterSize(w, 256<<10)
	switch format {
	case "table":
		return &tableWriter{w: bw}, nil
	case "wide":
		return &wideWriter{w: bw, tw: tabwriter.NewWriter(bw, 0, 4, 2, ' ', 0)}, nil
	case "json":
		return &jsonWriter{w: bw}, nil
	case "csv":
		return newCSV(bw, errw), nil
	case "markdown":
		return &markdownWriter{w: bw}, nil
	}
	return nil, fmt.Errorf("unknown output format %q (want %s)", format, strings.Join(Formats, ", "))
}

// SummaryLine is the census in one sentence.
func SummaryLine(t *Totals) string {
	disabled := ""
	if t.Disabled > 0 {
		disabled = fmt.Sprintf(" (%d disabled)", t.Disabled)
	}
	crashing := ""
	if t.Crashing > 0 {
		crashing = fmt.Sprintf(" (%d whose connector schedule crashes it within 366 days: migrate them first)", t.Crashing)
	}
	return fmt.Sprintf("%d %s on scheduling images%s, %d still relying on connector-side pacing%s, %d unreadable %s",
		t.Tasks, report.Plural(t.Tasks, "task", "tasks"), disabled, t.Remaining, crashing, t.Unreadable, report.Plural(t.Unreadable, "input", "inputs"))
}

// table: the summary and the groups, for a terminal.
type tableWriter struct {
	w *bufio.Writer
	kept
}

func (t *tableWriter) Row(*Row) {}
func (t *tableWriter) End(tot *Totals) error {
	writeGroups(t.w, tot)
	writeUnreadable(t.w, t.bad, tot.Unreadable)
	return t.w.Flush()
}

func writeGroups(w io.Writer, tot *Totals) {
	fmt.Fprintln(w, SummaryLine(tot))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\nSTATUS\tTASKS")
	for _, s := range Statuses {
		if n := tot.ByStatus[s]; n > 0 {
			fmt.Fprintf(tw, "%s\t%d\n", s, n)
		}
	}
	fmt.Fprintln(tw, "\nIMAGE\tTASKS\tREMAINING\tOLDEST TAG IN USE")
	for _, img := range Keys(tot.ByImage) {
		oldest := tot.OldestTag[img]
		if oldest == "" && tot.RemainingByImage[img] == 0 {
			oldest = "-"
		} else if oldest == "" {
			oldest = "(none)"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", report.Escape(img), tot.ByImage[img], tot.RemainingByImage[img], report.Escape(oldest))
	}
	fmt.Fprintln(tw, "\nKIND\tTASKS")
	for _, k := range Keys(tot.ByKind) {
		fmt.Fprintf(tw, "%s\t%d\n", k, tot.ByKind[k])
	}
	fmt.Fprintln(tw, "\nRUNTIME\tTASKS")
	for _, k := range Keys(tot.ByRuntime) {
		fmt.Fprintf(tw, "%s\t%d\n", k, tot.ByRuntime[k])
	}
	tw.Flush()
}

// kept is a writer's list of the unreadable inputs it is handed (the
// census hands over the first MaxUnreadableListed).
type kept struct{ bad []Unreadable }

func (k *kept) Unreadable(u *Unreadable) { k.bad = append(k.bad, *u) }

func writeUnreadable(w io.Writer, bad []Unreadable, total int) {
	if len(bad) == 0 {
		return
	}
	fmt.Fprintf(w, "\nUNREADABLE (%d): counted, not skipped: an unknown is not a zero\n", total)
	listUnreadable(w, bad, total)
}

// listUnreadable lists the unreadable inputs kept, of total, a line each.
func listUnreadable(w io.Writer, bad []Unreadable, total int) {
	for _, u := range bad {
		fmt.Fprintf(w, "  %s:%d:%d: %s\n%s", report.Escape(u.File), u.Line, u.Column, report.Escape(u.Message), report.Excerpt(u.Excerpt, u.Column, "      "))
	}
	if more := total - len(bad); more > 0 {
		fmt.Fprintf(w, "  ... and %d more (the first %d are listed)\n", more, len(bad))
	}
}

// wide: one row per task.
type wideWriter struct {
	w  *bufio.Writer
	tw *tabwriter.Writer
	n  int
	kept
}

func (t *wideWriter) Row(r *Row) {
	if t.n == 0 {
		fmt.Fprintln(t.tw, "TASK\tIMAGE\tTAG\tFAMILY\tRUNTIME\tKIND\tDELAY\tMODEL\tDISABLED\tSTATUS\tREASON\tCRASH")
	}
	t.n++
	model := "-"
	if r.Model {
		model = "yes"
	}
	fmt.Fprintf(t.tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", report.Escape(r.Task), report.Escape(r.Image), dash(report.Escape(r.Tag)),
		r.Family, r.Runtime, r.Kind, r.Delay, model, yesDash(r.Disabled), r.Status, dash(report.Escape(r.Reason)), dash(r.Crash))
	if t.n%4096 == 0 {
		t.tw.Flush() // keep memory bounded; columns stay aligned in blocks
	}
}

func yesDash(b bool) string {
	if b {
		return "yes"
	}
	return "-"
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func (t *wideWriter) End(tot *Totals) error {
	t.tw.Flush()
	if t.n > 0 {
		fmt.Fprintln(t.w)
	}
	fmt.Fprintln(t.w, SummaryLine(tot))
	writeUnreadable(t.w, t.bad, tot.Unreadable)
	return t.w.Flush()
}

// json: {"tasks": [...], "unreadable": [...], "groups": {...}, "summary": {...}}.
type jsonWriter struct {
	w   *bufio.Writer
	n   int
	buf []byte
	kept
}

func (j *jsonWriter) Row(r *Row) {
	j.buf = j.Render(j.buf[:0], r)
	j.RowBytes(j.buf)
}

func (j *jsonWriter) RowBytes(b []byte) {
	if j.n == 0 {
		j.w.WriteString(`{"tasks":[`)
	} else {
		j.w.WriteByte(',')
	}
	j.n++
	j.w.Write(b)
}

// Render appends one task object, starting on a new line.
func (j *jsonWriter) Render(b []byte, r *Row) []byte {
	return j.RenderShared(b, r, j.Shared(r))
}

// Shared is the middle of a task object: from image to reason.
func (j *jsonWriter) Shared(r *Row) []byte {
	var b []byte
	for _, kv := range [][2]string{{"image", r.Image}, {"tag", r.Tag}, {"family", r.Family}, {"runtime", r.Runtime}, {"kind", r.Kind}, {"delay", r.Delay}} {
		b = append(b, ",\""+kv[0]+"\":"...)
		b = appendJSON(b, kv[1])
	}
	b = append(b, `,"model":`...)
	b = strconv.AppendBool(b, r.Model)
	b = append(b, `,"disabled":`...)
	b = strconv.AppendBool(b, r.Disabled)
	b = append(b, `,"status":`...)
	b = appendJSON(b, r.Status)
	b = append(b, `,"reason":`...)
	b = appendJSON(b, r.Reason)
	if r.Crash != "" {
		b = append(b, `,"crash":`...)
		b = appendJSON(b, r.Crash)
	}
	return b
}

func (j *jsonWriter) RenderShared(b []byte, r *Row, shared []byte) []byte {
	if b == nil {
		b = make([]byte, 0, 40+len(r.Task)+len(shared)+len(r.File))
	}
	b = append(b, "\n  {\"task\":"...)
	b = appendJSON(b, r.Task)
	b = append(b, shared...)
	b = append(b, `,"file":`...)
	b = appendJSON(b, r.File)
	b = append(b, `,"line":`...)
	b = strconv.AppendInt(b, int64(r.Line), 10)
	return append(b, '}')
}

func appendJSON(b []byte, s string) []byte { return report.AppendJSONString(b, s) }

func (j *jsonWriter) End(t *Totals) error {
	if j.n == 0 {
		j.w.WriteString(`{"tasks":[`)
	} else {
		j.w.WriteString("\n")
	}
	bad := j.bad
	if bad == nil {
		bad = []Unreadable{}
	}
	rest, err := json.Marshal(struct {
		Unreadable []Unreadable `json:"unreadable"`
		Groups     any          `json:"groups"`
		Summary    any          `json:"summary"`
	}{bad, map[string]any{
		"image": t.ByImage, "status": t.ByStatus, "kind": t.ByKind, "runtime": t.ByRuntime, "family": t.ByFamily,
		"remainingByImage": t.RemainingByImage, "oldestTagInUse": t.OldestTag,
	}, map[string]any{
		"tasks": t.Tasks, "remaining": t.Remaining, "unreadable": t.Unreadable, "disabled": t.Disabled, "crashing": t.Crashing, "byStatus": statusCounts(t),
	}})
	if err != nil {
		return err
	}
	j.w.WriteString("],")
	j.w.Write(rest[1:])
	j.w.WriteString("\n")
	return j.w.Flush()
}

// statusCounts has every status, zero or not.
func statusCounts(t *Totals) map[string]int {
	m := map[string]int{}
	for _, s := range Statuses {
		m[s] = t.ByStatus[s]
	}
	return m
}

// csv: a header line, then one row per task (RFC 4180). Unreadable inputs
// have no row: they are listed on standard error, so that they are never
// skipped silently, and the CSV stays one row per task.
type csvWriter struct {
	errw io.Writer
	kept
	w *bufio.Writer
	c *csv.Writer
}

var csvHeader = []string{"task", "image", "tag", "family", "runtime", "kind", "delay", "model", "disabled", "status", "reason", "file", "line", "crash"}

func newCSV(w *bufio.Writer, errw io.Writer) *csvWriter {
	c := csv.NewWriter(w)
	c.Write(csvHeader)
	return &csvWriter{w: w, c: c, errw: errw}
}

// csvCell neutralises a cell a spreadsheet would read as a formula, and
// escapes control characters (a terminal showing the file obeys them).
func csvCell(s string) string {
	s = report.Escape(s)
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

func (c *csvWriter) Row(r *Row) {
	c.c.Write([]string{csvCell(r.Task), csvCell(r.Image), csvCell(r.Tag), r.Family, r.Runtime, r.Kind, r.Delay,
		strconv.FormatBool(r.Model), strconv.FormatBool(r.Disabled), r.Status, csvCell(r.Reason), csvCell(r.File), strconv.Itoa(r.Line), r.Crash})
}

func (c *csvWriter) End(t *Totals) error {
	c.c.Flush()
	if err := c.c.Error(); err != nil {
		return err
	}
	if err := c.w.Flush(); err != nil {
		return err
	}
	if t.Unreadable > 0 {
		fmt.Fprintf(c.errw, "schedtool: census: %d unreadable %s, counted but not rows of the CSV (an unknown is not a zero):\n", t.Unreadable, report.Plural(t.Unreadable, "input", "inputs"))
		listUnreadable(c.errw, c.bad, t.Unreadable)
	}
	return nil
}

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
