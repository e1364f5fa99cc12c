package explain

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/estuary/schedtool/report"
)

// The timeline is drawn as one SVG (explain -o svg), or that SVG inside
// a self-contained HTML page with the caption as text (explain -o html).
// Both draw with presentation attributes only (no stylesheet, no script,
// nothing fetched); colours are Okabe-Ito, and each kind of mark also
// differs in shape or pattern, so the picture reads in grayscale. Every
// mark carries its instant (data-at, RFC 3339 UTC) for the browser tests.

const (
	svgWidth    = 1100.0
	laneLeft    = 190.0 // lane labels to the left
	laneRight   = 20.0
	axisY       = 74.0 // the day ticks
	connTop     = 92.0
	laneHeight  = 64.0
	laneGap     = 26.0
	colourFast  = "#56B4E9"
	colourCrash = "#D55E00"
	colourModel = "#0072B2"
)

// esc makes input text safe in HTML and SVG (and XML): report.Markup.
func esc(s string) string { return report.Markup(s) }

// clip shortens s to n runes for a line of the drawing (the page shows it
// whole).
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// WriteSVG writes the timeline as a standalone SVG document.
func WriteSVG(w io.Writer, tl *Timeline) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, `<?xml version="1.0" encoding="UTF-8"?>`)
	tl.svg(bw, true)
	return bw.Flush()
}

