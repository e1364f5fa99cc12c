// Package census counts who still relies on connector-side pacing (docs/behaviour.md
// §8): one row per materialization on a scheduling image, its
// status, and groups that say when the connector machinery can go.
package census

import (
	"io"
	"sort"
	"sync/atomic"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/livespecs"
	"github.com/estuary/schedtool/finding"
	"github.com/estuary/schedtool/internal/shapecache"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/schedule/connector"
)

// Statuses in the order they are decided (plan.Planner.Decide decides
// them; needs-review is also decided first, for a model schedule that
// does not work). ReadyNeedsFlag is ready's second row, counted apart: a
// file sink migrate converts only with --zero-file-sinks (docs/behaviour.md §8).
var Statuses = statuses[:]

// statuses is Statuses as an array: its length is a constant (the HTML
// report counts per status in an array of that length).
var statuses = [...]string{string(plan.StatusBlockedV1), string(plan.StatusConflict), string(plan.StatusStacked), string(plan.StatusMigrated),
	string(plan.StatusUnaffected), string(plan.StatusReady), ReadyNeedsFlag, string(plan.StatusNeedsReview)}

// ReadyNeedsFlag is the status of a V2 file sink that migrate converts
// once given --zero-file-sinks.
const ReadyNeedsFlag = string(plan.StatusReadyNeedsFlag)

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
	// Disabled is set for a task whose shards are disabled: still a user
	// of its schedule (it paces again when enabled).
	Disabled bool   `json:"disabled"`
	Status   string `json:"status"`
	Reason   string `json:"reason"`
	// Crash is, when the connector's schedule makes it panic within 366
	// days (docs/behaviour.md §4.3), the first range of last acknowledgements
	// that does, in UTC.
	Crash string `json:"crash,omitempty"`
	File  string `json:"file"`
	Line  int    `json:"line"`
	// Exception is the project file's exception for the task's status:
	// the task is remaining all the same (the removal gate never trusts
	// an exception, docs/behaviour.md §13), listed apart.
	Exception *Exception `json:"exception,omitempty"`
	// Definitions are, for a name defined in several catalogs
	// (docs/behaviour.md §2), every definition with its own status; the
	// row is the one that most relies on connector-side pacing.
	Definitions []Definition `json:"definitions,omitempty"`
}

// Exception is an agreed exception for a task's status.
type Exception struct {
	Reason  string `json:"reason"`
	Owner   string `json:"owner"`
	Expires string `json:"expires"`
}

// MaxExceptedListed bounds the excepted tasks a census lists apart.
const MaxExceptedListed = 1000

// Definition is one definition of a name defined in several catalogs.
type Definition struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
}

// reliance orders statuses by how much a task relies on connector-side
// pacing: the remaining ones first, in Statuses' order, then migrated,
// then unaffected.
func reliance(status string) int {
	for i, s := range RemainingStatuses() {
		if s == status {
			return i
		}
	}
	if status == string(plan.StatusMigrated) {
		return len(Statuses)
	}
	return len(Statuses) + 1
}

// rowOfName is the row of a name from its definitions: the one that
// most relies on connector-side pacing, listing them all when several.
func (c *Census) rowOfName(defs []*catalog.Materialization) (Row, bool) {
	var rows []Row
	for _, m := range defs {
		if r, ok := c.RowOf(m); ok {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return Row{}, false
	}
	best := 0
	for i := range rows {
		if reliance(rows[i].Status) < reliance(rows[best].Status) {
			best = i
		}
	}
	r := rows[best]
	if len(defs) > 1 {
		for _, x := range rows {
			r.Definitions = append(r.Definitions, Definition{File: x.File, Line: x.Line, Status: x.Status, Reason: x.Reason})
		}
	}
	return r, true
}

// RemainingStatuses are the statuses of the tasks that still rely on
// connector-side pacing, in Statuses' order.
func RemainingStatuses() []string {
	var out []string
	for _, s := range Statuses {
		if (&Row{Status: s}).Remaining() {
			out = append(out, s)
		}
	}
	return out
}

// Remaining reports whether the task still relies on connector-side pacing.
func (r *Row) Remaining() bool { return plan.Status(r.Status).Remaining() }

// MaxUnreadableListed is how many unreadable inputs a census lists, with
// their positions; the rest are counted (a dump of 40 MB of garbage lines
// must not keep millions of them in memory).
const MaxUnreadableListed = 100

// Unreadable is an input, or part of one, that could not be read.
type Unreadable struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Message string `json:"message"`
	// Excerpt is the source line of a syntax error, shown under it with
	// a caret in the text lists.
	Excerpt string `json:"-"`
}

