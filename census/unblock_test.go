package census

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/schedule/connector"
)

// partitioned is the totals of rows with what unblocks what from a
// dry run that migrates a row under a set when moves says so (else
// review, for the row's reason).
func partitioned(t *testing.T, rows []Row, moves func(r Row, set plan.Options) bool) *Totals {
	t.Helper()
	tot := totalsOf(rows)
	rem := newRemainingSet()
	for i := range rows {
		if rows[i].Remaining() {
			rem.add(&rows[i])
		}
	}
	c := &Census{Planner: &plan.Planner{Registry: connector.Builtin()}, DryRun: func(set plan.Options, _ func(string) bool, each func(string, plan.Action, string)) error {
		for _, r := range rows {
			switch {
			case !r.Remaining():
				each(r.Task, plan.None, "")
			case moves(r, set):
				each(r.Task, plan.Migrate, "")
			default:
				each(r.Task, plan.Review, r.Reason)
			}
		}
		return nil
	}}
	var err error
	if tot.unblocks, err = c.partition(rem); err != nil {
		t.Fatal(err)
	}
	return tot
}

// Each remaining task goes to the first set of decisions whose dry run
// migrates it, the rest to a person by reason; the list adds up to the
// remaining count.
func TestUnblocksAddUp(t *testing.T) {
	var rows []Row
	add := func(n int, r Row) {
		for i := 0; i < n; i++ {
			r.Task = fmt.Sprintf("t/%s/%d", r.Status, len(rows))
			rows = append(rows, r)
		}
	}
	add(7, Row{Status: "blocked-v1", Image: "a", Reason: "v2"})
	add(2, Row{Status: "blocked-v1", Image: "a", Reason: "v2 sink"})
	add(3, Row{Status: "conflict", Image: "a", Reason: "resolve"})
	add(2, Row{Status: "needs-review", Image: "ghcr.io/estuary/materialize-bigquery", Reason: "upgrade"})
	add(4, Row{Status: "needs-review", Image: "ghcr.io/estuary/materialize-snowflake", Reason: "upgrade"})
	add(5, Row{Status: "needs-review", Image: "a", Reason: "sealed"})
	add(1, Row{Status: "needs-review", Image: "a", Reason: "invalid"})
	add(6, Row{Status: "ready", Image: "a"})
	add(9, Row{Status: "migrated", Image: "a"})
	tot := partitioned(t, rows, func(r Row, set plan.Options) bool {
		switch r.Reason {
		case "":
			return true
		case "v2":
			return set.EnableRuntimeV2
		case "v2 sink":
			return set.EnableRuntimeV2 && set.ZeroFileSinks
		case "resolve":
			return set.Resolve == "connector" // the other choice does not
		case "upgrade":
			return set.UpgradeImages
		}
		return false
	})
	list := Unblocks(tot)
	var got []string
	sum := 0
	for _, u := range list {
		got = append(got, fmt.Sprintf("%s %s%s%s %d", u.Kind, u.Image, u.Tag, u.Reason, u.Tasks))
		sum += u.Tasks
	}
	want := []string{"migrate  6", "enable-runtime-v2  7", "zero-file-sinks+enable-runtime-v2  2", "resolve  3",
		"image-upgrade ghcr.io/estuary/materialize-snowflakev4 4", "image-upgrade ghcr.io/estuary/materialize-bigqueryv3 2", "person sealed 5", "person invalid 1"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("unblocks\n%v, want\n%v", got, want)
	}
	if sum != tot.Remaining {
		t.Errorf("unblocks move %d tasks, %d remain", sum, tot.Remaining)
	}
}

// A name whose definitions do not all migrate under a set is not that
// set's: every definition must move.
func TestUnblocksEveryDefinition(t *testing.T) {
	rows := []Row{{Task: "a/x", Status: "ready", Image: "a"}}
	tot := totalsOf(rows)
	rem := newRemainingSet()
	rem.add(&rows[0])
	c := &Census{Planner: &plan.Planner{Registry: connector.Builtin()}, DryRun: func(set plan.Options, _ func(string) bool, each func(string, plan.Action, string)) error {
		each("a/x", plan.Migrate, "")
		if set.EnableRuntimeV2 {
			each("a/x", plan.Migrate, "")
		} else {
			each("a/x", plan.Skip, "a V1 definition")
		}
		return nil
	}}
	var err error
	if tot.unblocks, err = c.partition(rem); err != nil {
		t.Fatal(err)
	}
	if list := Unblocks(tot); len(list) != 1 || list[0].Kind != UnblockRuntimeV2 || list[0].Tasks != 1 {
		t.Errorf("unblocks %+v, want the one task under --enable-runtime-v2", list)
	}
}

