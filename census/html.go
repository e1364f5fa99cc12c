package census

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/report"
)

// html: one self-contained page for the people who decide when the
// connector's pacing can go: the headline, remaining users by image and
// by tenant, the burndown, what is stuck and why. Inline CSS and SVG
// only, no script, nothing fetched (a Content-Security-Policy forbids
// it): it reads the same opened from disk, printed, and in grayscale
// (every status has a pattern as well as an Okabe-Ito colour, and its
// number written beside it). It holds counts, not rows: a census of a
// million tasks writes a page of a few hundred kilobytes at most.
//
// Every number drawn is also an attribute (data-value) that the browser
// tests read back and compare with census -o json.
type htmlWriter struct {
	w       *bufio.Writer
	now     time.Time
	history []Snapshot
	scope   *Scope
	kept
	byImage  map[string]*perStatus
	byTenant map[string]*perStatus
	reasons  map[string]*reasonGroup
	crashing []Row // the first maxListed, task and crash range
}

// maxListed is how many entries a list of the page shows; the rest are
// counted.
const maxListed = 100

// maxReasons bounds the distinct needs-review reasons kept (a reason can
// quote a value; a hostile dump could make each one unique).
const maxReasons = 10000

// otherReasons collects the needs-review tasks past maxReasons.
const otherReasons = "(other reasons)"

// perStatus counts tasks per status, in Statuses' order.
type perStatus [len(statuses)]int

func (c *perStatus) remaining() int {
	n := 0
	for i, s := range Statuses {
		if plan.Status(s).Remaining() {
			n += c[i]
		}
	}
	return n
}

type reasonGroup struct {
	n     int
	first string // the first task with the reason
}

func newHTML(w *bufio.Writer, opts Options) *htmlWriter {
	return &htmlWriter{w: w, now: opts.Now, history: burndownOf(opts), scope: opts.Scope,
		byImage: map[string]*perStatus{}, byTenant: map[string]*perStatus{}, reasons: map[string]*reasonGroup{}}
}

func statusIndex(s string) int {
	for i, st := range Statuses {
		if st == s {
			return i
		}
	}
	return -1
}

// Tenant is the first segment of a task name ("acmeCo/a/b": "acmeCo").
func Tenant(task string) string {
	if i := strings.IndexByte(task, '/'); i >= 0 {
		return task[:i]
	}
	return task
}

func (h *htmlWriter) Row(r *Row) {
	if r.Crash != "" && len(h.crashing) < maxListed {
		h.crashing = append(h.crashing, Row{Task: r.Task, Image: r.Image, Crash: r.Crash})
	}
	if !r.Remaining() {
		return
	}
	i := statusIndex(r.Status)
	if i < 0 {
		return
	}
	bump(h.byImage, r.Image, i)
	bump(h.byTenant, Tenant(r.Task), i)
	if r.Status == string(plan.StatusNeedsReview) {
		reason := r.Reason
		g := h.reasons[reason]
		if g == nil {
			if len(h.reasons) >= maxReasons {
				reason = otherReasons
				g = h.reasons[reason]
			}
			if g == nil {
				g = &reasonGroup{first: r.Task}
				h.reasons[strings.Clone(reason)] = g
			}
		}
		g.n++
	}
}

func bump(m map[string]*perStatus, key string, i int) {
	c := m[key]
	if c == nil {
		c = &perStatus{}
		m[strings.Clone(key)] = c // key may hold a whole task name
	}
	c[i]++
}

// esc makes input text safe in HTML and SVG (report.Markup).
func esc(s string) string { return report.Markup(s) }