// WriteHTML writes the timeline as a self-contained HTML page.
func WriteHTML(w io.Writer, tl *Timeline) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>Timeline of %s</title>
<style>
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;color:#111;background:#fff;margin:24px auto;max-width:1120px;padding:0 12px}
h1{font-size:20px;margin:0 0 4px;overflow-wrap:anywhere}p{margin:6px 0}svg{max-width:100%%;height:auto}
dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;font-size:14px}dt{color:#333}dd{margin:0;overflow-wrap:anywhere}
@media print{body{margin:0}*{print-color-adjust:exact;-webkit-print-color-adjust:exact}}
</style></head><body>
<h1>%s</h1>
`, esc(tl.Task), esc(tl.Task))
	tl.svg(bw, false)
	fmt.Fprintln(bw, `<div id="caption">`)
	if tl.Preview != "" {
		fmt.Fprintf(bw, "<p id=\"preview\"><b>%s</b></p>\n", esc(tl.Preview))
	}
	for _, line := range tl.Caption() {
		fmt.Fprintf(bw, "<p>%s</p>\n", esc(line))
	}
	fmt.Fprintln(bw, `</div><dl>`)
	model := tl.ModelSpec
	switch tl.ModelFrom {
	case "task":
		model += " (the task's own)"
	case "migrate":
		model += " (the one migrate would write)"
	default:
		model = "none"
	}
	delay := ", delay up to " + tl.Delay
	switch {
	case tl.Deferred != "":
		delay = ", delay " + tl.Deferred
	case tl.DelayUnknown:
		delay = ", delay unknown"
	}
	for _, kv := range [][2]string{{"file", tl.File}, {"runtime", tl.Runtime}, {"image", tl.Image}, {"connector schedule", tl.Connector + delay},
		{"model schedule", model}, {"migration", tl.Situation + ": " + tl.Migration}, {"times in", tl.Loc.String()}, {"from", tl.From.Format(time.RFC3339)}, {"to", tl.To.Format(time.RFC3339)}} {
		fmt.Fprintf(bw, "<dt>%s</dt><dd>%s</dd>\n", kv[0], esc(kv[1]))
	}
	fmt.Fprintln(bw, "</dl></body></html>")
	return bw.Flush()
}

// svg draws the timeline; standalone adds the namespace and the caption
// as text (an HTML page gives the caption as paragraphs).
func (tl *Timeline) svg(w *bufio.Writer, standalone bool) {
	caption := tl.Caption()
	var wrapped []string
	if standalone {
		for _, c := range caption {
			wrapped = append(wrapped, wrap(report.Escape(c), 150)...)
		}
	}
	runTop := connTop + laneHeight + laneGap
	legendY := runTop + laneHeight + 44
	height := legendY + 40 + float64(len(wrapped))*18
	ns := ""
	if standalone {
		ns = ` xmlns="http://www.w3.org/2000/svg"`
	}
	days := int(math.Round(tl.To.Sub(tl.From).Hours() / 24))
	fmt.Fprintf(w, `<svg%s id="timeline" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" role="img" aria-labelledby="tl-title tl-desc" data-from="%s" data-to="%s">`+"\n",
		ns, svgWidth, height, svgWidth, height, tl.From.Format(time.RFC3339), tl.To.Format(time.RFC3339))
	fmt.Fprintf(w, "<title id=\"tl-title\">Commits of %s over %s from %s: the connector's acknowledgements and the runtime's commits</title>\n", esc(tl.Task), daysText(days), tl.From.Format(time.RFC3339))
	fmt.Fprintf(w, "<desc id=\"tl-desc\">%d connector acknowledgements, %d runtime commits, %d DST transitions, %d connector crash ranges. %s</desc>\n",
		len(tl.Acks), len(tl.Commits), len(tl.DST), len(tl.Crashes), esc(strings.Join(caption, " ")))
	fmt.Fprintf(w, `<defs><pattern id="crash-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="%s"/><rect width="2.5" height="6" fill="#fff"/></pattern>`+
		`<pattern id="fast-dots" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="%s" fill-opacity="0.35"/><circle cx="3" cy="3" r="0.9" fill="#000" fill-opacity="0.45"/></pattern></defs>`+"\n", colourCrash, colourFast)
	fmt.Fprintf(w, `<rect width="%.0f" height="%.0f" fill="#fff"/>`+"\n", svgWidth, height)
	font := `font-family="system-ui,-apple-system,Segoe UI,Roboto,Arial,sans-serif"`
	subY := 22
	if standalone { // a page names the task in its heading
		fmt.Fprintf(w, `<text x="10" y="22" font-size="15" font-weight="bold" %s>%s</text>`+"\n", font, esc(clip(report.Escape(tl.Task), 110)))
		subY = 42
	}
	fmt.Fprintf(w, `<text x="10" y="%d" font-size="12" %s>%s from %s, in %s: who holds commits: %s</text>`+"\n", subY, font, daysText(days), esc(tl.From.In(tl.Loc).Format("Mon 2006-01-02 15:04 MST")), esc(tl.Loc.String()), esc(tl.Holds))

	plotW := svgWidth - laneLeft - laneRight
	x := func(t time.Time) float64 {
		return laneLeft + t.Sub(tl.From).Seconds()/tl.To.Sub(tl.From).Seconds()*plotW
	}
	bottom := runTop + laneHeight
	tl.dayTicks(w, x, bottom, font)
	// The lanes.
	modelLabel := "no model schedule"
	switch tl.ModelFrom {
	case "task":
		modelLabel = "its model schedule"
	case "migrate":
		modelLabel = "the schedule migrate writes"
	}
	connLabel := tl.Connector + ", up to " + tl.Delay
	if tl.DelayUnknown {
		connLabel = tl.Connector
	}
	for _, lane := range []struct {
		id, label, sub string
		top            float64
	}{{"connector", "connector acks", connLabel, connTop}, {"runtime", "runtime commits", modelLabel, runTop}} {
		fmt.Fprintf(w, `<g id="lane-%s"><rect x="%.0f" y="%.0f" width="%.0f" height="%.0f" fill="#f4f4f4" stroke="#999"/>`, lane.id, laneLeft, lane.top, plotW, laneHeight)
		fmt.Fprintf(w, `<text x="10" y="%.0f" font-size="13" font-weight="bold" %s>%s</text><text x="10" y="%.0f" font-size="11" %s>%s</text></g>`+"\n",
			lane.top+26, font, lane.label, lane.top+44, font, esc(clip(lane.sub, 30)))
	}
	shade := func(class string, spans []Span, top float64) {
		for _, s := range spans {
			fmt.Fprintf(w, `<rect class="%s" data-from="%s" data-to="%s" x="%.2f" y="%.0f" width="%.2f" height="%.0f" fill="url(#fast-dots)"/>`+"\n",
				class, s.From.Format(time.RFC3339), s.To.Format(time.RFC3339), x(s.From), top, math.Max(x(s.To)-x(s.From), 1), laneHeight)
		}
	}
	shade("fast conn-fast", tl.ConnFast, connTop)
	shade("fast model-fast", tl.ModelFast, runTop)
	for _, c := range tl.Crashes {
		x0, x1 := x(c.From), x(c.To)
		if x1-x0 < 4 {
			x0, x1 = (x0+x1)/2-2, (x0+x1)/2+2
		}
		fmt.Fprintf(w, `<rect class="crash" data-from="%s" data-to="%s" x="%.2f" y="%.0f" width="%.2f" height="%.0f" fill="url(#crash-hatch)" stroke="%s"/>`+"\n",
			c.From.Format(time.RFC3339Nano), c.To.Format(time.RFC3339Nano), x0, connTop-4, x1-x0, laneHeight+8, colourCrash)
		fmt.Fprintf(w, `<text x="%.2f" y="%.0f" font-size="11" text-anchor="middle" fill="%s" font-weight="bold" %s>panics</text>`+"\n", (x0+x1)/2, connTop-7, "#000", font)
	}
	marks := func(class string, ts []time.Time, top float64, colour string) {
		dense := float64(len(ts)) > plotW/denseSpacing
		vis := ""
		if dense {
			// Too close to draw one by one (a week of a 5-minute
			// schedule is a solid bar): the marks stay, for their
			// instants, but a density is what shows.
			vis = ` visibility="hidden"`
		}
		fmt.Fprintf(w, `<g class="%ss" stroke="%s" stroke-width="1.2"%s>`, class, colour, vis)
		for _, t := range ts {
			fmt.Fprintf(w, `<line class="%s" data-at="%s" x1="%.2f" x2="%.2f" y1="%.0f" y2="%.0f"/>`, class, t.UTC().Format(time.RFC3339), x(t), x(t), top+10, top+laneHeight-10)
		}
		fmt.Fprintln(w, `</g>`)
		if dense {
			tl.density(w, class, ts, top, colour, x, plotW, font)
		}
	}
	marks("ack", tl.Acks, connTop, "#000")
	marks("commit", tl.Commits, runTop, colourModel)
	if !tl.AcksStop.IsZero() {
		sx := x(tl.AcksStop)
		fmt.Fprintf(w, `<g class="stop" data-at="%s"><path d="M%.2f %.0fl10 10m0 -10l-10 10" stroke="%s" stroke-width="3" transform="translate(-5 0)"/><text x="%.2f" y="%.0f" font-size="11" %s>the connector panics: no further acknowledgement</text></g>`+"\n",
			tl.AcksStop.Format(time.RFC3339), sx, connTop+laneHeight/2-5, colourCrash, math.Min(sx+8, svgWidth-290), connTop+laneHeight+15, font)
	}
	for _, d := range tl.DST {
		dx := x(d)
		before, _ := d.Add(-time.Second).In(tl.Loc).Zone()
		after, _ := d.In(tl.Loc).Zone()
		anchor := "middle"
		if dx > svgWidth-120 {
			anchor = "end"
		}
		fmt.Fprintf(w, `<g class="dst" data-at="%s"><line x1="%.2f" x2="%.2f" y1="%.0f" y2="%.0f" stroke="#000" stroke-width="2" stroke-dasharray="6 3"/><text x="%.2f" y="%.0f" font-size="11" font-weight="bold" text-anchor="%s" %s>DST %s → %s</text></g>`+"\n",
			d.Format(time.RFC3339), dx, dx, connTop-2, bottom+4, dx, bottom+16, anchor, font, esc(before), esc(after))
	}
	tl.legend(w, legendY, font)
	for i, line := range wrapped {
		fmt.Fprintf(w, `<text class="caption" x="10" y="%.0f" font-size="12" %s>%s</text>`+"\n", legendY+44+float64(i)*18, font, esc(line))
	}
	fmt.Fprintln(w, `</svg>`)
}

