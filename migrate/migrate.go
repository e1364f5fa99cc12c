package migrate

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/edit"
	"github.com/estuary/schedtool/catalog/tree"
	catusers "github.com/estuary/schedtool/catalog/users"
	"github.com/estuary/schedtool/finding"
	"github.com/estuary/schedtool/internal/paths"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/schedule/connector"
	"github.com/estuary/schedtool/schedule/model"
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

	// Options, when set, are the planner's options for each task (the
	// project file's decisions, per name or prefix); nil: Planner's.
	Options func(name string) plan.Options

	// Holders are, by config path, the users of each file that the run
	// does not migrate with the others (catalog.Users): a file one holds
	// is not changed. Run finds them itself; a caller of Catalog gives them.
	Holders map[string][]catusers.Holder

	verified verifyCache
	wave     *wave // the tasks this run migrates under --limit; nil: all
}

// decide plans m with its own options (Options).
func (mg *Migrator) decide(m *catalog.Materialization) plan.Decision {
	if mg.Options == nil {
		return mg.Planner.Decide(m)
	}
	p := *mg.Planner
	p.Options = mg.Options(m.Name)
	return p.Decide(m)
}

// Task is the report of one materialization.
type Task struct {
	Task      string      `json:"task"`
	File      string      `json:"file"`
	Line      int         `json:"line"`
	Disabled  bool        `json:"disabled,omitempty"` // shards.disable: still a user of its schedule
	Situation string      `json:"situation"`
	Action    plan.Action `json:"action"`
	Cause     plan.Cause  `json:"-"` // why Review or Skip (Reason says it)
	Reason    string      `json:"reason,omitempty"`
	Model     *model.Spec `json:"model,omitempty"`
	Connector string      `json:"connector,omitempty"`
	Runtime   string      `json:"runtime,omitempty"` // the runtime change, when the task moves to V2
	Files     []string    `json:"files,omitempty"`
	Changes   []string    `json:"changes,omitempty"`
	Verify    *Verified   `json:"verify,omitempty"`
	// Publish is how to publish the task's source under --out DIR.
	Publish string `json:"publish,omitempty"`
	// hold is the longest the task's connector holds a commit today
	// (its longest delay, when known): what a published change waits on.
	hold time.Duration
}

// File is one document the migration changes (or refused to change).
type File struct {
	Path  string // as displayed, and as opened
	Old   []byte
	New   []byte
	Edits []finding.TextEdit
	Tasks []string
	// Models and Zeroes are the tasks whose model schedule this file
	// adds or replaces, and whose connector schedule it zeroes: a file
	// with a task's model is written before the file zeroing it.
	Models, Zeroes []string
	Err            string // set when the file is refused
}

// Result is a migration planned over a catalog.
type Result struct {
	Tasks    []Task
	Files    []*File // changed or refused, sorted by path
	Problems []finding.Finding
}

// one is a materialization being migrated.
type one struct {
	m *catalog.Materialization
	d plan.Decision
	p patches
}

func (o *one) review(reason string) {
	review(&o.d, reason)
	o.p = patches{}
}

// review turns a decision into one a person must take, for reason.
func review(d *plan.Decision, reason string) {
	d.Action, d.Cause, d.Reason = plan.Review, plan.CauseMigrate, reason
	d.Model, d.ZeroConnector, d.RemoveUpdateDelay, d.EnableRuntimeV2 = nil, false, false, false
}

// deferWave defers the tasks to migrate that the wave leaves out.
func (mg *Migrator) deferWave(all []*one) {
	for _, o := range all {
		if o.d.Action != plan.Migrate {
			continue
		}
		if cause, why, ok := mg.wave.defers(o.m.Name); ok {
			deferDecision(&o.d, cause, why)
			o.p = patches{}
		}
	}
}

// editMsg is an edit's refusal without the file name (it is said apart).
func editMsg(err error) string {
	if e, ok := err.(*edit.Error); ok {
		return e.Msg
	}
	return err.Error()
}