// statusStyle is how a status is drawn: an Okabe-Ito colour and a
// pattern (for grayscale and print), a marker for the burndown.
var statusStyle = map[string]struct{ colour, pattern, marker, dash string }{
	"blocked-v1":   {"#D55E00", "", "square", ""},
	"conflict":     {"#CC79A7", `<path d="M0 0L8 8M8 0L0 8" stroke="#000" stroke-width="1.2"/>`, "diamond", "2 3"},
	"stacked":      {"#E69F00", `<path d="M0 8L8 0M-2 2L2 -2M6 10L10 6" stroke="#000" stroke-width="1.2"/>`, "triangle", "6 3"},
	"ready":        {"#009E73", `<circle cx="4" cy="4" r="1.6" fill="#fff"/>`, "circle", "1 3"},
	ReadyNeedsFlag: {"#F0E442", `<path d="M0 0H8M0 4H8" stroke="#000" stroke-width="0.8"/><circle cx="4" cy="6" r="1.2" fill="#000"/>`, "square", "4 2"},
	"needs-review": {"#56B4E9", `<path d="M0 4H8" stroke="#000" stroke-width="1.2"/>`, "cross", "8 3 2 3"},
	"migrated":     {"#0072B2", "", "circle", ""},
	"unaffected":   {"#BBBBBB", "", "circle", ""},
}

const htmlStyle = `
:root{color-scheme:light}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:#111;background:#fff;margin:24px auto;max-width:1040px;padding:0 16px}
h1{font-size:24px;margin:0 0 4px}h2{font-size:19px;margin:32px 0 8px;border-bottom:1px solid #ccc;padding-bottom:4px}
p.lead{margin:0 0 16px;color:#333}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin:12px 0}
.card{border:1px solid #999;border-radius:6px;padding:8px 12px;min-width:80px}
.card b{display:block;font-size:26px;font-variant-numeric:tabular-nums}
.card span{font-size:13px;color:#333}
.card.alert{border:2px solid #000}
.card.sum{background:#f3f3f3}
.cards .op{align-self:center;font-size:20px;color:#333}
.cards.eq{flex-wrap:nowrap;gap:6px}.cards.eq .card{padding:6px 10px;flex:0 1 auto}
.verdict{font-size:19px;font-weight:600;margin:12px 0;padding:10px 14px;border-radius:6px;border:2px solid #000}
.verdict.pass{background:#e6f4ea}.verdict.fail{background:#fdecea}
.verdict .mark{font-size:22px;margin-right:8px}
.projection{font-size:16px;margin:8px 0}
.scope{font-size:13px;color:#333;overflow-wrap:anywhere}
ul.paths{margin:4px 0 12px;padding-left:20px;font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;overflow-wrap:anywhere}
ul.paths li{margin:0 0 2px}
ul.paths .msg{font:12px system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;color:#444;margin:0 0 4px}
h3{font-size:14px;font-weight:600;margin:14px 0 4px}
td.cmd code{overflow-wrap:anywhere}
#unblocks td:first-child{width:45%}
table{border-collapse:collapse;width:100%;margin:8px 0}
th,td{text-align:left;padding:3px 8px;border-bottom:1px solid #ddd;vertical-align:middle}
th{font-size:13px;color:#333;border-bottom:1px solid #999}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.name{overflow-wrap:anywhere;max-width:340px}
td.bar{width:380px}
td.bar svg{display:block}
.legend{display:flex;flex-wrap:wrap;gap:14px;margin:6px 0;font-size:13px}
.legend svg{vertical-align:-3px;margin-right:4px}
.split{font-size:12px;color:#333}
.note{font-size:13px;color:#333}
code{font-size:13px}
svg text{font:12px system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;fill:#111}
@media print{body{margin:0;max-width:none}h2{break-after:avoid}tr,svg{break-inside:avoid}*{print-color-adjust:exact;-webkit-print-color-adjust:exact}}
`