// dayTicks marks each local midnight, labelled as often as there is
// room; a range of two days or less also has hour ticks (every 3 hours
// for one day, 6 for two), labelled with the local hour.
func (tl *Timeline) dayTicks(w *bufio.Writer, x func(time.Time) float64, bottom float64, font string) {
	if step := tl.hourStep(); step > 0 {
		y, m, d := tl.From.In(tl.Loc).Date()
		for h := 0; ; h += step {
			t := time.Date(y, m, d, h, 0, 0, 0, tl.Loc)
			if t.After(tl.To) {
				break
			}
			if t.Before(tl.From) || t.Hour() == 0 {
				continue
			}
			tx := x(t)
			fmt.Fprintf(w, `<g class="hour" data-at="%s"><line x1="%.2f" x2="%.2f" y1="%.0f" y2="%.0f" stroke="#ddd"/>`, t.UTC().Format(time.RFC3339), tx, tx, axisY+6, bottom)
			if tx < svgWidth-laneRight-30 {
				fmt.Fprintf(w, `<text x="%.2f" y="%.0f" font-size="10" text-anchor="middle" fill="#333" %s>%s</text>`, tx, axisY+4, font, t.Format("15:04"))
			}
			fmt.Fprintln(w, `</g>`)
		}
	}
	y, m, d := tl.From.In(tl.Loc).Date()
	var mids []time.Time
	for i := 0; ; i++ {
		t := time.Date(y, m, d+i, 0, 0, 0, 0, tl.Loc)
		if t.After(tl.To) {
			break
		}
		if !t.Before(tl.From) {
			mids = append(mids, t)
		}
	}
	every := 1
	if len(mids) > 1 {
		every = max(1, int(math.Ceil(110/(x(mids[1])-x(mids[0])))))
	}
	for i, t := range mids {
		tx := x(t)
		fmt.Fprintf(w, `<g class="day" data-at="%s"><line x1="%.2f" x2="%.2f" y1="%.0f" y2="%.0f" stroke="#bbb"/>`, t.UTC().Format(time.RFC3339), tx, tx, axisY, bottom)
		if i%every == 0 && tx < svgWidth-laneRight-60 {
			fmt.Fprintf(w, `<text x="%.2f" y="%.0f" font-size="11" %s>%s</text>`, tx+3, axisY-4, font, t.Format("Mon Jan 2"))
		}
		fmt.Fprintln(w, `</g>`)
	}
}

