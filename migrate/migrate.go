package migrate

import (
	"fmt"
	"sort"
	"strings"

	"schedtool/catalog"
	"schedtool/catalog/edit"
	"schedtool/catalog/tree"
	"schedtool/finding"
	"schedtool/plan"
	"schedtool/schedule/connector"
	"schedtool/schedule/model"
)

// Migrator plans and computes migrations.
type Migrator struct {
	Planner  *plan.Planner
	Registry *connector.Registry
	Limits   tree.Limits
	// Verify runs the equivalence check for every migrated task, over
	// VerifyYear's horizon.
	Verify     bool
	VerifyYear int

	verified verifyCache
}

// Task is the report of one materialization.
type Task struct {
	Task      string      `json:"task"`
	File      string      `json:"file"`
	Line      int         `json:"line"`
	Situation string      `json:"situation"`
	Action    string      `json:"action"`
	Reason    string      `json:"reason,omitempty"`
	Model     *model.Spec `json:"model,omitempty"`
	Connector string      `json:"connector,omitempty"`
	Files     []string    `json:"files,omitempty"`
	Changes   []string    `json:"changes,omitempty"`
	Verify    *Verified   `json:"verify,omitempty"`
}

// File is one document the migration changes (or refused to change).
type File struct {
	Path  string // as displayed, and as opened
	Old   []byte
	New   []byte
	Edits []finding.TextEdit
	Tasks []string
	Err   string // set when the file is refused
}

// Result is a migration planned over a catalog.
type Result struct {
	Tasks    []Task
	Files    []*File // changed or refused, sorted by path
	Problems []finding.Finding
}

// one is a materialization being migrated.
type one struct {
	m     *catalog.Materialization
	d     plan.Decision
	p     patches
	files map[*tree.Doc]bool
}

func (o *one) review(reason string) {
	o.d.Action, o.d.Reason = plan.Review, reason
	o.d.Model, o.d.ZeroConnector, o.d.RemoveUpdateDelay = nil, false, false
	o.p = patches{}
}

// Catalog plans and computes the edits of a loaded catalog.
func (mg *Migrator) Catalog(cat *catalog.Catalog) *Result {
	res := &Result{Problems: cat.Problems}
	all := make([]*one, len(cat.Materializations))
	for i, m := range cat.Materializations {
		o := &one{m: m, d: mg.Planner.Decide(m)}
		var why string
		o.p, why = build(o.d, m, mg.Registry)
		if why != "" {
			o.review(why)
		}
		all[i] = o
	}
	mg.shared(cat, all)
	files := mg.edit(all)
	for _, o := range all {
		t := mg.task(o.m, o.d)
		for doc := range o.files {
			t.Files = append(t.Files, doc.File)
		}
		sort.Strings(t.Files)
		res.Tasks = append(res.Tasks, t)
	}
	res.Files = files
	return res
}