func (h *htmlWriter) End(t *Totals) error {
	w := h.w
	taken := "at an unrecorded time"
	if !h.now.IsZero() {
		taken = h.now.UTC().Format(time.RFC3339)
	}
	fmt.Fprintf(w, `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>Connector-side pacing census, %s</title>
<style>%s</style></head><body>
`, esc(taken), htmlStyle)
	writePatterns(w)
	fmt.Fprintln(w, "<h1>Connector-side pacing census</h1>")
	h.verdict(t)
	fmt.Fprintf(w, "<p class=\"lead\">Taken %s. %s.</p>\n", esc(taken), esc(SummaryLine(t)))
	if h.scope != nil {
		fmt.Fprintf(w, "<p class=\"scope\" id=\"scope\">Scope: this census covers %s.</p>\n", esc(h.scope.Describe()))
	} else {
		fmt.Fprintln(w, `<p class="scope" id="scope">Scope: not recorded.</p>`)
	}
	h.headline(t)
	h.unblocks(t)
	h.projection(t)
	fmt.Fprintln(w, `<h2>Remaining users by image</h2>`)
	writeLegend(w)
	h.bars("image", "image", h.byImage, t.OldestTag)
	fmt.Fprintln(w, `<h2>Remaining users by tenant</h2>`)
	writeLegend(w)
	h.bars("tenant", "tenant (first segment of the task name)", h.byTenant, nil)
	fmt.Fprintln(w, `<h2>Burndown</h2>`)
	h.burndown(t)
	h.reviewReasons(t)
	h.crashList(t)
	h.unreadable(t)
	fmt.Fprintln(w, "</body></html>")
	return w.Flush()
}

// statusID is a status as an id of the page: "ready (needs
// --zero-file-sinks)" has spaces and parentheses, which url(#...) cannot
// hold.
func statusID(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '_'
	}, s)
}

// writePatterns defines each status's fill once for every chart of the page.
func writePatterns(w io.Writer) {
	fmt.Fprint(w, `<svg width="0" height="0" style="position:absolute" aria-hidden="true" focusable="false"><defs>`)
	for _, s := range Statuses {
		st := statusStyle[s]
		fmt.Fprintf(w, `<pattern id="p-%s" width="8" height="8" patternUnits="userSpaceOnUse"><rect width="8" height="8" fill="%s"/>%s</pattern>`, statusID(s), st.colour, st.pattern)
	}
	fmt.Fprintln(w, `</defs></svg>`)
}

func writeLegend(w io.Writer) {
	fmt.Fprint(w, `<div class="legend" aria-hidden="true">`)
	for _, s := range RemainingStatuses() {
		fmt.Fprintf(w, `<span><svg width="16" height="16"><rect width="16" height="16" fill="url(#p-%s)" stroke="#000" stroke-width="0.5"/></svg>%s</span>`, statusID(s), s)
	}
	fmt.Fprintln(w, `</div>`)
}

// verdict opens the page: whether the removal gate passes, and why not.
func (h *htmlWriter) verdict(t *Totals) {
	class, mark := "fail", "\u2717"
	if GatePasses(t) {
		class, mark = "pass", "\u2713"
	}
	fmt.Fprintf(h.w, "<p class=\"verdict %s\" id=\"verdict\" data-passes=\"%t\" data-remaining=\"%d\" data-unreadable=\"%d\"><span class=\"mark\" aria-hidden=\"true\">%s</span>%s</p>\n",
		class, GatePasses(t), t.Remaining, t.Unreadable, mark, esc(Verdict(t)))
}

// statusLabel is a remaining status as a headline box says it.
var statusLabel = map[string]string{
	"blocked-v1":   "blocked-v1",
	"conflict":     "conflict",
	"stacked":      "stacked",
	"ready":        "ready",
	ReadyNeedsFlag: "ready with --zero-file-sinks",
	"needs-review": "needs-review",
}

