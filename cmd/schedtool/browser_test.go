package main

import (
	"bytes"
	"encoding/json"
	"html"
	"image"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/estuary/schedtool/census"
	"github.com/estuary/schedtool/internal/testreq"
)

// The reports are opened in a real browser (Debian's chromium, headless,
// driven through its command line): each loads from a file:// URL with
// no console message and no network request, the numbers it draws (read
// back from the data-value and data-at attributes of the DOM the browser
// built) are those of the JSON output for the same input, and its
// screenshot is neither blank nor an odd size.

// chromium is the browser binary, or skips the test (one line) when there
// is none, unless SCHEDTOOL_REQUIRE_CHROMIUM=1 (CI sets it after
// installing chromium).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	testreq.Missing(t, testreq.Chromium, "chromium is not installed: the browser tests need it (apt-get install chromium)")
	return ""
}

// browserFlags keep chromium from talking to anything by itself, so that
// every request it logs is the page's.
var browserFlags = []string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
	"--no-default-browser-check", "--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--disable-default-apps", "--disable-domain-reliability", "--no-pings", "--disable-client-side-phishing-detection",
	"--disable-features=Translate,OptimizationHints,OptimizationGuideModelDownloading,MediaRouter,SpellcheckService",
	"--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000"}

// browsed is what the browser made of a page.
type browsed struct {
	dom      string   // the DOM it built, serialized
	console  []string // console messages (an error, a CSP violation)
	requests []string // network requests the page made
	shot     image.Image
}

// browse opens a file in chromium twice: for its DOM, console and network
// log, then for a screenshot of width x height.
func browse(t *testing.T, path string, width, height int) browsed {
	t.Helper()
	bin := chromium(t)
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	url := "file://" + abs
	dir := t.TempDir()
	netlog := filepath.Join(dir, "net.json")
	run := func(args ...string) (stdout, stderr string) {
		cmd := exec.Command(bin, append(append(browserFlags, "--user-data-dir="+filepath.Join(dir, "profile")), args...)...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		done := make(chan error, 1)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("chromium %v: %v\n%s", args, err, errb.String())
			}
		case <-time.After(90 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("chromium %v: no answer in 90s", args)
		}
		return out.String(), errb.String()
	}
	var b browsed
	dom, stderr := run("--log-net-log="+netlog, "--dump-dom", url)
	b.dom = dom
	for _, line := range strings.Split(stderr, "\n") {
		if strings.Contains(line, ":CONSOLE") {
			b.console = append(b.console, line)
		}
	}
	b.requests = pageRequests(t, netlog)
	shot := filepath.Join(dir, "shot.png")
	run(windowFlag(width, height), "--screenshot="+shot, url)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if b.shot, err = png.Decode(f); err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	return b
}

func windowFlag(w, h int) string { return "--window-size=" + strconv.Itoa(w) + "," + strconv.Itoa(h) }

// pageRequests are the URL requests of a net log that the page made: the
// browser's own (updates, accounts) have no origin as initiator.
func pageRequests(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no net log: %v", err)
	}
	var log struct {
		Events []struct {
			Params map[string]any `json:"params"`
		} `json:"events"`
	}
	if err := json.Unmarshal(b, &log); err != nil {
		// chromium may leave the log's closing brackets out when it exits.
		b = append(bytes.TrimRight(bytes.TrimSpace(b), ","), "]}"...)
		if err := json.Unmarshal(b, &log); err != nil {
			t.Fatalf("net log: %v", err)
		}
	}
	var out []string
	for _, e := range log.Events {
		init, ok := e.Params["initiator"].(string)
		if url, _ := e.Params["url"].(string); ok && init != "not an origin" && url != "" {
			out = append(out, url)
		}
	}
	return out
}

// checkLoads fails on a console message or a network request, and on a
// blank or oddly sized screenshot.
func checkLoads(t *testing.T, b browsed, width, height int) {
	t.Helper()
	if len(b.console) > 0 {
		t.Errorf("console messages:\n%s", strings.Join(b.console, "\n"))
	}
	if len(b.requests) > 0 {
		t.Errorf("network requests: %v", b.requests)
	}
	if got := b.shot.Bounds().Size(); got.X != width || got.Y != height {
		t.Errorf("screenshot %v, want %dx%d", got, width, height)
	}
	if frac := inked(b.shot); frac < 0.02 || frac > 0.9 {
		t.Errorf("%.3f of the screenshot is not background: blank or a wall of colour", frac)
	}
}

