package savedplan

import (
	"github.com/estuary/schedtool/catalog/livespecs"
	"github.com/estuary/schedtool/migrate"
)

// Recorder builds a plan from a dry run (migrate.RunOptions.Record).
type Recorder struct {
	Plan *Plan
	dump map[string]int // dump name: index in Plan.Dumps
}

// NewRecorder starts a plan made by schedtool version self.
func NewRecorder(self string, args []string, flags map[string]string, roots []string) *Recorder {
	// A database PATH is kept without its password: a plan is a file
	// to review and share, and apply never reads a database again.
	shown := make([]string, len(args))
	for i, a := range args {
		shown[i] = a
		if livespecs.IsDBURL(a) {
			shown[i] = livespecs.RedactURL(a)
		}
	}
	return &Recorder{Plan: &Plan{Format: Format, Version: Version, Schedtool: self, Args: shown, Flags: flags, Roots: roots, Tasks: []migrate.Task{}}}
}

// Task records a task's report.
func (r *Recorder) Task(t *migrate.Task) { r.Plan.Tasks = append(r.Plan.Tasks, *t) }

// Group records a group of changed files, in rename order.
func (r *Recorder) Group(files []*migrate.File, refused string) {
	g := Group{Refused: refused}
	for _, f := range files {
		pf := File{Path: f.Path, Size: len(f.Old), SHA256: Hash(f.Old), Tasks: f.Tasks, Models: f.Models, Zeroes: f.Zeroes}
		if f.Err == "" {
			pf.Edits = toEdits(f.Old, f.Edits)
			pf.Result = Hash(f.New)
		}
		g.Files = append(g.Files, pf)
	}
	r.Plan.Groups = append(r.Plan.Groups, g)
}

// Row records a migrated row of a dump.
func (r *Recorder) Row(dump string, row *migrate.Row) {
	i, ok := r.dump[dump]
	if !ok {
		if r.dump == nil {
			r.dump = map[string]int{}
		}
		i = len(r.Plan.Dumps)
		r.dump[dump] = i
		r.Plan.Dumps = append(r.Plan.Dumps, Dump{Name: dump})
	}
	name := ""
	if row.Task != nil {
		name = row.Task.Task
	}
	d := &r.Plan.Dumps[i]
	d.Rows = append(d.Rows, Row{Line: row.Line, Name: name, LastPubID: row.PubID, Size: len(row.Old), SHA256: Hash(row.Old), Edits: toEdits(row.Old, row.Edits), Result: Hash(row.New), SpecStart: row.SpecStart, SpecEnd: row.SpecEnd})
}