// headline: the tasks, the remaining ones, and a box per remaining
// status, which add up to the remaining count.
func (h *htmlWriter) headline(t *Totals) {
	card := func(class, key, label string, n int) {
		fmt.Fprintf(h.w, `<div class="%s" data-key="%s" data-value="%d"><b>%d</b><span>%s</span></div>`+"\n", class, key, n, n, esc(label))
	}
	fmt.Fprintln(h.w, `<div id="headline">`)
	fmt.Fprintln(h.w, `<div class="cards">`)
	alert := func(key, label string, n int) {
		class := "card"
		if n > 0 {
			class += " alert"
		}
		card(class, key, label, n)
	}
	card("card", "tasks", "tasks on scheduling images", t.Tasks)
	alert("unreadable", "unreadable inputs", t.Unreadable)
	alert("crashing", "crashing (connector panics within 366 days)", t.Crashing)
	if t.Disabled > 0 {
		card("card", "disabled", "disabled (counted with their status)", t.Disabled)
	}
	fmt.Fprintln(h.w, `</div>`)
	fmt.Fprintln(h.w, `<div class="cards eq">`)
	card("card sum", "remaining", "remaining", t.Remaining)
	fmt.Fprintln(h.w, `<span class="op" aria-hidden="true">=</span>`)
	for i, s := range RemainingStatuses() {
		if i > 0 {
			fmt.Fprintln(h.w, `<span class="op" aria-hidden="true">+</span>`)
		}
		key := s
		if s == ReadyNeedsFlag {
			key = "readyNeedsZeroFileSinks"
		}
		card("card", key, statusLabel[s], t.ByStatus[s])
	}
	fmt.Fprintln(h.w, `</div></div>`)
}

// unblocks: what unblocks what, each decision or action with the tasks
// it moves and its command.
func (h *htmlWriter) unblocks(t *Totals) {
	w := h.w
	fmt.Fprintln(w, `<h2>What unblocks what</h2>`)
	list := Unblocks(t)
	if len(list) == 0 {
		fmt.Fprintln(w, `<p class="note" id="unblocks" data-value="0">Nothing to unblock: no task remains.</p>`)
		return
	}
	fmt.Fprintln(w, `<table id="unblocks"><thead><tr><th>decision or action</th><th class="n">tasks it moves</th><th>how</th></tr></thead><tbody>`)
	for _, u := range list { // bounded: maxListed images and reasons, the rest in one entry
		how := "review each task (schedtool explain NAME)"
		if u.Command != "" {
			how = u.Command
		}
		fmt.Fprintf(w, "<tr data-kind=\"%s\" data-value=\"%d\"><td>%s</td><td class=\"n\">%d</td><td class=\"cmd\"><code>%s</code></td></tr>\n", u.Kind, u.Tasks, esc(u.Says()), u.Tasks, esc(how))
	}
	fmt.Fprintln(w, `</tbody></table>`)
}

// projection: when the count reaches zero, lane by lane, and whether the
// whole does (docs/behaviour.md §8).
func (h *htmlWriter) projection(t *Totals) {
	p := ProjectionOf(points(h.history, t, h.now), t, h.now)
	if p == nil {
		return
	}
	w := h.w
	zero := ""
	if p.ZeroAround != nil {
		zero = *p.ZeroAround
	}
	fmt.Fprintf(w, "<p class=\"projection\" id=\"projection\" data-zero=\"%s\" data-stalls=\"%d\">%s</p>\n", zero, p.StallsAt, esc(p.Says()))
	if !p.History {
		return
	}
	fmt.Fprintln(w, `<ul id="lanes">`)
	for _, l := range p.Lanes {
		if l.Remaining == 0 {
			continue
		}
		zero := ""
		if l.ZeroAround != nil {
			zero = *l.ZeroAround
		}
		fmt.Fprintf(w, "<li data-lane=\"%s\" data-remaining=\"%d\" data-zero=\"%s\">%s</li>\n", l.Lane, l.Remaining, zero, esc(l.LaneSays()))
	}
	fmt.Fprintln(w, `</ul>`)
}

const barWidth = 360

