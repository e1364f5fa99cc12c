package savedplan

import (
	"path/filepath"

	"github.com/estuary/schedtool/catalog/livespecs"
	"github.com/estuary/schedtool/internal/paths"
	"github.com/estuary/schedtool/migrate"
	"github.com/estuary/schedtool/plan"
)

// Recorder records a dry run as a plan (migrate.RunOptions.Record): each
// record goes to the Writer as it comes.
type Recorder struct {
	W    *Writer
	root string // the absolute root every path is made relative to
}

// NewRecorder records into w, paths relative to root.
func NewRecorder(w *Writer, root string) *Recorder {
	return &Recorder{W: w, root: AbsRoot(root)}
}

// AbsRoot is root absolute.
func AbsRoot(root string) string {
	if abs, err := filepath.Abs(root); err == nil {
		return abs
	}
	return root
}

// Rel is path relative to the absolute root, slash-separated: how a plan
// names files. A path outside the root keeps its absolute form (migrate
// never writes one), standard input and a database their names.
func Rel(root, path string) string {
	if path == "-" || path == "<stdin>" || livespecs.IsDBURL(path) {
		return path
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if rel, ok := paths.Under(root, abs); ok {
		if rel == "" {
			return "."
		}
		return filepath.ToSlash(rel)
	}
	return abs
}

// Task records a task's report: a migrated one, and one that needs a
// person; the others are counted in the summary. A migrated task's name
// joins the task set.
func (r *Recorder) Task(t *migrate.Task) {
	if t.Action == plan.Migrate && !r.W.seen[t.Task] {
		r.W.seen[t.Task] = true
		r.W.names = append(r.W.names, t.Task)
	}
	switch t.Action {
	case plan.Migrate, plan.Review, plan.Skip:
		c := *t
		c.File = Rel(r.root, t.File)
		for i, f := range c.Files {
			if i == 0 {
				c.Files = make([]string, len(t.Files))
			}
			c.Files[i] = Rel(r.root, f)
		}
		r.W.Plan.Account.add(&c)
		r.W.put(record{Task: &c})
	}
}

// Group records a group of changed files, in rename order.
func (r *Recorder) Group(files []*migrate.File, refused string) bool {
	g := groupRecord(r.root, files, refused)
	r.W.put(record{Group: g})
	return true
}

// Row records a migrated row of a dump.
func (r *Recorder) Row(dump string, row *migrate.Row) bool {
	r.W.put(record{Row: rowRecord(r.root, dump, row)})
	return true
}

// groupRecord is a group as a plan records it.
func groupRecord(root string, files []*migrate.File, refused string) *Group {
	g := &Group{Refused: refused}
	for _, f := range files {
		pf := File{Path: Rel(root, f.Path), Size: len(f.Old), SHA256: Hash(f.Old), Tasks: f.Tasks, Models: f.Models, Zeroes: f.Zeroes}
		if f.Err == "" {
			pf.Edits = toEdits(f.Old, f.Edits)
			pf.Result = Hash(f.New)
		}
		g.Files = append(g.Files, pf)
	}
	return g
}

// rowRecord is a migrated row as a plan records it.
func rowRecord(root, dump string, row *migrate.Row) *Row {
	name := ""
	if row.Task != nil {
		name = row.Task.Task
	}
	return &Row{Dump: Rel(root, dump), Line: row.Line, Name: name, LastPubID: row.PubID, Size: len(row.Old), SHA256: Hash(row.Old), Edits: toEdits(row.Old, row.Edits), Result: Hash(row.New)}
}

// Account is what a plan's tasks say, for a reviewer: the behaviour
// changes and the tasks that need a person, by reason (the first
// maxTasksPerReason of each), built as the tasks stream by.
type Account struct {
	changes migrate.Changes
	reasons migrate.Reasons
	first   map[*migrate.ReasonGroup][]*migrate.Task
}

func (a *Account) add(t *migrate.Task) {
	if t.Action == plan.Migrate {
		a.changes.Add(t)
	}
	if t.Action != plan.Review && t.Action != plan.Skip {
		return
	}
	g := a.reasons.Add(t)
	if a.first == nil {
		a.first = map[*migrate.ReasonGroup][]*migrate.Task{}
	}
	if len(a.first[g]) < maxTasksPerReason {
		c := *t
		a.first[g] = append(a.first[g], &c)
	}
}

// Changes are the behaviour changes, each with its number of tasks.
func (a *Account) Changes() []migrate.ChangeCount { return a.changes.List() }

// reasonGroups are the tasks that need review or were skipped, by
// reason: review first, most tasks first, then by reason.
func (a *Account) reasonGroups() []*reasonGroup {
	var out []*reasonGroup
	for _, g := range a.reasons.Sorted() {
		out = append(out, &reasonGroup{action: g.Action, reason: g.Reason, count: g.Count, tasks: a.first[g]})
	}
	return out
}