// Totals are the groups and the summary; they grow with the number of
// groups, not of rows.
type Totals struct {
	Tasks, Remaining, Unreadable, Disabled, Crashing int
	ByStatus, ByImage, ByKind, ByRuntime, ByFamily   map[string]int
	RemainingByImage                                 map[string]int
	// OldestTag is, per image, the oldest tag among the tasks that remain.
	OldestTag map[string]string
	// Excepted counts the remaining tasks whose status the project file
	// excepts; ExceptedRows are the first MaxExceptedListed of them.
	Excepted     int
	ExceptedRows []Row
	unblocks     *unblocks // what unblocks what (Unblocks), when the census made its dry runs
	// Excluded counts the tasks the project file's exclude left out,
	// ExcludedSources the sources holding them; Read counts the tasks
	// (on any image) and dump rows that were not left out.
	Excluded, ExcludedSources, Read int
}

// AllExcluded reports whether the inputs held tasks and the project
// file excluded every one: a census of nothing, which fails the removal
// gate as an input with no rows does (docs/behaviour.md §8, §13).
func (t *Totals) AllExcluded() bool { return t.Excluded > 0 && t.Read == 0 }

func newTotals() *Totals {
	return &Totals{ByStatus: map[string]int{}, ByImage: map[string]int{}, ByKind: map[string]int{},
		ByRuntime: map[string]int{}, ByFamily: map[string]int{}, RemainingByImage: map[string]int{}, OldestTag: map[string]string{}}
}

func (t *Totals) add(r *Row) { t.addN(r, 1) }