// hourStep is the hours between hour ticks: 3 for a day, 6 for two, 0
// (none) for longer.
func (tl *Timeline) hourStep() int {
	switch h := tl.To.Sub(tl.From).Hours(); {
	case h <= 24:
		return 3
	case h <= 48:
		return 6
	}
	return 0
}

// daysText is "1 day", "7 days".
func daysText(n int) string {
	if n == 1 {
		return "1 day"
	}
	return fmt.Sprintf("%d days", n)
}

// denseSpacing is the average spacing, in pixels, below which a lane's
// marks are drawn as a density instead of one by one.
const denseSpacing = 3.0

// density draws a lane whose marks are too close to tell apart: per
// bucket of whole hours (at least 6 px wide), the marks one by one where
// they stand at least denseSpacing apart on average, else a bar whose
// height grows with the marks in it, labelled with the pace. A uniform
// 5-minute week is a row of equal bars; an alternating schedule shows
// its slow ticks as lines and its fast windows as bars.
func (tl *Timeline) density(w *bufio.Writer, class string, ts []time.Time, top float64, colour string, x func(time.Time) float64, plotW float64, font string) {
	const densityBucket = 6.0
	total := tl.To.Sub(tl.From)
	bucket := time.Hour
	for float64(bucket)/float64(total)*plotW < densityBucket {
		bucket *= 2
	}
	bucketW := float64(bucket) / float64(total) * plotW
	n := int(total/bucket) + 1
	counts := make([]int, n)
	for _, t := range ts {
		if i := int(t.Sub(tl.From) / bucket); i >= 0 && i < n {
			counts[i]++
		}
	}
	dense := func(c int) bool { return float64(c)*denseSpacing > bucketW }
	most, bars := 1, 0
	for _, c := range counts {
		if dense(c) {
			most = max(most, c)
			bars++
		}
	}
	inner := laneHeight - 24
	fmt.Fprintf(w, `<g class="%s-density" data-count="%d" data-bucket="%s" fill="%s" fill-opacity="0.6" stroke="%s" stroke-width="1.2">`, class, len(ts), formatEvery(bucket), colour, colour)
	for i, c := range counts {
		if c == 0 {
			continue
		}
		from := tl.From.Add(time.Duration(i) * bucket)
		to := from.Add(bucket)
		if to.After(tl.To) {
			to = tl.To
		}
		if !dense(c) {
			for _, t := range ts {
				if int(t.Sub(tl.From)/bucket) == i { // as counted: a mark at To is in the last bucket
					fmt.Fprintf(w, `<line x1="%.2f" x2="%.2f" y1="%.0f" y2="%.0f"/>`, x(t), x(t), top+22, top+laneHeight-6)
				}
			}
			continue
		}
		h := (0.35 + 0.65*float64(c)/float64(most)) * inner
		fmt.Fprintf(w, `<rect data-from="%s" data-value="%d" x="%.2f" y="%.2f" width="%.2f" height="%.2f" stroke="none"/>`, from.UTC().Format(time.RFC3339), c, x(from), top+laneHeight-4-h, math.Max(x(to)-x(from)-1, 1), h)
	}
	fmt.Fprintln(w, `</g>`)
	label := fmt.Sprintf("%d %ss, too close to draw one by one: a bar per %s where they crowd (the tallest: %d)", len(ts), noun(class), formatEvery(bucket), most)
	if bars == 0 {
		label = fmt.Sprintf("%d %ss", len(ts), noun(class))
	} else if every, ok := uniform(ts); ok {
		label = fmt.Sprintf("%d %ss, one every %s: too close to draw one by one, a bar per %s (%d in each)", len(ts), noun(class), formatEvery(every), formatEvery(bucket), most)
	}
	fmt.Fprintf(w, `<text x="%.0f" y="%.0f" font-size="11" fill="#000" %s>%s</text>`+"\n", laneLeft+6, top+14, font, esc(label))
}

