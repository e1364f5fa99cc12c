package main

import (
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// boxScript, added to a copy of a census page, writes on each text of
// the burndown its box in the chart's own units (data-box="x y w h",
// as the browser laid the glyphs out), then moves the chart, its heading
// and legend to the top of the page so that the screenshot shows them.
const boxScript = `<script>(function(){
var svg=document.getElementById('burndown');
var ts=svg.querySelectorAll('text');
for(var i=0;i<ts.length;i++){var b=ts[i].getBBox();ts[i].setAttribute('data-box',[b.x,b.y,b.width,b.height].join(' '));}
var h2=svg.previousElementSibling, legend=svg.nextElementSibling, top=document.body.firstChild;
document.body.insertBefore(h2,top);document.body.insertBefore(svg,top);document.body.insertBefore(legend,top);
})();</script>`

// The burndown's labels (axis ticks, dates) never overlap one another
// nor leave the chart, whatever the spacing of the censuses: hours
// apart, days apart, weeks apart, and two an hour apart followed by
// ones weeks apart. SCHEDTOOL_BURNDOWN_SHOTS=DIR keeps the screenshots
// (DIR/burndown-CASE.png) to look at.
func TestBrowserBurndownLabels(t *testing.T) {
	chromium(t)
	day := 24 * time.Hour
	every := func(start string, step time.Duration, n int) []time.Time {
		t0, _ := time.Parse(time.RFC3339, start)
		var out []time.Time
		for i := range n {
			out = append(out, t0.Add(time.Duration(i)*step))
		}
		return out
	}
	at := func(s ...string) []time.Time {
		var out []time.Time
		for _, v := range s {
			tm, err := time.Parse(time.RFC3339, v)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, tm)
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		times []time.Time // the history's, then this census's (--now)
	}{
		{"hours", every("2026-12-01T03:00:00Z", time.Hour, 9)},
		{"days", every("2026-11-20T00:00:00Z", day, 12)},
		{"days-at-noon", every("2026-11-20T12:30:00Z", day, 12)},
		{"weeks", every("2026-09-01T00:00:00Z", 7*day, 14)},
		{"mixed", at("2026-10-01T00:00:00Z", "2026-10-01T01:00:00Z", "2026-10-22T00:00:00Z", "2026-11-12T09:30:00Z", "2026-12-01T00:00:00Z")},
		{"mixed-at-end", at("2026-09-01T00:00:00Z", "2026-10-13T00:00:00Z", "2026-11-30T22:00:00Z", "2026-11-30T23:00:00Z", "2026-12-01T00:00:00Z")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"census", "-o", "html", "--now", tc.times[len(tc.times)-1].Format(time.RFC3339)}
			for i, tm := range tc.times[:len(tc.times)-1] {
				// Counts fall from 40 to the fixtures' own (25 tasks).
				rem := 40 - i*15/len(tc.times)
				doc := fmt.Sprintf(`{"version":1,"generatedAt":%q,"summary":{"byStatus":{"blocked-v1":%d,"conflict":3,"stacked":4,"migrated":0,"unaffected":0,"ready":%d,"needs-review":5},"crashing":0,"disabled":0,"readyNeedsZeroFileSinks":0,"remaining":%d,"tasks":40,"unreadable":0}}`,
					tm.Format(time.RFC3339), 10, rem-22, rem)
				path := filepath.Join(dir, fmt.Sprintf("census-%02d.json", i))
				os.WriteFile(path, []byte(doc), 0o644)
				args = append(args, "--history", path)
			}
			r := schedtool(t, "", append(args, "fixtures/catalog", "fixtures/live_specs.ndjson")...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			page := strings.Replace(r.stdout, "default-src 'none';", "default-src 'none'; script-src 'unsafe-inline';", 1)
			page = strings.Replace(page, "</body>", boxScript+"</body>", 1)
			path := filepath.Join(dir, "census.html")
			os.WriteFile(path, []byte(page), 0o644)
			const width, height = 800, 470
			b := browse(t, path, width, height)
			checkLoads(t, b, width, height)
			if shots := os.Getenv("SCHEDTOOL_BURNDOWN_SHOTS"); shots != "" {
				f, err := os.Create(filepath.Join(shots, "burndown-"+tc.name+".png"))
				if err != nil {
					t.Fatal(err)
				}
				png.Encode(f, b.shot)
				f.Close()
			}
			type label struct {
				text       string
				x, y, w, h float64
			}
			var labels []label
			var svgW, svgH float64
			inSVG := false
			els := elements(b.dom)
			texts := textsOf(b.dom)
			k := 0
			for _, e := range els {
				switch {
				case e["<"] == "svg":
					inSVG = e["id"] == "burndown"
					if inSVG {
						svgW, svgH = floatT(t, e["width"]), floatT(t, e["height"])
					}
				case e["<"] == "text" && inSVG:
					var l label
					if _, err := fmt.Sscanf(e["data-box"], "%g %g %g %g", &l.x, &l.y, &l.w, &l.h); err != nil {
						t.Fatalf("text without a box: %v", e)
					}
					l.text = texts[k]
					k++
					labels = append(labels, l)
				}
			}
			if len(labels) < 5 {
				t.Fatalf("%d labels in the burndown", len(labels))
			}
			dates := 0
			for i, a := range labels {
				if strings.HasPrefix(a.text, "20") {
					dates++
				}
				if a.w <= 0 || a.x < 0 || a.y < 0 || a.x+a.w > svgW || a.y+a.h > svgH {
					t.Errorf("label %q at %.1f,%.1f %.1fx%.1f leaves the %gx%g chart", a.text, a.x, a.y, a.w, a.h, svgW, svgH)
				}
				for _, b := range labels[i+1:] {
					if a.x < b.x+b.w && b.x < a.x+a.w && a.y < b.y+b.h && b.y < a.y+a.h {
						t.Errorf("labels %q (%.1f..%.1f) and %q (%.1f..%.1f) overlap", a.text, a.x, a.x+a.w, b.text, b.x, b.x+b.w)
					}
				}
			}
			if dates < 2 {
				t.Errorf("%d dates on the time axis, want at least its two ends", dates)
			}
		})
	}
}

var textRe = regexp.MustCompile(`<text\b[^>]*>([^<]*)</text>`)

// textsOf are the contents of the burndown's text elements, in order.
func textsOf(dom string) []string {
	i := strings.Index(dom, `id="burndown"`)
	if i < 0 {
		return nil
	}
	dom = dom[i:]
	if j := strings.Index(dom, "</svg>"); j >= 0 {
		dom = dom[:j]
	}
	var out []string
	for _, m := range textRe.FindAllStringSubmatch(dom, -1) {
		out = append(out, m[1])
	}
	return out
}