// bars draws remaining users per key as bars stacked by status, the
// keys with most remaining first, maxListed of them.
func (h *htmlWriter) bars(group, heading string, m map[string]*perStatus, oldest map[string]string) {
	w := h.w
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := m[keys[i]].remaining(), m[keys[j]].remaining()
		return a > b || a == b && keys[i] < keys[j]
	})
	if len(keys) == 0 {
		fmt.Fprintf(w, "<p class=\"note\" data-group=\"%s\" data-value=\"0\">No remaining users.</p>\n", group)
		return
	}
	top := m[keys[0]].remaining()
	shown := keys[:min(len(keys), maxListed)]
	fmt.Fprintf(w, `<table data-group="%s" data-total="%d"><thead><tr><th>%s</th><th class="n">remaining</th><th>by status</th>`, group, len(keys), esc(heading))
	if oldest != nil {
		fmt.Fprint(w, `<th>oldest tag in use</th>`)
	}
	fmt.Fprintln(w, `</tr></thead><tbody>`)
	statuses := RemainingStatuses()
	for _, k := range shown {
		c := m[k]
		n := c.remaining()
		var split []string
		for _, s := range statuses {
			if v := c[statusIndex(s)]; v > 0 {
				split = append(split, fmt.Sprintf("%d %s", v, s))
			}
		}
		label := esc(k)
		fmt.Fprintf(w, `<tr data-key="%s" data-value="%d"><td class="name">%s</td><td class="n">%d</td><td class="bar">`, label, n, label, n)
		fmt.Fprintf(w, `<svg width="%d" height="18" viewBox="0 0 %d 18" role="img" aria-labelledby="t-%s-%s"><title id="t-%s-%s">%s: %d remaining</title><desc>%s</desc>`,
			barWidth, barWidth, group, idOf(k), group, idOf(k), label, n, esc(strings.Join(split, ", ")))
		x := 0.0
		for _, s := range statuses {
			v := c[statusIndex(s)]
			if v == 0 {
				continue
			}
			bw := float64(v) / float64(top) * barWidth
			fmt.Fprintf(w, `<rect x="%.2f" y="1" width="%.2f" height="16" fill="url(#p-%s)" stroke="#000" stroke-width="0.5" data-status="%s" data-value="%d"/>`, x, bw, statusID(s), s, v)
			x += bw
		}
		fmt.Fprintf(w, `</svg><div class="split">%s</div></td>`, esc(strings.Join(split, " · ")))
		if oldest != nil {
			fmt.Fprintf(w, `<td data-oldest="%s">%s</td>`, esc(oldest[k]), esc(dash(oldest[k])))
		}
		fmt.Fprintln(w, `</tr>`)
	}
	fmt.Fprintln(w, `</tbody></table>`)
	if more := len(keys) - len(shown); more > 0 {
		rest := 0
		for _, k := range keys[len(shown):] {
			rest += m[k].remaining()
		}
		fmt.Fprintf(w, "<p class=\"note\">... and %d more (the first %d are listed), with %d remaining users between them.</p>\n", more, len(shown), rest)
	}
}

// idOf is an id fragment for a key: hex of its bytes, so any input is a
// valid, unique id.
func idOf(s string) string { return fmt.Sprintf("%x", s) }

