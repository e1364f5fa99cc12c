// Package census counts who still relies on connector-side pacing (SPEC
// section 8): one row per materialization on a scheduling image, its
// status, and groups that say when the connector machinery can go.
package census

import (
	"io"
	"sort"
	"sync/atomic"

	"schedtool/catalog"
	"schedtool/finding"
	"schedtool/plan"
	"schedtool/schedule/connector"
)

// Statuses in the order they are decided.
var Statuses = []string{"blocked-v1", "conflict", "stacked", "migrated", "unaffected", "ready", "needs-review"}

// Row is one materialization on a scheduling image.
type Row struct {
	Task    string `json:"task"`
	Image   string `json:"image"`
	Tag     string `json:"tag"`
	Family  string `json:"family"`
	Runtime string `json:"runtime"`
	Kind    string `json:"kind"`
	Delay   string `json:"delay"` // "unknown" when it cannot be known
	Model   bool   `json:"model"`
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	File    string `json:"file"`
	Line    int    `json:"line"`
}

// Remaining reports whether the task still relies on connector-side pacing.
func (r *Row) Remaining() bool { return r.Status != "migrated" && r.Status != "unaffected" }

// Unreadable is an input, or part of one, that could not be read.
type Unreadable struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Message string `json:"message"`
}

// Totals are the groups and the summary; they grow with the number of
// groups, not of rows.
type Totals struct {
	Tasks, Remaining, Unreadable                   int
	ByStatus, ByImage, ByKind, ByRuntime, ByFamily map[string]int
	RemainingByImage                               map[string]int
	// OldestTag is, per image, the oldest tag among the tasks that remain.
	OldestTag map[string]string
}

func newTotals() *Totals {
	return &Totals{ByStatus: map[string]int{}, ByImage: map[string]int{}, ByKind: map[string]int{},
		ByRuntime: map[string]int{}, ByFamily: map[string]int{}, RemainingByImage: map[string]int{}, OldestTag: map[string]string{}}
}

func (t *Totals) add(r *Row) {
	t.Tasks++
	t.ByStatus[r.Status]++
	t.ByImage[r.Image]++
	t.ByKind[r.Kind]++
	t.ByRuntime[r.Runtime]++
	t.ByFamily[r.Family]++
	if r.Remaining() {
		t.Remaining++
		t.RemainingByImage[r.Image]++
		if old, ok := t.OldestTag[r.Image]; !ok || olderTag(r.Tag, old) {
			t.OldestTag[r.Image] = r.Tag
		}
	}
}

// olderTag orders tags: versions by number, then anything else by name.
func olderTag(a, b string) bool {
	if connector.TagBefore(a, b) {
		return true
	}
	if connector.TagBefore(b, a) {
		return false
	}
	if aok, bok := connector.IsVersion(a), connector.IsVersion(b); aok != bok {
		return aok // a version is older than "dev" or a digest
	}
	return a < b
}

// Keys lists a group's keys, sorted.
func Keys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Census takes the census with one planner.
type Census struct {
	Planner *plan.Planner
	// Rows, if set, counts the rows read so far (for a progress line).
	Rows *atomic.Int64
}

// RowOf makes the census row of a materialization; ok is false when it is
// not on a scheduling image.
func (c *Census) RowOf(m *catalog.Materialization) (Row, bool) {
	d := c.Planner.Decide(m)
	if d.Entry == nil {
		return Row{}, false
	}
	r := Row{Task: m.Name, Image: d.Entry.Image, Tag: d.Tag, Family: string(d.Entry.Family),
		Runtime: "v1", Kind: string(d.Result.Kind), Model: d.HasModel, Status: status(d), Reason: d.Reason,
		File: m.Source.File}
	if m.Spec != nil {
		r.Line = m.Spec.Line()
	}
	if d.V2 {
		r.Runtime = "v2"
	}
	if d.Result.Known {
		r.Delay = connector.FormatDelay(d.Result.Delay)
		if d.Result.Delay == 0 {
			r.Delay = "0s"
		}
	} else {
		r.Delay = "unknown"
	}
	if r.Status == "conflict" || r.Status == "migrated" || r.Status == "unaffected" || r.Status == "ready" {
		r.Reason = ""
	}
	if r.Status == "needs-review" && r.Reason == "" {
		r.Reason = "no conversion applies"
	}
	return r, true
}

// status maps a plan to the census status (SPEC section 8).
func status(d plan.Decision) string {
	switch d.Situation {
	case plan.BlockedV1:
		return "blocked-v1"
	case plan.Conflict:
		return "conflict"
	case plan.Stacked:
		return "stacked"
	case plan.Migrated:
		return "migrated"
	case plan.NoDelay:
		return "unaffected"
	}
	if d.Action == plan.Migrate {
		return "ready"
	}
	return "needs-review"
}

// Run takes the census of every input, writing rows to w in a
// deterministic order (sources' tasks by name, then each dump's in row
// order) and unreadable parts as they come; the totals come back.
func (c *Census) Run(inputs []catalog.Input, opts catalog.Options, w Writer) (*Totals, error) {
	t := newTotals()
	emit := func(r *Row) {
		t.add(r)
		w.Row(r)
	}
	bad := w.Unreadable
	render, _ := w.(Renderer)
	fail := func(f *finding.Finding) {
		t.Unreadable++
		bad(&Unreadable{File: f.Pos.File, Line: f.Pos.Line, Column: f.Pos.Column, Message: f.Message})
	}
	cat := catalog.Load(inputs, opts)
	for i := range cat.Problems {
		fail(&cat.Problems[i])
	}
	for _, m := range cat.Materializations {
		if r, ok := c.RowOf(m); ok {
			emit(&r)
		}
	}
	err := catalog.EachDump(inputs, func(rd io.Reader, name string) error {
		type out struct {
			row      Row
			has      bool
			problem  *finding.Finding
			rendered []byte
		}
		return catalog.ScanDump(rd, name, catalog.DumpOptions{Options: opts, ConfigKeys: c.Planner.Registry.AllConfigKeys(), Lean: true}, func(rr *catalog.RowResult) out {
			var o out
			if rr.Mat != nil && rr.Problem == nil {
				o.row, o.has = c.RowOf(rr.Mat)
				if o.has && render != nil {
					o.rendered = render.Render(nil, &o.row)
				}
			} else if rr.Problem != nil {
				o.problem = rr.Problem
			}
			return o
		}, func(o out) {
			if c.Rows != nil {
				c.Rows.Add(1)
			}
			if o.problem != nil {
				fail(o.problem)
			}
			if o.has {
				t.add(&o.row)
				if render != nil {
					render.RowBytes(o.rendered)
				} else {
					w.Row(&o.row)
				}
			}
		})
	})
	return t, err
}