// addN counts n tasks whose rows are r but for their names.
func (t *Totals) addN(r *Row, n int) {
	t.Tasks += n
	if r.Disabled {
		t.Disabled += n
	}
	if r.Crash != "" {
		t.Crashing += n
	}
	t.ByStatus[r.Status] += n
	t.ByImage[r.Image] += n
	t.ByKind[r.Kind] += n
	t.ByRuntime[r.Runtime] += n
	t.ByFamily[r.Family] += n
	if r.Remaining() {
		t.Remaining += n
		t.RemainingByImage[r.Image] += n
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
	// NoCache decides every dump row by reading it (for tests: the
	// shape cache must not change a census).
	NoCache bool
	// Except, when set, is the project file's unexpired exception for a
	// task's status, nil when none.
	Except func(task, status string) *Exception
	// DryRun, when set, is migrate's dry run, by which the census says
	// what unblocks what (Unblocks); without it the census lists none.
	DryRun DryRun
}

// except marks a remaining row whose status is excepted: still
// remaining, counted and listed apart.
func (c *Census) except(t *Totals, r *Row) {
	if c.Except == nil || !r.Remaining() {
		return
	}
	if r.Exception = c.Except(r.Task, r.Status); r.Exception != nil {
		t.Excepted++
		if len(t.ExceptedRows) < MaxExceptedListed {
			t.ExceptedRows = append(t.ExceptedRows, *r)
		}
	}
}

// RowOf makes the census row of a materialization; ok is false when it is
// not on a scheduling image.
func (c *Census) RowOf(m *catalog.Materialization) (Row, bool) {
	d := c.Planner.Decide(m)
	if d.Entry == nil {
		return Row{}, false
	}
	r := Row{Task: m.Name, Image: d.Entry.Image, Tag: d.Tag, Family: string(d.Entry.Family),
		Runtime: "v1", Kind: string(d.Result.Kind), Model: d.HasModel, Status: string(d.Status), Reason: d.Reason,
		File: m.Source.Name(), Disabled: m.Disabled()}
	if m.Spec != nil {
		r.Line = m.Spec.Line()
	}
	if d.V2 {
		r.Runtime = "v2"
	}
	if len(d.Crashes) > 0 {
		r.Crash = d.Crashes[0].UTC()
	}
	// The effective delay: none on an image tag that defers to the
	// runtime's schedule (docs/behaviour.md §6).
	r.Delay = d.DelayText()
	switch d.Status {
	case plan.StatusConflict, plan.StatusMigrated, plan.StatusUnaffected, plan.StatusReady, plan.StatusReadyNeedsFlag:
		r.Reason = ""
	}
	if d.Status == plan.StatusNeedsReview && r.Reason == "" {
		r.Reason = "no conversion applies"
	}
	return r, true
}

// Run takes the census of every input, writing rows to w in a
// deterministic order (sources' tasks by name, then each dump's in row
// order) and unreadable parts as they come; the totals come back.
func (c *Census) Run(inputs []catalog.Input, opts catalog.Options, w Writer) (*Totals, error) {
	t := newTotals()
	var rem *remainingSet
	if c.DryRun != nil {
		rem = newRemainingSet()
	}
	emit := func(r *Row) {
		c.except(t, r)
		t.add(r)
		if rem != nil && r.Remaining() {
			rem.add(r)
		}
		w.Row(r)
	}
	bad := w.Unreadable
	render, _ := w.(Renderer)
	if c.Except != nil {
		render = nil // each row is looked at for its exception
	}
	fail := func(f *finding.Finding) {
		t.Unreadable++
		if t.Unreadable <= MaxUnreadableListed {
			bad(&Unreadable{File: f.Pos.File, Line: f.Pos.Line, Column: f.Pos.Column, Message: f.Message, Excerpt: f.Excerpt})
		}
	}
	cat := catalog.Load(inputs, opts)
	for _, p := range cat.Unreadable() {
		fail(p)
	}
	mats := cat.Materializations
	t.Excluded, t.ExcludedSources, t.Read = cat.Excluded, cat.ExcludedSources, len(mats)
	for i := 0; i < len(mats); {
		j := i + 1
		for j < len(mats) && mats[j].Name == mats[i].Name {
			j++ // sorted by name: the definitions of one name in several catalogs
		}
		if r, ok := c.rowOfName(mats[i:j]); ok {
			emit(&r)
		}
		i = j
	}
	keys := c.Planner.Registry.AllConfigKeys()
	cache := shapecache.New[verdict]()
	counted := map[*verdict]int{}
	err := livespecs.EachDump(inputs, func(rd io.Reader, name string) error {
		type out struct {
			rendered []byte
			v        *verdict // the row's shape, when it has one
			row      *Row     // the row, when it has no shape or is not rendered
			name     string   // the row's task, when it has a shape and dry runs are made
			problem  *finding.Finding
		}
		dopts := livespecs.DumpOptions{Options: opts, ConfigKeys: keys, Lean: true}
		return livespecs.ScanDumpRaw(rd, name, dopts, func(wk *livespecs.Worker, line int, b []byte) out {
			row, has, v, problem := c.dumpRow(cache, wk, name, line, b, keys, opts)
			o := out{problem: problem}
			if !has {
				return o
			}
			o.v = v
			if rem != nil && v != nil {
				o.name = row.Task
			}
			switch {
			case render != nil && v != nil:
				v.once.Do(func() { v.shared = render.Shared(&v.row) })
				o.rendered = render.RenderShared(nil, &row, v.shared)
			case render != nil:
				o.rendered = render.Render(nil, &row)
				o.row = &row
			default:
				o.row = &row
			}
			return o
		}, func(o out) {
			if c.Rows != nil {
				c.Rows.Add(1)
			}
			t.Read++
			if o.problem != nil {
				fail(o.problem)
			}
			if o.v != nil {
				counted[o.v]++
				if rem != nil && o.v.row.Remaining() {
					rem.add(&Row{Task: o.name, Image: o.v.row.Image})
				}
			} else if o.row != nil {
				t.add(o.row)
				if rem != nil && o.row.Remaining() {
					rem.add(o.row)
				}
			}
			switch {
			case o.rendered != nil:
				render.RowBytes(o.rendered)
			case o.row != nil:
				c.except(t, o.row)
				w.Row(o.row)
			}
		})
	})
	for v, n := range counted {
		t.addN(&v.row, n)
	}
	if err == nil && rem != nil {
		t.unblocks, err = c.partition(rem)
	}
	return t, err
}