// burndown draws remaining users per status against time: the history,
// then this census.
func (h *htmlWriter) burndown(t *Totals) {
	w := h.w
	if h.history == nil {
		fmt.Fprintln(w, `<p class="note">No history: give earlier <code>census -o json</code> outputs with <code>--history FILE</code> to draw remaining users against time.</p>`)
		return
	}
	points := points(h.history, t, h.now)
	if len(points) < 2 {
		// One census in time (the history is this census): no line yet.
		fmt.Fprintln(w, `<p class="note" id="burndown" data-points="1">One census so far: the burndown starts with the next one (keep each week's <code>census -o json --summary</code> and give them with <code>--history</code>).</p>`)
		return
	}
	const width, height, left, right, top, bottom = 760.0, 330.0, 56.0, 24.0, 16.0, 56.0
	plotW, plotH := width-left-right, height-top-bottom
	ymax := 1
	for _, p := range points {
		ymax = max(ymax, p.Remaining)
	}
	step := niceStep(ymax)
	yTop := int(math.Ceil(float64(ymax)/float64(step))) * step
	y := func(v int) float64 { return top + plotH - float64(v)/float64(yTop)*plotH }
	t0, t1 := points[0].At, points[len(points)-1].At
	span := t1.Sub(t0).Seconds()
	x := func(at time.Time) float64 {
		if span <= 0 {
			return left + plotW/2
		}
		return left + at.Sub(t0).Seconds()/span*plotW
	}
	labelX := timeLabels(points, x, 0, width)
	statuses := RemainingStatuses()
	first, last := points[0], points[len(points)-1]
	fmt.Fprintf(w, `<svg id="burndown" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" role="img" aria-labelledby="bd-title bd-desc" data-ymax="%d">`, width, height, width, height, yTop)
	fmt.Fprintf(w, `<title id="bd-title">Burndown: remaining users of connector-side pacing per status, %s to %s</title>`, snapshotLabel(first.At), snapshotLabel(last.At))
	fmt.Fprintf(w, `<desc id="bd-desc">%d censuses. Remaining users went from %d to %d. The table below gives every number.</desc>`+"\n", len(points), first.Remaining, last.Remaining)
	for v := 0; v <= yTop; v += step {
		fmt.Fprintf(w, `<g class="tick" data-axis="y" data-value="%d"><line x1="%.0f" x2="%.0f" y1="%.2f" y2="%.2f" stroke="#ddd"/><text x="%.0f" y="%.2f" text-anchor="end" dominant-baseline="middle">%d</text></g>`+"\n", v, left, left+plotW, y(v), y(v), left-6, y(v), v)
	}
	fmt.Fprintf(w, `<line x1="%.0f" x2="%.0f" y1="%.0f" y2="%.0f" stroke="#000"/>`+"\n", left, left+plotW, top+plotH, top+plotH)
	for i, p := range points {
		// Every census has its tick; a label, centred on it or kept
		// inside the chart, names those that have room.
		px := x(p.At)
		fmt.Fprintf(w, `<g class="tick" data-axis="x" data-at="%s"><line x1="%.2f" x2="%.2f" y1="%.0f" y2="%.0f" stroke="#000"/>`, p.At.Format(time.RFC3339), px, px, top+plotH, top+plotH+5)
		if lx, ok := labelX[i]; ok {
			fmt.Fprintf(w, `<text x="%.2f" y="%.0f" text-anchor="middle">%s</text>`, lx, top+plotH+20, snapshotLabel(p.At))
		}
		fmt.Fprintln(w, `</g>`)
	}
	fmt.Fprintf(w, `<text x="%.0f" y="%.0f" text-anchor="middle">census taken (UTC)</text>`+"\n", left+plotW/2, height-8)
	series := append([]string{"remaining"}, statuses...)
	for _, s := range series {
		value := func(p Snapshot) int { return p.ByStatus[s] }
		colour, dashes, marker, widthPx := "#000", "", "circle", 3.0
		if s == "remaining" {
			value = func(p Snapshot) int { return p.Remaining }
		} else {
			st := statusStyle[s]
			colour, dashes, marker, widthPx = st.colour, st.dash, st.marker, 2
		}
		var path strings.Builder
		for i, p := range points {
			cmd := "L"
			if i == 0 {
				cmd = "M"
			}
			fmt.Fprintf(&path, "%s%.2f %.2f", cmd, x(p.At), y(value(p)))
		}
		fmt.Fprintf(w, `<g class="series" data-status="%s"><path d="%s" fill="none" stroke="%s" stroke-width="%.0f"`, s, path.String(), colour, widthPx)
		if dashes != "" {
			fmt.Fprintf(w, ` stroke-dasharray="%s"`, dashes)
		}
		fmt.Fprint(w, `/>`)
		for _, p := range points {
			fmt.Fprintf(w, `<g class="point" data-status="%s" data-at="%s" data-value="%d">%s</g>`, s, p.At.Format(time.RFC3339), value(p), markerAt(marker, x(p.At), y(value(p)), colour))
		}
		fmt.Fprintln(w, `</g>`)
	}
	fmt.Fprintln(w, `</svg>`)
	fmt.Fprint(w, `<div class="legend" aria-hidden="true">`)
	for _, s := range series {
		colour, dashes, marker := "#000", "", "circle"
		if s != "remaining" {
			st := statusStyle[s]
			colour, dashes, marker = st.colour, st.dash, st.marker
		}
		fmt.Fprintf(w, `<span><svg width="34" height="14"><line x1="0" x2="34" y1="7" y2="7" stroke="%s" stroke-width="2" stroke-dasharray="%s"/>%s</svg>%s</span>`, colour, dashes, markerAt(marker, 17, 7, colour), s)
	}
	fmt.Fprintln(w, `</div>`)
	fmt.Fprintf(w, `<table id="burndown-table"><thead><tr><th>taken (UTC)</th><th class="n">remaining</th>`)
	for _, s := range statuses {
		fmt.Fprintf(w, `<th class="n">%s</th>`, s)
	}
	fmt.Fprintln(w, `</tr></thead><tbody>`)
	for _, p := range points {
		fmt.Fprintf(w, `<tr><td>%s</td><td class="n">%d</td>`, snapshotLabel(p.At), p.Remaining)
		for _, s := range statuses {
			fmt.Fprintf(w, `<td class="n">%d</td>`, p.ByStatus[s])
		}
		fmt.Fprintln(w, `</tr>`)
	}
	fmt.Fprintln(w, `</tbody></table>`)
}