func TestVerdict(t *testing.T) {
	for _, tc := range []struct {
		remaining, unreadable int
		want                  string
	}{
		{0, 0, "The removal gate passes"},
		{3, 0, "fails, because 3 tasks still rely on connector-side pacing."},
		{1, 0, "fails, because 1 task still relies on"},
		{0, 2, "fails, because 2 inputs are unreadable."},
		{5, 1, "5 tasks still rely on connector-side pacing and 1 input is unreadable."},
	} {
		if got := Verdict(&Totals{Remaining: tc.remaining, Unreadable: tc.unreadable}); !strings.Contains(got, tc.want) {
			t.Errorf("%d remaining, %d unreadable: %q, want %q in it", tc.remaining, tc.unreadable, got, tc.want)
		}
	}
	// A census of nothing (the project file excluded every task) fails.
	nothing := &Totals{Excluded: 3}
	if GatePasses(nothing) || !strings.Contains(Verdict(nothing), "excluded every task") {
		t.Errorf("a census of nothing: passes %v, %q", GatePasses(nothing), Verdict(nothing))
	}
}

// laneTotals is a census whose dry runs put ready tasks in the lane
// that needs no decision, blocked-v1 ones in --enable-runtime-v2's, and
// the rest in a person's.
func laneTotals(t *testing.T, ready, v1, person int) *Totals {
	var rows []Row
	for i := range ready + v1 + person {
		st, reason := "ready", ""
		switch {
		case i >= ready+v1:
			st, reason = "needs-review", "sealed"
		case i >= ready:
			st, reason = "blocked-v1", "v1"
		}
		rows = append(rows, Row{Task: fmt.Sprint("a/", i), Image: "a", Status: st, Reason: reason})
	}
	return partitioned(t, rows, func(r Row, set plan.Options) bool {
		return r.Reason == "" || r.Reason == "v1" && set.EnableRuntimeV2
	})
}

func TestProjectionByLane(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, d) }
	point := func(d int, tot *Totals) Snapshot { return SnapshotOf(tot, day(d)) }
	lanes := func(p *Projection) string {
		var out []string
		sum := 0
		for _, l := range p.Lanes {
			sum += l.Remaining
			if l.Remaining == 0 {
				continue
			}
			z := "null"
			if l.ZeroAround != nil {
				z = *l.ZeroAround
			}
			out = append(out, fmt.Sprintf("%s %d %v %s", l.Lane, l.Remaining, l.PerWeek, z))
		}
		return strings.Join(out, "|")
	}

	// Only the ready lane moved: it has a date, the others wait on their
	// decision, and the whole has none: it stalls at what waits.
	now := laneTotals(t, 100, 800, 50)
	pts := []Snapshot{point(0, laneTotals(t, 300, 800, 50)), point(7, laneTotals(t, 200, 800, 50)), point(14, now)}
	p := ProjectionOf(pts, now, day(14))
	if got, want := lanes(p), "migrate 100 100 2026-11-22|enable-runtime-v2 800 0 null|person 50 0 null"; got != want {
		t.Errorf("lanes\n%s, want\n%s", got, want)
	}
	if p.ZeroAround != nil || p.StallsAt != 850 || !strings.Contains(p.Says(), "stalls at 850 until the decisions are made") {
		t.Errorf("the whole: %v, stalls at %d, %q", p.ZeroAround, p.StallsAt, p.Says())
	}
	for _, l := range p.Lanes {
		if l.Lane == UnblockRuntimeV2 && !strings.Contains(l.LaneSays(), "waits on the decision to move V1 tasks") {
			t.Errorf("the V1 lane says %q", l.LaneSays())
		}
	}

	// Every lane moved: the whole is at zero when the slowest lane is.
	now = laneTotals(t, 100, 700, 40)
	pts = []Snapshot{point(0, laneTotals(t, 200, 800, 50)), point(7, now)}
	p = ProjectionOf(pts, now, day(7))
	if p.ZeroAround == nil || *p.ZeroAround != "2026-12-27" || p.StallsAt != 0 {
		t.Errorf("every lane moves: zero %v, stalls at %d (%s)", p.ZeroAround, p.StallsAt, lanes(p))
	}

	// A history without lanes (an older schedtool's) projects nothing.
	old := point(0, laneTotals(t, 200, 800, 50))
	old.Lanes = nil
	if p = ProjectionOf([]Snapshot{old, point(7, now)}, now, day(7)); p.History || p.ZeroAround != nil || !strings.HasPrefix(p.Says(), "No projection yet") {
		t.Errorf("a history without lanes: %+v", p)
	}
}