// inked is the fraction of pixels that are not the page's white.
func inked(img image.Image) float64 {
	r := img.Bounds()
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if cr < 0xf000 || cg < 0xf000 || cb < 0xf000 {
				n++
			}
		}
	}
	return float64(n) / float64(r.Dx()*r.Dy())
}

var (
	elemRe = regexp.MustCompile(`<([a-zA-Z]+)\b([^>]*)>`)
	attrRe = regexp.MustCompile(`([a-zA-Z_:][-a-zA-Z0-9_:.]*)="([^"]*)"`)
)

// elements are the DOM's elements with their attributes, in order.
func elements(dom string) []map[string]string {
	var out []map[string]string
	for _, m := range elemRe.FindAllStringSubmatch(dom, -1) {
		attrs := map[string]string{"<": strings.ToLower(m[1])}
		for _, a := range attrRe.FindAllStringSubmatch(m[2], -1) {
			attrs[a[1]] = html.UnescapeString(a[2])
		}
		out = append(out, attrs)
	}
	return out
}

func atoiT(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("not a number: %q", s)
	}
	return n
}

func floatT(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("not a number: %q", s)
	}
	return f
}

// The harness itself sees a console error and a request: a page that
// has both must not pass.
func TestBrowserHarnessSeesErrors(t *testing.T) {
	chromium(t)
	page := filepath.Join(t.TempDir(), "bad.html")
	os.WriteFile(page, []byte(`<!DOCTYPE html><html><body><p>x</p><img src="http://127.0.0.1:9/x.png"><script>console.error("boom")</script></body></html>`), 0o644)
	b := browse(t, page, 400, 300)
	if len(b.console) == 0 || !strings.Contains(strings.Join(b.console, ""), "boom") {
		t.Errorf("the console error was not seen: %q", b.console)
	}
	if len(b.requests) != 1 || b.requests[0] != "http://127.0.0.1:9/x.png" {
		t.Errorf("requests %v, want the image's", b.requests)
	}
}