// Catalog plans and computes the edits of a loaded catalog.
func (mg *Migrator) Catalog(cat *catalog.Catalog) *Result {
	res := &Result{Problems: cat.Problems}
	all := mg.plan(cat)
	files := mg.edit(cat, all)
	for _, o := range all {
		t := mg.task(o.m, o.d)
		for _, p := range o.p.list() {
			if !slices.Contains(t.Files, p.Target.Doc.Name()) {
				t.Files = append(t.Files, p.Target.Doc.Name())
			}
		}
		sort.Strings(t.Files)
		res.Tasks = append(res.Tasks, t)
	}
	res.Files = files
	return res
}

// plan decides every materialization of a catalog and builds its
// patches, the users of a shared config file made to agree.
func (mg *Migrator) plan(cat *catalog.Catalog) []*one {
	all := make([]*one, len(cat.Materializations))
	for i, m := range cat.Materializations {
		o := &one{m: m, d: mg.decide(m)}
		var why string
		o.p, why = build(o.d, m, mg.Registry)
		if why != "" {
			o.review(why)
		}
		all[i] = o
	}
	// A task a saved plan's task set (RunOptions.TaskSet) leaves out is
	// deferred before the users of a shared file are made to agree: one
	// added since the plan that uses a file the plan zeroes must hold the
	// file back, not be left unpaced.
	if mg.wave != nil && mg.wave.fixed {
		mg.deferWave(all)
	}
	for mg.shared(cat, all) {
	}
	// A --limit wave is chosen from what the agreement leaves to
	// migrate, and takes groups whole.
	mg.deferWave(all)
	return all
}

// shared holds back every config file that a user of it does not get
// the same change as the others, in this run (docs/behaviour.md §7): the users of a
// file are every task under the root that references it, and one that
// this run leaves out (mg.Holders: another PATH, a selector, a source
// that cannot be parsed, a refused reference, a capture) or does not
// migrate alike (V1, review, deferred, another change) would be left
// without pacing once the file is zeroed. Every task of such a file that
// would migrate needs review instead, naming the holders. It reports
// whether it turned any task to review (the edit loop iterates to a
// fixpoint with it).
func (mg *Migrator) shared(cat *catalog.Catalog, all []*one) bool {
	byMat := map[*catalog.Materialization]*one{}
	for _, o := range all {
		byMat[o.m] = o
	}
	files := make([]string, 0, len(cat.Configs))
	for p := range cat.Configs {
		files = append(files, p)
	}
	sort.Strings(files)
	changed := false
	for _, path := range files {
		var users []*one
		for _, u := range cat.Configs[path].Users {
			if o := byMat[u]; o != nil {
				users = append(users, o)
			}
		}
		// The change asked of the file: its first user's that has one.
		key := ""
		for _, o := range users {
			if o.p.config != nil {
				key = patchKey(o.p.config)
				break
			}
		}
		if key == "" {
			continue
		}
		hold := holderTexts(mg.Holders[path])
		for _, o := range users {
			if patchKey(o.p.config) != key {
				hold = append(hold, fmt.Sprintf("%s (%s:%d: %s)", o.m.Name, o.m.Source.Name(), o.m.Spec.Line(), holding(o)))
			}
		}
		if len(hold) == 0 {
			continue
		}
		if n := len(hold); n > maxHolders {
			// Every holder in every reason would grow with the square of
			// a large fleet on one file.
			hold = append(hold[:maxHolders], fmt.Sprintf("and %d more", n-maxHolders))
		}
		reason := fmt.Sprintf("config file %s is shared: also used by %s, which this run does not migrate with it: changing the file would leave them without pacing; select every user of the file (PATHs, --name/--prefix/--image and --limit that take them all), or give this task a config file of its own", paths.Display(path), strings.Join(hold, ", "))
		for _, o := range users {
			if o.d.Action == plan.Migrate {
				o.review(reason)
				changed = true
			}
		}
	}
	return changed
}

