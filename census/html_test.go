package census

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/estuary/schedtool/bench/gen"
	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/schedule/connector"
)

// writeHTML writes rows as a census page.
func writeHTML(t *testing.T, rows []Row, tot *Totals, opts Options) string {
	t.Helper()
	var out bytes.Buffer
	w, err := NewWriter("html", &out, io.Discard, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		w.Row(&rows[i])
	}
	if err := w.End(tot); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func totalsOf(rows []Row) *Totals {
	tot := newTotals()
	for i := range rows {
		tot.add(&rows[i])
	}
	return tot
}

// Task names, images, tags and reasons are hostile input: none becomes
// markup, an attribute's end, or a reordering of what a reader sees.
func TestHTMLEscapesHostileInput(t *testing.T) {
	hostile := []string{
		`<script>alert(1)</script>/x`,
		`"><img src=x onerror=alert(1)>/y`,
		"'single' & \"double\"/z",
		"evil\u202egnp.exe/\u2066w",
		"</style><style>*{display:none}</style>/s",
		"<svg onload=alert(1)>/t",
	}
	var rows []Row
	for i, name := range hostile {
		rows = append(rows, Row{Task: name, Image: name, Tag: name, Status: []string{"needs-review", "ready", "conflict"}[i%3], Reason: name, Crash: name, Kind: "fixed"})
	}
	tot := totalsOf(rows)
	s := writeHTML(t, rows, tot, Options{Now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)})
	lower := strings.ToLower(s)
	for _, bad := range []string{"<script", "<img", "<svg onload", "</style><style>", "\u202e", "\u2066"} {
		if strings.Contains(lower, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	if n := strings.Count(lower, "</style>"); n != 1 {
		t.Errorf("%d </style>, want the page's one", n)
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "&#34;&gt;&lt;img src=x", "evil\\u202egnp.exe"} {
		if !strings.Contains(s, want) {
			t.Errorf("the page does not show %q", want)
		}
	}
	// Every attribute value is quoted and closed: attributes are name="..."
	// with no quote inside.
	if m := regexp.MustCompile(`=\"[^"]*<`).FindString(s); m != "" && !strings.HasPrefix(m, `="default-src`) {
		t.Errorf("an attribute value holds a '<': %q", m)
	}
}

// Lists past maxListed show the first and count the rest; a page
// without history says how to get a burndown.
func TestHTMLListsCapped(t *testing.T) {
	var rows []Row
	for i := range 150 {
		rows = append(rows, Row{Task: fmt.Sprintf("tenant%03d/t", i), Image: "img", Status: "needs-review", Reason: fmt.Sprintf("reason %03d", i), Crash: "2026-10-26T13:00:01Z/2026-10-26T14:00:00Z"})
	}
	s := writeHTML(t, rows, totalsOf(rows), Options{})
	for _, want := range []string{
		"... and 50 more (the first 100 are listed), with 50 remaining users between them.", // tenants
		"... and 50 more (the first 100 are listed).",                                       // reasons
		"... and 50 more (the first 100 are listed)</p>",                                    // crashing
		"No history: give earlier",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q", want)
		}
	}
	if n := strings.Count(s, `<tr data-key="tenant`); n != 100 {
		t.Errorf("%d tenants listed, want 100", n)
	}
}

// The burndown's points are the history in time order, then this census.
func TestHTMLBurndownPoints(t *testing.T) {
	rows := []Row{{Task: "a/1", Image: "i", Status: "ready"}, {Task: "a/2", Image: "i", Status: "migrated"}}
	day := func(d int) time.Time { return time.Date(2026, 11, d, 0, 0, 0, 0, time.UTC) }
	hist := []Snapshot{
		{At: day(20), Remaining: 2, ByStatus: map[string]int{"ready": 2}},
		{At: day(10), Remaining: 5, ByStatus: map[string]int{"ready": 3, "blocked-v1": 2}},
	}
	s := writeHTML(t, rows, totalsOf(rows), Options{Now: day(30), History: hist})
	got := regexp.MustCompile(`class="point" data-status="remaining" data-at="([^"]+)" data-value="(\d+)"`).FindAllStringSubmatch(s, -1)
	var pts []string
	for _, m := range got {
		pts = append(pts, m[1]+"="+m[2])
	}
	if want := "2026-11-10T00:00:00Z=5 2026-11-20T00:00:00Z=2 2026-11-30T00:00:00Z=1"; strings.Join(pts, " ") != want {
		t.Errorf("points %v, want %s", pts, want)
	}
	if !strings.Contains(s, `data-status="blocked-v1" data-at="2026-11-10T00:00:00Z" data-value="2"`) {
		t.Error("no blocked-v1 point of 2 on the first census")
	}
}

// niceStep gives at most six ticks above zero, of 1, 2 or 5 times a power of ten.
func TestNiceStep(t *testing.T) {
	for _, tc := range []struct{ max, want int }{{1, 1}, {5, 1}, {6, 2}, {25, 5}, {29, 5}, {30, 10}, {999, 200}, {1000000, 200000}} {
		if got := niceStep(tc.max); got != tc.want {
			t.Errorf("niceStep(%d) = %d, want %d", tc.max, got, tc.want)
		}
	}
}

// BenchmarkWriters takes the census of a generated dump in each of json
// and html: writing the page costs at most 1.5x the JSON (docs/reports.md).
// CENSUS_BENCH_ROWS sets the dump's rows (default 100000).
func BenchmarkWriters(b *testing.B) {
	rows := 100000
	if n := os.Getenv("CENSUS_BENCH_ROWS"); n != "" {
		fmt.Sscan(n, &rows)
	}
	path := filepath.Join(b.TempDir(), "dump.ndjson")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := gen.Write(f, rows, 1); err != nil {
		b.Fatal(err)
	}
	f.Close()
	inputs, err := input.Resolve([]string{path}, catalog.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	for _, format := range []string{"json", "html"} {
		b.Run(format, func(b *testing.B) {
			var size int64
			for b.Loop() {
				var out countWriter
				w, _ := NewWriter(format, &out, io.Discard, Options{Now: time.Now()})
				c := &Census{Planner: &plan.Planner{Registry: connector.Builtin(), Crashes: connector.NewCrashFinder(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))}}
				tot, err := c.Run(inputs, catalog.DefaultOptions(), w)
				if err != nil {
					b.Fatal(err)
				}
				if err := w.End(tot); err != nil {
					b.Fatal(err)
				}
				size = out.n
			}
			b.ReportMetric(float64(size), "bytes/doc")
		})
	}
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// Every status is drawn: a row of each goes through the page (the file
// sink that needs --zero-file-sinks made it panic once, its status past
// the end of the page's counts), and each remaining one gets its bar.
func TestHTMLEveryStatus(t *testing.T) {
	var rows []Row
	for _, s := range Statuses {
		rows = append(rows, Row{Task: "acmeCo/" + s, Image: "img", Tag: "v1", Status: s})
	}
	page := writeHTML(t, rows, totalsOf(rows), Options{})
	for _, s := range RemainingStatuses() {
		if !strings.Contains(page, fmt.Sprintf(`fill="url(#p-%s)" stroke="#000" stroke-width="0.5" data-status="%s" data-value="1"`, statusID(s), s)) {
			t.Errorf("no bar of status %q", s)
		}
	}
	if strings.Contains(page, `data-status="migrated"`) || strings.Contains(page, `data-status="unaffected"`) {
		t.Error("a bar for a status that no longer relies on connector-side pacing")
	}
}