// census -o html over the shipped fixtures with three snapshots of
// history draws what census -o json counts.
func TestBrowserCensusHTML(t *testing.T) {
	chromium(t)
	args := historyArgs("fixtures/catalog", "fixtures/live_specs.ndjson")
	page := filepath.Join(t.TempDir(), "census.html")
	r := schedtool(t, "", append([]string{"census", "-o", "html"}, args...)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	os.WriteFile(page, []byte(r.stdout), 0o644)
	var doc struct {
		Tasks []struct {
			Task, Image, Status string
		} `json:"tasks"`
		Groups struct {
			RemainingByImage map[string]int    `json:"remainingByImage"`
			OldestTagInUse   map[string]string `json:"oldestTagInUse"`
		} `json:"groups"`
		Summary struct {
			Tasks, Remaining, Unreadable, Crashing, Disabled, ReadyNeedsZeroFileSinks int
			ByStatus                                                                  map[string]int `json:"byStatus"`
			GatePasses                                                                bool           `json:"gatePasses"`
			Unblocks                                                                  []census.Unblock
		} `json:"summary"`
	}
	j := schedtool(t, "", append([]string{"census", "-o", "json"}, args...)...)
	if err := json.Unmarshal([]byte(j.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	const width, height = 1100, 1800
	b := browse(t, page, width, height)
	checkLoads(t, b, width, height)
	els := elements(b.dom)

	// The verdict.
	verdicts := 0
	for _, e := range els {
		if e["id"] == "verdict" {
			verdicts++
			if e["data-passes"] != strconv.FormatBool(doc.Summary.GatePasses) || atoiT(t, e["data-remaining"]) != doc.Summary.Remaining || atoiT(t, e["data-unreadable"]) != doc.Summary.Unreadable {
				t.Errorf("verdict passes=%s remaining=%s unreadable=%s drawn, JSON says %t, %d, %d", e["data-passes"], e["data-remaining"], e["data-unreadable"], doc.Summary.GatePasses, doc.Summary.Remaining, doc.Summary.Unreadable)
			}
		}
	}
	if verdicts != 1 {
		t.Errorf("%d verdicts drawn, want 1", verdicts)
	}

	// The headline: a box per remaining status, which add up to the
	// remaining count.
	want := map[string]int{"tasks": doc.Summary.Tasks, "remaining": doc.Summary.Remaining, "crashing": doc.Summary.Crashing, "unreadable": doc.Summary.Unreadable}
	statusBoxes := 0
	for _, s := range census.RemainingStatuses() {
		key := s
		if s == census.ReadyNeedsFlag {
			key = "readyNeedsZeroFileSinks"
		}
		want[key] = doc.Summary.ByStatus[s]
	}
	if doc.Summary.Disabled > 0 {
		want["disabled"] = doc.Summary.Disabled
	}
	seen, sum := 0, 0
	for _, e := range els {
		if e["<"] == "div" && slices.Contains(strings.Fields(e["class"]), "card") {
			seen++
			got := atoiT(t, e["data-value"])
			if w, ok := want[e["data-key"]]; !ok || got != w {
				t.Errorf("headline %s: %d drawn, JSON says %d", e["data-key"], got, w)
			}
			switch e["data-key"] {
			case "tasks", "remaining", "crashing", "unreadable", "disabled":
			default:
				sum += got
				statusBoxes++
			}
		}
	}
	if seen != len(want) || statusBoxes != len(census.RemainingStatuses()) {
		t.Errorf("%d headline numbers (%d statuses), want %d (%d)", seen, statusBoxes, len(want), len(census.RemainingStatuses()))
	}
	if sum != doc.Summary.Remaining {
		t.Errorf("the status boxes add up to %d, remaining is %d", sum, doc.Summary.Remaining)
	}

	// What unblocks what: each row as JSON says, adding up to remaining.
	var drawn []string
	moved := 0
	for _, e := range els {
		if e["<"] == "tr" && e["data-kind"] != "" {
			drawn = append(drawn, e["data-kind"]+" "+e["data-value"])
			moved += atoiT(t, e["data-value"])
		}
	}
	var fromJSON []string
	for _, u := range doc.Summary.Unblocks {
		fromJSON = append(fromJSON, u.Kind+" "+strconv.Itoa(u.Tasks))
	}
	if !slices.Equal(drawn, fromJSON) {
		t.Errorf("what unblocks what: %v drawn, JSON says %v", drawn, fromJSON)
	}
	if moved != doc.Summary.Remaining || len(drawn) < 4 {
		t.Errorf("what unblocks what moves %d tasks in %d rows, remaining is %d", moved, len(drawn), doc.Summary.Remaining)
	}

	// The bars: each row's total, each segment's count and length.
	byImage, byTenant := map[string]map[string]int{}, map[string]map[string]int{}
	for _, task := range doc.Tasks {
		if task.Status == "migrated" || task.Status == "unaffected" {
			continue
		}
		for m, k := range map[*map[string]map[string]int]string{&byImage: task.Image, &byTenant: census.Tenant(task.Task)} {
			if (*m)[k] == nil {
				(*m)[k] = map[string]int{}
			}
			(*m)[k][task.Status]++
		}
	}
	group, row, top := "", "", 0
	rows := map[string]map[string]int{}
	for _, e := range els {
		switch {
		case e["<"] == "table" && e["data-group"] != "":
			group, top = e["data-group"], -1
		case e["<"] == "tr" && e["data-key"] != "" && group != "":
			row = group + " " + e["data-key"]
			if top < 0 {
				top = atoiT(t, e["data-value"]) // rows come most remaining first
			}
			rows[row] = map[string]int{"": atoiT(t, e["data-value"])}
			if group == "image" && e["data-key"] != "" {
				if n := doc.Groups.RemainingByImage[e["data-key"]]; n != rows[row][""] {
					t.Errorf("image %s: %d remaining drawn, JSON says %d", e["data-key"], rows[row][""], n)
				}
			}
		case e["<"] == "rect" && e["data-status"] != "" && row != "":
			v := atoiT(t, e["data-value"])
			rows[row][e["data-status"]] = v
			if got, want := floatT(t, e["width"]), float64(v)/float64(top)*360; math.Abs(got-want) > 0.01 {
				t.Errorf("%s %s: bar %.2f long for %d, want %.2f", row, e["data-status"], got, v, want)
			}
		case e["<"] == "td" && e["data-oldest"] != "":
			img := strings.TrimPrefix(row, "image ")
			if e["data-oldest"] != doc.Groups.OldestTagInUse[img] {
				t.Errorf("image %s: oldest tag %q drawn, JSON says %q", img, e["data-oldest"], doc.Groups.OldestTagInUse[img])
			}
		}
	}
	for name, m := range map[string]map[string]map[string]int{"image": byImage, "tenant": byTenant} {
		for k, statuses := range m {
			drawn := rows[name+" "+k]
			if drawn == nil {
				t.Errorf("no bar for %s %s", name, k)
				continue
			}
			for s, n := range statuses {
				if drawn[s] != n {
					t.Errorf("%s %s, %s: %d drawn, JSON has %d tasks", name, k, s, drawn[s], n)
				}
			}
		}
	}
	if len(rows) != len(byImage)+len(byTenant) {
		t.Errorf("%d bars, JSON has %d images and %d tenants", len(rows), len(byImage), len(byTenant))
	}

	// The burndown: the history's remaining, then this census's, each
	// point where the axis puts its value.
	tickY := map[int]float64{}
	var points []int
	var pointY []float64
	inTick := -1
	for _, e := range els {
		switch {
		case e["<"] == "g" && e["class"] == "tick" && e["data-axis"] == "y":
			inTick = atoiT(t, e["data-value"])
		case e["<"] == "line" && inTick >= 0:
			tickY[inTick] = floatT(t, e["y1"])
			inTick = -1
		case e["<"] == "g" && e["class"] == "point" && e["data-status"] == "remaining":
			points = append(points, atoiT(t, e["data-value"]))
		case e["<"] == "circle" && len(points) > len(pointY):
			pointY = append(pointY, floatT(t, e["cy"]))
		}
	}
	if got, want := points, []int{25, 22, 17, doc.Summary.Remaining}; !equalInts(got, want) {
		t.Errorf("burndown remaining %v, want %v", got, want)
	}
	var ymax int
	for v := range tickY {
		ymax = max(ymax, v)
	}
	if ymax < 25 || len(tickY) < 3 {
		t.Fatalf("y ticks %v", tickY)
	}
	for i, v := range points {
		want := tickY[0] - float64(v)/float64(ymax)*(tickY[0]-tickY[ymax])
		if i < len(pointY) && math.Abs(pointY[i]-want) > 0.02 {
			t.Errorf("point %d (%d) at y %.2f, the axis puts it at %.2f", i, v, pointY[i], want)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// explain -o html and -o svg across a DST change draw the commits explain
// -o json lists, each at its instant on the time axis.
func TestBrowserExplainTimeline(t *testing.T) {
	chromium(t)
	const task, at = "acmeCo/warehouse/materialize-iceberg", "2026-10-28T05:00:00Z"
	var next struct {
		Holds string `json:"holds"`
		Next  []struct {
			UTC string `json:"utc"`
		} `json:"next"`
	}
	j := schedtool(t, "", "explain", "-o", "json", "--at", at, task, "fixtures/catalog")
	if err := json.Unmarshal([]byte(j.stdout), &next); err != nil || next.Holds != "connector" || len(next.Next) != 10 {
		t.Fatalf("explain -o json: %v %s", err, j.stdout)
	}
	for _, format := range []string{"html", "svg"} {
		t.Run(format, func(t *testing.T) {
			r := schedtool(t, "", "explain", "-o", format, "--at", at, task, "fixtures/catalog")
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			page := filepath.Join(t.TempDir(), "timeline."+format)
			os.WriteFile(page, []byte(r.stdout), 0o644)
			const width, height = 1140, 640
			b := browse(t, page, width, height)
			checkLoads(t, b, width, height)
			var acks []string
			var from, to time.Time
			var laneX, laneW float64
			dst, commits := []string{}, 0
			for _, e := range elements(b.dom) {
				switch {
				case e["<"] == "svg" && e["id"] == "timeline":
					from, _ = time.Parse(time.RFC3339, e["data-from"])
					to, _ = time.Parse(time.RFC3339, e["data-to"])
				case e["<"] == "rect" && laneW == 0 && e["fill"] == "#f4f4f4":
					laneX, laneW = floatT(t, e["x"]), floatT(t, e["width"])
				case e["<"] == "line" && e["class"] == "ack":
					acks = append(acks, e["data-at"])
					at, _ := time.Parse(time.RFC3339, e["data-at"])
					want := laneX + at.Sub(from).Seconds()/to.Sub(from).Seconds()*laneW
					if got := floatT(t, e["x1"]); math.Abs(got-want) > 0.02 {
						t.Errorf("ack %s at x %.2f, the axis puts it at %.2f", e["data-at"], got, want)
					}
				case e["<"] == "line" && e["class"] == "commit":
					commits++
				case e["<"] == "g" && e["class"] == "dst":
					dst = append(dst, e["data-at"])
				}
			}
			for i, c := range next.Next {
				if i >= len(acks) || acks[i] != c.UTC {
					t.Fatalf("ack %d drawn at %v, explain -o json says %s", i, acks[:min(i+1, len(acks))], c.UTC)
				}
			}
			if commits == 0 {
				t.Error("no runtime commits drawn")
			}
			if len(dst) != 1 || dst[0] != "2026-11-01T07:00:00Z" {
				t.Errorf("DST transitions %v, want 2026-11-01T07:00:00Z (CDT to CST)", dst)
			}
			if !strings.Contains(b.dom, "Migration equivalent") {
				t.Error("the caption does not give verify's verdict")
			}
		})
	}
}

// A V1 task previewed with migrate's decision flags: the page says so,
// names the migration explain -o json gives with the same flags, and
// draws the runtime's commits after it; a crowded lane's bars and lines
// add up to its marks.
func TestBrowserExplainPreview(t *testing.T) {
	chromium(t)
	args := []string{"--at", "2026-10-28T05:00:00Z", "--enable-runtime-v2", "--zero-file-sinks", "acmeCo/lake/materialize-s3-iceberg", "fixtures/catalog"}
	var doc struct {
		Migration, Situation, Preview string
	}
	j := schedtool(t, "", append([]string{"explain", "-o", "json"}, args...)...)
	if err := json.Unmarshal([]byte(j.stdout), &doc); err != nil || doc.Preview == "" {
		t.Fatalf("explain -o json: %v %s", err, j.stdout)
	}
	r := schedtool(t, "", append([]string{"explain", "-o", "html"}, args...)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	page := filepath.Join(t.TempDir(), "preview.html")
	os.WriteFile(page, []byte(r.stdout), 0o644)
	const width, height = 1140, 800
	b := browse(t, page, width, height)
	checkLoads(t, b, width, height)
	text := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace // as a DOM serializes text
	if !strings.Contains(b.dom, text(doc.Preview)) || !strings.Contains(b.dom, text(doc.Situation+": "+doc.Migration)) {
		t.Errorf("the page does not give the preview %q and the migration %q", doc.Preview, doc.Migration)
	}
	marks := map[string]int{}
	drawn := map[string]int{}
	group := ""
	for _, e := range elements(b.dom) {
		switch {
		case e["<"] == "line" && (e["class"] == "ack" || e["class"] == "commit"):
			marks[e["class"]]++
		case e["<"] == "g" && strings.HasSuffix(e["class"], "-density"):
			group = strings.TrimSuffix(e["class"], "-density")
			if n := atoiT(t, e["data-count"]); n != marks[group] {
				t.Errorf("%s density says %d marks, %d drawn hidden", group, n, marks[group])
			}
		case e["<"] == "rect" && group != "" && e["data-value"] != "":
			drawn[group] += atoiT(t, e["data-value"])
		case e["<"] == "line" && group != "" && e["class"] == "":
			drawn[group]++
		case e["<"] == "text":
			group = ""
		}
	}
	if marks["commit"] == 0 {
		t.Error("no runtime commits after the previewed migration")
	}
	for k, n := range marks {
		if drawn[k] != n {
			t.Errorf("%s: bars and lines hold %d marks, %d marks", k, drawn[k], n)
		}
	}
}