// uniform reports whether marks come at one interval (to the minute,
// give or take a jitter of a fifth of it), and which.
func uniform(ts []time.Time) (time.Duration, bool) {
	if len(ts) < 3 {
		return 0, false
	}
	every := ts[len(ts)-1].Sub(ts[0]) / time.Duration(len(ts)-1)
	for i := 1; i < len(ts); i++ {
		if d := ts[i].Sub(ts[i-1]) - every; d > every/5 || d < -every/5 {
			return 0, false
		}
	}
	return every, true
}

func noun(class string) string {
	if class == "ack" {
		return "acknowledgement"
	}
	return class
}

// formatEvery is a duration to the minute, as people say it ("5m", "2h").
func formatEvery(d time.Duration) string {
	d = d.Round(time.Minute)
	switch {
	case d <= 0:
		return "less than a minute"
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d < time.Hour:
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return fmt.Sprintf("%dh%02dm", d/time.Hour, d%time.Hour/time.Minute)
}

func (tl *Timeline) legend(w *bufio.Writer, y float64, font string) {
	x := laneLeft
	item := func(swatch, label string) {
		fmt.Fprintf(w, `<g transform="translate(%.0f %.0f)">%s<text x="22" y="12" font-size="12" %s>%s</text></g>`+"\n", x, y, swatch, font, label)
		x += 40 + float64(len(label))*7
	}
	item(`<line x1="8" x2="8" y1="0" y2="16" stroke="#000" stroke-width="1.5"/>`, "connector acknowledgement")
	item(fmt.Sprintf(`<line x1="8" x2="8" y1="0" y2="16" stroke="%s" stroke-width="1.5"/>`, colourModel), "runtime commit")
	item(`<rect width="16" height="16" fill="url(#fast-dots)" stroke="#999"/>`, "fast window (local time)")
	item(`<line x1="8" x2="8" y1="0" y2="16" stroke="#000" stroke-width="2" stroke-dasharray="4 2"/>`, "DST transition")
	item(`<rect width="16" height="16" fill="url(#crash-hatch)"/>`, "connector panics")
	fmt.Fprintf(w, `<text x="10" y="%.0f" font-size="11" %s>ticks: local midnights</text>`+"\n", y+12, font)
	if step := tl.hourStep(); step > 0 {
		fmt.Fprintf(w, `<text x="10" y="%.0f" font-size="11" %s>and every %d hours</text>`+"\n", y+26, font, step)
	}
}

// wrap breaks s into lines of at most n runes, at spaces.
func wrap(s string, n int) []string {
	var lines []string
	for len([]rune(s)) > n {
		r := []rune(s)
		cut := strings.LastIndex(string(r[:n]), " ")
		if cut <= 0 {
			cut = len(string(r[:n]))
		}
		lines = append(lines, s[:cut])
		s = strings.TrimLeft(s[cut:], " ")
	}
	return append(lines, s)
}