// labelWidth is a generous width of a tick label of the chart's 12px
// sans-serif text (a digit is about 6.7px wide), and labelGap the least
// room between two labels.
const labelGap = 14.0

func labelWidth(s string) float64 { return 7.2 * float64(len(s)) }

// timeLabels places the time axis's labels: each is centred on its
// census's tick, shifted only as far as keeps it inside [lo, hi]. This
// census and the first are always named; the censuses between are named
// left to right where the label keeps labelGap from every other (censuses
// close in time share one, the rest are left to the table).
func timeLabels(points []Snapshot, x func(time.Time) float64, lo, hi float64) map[int]float64 {
	type span struct{ a, b float64 }
	place := func(i int) (float64, span) {
		w := labelWidth(snapshotLabel(points[i].At))
		c := min(max(x(points[i].At), lo+w/2), hi-w/2)
		return c, span{c - w/2, c + w/2}
	}
	out := map[int]float64{}
	var taken []span
	try := func(i int) {
		c, s := place(i)
		for _, t := range taken {
			if s.a < t.b+labelGap && t.a < s.b+labelGap {
				return
			}
		}
		out[i] = c
		taken = append(taken, s)
	}
	try(len(points) - 1)
	for i := 0; i < len(points)-1; i++ {
		try(i)
	}
	return out
}

// niceStep is a tick step of 1, 2 or 5 times a power of ten giving at
// most about six ticks up to ymax.
func niceStep(ymax int) int {
	for mag := 1; ; mag *= 10 {
		for _, m := range []int{1, 2, 5} {
			if ymax/(m*mag) <= 5 {
				return m * mag
			}
		}
	}
}

// markerAt draws a burndown marker: its shape tells the series apart
// without colour.
func markerAt(shape string, x, y float64, colour string) string {
	const r = 4.5
	switch shape {
	case "square":
		return fmt.Sprintf(`<rect x="%.2f" y="%.2f" width="%.1f" height="%.1f" fill="%s" stroke="#000" stroke-width="0.6"/>`, x-r, y-r, 2*r, 2*r, colour)
	case "diamond":
		return fmt.Sprintf(`<path d="M%.2f %.2fl%.1f %.1fl%.1f %.1fl%.1f %.1fz" fill="%s" stroke="#000" stroke-width="0.6"/>`, x, y-r-1, r+1, r+1, -r-1, r+1, -r-1, -r-1, colour)
	case "triangle":
		return fmt.Sprintf(`<path d="M%.2f %.2fl%.1f %.1fh%.1fz" fill="%s" stroke="#000" stroke-width="0.6"/>`, x, y-r-1, r+1, 2*r+1, -2*r-2, colour)
	case "cross":
		return fmt.Sprintf(`<path d="M%.2f %.2fl%.1f %.1fm0 %.1fl%.1f %.1f" stroke="%s" stroke-width="2.5"/>`, x-r, y-r, 2*r, 2*r, -2*r, -2*r, 2*r, colour)
	}
	return fmt.Sprintf(`<circle cx="%.2f" cy="%.2f" r="%.1f" fill="%s" stroke="#fff" stroke-width="1"/>`, x, y, r, colour)
}