// shared makes the users of one config file agree: the file is edited
// once when all ask for the same change, else none of them migrates.
func (mg *Migrator) shared(cat *catalog.Catalog, all []*one) {
	byMat := map[*catalog.Materialization]*one{}
	for _, o := range all {
		byMat[o.m] = o
	}
	paths := make([]string, 0, len(cat.Configs))
	for p := range cat.Configs {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, path := range paths {
		cf := cat.Configs[path]
		if len(cf.Users) < 2 {
			continue
		}
		var users []*one
		for _, u := range cf.Users {
			if o := byMat[u]; o != nil {
				users = append(users, o)
			}
		}
		key := patchKey(users[0].p.config)
		same := true
		for _, o := range users[1:] {
			if patchKey(o.p.config) != key {
				same = false
			}
		}
		if same {
			for _, o := range users[1:] {
				if o.p.config != nil {
					o.p.config = &edit.Patch{} // the first user's edit serves all
				}
			}
			continue
		}
		names := make([]string, len(users))
		for i, o := range users {
			names[i] = o.m.Name
		}
		for _, o := range users {
			if o.d.Action == plan.Migrate {
				o.review(fmt.Sprintf("config file %s is shared by %s, which would not all get the same change; give this task its own config file, or migrate them together", path, strings.Join(names, ", ")))
			}
		}
	}
}

// edit computes every document's edits. A refused document makes its
// tasks need review; the documents they also touched are then redone
// without them, so no task is half migrated.
func (mg *Migrator) edit(all []*one) []*File {
	refused := map[string]*File{}
	for {
		files, failed := mg.editRound(all)
		for _, f := range failed {
			if refused[f.Path] == nil {
				refused[f.Path] = f
			}
		}
		if len(failed) == 0 {
			for _, f := range refused {
				files = append(files, f)
			}
			sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
			return files
		}
	}
}

func (mg *Migrator) editRound(all []*one) (files, failed []*File) {
	byDoc := map[*tree.Doc][]*one{}
	var order []*tree.Doc
	for _, o := range all {
		o.files = map[*tree.Doc]bool{}
		for _, p := range []*edit.Patch{o.p.model, o.p.config} {
			if p == nil {
				continue
			}
			if p.Target == nil {
				// Served by another user's edit of a shared config file.
				o.files[o.m.Config.Doc] = true
				continue
			}
			doc := p.Target.Doc
			if byDoc[doc] == nil {
				order = append(order, doc)
			}
			if n := len(byDoc[doc]); n == 0 || byDoc[doc][n-1] != o {
				byDoc[doc] = append(byDoc[doc], o)
			}
			o.files[doc] = true
		}
	}
	for _, doc := range order {
		users := byDoc[doc]
		var ps []edit.Patch
		var names []string
		for _, o := range users {
			names = append(names, o.m.Name)
			for _, p := range []*edit.Patch{o.p.model, o.p.config} {
				if p != nil && p.Target != nil && p.Target.Doc == doc {
					ps = append(ps, *p)
				}
			}
		}
		r, err := edit.Do(doc, ps, mg.reparse)
		f := &File{Path: doc.File, Old: doc.Src, Tasks: names}
		switch {
		case err != nil:
			f.Err = err.Error()
			if e, ok := err.(*edit.Error); ok {
				f.Err = e.Msg
			}
			for _, o := range users {
				o.review("file " + doc.File + " cannot be edited safely: " + f.Err)
			}
			failed = append(failed, f)
		case len(r.Edits) > 0:
			f.New, f.Edits = r.New, r.Edits
			files = append(files, f)
		}
	}
	return files, failed
}

func (mg *Migrator) reparse(file string, src []byte) (*tree.Doc, error) {
	lim := mg.Limits
	if lim.MaxDepth == 0 {
		lim = tree.DefaultLimits
	}
	return catalog.Parse(file, src, lim)
}

// task is the report row of a decision.
func (mg *Migrator) task(m *catalog.Materialization, d plan.Decision) Task {
	t := Task{Task: m.Name, File: m.Source.File, Line: m.Spec.Line(), Situation: string(d.Situation), Action: string(d.Action), Reason: d.Reason}
	if m.Row != nil {
		t.Line = m.Row.Line
	}
	if d.Action != plan.Migrate {
		return t
	}
	t.Model = d.Model
	if d.ZeroConnector && d.Entry != nil {
		fam := mg.Registry.Family(d.Entry.Family)
		if d.Entry.Family == connector.FamilySyncSchedule {
			t.Connector = `syncSchedule: {syncFrequency: "0s"}`
		} else {
			t.Connector = strings.TrimPrefix(fam.Pointer, "/") + ": " + fam.Zero
		}
		if m.Config != nil && m.Config.Sealed {
			t.Connector += " (in sops.overlay)"
		}
	}
	if d.RemoveUpdateDelay {
		if t.Connector != "" {
			t.Connector += "; "
		}
		t.Connector += "advanced.updateDelay removed"
	}
	t.Changes = behaviour(d, m)
	if mg.Verify {
		t.Verify = mg.verify(d)
	}
	return t
}
