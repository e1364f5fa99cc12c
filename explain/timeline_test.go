package explain

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/schedule/connector"
)

// load finds one materialization in a catalog path.
func load(t *testing.T, path, name string) *catalog.Materialization {
	t.Helper()
	inputs, err := input.Resolve([]string{path}, catalog.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range catalog.Load(inputs, catalog.DefaultOptions()).Materializations {
		if m.Name == name {
			return m
		}
	}
	t.Fatalf("no %s in %s", name, path)
	return nil
}

func planner(at time.Time) *plan.Planner {
	return &plan.Planner{Registry: connector.Builtin(), Crashes: connector.NewCrashFinder(at)}
}

// An alternating schedule across the autumn DST change: the lanes are
// explain's own commits, one transition, an equivalent migration.
func TestTimelineAcrossDST(t *testing.T) {
	at := time.Date(2026, 10, 28, 5, 0, 0, 0, time.UTC)
	m := load(t, "../fixtures/catalog", "acmeCo/warehouse/materialize-iceberg")
	tl := TimelineOf(m, planner(at), at, 7)
	if len(tl.DST) != 1 || !tl.DST[0].Equal(time.Date(2026, 11, 1, 7, 0, 0, 0, time.UTC)) {
		t.Errorf("DST %v", tl.DST)
	}
	if tl.Verdict == nil || !tl.Verdict.Equivalent() || tl.ModelFrom != "migrate" {
		t.Errorf("verdict %+v, model from %q", tl.Verdict, tl.ModelFrom)
	}
	e := Explain(m, planner(at), at, 10)
	for i, c := range e.Next {
		if i >= len(tl.Acks) || tl.Acks[i].UTC().Format(time.RFC3339) != c.UTC {
			t.Fatalf("ack %d: %v, explain says %s", i, tl.Acks[:min(i+1, len(tl.Acks))], c.UTC)
		}
	}
	// Five weekdays of fast windows in each lane, 07:00-19:00 Chicago.
	if len(tl.ConnFast) != 5 || len(tl.ModelFast) != 5 {
		t.Errorf("fast windows: connector %d, model %d", len(tl.ConnFast), len(tl.ModelFast))
	}
	if got := tl.ModelFast[0].From.In(tl.Loc).Format("15:04"); got != "07:00" {
		t.Errorf("the first window starts at %s local", got)
	}
	if !strings.Contains(strings.Join(tl.Caption(), " "), "Migration equivalent") {
		t.Errorf("caption %q", tl.Caption())
	}
}

// A schedule that crashes its connector: the crash range is drawn and
// the acknowledgements stop where the connector panics.
func TestTimelineCrash(t *testing.T) {
	at := time.Date(2026, 10, 24, 12, 0, 0, 0, time.UTC)
	m := load(t, "../cmd/schedtool/testdata/inputs/crash/flow.yaml", "acmeCo/crash/materialize-snowflake")
	tl := TimelineOf(m, planner(at), at, 7)
	if len(tl.Crashes) != 1 || !tl.Crashes[0].To.Equal(time.Date(2026, 10, 26, 14, 0, 0, 1, time.UTC)) && !tl.Crashes[0].To.Equal(time.Date(2026, 10, 26, 14, 0, 0, 0, time.UTC)) {
		t.Errorf("crashes %v", tl.Crashes)
	}
	if tl.AcksStop.IsZero() || tl.AcksStop.Before(tl.Crashes[0].From) || !tl.AcksStop.Before(tl.Crashes[0].To) {
		t.Errorf("acks stop at %v", tl.AcksStop)
	}
	if len(tl.Commits) == 0 {
		t.Error("no runtime commits")
	}
}

// The SVG is well-formed XML however hostile the task name, and shows it
// escaped.
func TestTimelineSVGHostileName(t *testing.T) {
	at := time.Date(2026, 10, 28, 5, 0, 0, 0, time.UTC)
	m := load(t, "../fixtures/catalog", "acmeCo/warehouse/materialize-iceberg")
	tl := TimelineOf(m, planner(at), at, 2)
	tl.Task = "<script>alert(1)</script>\"'&\u202e\x1b[2J"
	for name, write := range map[string]func(io.Writer, *Timeline) error{"svg": WriteSVG, "html": WriteHTML} {
		var out bytes.Buffer
		if err := write(&out, &tl); err != nil {
			t.Fatal(err)
		}
		s := out.String()
		if strings.Contains(s, "<script") || strings.Contains(s, "\u202e") || strings.Contains(s, "\x1b") {
			t.Errorf("%s holds the name raw", name)
		}
		if name == "svg" {
			dec := xml.NewDecoder(&out)
			for {
				if _, err := dec.Token(); err == io.EOF {
					break
				} else if err != nil {
					t.Fatalf("svg is not XML: %v", err)
				}
			}
		}
	}
}

// xmlChar reports whether r is a character of XML 1.0 (its Char
// production).
func xmlChar(r rune) bool {
	return r == 0x9 || r == 0xa || r == 0xd || r >= 0x20 && r <= 0xd7ff || r >= 0xe000 && r <= 0xfffd || r >= 0x10000 && r <= 0x10ffff
}

// checkMarkup fails unless the SVG parses as XML and neither document
// holds a byte or character that XML 1.0 forbids.
func checkMarkup(t *testing.T, tl *Timeline) {
	t.Helper()
	for name, write := range map[string]func(io.Writer, *Timeline) error{"svg": WriteSVG, "html": WriteHTML} {
		var out bytes.Buffer
		if err := write(&out, tl); err != nil {
			t.Fatal(err)
		}
		b := out.Bytes()
		for len(b) > 0 {
			r, n := utf8.DecodeRune(b)
			if r == utf8.RuneError && n == 1 || !xmlChar(r) {
				t.Fatalf("%s of %q holds %q, which XML 1.0 forbids", name, tl.Task, b[:n])
			}
			b = b[n:]
		}
		if name == "svg" {
			dec := xml.NewDecoder(&out)
			for {
				if _, err := dec.Token(); err == io.EOF {
					break
				} else if err != nil {
					t.Fatalf("svg of %q is not XML: %v", tl.Task, err)
				}
			}
		}
	}
}

// Every class of character XML 1.0 forbids, in a task name and in the
// other text the drawing shows: the SVG still parses as XML (issue 24
// §3: U+FFFE and U+FFFF used to be copied as they were).
func TestTimelineSVGForbiddenCharacters(t *testing.T) {
	at := time.Date(2026, 10, 28, 5, 0, 0, 0, time.UTC)
	m := load(t, "../fixtures/catalog", "acmeCo/warehouse/materialize-iceberg")
	base := TimelineOf(m, planner(at), at, 2)
	for class, s := range map[string]string{
		"C0 control":        "a\x01\x0b\x0c\x1fb",
		"U+FFFE":            "acmeCo/\ufffe/x",
		"U+FFFF":            "acmeCo/\uffff/x",
		"lone surrogate":    "acmeCo/\xed\xa0\x80/x",
		"invalid UTF-8":     "acmeCo/\xff\xfe/x",
		"truncated UTF-8":   "acmeCo/\xe2\x82",
		"C1 and DEL":        "a\u0085\u009f\x7fb",
		"markup":            `<a href="x">&amp;</a>]]>`,
		"bidi and newlines": "a\u202e\r\n\tb",
	} {
		tl := base
		tl.Task, tl.File, tl.Image, tl.Holds = s, s, s, s
		t.Run(class, func(t *testing.T) { checkMarkup(t, &tl) })
	}
}

// FuzzTimelineSVGName: whatever the task name, the SVG parses as XML and
// neither document holds a character XML forbids.
func FuzzTimelineSVGName(f *testing.F) {
	at := time.Date(2026, 10, 28, 5, 0, 0, 0, time.UTC)
	inputs, err := input.Resolve([]string{"../fixtures/catalog"}, catalog.DefaultOptions())
	if err != nil {
		f.Fatal(err)
	}
	var m *catalog.Materialization
	for _, mm := range catalog.Load(inputs, catalog.DefaultOptions()).Materializations {
		if mm.Name == "acmeCo/warehouse/materialize-iceberg" {
			m = mm
		}
	}
	base := TimelineOf(m, planner(at), at, 1)
	for _, s := range []string{"acmeCo/x", "\ufffe", "\uffff", "\xed\xa0\x80", "\x00", "<&>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		tl := base
		tl.Task = name
		checkMarkup(t, &tl)
	})
}