func (h *htmlWriter) reviewReasons(t *Totals) {
	w := h.w
	n := t.ByStatus[string(plan.StatusNeedsReview)]
	fmt.Fprintf(w, "<h2>Needs review, by reason (%d)</h2>\n", n)
	if n == 0 {
		fmt.Fprintln(w, `<p class="note">None.</p>`)
		return
	}
	reasons := make([]string, 0, len(h.reasons))
	for r := range h.reasons {
		reasons = append(reasons, r)
	}
	sort.Slice(reasons, func(i, j int) bool {
		a, b := h.reasons[reasons[i]].n, h.reasons[reasons[j]].n
		return a > b || a == b && reasons[i] < reasons[j]
	})
	shown := reasons[:min(len(reasons), maxListed)]
	fmt.Fprintln(w, `<table id="reasons"><thead><tr><th class="n">tasks</th><th>reason</th><th>for example</th></tr></thead><tbody>`)
	for _, r := range shown {
		g := h.reasons[r]
		fmt.Fprintf(w, "<tr data-value=\"%d\"><td class=\"n\">%d</td><td>%s</td><td class=\"name\">%s</td></tr>\n", g.n, g.n, esc(r), esc(g.first))
	}
	fmt.Fprintln(w, `</tbody></table>`)
	if more := len(reasons) - len(shown); more > 0 {
		fmt.Fprintf(w, "<p class=\"note\">... and %d more (the first %d are listed).</p>\n", more, len(shown))
	}
}

func (h *htmlWriter) crashList(t *Totals) {
	w := h.w
	fmt.Fprintf(w, "<h2>Crashing: the connector panics within 366 days (%d)</h2>\n", t.Crashing)
	if t.Crashing == 0 {
		fmt.Fprintln(w, `<p class="note">None.</p>`)
		return
	}
	fmt.Fprintln(w, `<p class="note">Migrate these first: the connector's schedule search panics for these last acknowledgements, and the task crash-loops until time moves past them.</p>`)
	fmt.Fprintln(w, `<table id="crashing"><thead><tr><th>task</th><th>first crash range (UTC)</th></tr></thead><tbody>`)
	for _, r := range h.crashing {
		fmt.Fprintf(w, "<tr><td class=\"name\">%s</td><td>%s</td></tr>\n", esc(r.Task), esc(r.Crash))
	}
	fmt.Fprintln(w, `</tbody></table>`)
	if more := t.Crashing - len(h.crashing); more > 0 {
		fmt.Fprintf(w, "<p class=\"note\">... and %d more (the first %d are listed)</p>\n", more, len(h.crashing))
	}
}

func (h *htmlWriter) unreadable(t *Totals) {
	w := h.w
	fmt.Fprintf(w, "<h2>Unreadable inputs (%d)</h2>\n", t.Unreadable)
	if t.Unreadable == 0 {
		fmt.Fprintln(w, `<p class="note">None.</p>`)
		return
	}
	fmt.Fprintln(w, `<p class="note">Counted, not skipped: an unknown is not a zero. Grouped by problem.</p>`)
	fmt.Fprintln(w, `<div id="unreadable">`)
	for _, g := range groupUnreadable(h.bad) {
		fmt.Fprintf(w, "<h3 data-value=\"%d\">%s (%d)</h3>\n<ul class=\"paths\">", len(g.Where), esc(g.Reason), len(g.Where))
		for i, p := range g.Where {
			if g.Message[i] != "" {
				fmt.Fprintf(w, "<li>%s<div class=\"msg\">… is %s</div></li>", esc(p), esc(g.Message[i]))
				continue
			}
			fmt.Fprintf(w, "<li>%s</li>", esc(p))
		}
		fmt.Fprintln(w, "</ul>")
	}
	fmt.Fprintln(w, `</div>`)
	if more := t.Unreadable - len(h.bad); more > 0 {
		fmt.Fprintf(w, "<p class=\"note\">... and %d more (the first %d are listed)</p>\n", more, len(h.bad))
	}
}