// maxHolders is how many holders of a file a reason names.
const maxHolders = 10

// holding says why a user of a shared config file read by this run does
// not get the change the others ask of the file.
func holding(o *one) string {
	switch o.d.Action {
	case plan.Migrate:
		if o.p.config == nil {
			return "it does not change the file"
		}
		return "it would get another change"
	case plan.Skip:
		return "V1, skipped without --enable-runtime-v2"
	case plan.Review:
		why, _, _ := strings.Cut(o.d.Reason, ";")
		return "needs review: " + why
	case Deferred:
		// "deferred: not in the saved plan's task set" (apply, for a
		// task added since the plan), or "deferred by --limit N".
		if o.d.Cause == plan.CauseTaskSet {
			return o.d.Reason
		}
		why, _, _ := strings.Cut(o.d.Reason, ":")
		return why
	}
	return "not migrated (" + string(o.d.Situation) + ")"
}

// edit computes every document's edits. A refused document makes its
// tasks need review; the shared config files they use are then held back
// too (shared), and the documents they also touched are redone without
// them, until nothing changes: so no task is half migrated, and no
// shared file is zeroed under a task that is not.
func (mg *Migrator) edit(cat *catalog.Catalog, all []*one) []*File {
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
		mg.shared(cat, all)
	}
}

func (mg *Migrator) editRound(all []*one) (files, failed []*File) {
	type work struct {
		users          []*one
		patches        []edit.Patch
		models, zeroes []string
	}
	byDoc := map[*tree.Doc]*work{}
	var order []*tree.Doc
	for _, o := range all {
		for _, p := range o.p.list() {
			w := byDoc[p.Target.Doc]
			if w == nil {
				w = &work{}
				byDoc[p.Target.Doc] = w
				order = append(order, p.Target.Doc)
			}
			if n := len(w.users); n == 0 || w.users[n-1] != o {
				w.users = append(w.users, o)
			}
			w.patches = append(w.patches, *p)
			if p == o.p.model {
				w.models = append(w.models, o.m.Name)
			} else {
				w.zeroes = append(w.zeroes, o.m.Name)
			}
		}
	}
	for _, doc := range order {
		w := byDoc[doc]
		f := &File{Path: doc.File, Old: doc.Src, Models: w.models, Zeroes: w.zeroes}
		for _, o := range w.users {
			f.Tasks = append(f.Tasks, o.m.Name)
		}
		r, err := edit.Do(doc, w.patches, mg.reparse)
		switch {
		case err != nil:
			f.Err = editMsg(err)
			for _, o := range w.users {
				o.review("file " + doc.Name() + " cannot be edited safely: " + f.Err)
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
	return tree.Parse(file, src, lim)
}

// task is the report row of a decision.
func (mg *Migrator) task(m *catalog.Materialization, d plan.Decision) Task {
	t := Task{Task: m.Name, File: m.Source.Name(), Line: m.Spec.Line(), Disabled: m.Disabled(), Situation: string(d.Situation), Action: d.Action, Cause: d.Cause, Reason: d.Reason}
	if d.Action != plan.Migrate {
		return t
	}
	t.Model = d.Model
	if d.Result.Known {
		t.hold = d.Result.Delay
	}
	if d.ZeroConnector && d.Entry != nil {
		fam := mg.Registry.Family(d.Entry.Family)
		if d.Entry.Family == connector.FamilySyncSchedule {
			t.Connector = `syncSchedule: {syncFrequency: "0s"}`
		} else {
			t.Connector = connector.PointerPath(fam.Pointer) + ": " + fam.Zero
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
	if d.EnableRuntimeV2 {
		t.Runtime = `v1 -> v2: shards.flags.enable-runtime-v2: "true" (--enable-runtime-v2)`
	}
	t.Changes = behaviour(d, m)
	if mg.Verify {
		t.Verify = mg.verify(d)
	}
	return t
}