// A crowded lane draws every mark: its bars' counts and its lines add up
// to the marks, for the alternating schedule (lines and bars) and over
// spans whose last mark falls on the timeline's end.
func TestCrowdedLaneDrawsEveryMark(t *testing.T) {
	for _, tc := range []struct {
		name string
		days int
	}{{"acmeCo/warehouse/materialize-iceberg", 3}, {"acmeCo/warehouse/materialize-iceberg", 7}, {"acmeCo/warehouse/materialize-iceberg", 30}, {"acmeCo/lake/materialize-s3-iceberg", 7}} {
		m := load(t, "../fixtures/catalog", tc.name)
		days := tc.days
		at := time.Date(2026, 10, 28, 5, 0, 0, 0, time.UTC) // a 15m interval's last mark is at the end
		tl := TimelineOf(m, planner(at), at, days)
		var b bytes.Buffer
		if err := WriteSVG(&b, &tl); err != nil {
			t.Fatal(err)
		}
		svg := b.String()
		for _, class := range []string{"ack", "commit"} {
			start := strings.Index(svg, `<g class="`+class+`-density"`)
			if start < 0 {
				continue // not crowded: drawn mark by mark
			}
			group := svg[start : start+strings.Index(svg[start:], "</g>")]
			drawn := strings.Count(group, "<line ")
			for _, v := range regexp.MustCompile(`data-value="(\d+)"`).FindAllStringSubmatch(group, -1) {
				n, _ := strconv.Atoi(v[1])
				drawn += n
			}
			want := strings.Count(svg, `<line class="`+class+`"`)
			if drawn != want || !strings.Contains(group, fmt.Sprintf(`data-count="%d"`, want)) {
				t.Errorf("%s, %d days, %s: %d drawn of %d marks", tc.name, days, class, drawn, want)
			}
		}
	}
}