// The markdown census stays under GitHub's job summary limit whatever
// the fleet, and says how many tasks it does not list.
func TestMarkdownUnderJobSummaryLimit(t *testing.T) {
	for _, n := range []int{100, 60000} {
		var out bytes.Buffer
		w, _ := NewWriter("markdown", &out, io.Discard, Options{Scope: &Scope{Inputs: []string{"dump.ndjson"}}})
		var rows []Row
		for i := 0; i < n; i++ {
			r := Row{Task: fmt.Sprintf("acmeCo/tenant%d/some/long/path/materialize-%d", i%50, i), Image: "ghcr.io/estuary/materialize-snowflake",
				Tag: "v4", Runtime: "v2", Kind: "fixed", Delay: "1h", Status: Statuses[i%len(Statuses)], Reason: strings.Repeat("why ", i%20)}
			w.Row(&r)
			rows = append(rows, r)
		}
		tot := partitioned(t, rows, func(r Row, set plan.Options) bool { return r.Status == "ready" })
		if err := w.End(tot); err != nil {
			t.Fatal(err)
		}
		s := out.String()
		if out.Len() >= MarkdownLimit {
			t.Errorf("%d tasks: %d bytes, over GitHub's %d", n, out.Len(), MarkdownLimit)
		}
		cut := strings.Contains(s, "more ready tasks, not listed")
		if cut != (n > 1000) {
			t.Errorf("%d tasks: cut %v", n, cut)
		}
		for _, want := range []string{"| kind | tasks |", "| runtime | tasks |", "### What unblocks what", "The removal gate fails", "### Scope"} {
			if !strings.Contains(s, want) {
				t.Errorf("%d tasks: no %q", n, want)
			}
		}
	}
}

// census -o json --summary is small, has the scope, and reads back as
// history.
func TestSummaryIsHistory(t *testing.T) {
	rows := []Row{{Task: "a/b", Status: "ready"}, {Task: "a/c", Status: "migrated"}}
	scope := &Scope{Inputs: []string{"postgres://flow@db/flow"}, Root: ".", Names: []string{"a/b"}, Schedtool: "v1.2.3"}
	var out bytes.Buffer
	w, _ := NewWriter("json", &out, io.Discard, Options{Now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Scope: scope, Summary: true})
	for i := range rows {
		w.Row(&rows[i])
	}
	if err := w.End(totalsOf(rows)); err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"tasks", "groups", "unreadable"} {
		if _, ok := doc[k]; ok {
			t.Errorf("a summary has %s", k)
		}
	}
	s, err := ReadSnapshot(&out, "summary.json")
	if err != nil {
		t.Fatal(err)
	}
	if s.Remaining != 1 || s.Tasks != 2 || s.Scope == nil || !s.Scope.Same(scope) {
		t.Errorf("read back %+v (scope %+v)", s, s.Scope)
	}
	other := *scope
	other.Prefixes = []string{"a/"}
	if s.Scope.Same(&other) {
		t.Error("a scope with another selector is the same")
	}
	if _, err := NewWriter("html", io.Discard, io.Discard, Options{Summary: true}); err == nil {
		t.Error("--summary with -o html is accepted")
	}
}

// A history that is this census (the first week: the census given as
// its own --history) is one point: no line is drawn.
func TestHTMLFirstWeekNoLine(t *testing.T) {
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	rows := []Row{{Task: "a/b", Status: "ready"}}
	tot := partitioned(t, rows, func(Row, plan.Options) bool { return true })
	page := writeHTML(t, rows, tot, Options{Now: now, History: []Snapshot{SnapshotOf(tot, now)}})
	if strings.Contains(page, `<svg id="burndown"`) || !strings.Contains(page, `data-points="1"`) {
		t.Errorf("the first week is drawn as a line")
	}
	page = writeHTML(t, rows, tot, Options{Now: now, History: []Snapshot{SnapshotOf(tot, now.AddDate(0, 0, -7))}})
	if !strings.Contains(page, `<svg id="burndown"`) || !strings.Contains(page, `id="projection"`) {
		t.Errorf("two weeks draw no burndown or projection")
	}
}

// Thousands of reasons make a list of maxListed and one entry for the
// rest: the list stays short, and still adds up.
func TestUnblocksBounded(t *testing.T) {
	var rows []Row
	for i := 0; i < 3*maxListed; i++ {
		rows = append(rows, Row{Task: fmt.Sprint("t/", i), Status: "needs-review", Reason: fmt.Sprint("reason ", i)},
			Row{Task: fmt.Sprint("u/", i), Status: "needs-review", Image: fmt.Sprint("img", i), Reason: "needs an image upgrade first"})
	}
	tot := partitioned(t, rows, func(r Row, set plan.Options) bool { return set.UpgradeImages && r.Image != "" })
	list := Unblocks(tot)
	sum := 0
	for _, u := range list {
		sum += u.Tasks
	}
	if len(list) != 2*maxListed+2 || sum != tot.Remaining {
		t.Errorf("%d entries moving %d tasks; want %d, %d", len(list), sum, 2*maxListed+2, tot.Remaining)
	}
}
