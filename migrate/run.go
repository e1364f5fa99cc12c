package migrate

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/catalog/livespecs"
	"github.com/estuary/schedtool/catalog/users"
	"github.com/estuary/schedtool/finding"
	"github.com/estuary/schedtool/internal/groupwrite"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/report"
)

// Mode is what a run does with the changes.
type Mode int

const (
	DryRun  Mode = iota // print them
	Write               // apply them in place
	OutDir              // write the migrated tree elsewhere
	OutFile             // write the migrated rows of the dumps to a file
	OutTree             // write each migrated stored spec as a publishable source under a directory
)

// RunOptions are a run's choices.
type RunOptions struct {
	Load   catalog.Options
	Mode   Mode
	Out    string // the directory or file of OutDir, OutFile and OutTree
	Format string // "diff" or "json"
	// Review makes the diff one for a person only (-o markdown):
	// ReviewDiff, not Diff, for catalog files.
	Review bool
	// Limit, when positive, migrates at most this many tasks, the first
	// in catalog name order; the rest are deferred.
	Limit int
	Quiet bool
	// Force lets OutTree replace the sources already in its directory
	// (the command checks the directory; without it, nothing is replaced).
	Force bool
	// Hooks inject faults into the writes (tests); the zero value has none.
	Hooks groupwrite.Hooks
	// Record, when set, receives what the run would change, in every
	// mode: every task, every group of changed files in its rename order,
	// every migrated dump row. It is how a dry run is saved as a plan
	// (migrate --plan, package savedplan), and how apply replays the
	// plan: a group or row it answers false to is neither shown nor
	// written.
	Record Recorder
	// TaskSet, when not nil, is the fixed set of names this run may
	// migrate (a saved plan's, in place of --limit): every other task
	// that would migrate is deferred.
	TaskSet []string
	// Replay keeps the closing notes to the files written (a saved
	// plan's apply, which says the rest itself).
	Replay bool
}

// Recorder receives a run's changes (RunOptions.Record).
type Recorder interface {
	Task(t *Task)
	// Group is one group of changed files, in the order they are
	// renamed; refused says why the group cannot be written ("" when it
	// can). A file refused alone (File.Err) comes as a group of one.
	// The group is shown and written only when Group returns true.
	Group(files []*File, refused string) bool
	// Row is one migrated row of the dump named dump, shown and written
	// only when Row returns true.
	Row(dump string, row *Row) bool
}

// Summary is what a run did.
type Summary struct {
	Tasks    int                 `json:"tasks"`
	Disabled int                 `json:"disabled,omitempty"` // of which with shards.disable (migrated all the same)
	Actions  map[plan.Action]int `json:"actions"`
	Pending  int                 `json:"pending"` // files and dump rows with changes
	Files    int                 `json:"files"`   // of which files
	Rows     int                 `json:"rows"`    // of which dump rows
	Written  int                 `json:"written"`
	Refused  int                 `json:"refused"` // files or rows that could not be edited safely
	Failed   int                 `json:"failed"`  // files that could not be written
	// Unreadable counts the unreadable inputs and rows as census does
	// (catalog.Catalog.Unreadable).
	Unreadable int `json:"unreadable"`
	// Definitions counts every definition read; Tasks counts names (a
	// name defined in several catalogs is one task).
	Definitions int `json:"definitions"`
	// Verify sums up the equivalence checks (--verify).
	Verify *VerifySummary `json:"verify,omitempty"`
	// Interrupted is the signal that stopped the writes (SIGINT, SIGTERM),
	// and Untouched the files it left as they were.
	Interrupted string `json:"interrupted,omitempty"`
	Untouched   int    `json:"untouched,omitempty"`
	// FileSinks are the skipped tasks that are file sinks left for want
	// of --zero-file-sinks (the others skipped are V1 tasks).
	FileSinks int `json:"fileSinks,omitempty"`
	// UnpacedV1 are the skipped V1 tasks that nothing paces: a model
	// schedule the V1 runtime ignores beside a zero connector delay (what
	// rolling back the V2 flag leaves; --enable-runtime-v2 fixes them).
	UnpacedV1 int `json:"unpacedV1,omitempty"`
	// V1Review are the skipped V1 tasks whose connector schedule needs a
	// person before --enable-runtime-v2 can move them (invalid, sealed,
	// or covered by a secret).
	V1Review int `json:"v1Review,omitempty"`
	// Oversized are the deferred tasks whose group of tasks sharing a
	// config file is larger than --limit: no run at this limit migrates
	// them, so a person must raise it.
	Oversized int `json:"oversized,omitempty"`
	// Reasons groups the tasks that need review or were skipped by
	// reason, each with all its tasks (-o json only).
	Reasons []*ReasonGroup `json:"reasons,omitempty"`
}

// Deferred is the number of tasks left for a later run by --limit.
func (s *Summary) Deferred() int { return s.Actions[Deferred] }

// Review is the number of tasks that need a person.
func (s *Summary) Review() int { return s.Actions[plan.Review] }

// Skipped is the number of tasks left on their connector's pacing on
// purpose: V1 tasks (blocked-v1, without --enable-runtime-v2) and file
// sinks without --zero-file-sinks (FileSinks of them).
func (s *Summary) Skipped() int { return s.Actions[plan.Skip] }

// VerifySummary is the equivalence check over every migrated task.
type VerifySummary struct {
	Checked   int            `json:"checked"`
	Identical int            `json:"identical"`
	Differing int            `json:"differing"`
	ByCause   map[string]int `json:"byCause,omitempty"` // differing minutes by cause, over all tasks
	MaxDiff   string         `json:"maxDiff"`
	MaxTask   string         `json:"maxTask,omitempty"`
	MaxAt     string         `json:"maxAt,omitempty"`
	maxDiff   time.Duration
}

func (v *VerifySummary) add(task string, x *Verified) {
	v.Checked++
	if x.Mismatches == 0 {
		v.Identical++
	} else {
		v.Differing++
	}
	for c, n := range x.ByCause {
		if v.ByCause == nil {
			v.ByCause = map[string]int{}
		}
		v.ByCause[c] += n
	}
	if x.maxDiff > v.maxDiff || v.MaxDiff == "" {
		v.maxDiff, v.MaxDiff = x.maxDiff, x.MaxDiff
		if x.maxDiff > 0 {
			v.MaxTask, v.MaxAt = task, x.MaxAt
		}
	}
}

// Line is the summary in a sentence.
func (v *VerifySummary) Line() string {
	line := fmt.Sprintf("verify: %d %s checked, %d identical, %d differing", v.Checked, report.Plural(v.Checked, "task", "tasks"), v.Identical, v.Differing)
	if len(v.ByCause) > 0 {
		causes := make([]string, 0, len(v.ByCause))
		for c := range v.ByCause {
			causes = append(causes, c)
		}
		sort.Strings(causes)
		for i, c := range causes {
			causes[i] = fmt.Sprintf("%s: %d %s", c, v.ByCause[c], report.Plural(v.ByCause[c], "minute", "minutes"))
		}
		line += " (" + strings.Join(causes, ", ") + ")"
	}
	if v.MaxTask != "" {
		line += fmt.Sprintf("; largest difference %s, first at %s (%s)", v.MaxDiff, v.MaxAt, report.Escape(v.MaxTask))
	} else {
		line += "; largest difference 0s"
	}
	return line
}

// OK reports whether the run did all of its job.
func (s *Summary) OK() bool {
	return s.Refused == 0 && s.Failed == 0 && s.Unreadable == 0 && s.Interrupted == ""
}

// Run migrates the inputs: catalog trees first, then each dump, writing
// the diff or the JSON report to out and messages to errw.
//
// A run that fails before any of its report reached out leaves out
// untouched, so that the caller can write a failure document instead of
// the start of a report (docs/behaviour.md §9: a machine format writes nothing but its
// document).
func (mg *Migrator) Run(inputs []catalog.Input, opts RunOptions, out, errw io.Writer) (_ *Summary, err error) {
	cw := &report.CountingWriter{W: out}
	bw := bufio.NewWriterSize(cw, 64<<10)
	defer func() {
		if err != nil && cw.N == 0 {
			bw.Reset(cw) // drop the start of the report: nothing reached out
			return
		}
		bw.Flush()
	}()
	r := &runner{mg: mg, opts: opts, out: bw, errw: errw, sum: &Summary{Actions: map[plan.Action]int{}}, seen: map[string]bool{}, sinks: map[string]bool{}}
	var sources []catalog.Input
	for _, in := range inputs {
		if len(in.Sources) > 0 {
			sources = append(sources, in)
		}
	}
	var cat *catalog.Catalog
	if len(sources) > 0 {
		cat = catalog.Load(sources, r.opts.Load)
		r.several = cat.Several
		// Every user of each config file, from the whole root, once.
		var unread []users.Unread
		r.mg.Holders, unread = users.Users(sources, cat, r.opts.Load)
		for _, u := range unread {
			fmt.Fprintf(errw, "schedtool: %s\n", report.Escape(UnreadNote(u)))
		}
		if len(cat.Configs) > 0 {
			for _, root := range ownDirRoots(sources) {
				fmt.Fprintf(errw, "schedtool: the root is %s, the PATH's own directory (no --root, no git work tree): a task outside it that uses one of its config files is not seen, and would lose its pacing when the file changes; give --root DIR, a directory holding every catalog that might use them\n", report.Escape(root))
			}
		}
		if opts.Mode == OutDir {
			// Where each file goes, and whether it may: refused before
			// anything is written, standard output included.
			var err error
			if r.outPlan, err = outPaths(opts.Out, sources, cat, opts.Load); err != nil {
				return r.sum, err
			}
		}
	}
	if opts.Format == "json" {
		r.json = &jsonReport{w: bw}
		r.json.start()
	}
	if (opts.Limit > 0 && opts.TaskSet == nil) || opts.Mode == OutTree {
		// Two passes over the inputs (the wave's or the case clashes',
		// then the migration): a database is read once, in one
		// snapshot, and both passes read that.
		release, err := livespecs.HoldDB(inputs)
		defer release()
		if err != nil {
			return r.sum, err
		}
	}
	switch {
	case opts.TaskSet != nil:
		r.mg.wave = fixedWave(opts.TaskSet)
	case opts.Limit > 0:
		if err := r.wave(inputs, cat); err != nil {
			return r.sum, err
		}
	}
	if cat != nil {
		if err := r.catalog(sources, cat); err != nil {
			return r.sum, err
		}
	}
	if err := r.dumps(inputs); err != nil {
		return r.sum, err
	}
	r.sum.Pending = r.sum.Files + r.sum.Rows
	if r.stopped != nil {
		r.sum.Interrupted = SignalName(r.stopped)
	}
	if r.json != nil {
		r.sum.Reasons = r.reasons.sorted()
		r.json.end(r.sum)
	}
	if err := bw.Flush(); err != nil {
		return r.sum, fmt.Errorf("writing standard output: %w", err)
	}
	r.summary()
	return r.sum, nil
}

type runner struct {
	mg      *Migrator
	opts    RunOptions
	out     *bufio.Writer
	errw    io.Writer
	sum     *Summary
	json    *jsonReport
	reasons reasons
	changes changes  // the behaviour changes, for the diff format's summary
	wrote   []string // the files written, for the listing
	defers  []string
	moreDef int
	stopped os.Signal // a signal stopped the writes
	// published is set once a tree of --out DIR is complete.
	published *Publish
	// outPlan is where each file of the tree goes under --out DIR.
	outPlan *outPlan
	// cands are the names of the tasks that would migrate, when a first
	// pass over the inputs found them (--limit).
	cands []string
	// several are the names defined in several catalogs; seen and sinks
	// those of them counted, as tasks and as file sinks.
	several     map[string][]*catalog.Materialization
	seen, sinks map[string]bool
	// hold is the longest connector hold of a task to migrate, and
	// holdTask that task: a published change waits up to twice it.
	hold     time.Duration
	holdTask string
}

func (r *runner) note(format string, args ...any) {
	if !r.opts.Quiet {
		fmt.Fprintf(r.errw, format+"\n", args...)
	}
}

func (r *runner) problem(f finding.Finding) {
	r.sum.Unreadable++
	fmt.Fprintf(r.errw, "schedtool: %s:%d:%d: %s\n%s", report.Escape(f.Pos.File), f.Pos.Line, f.Pos.Column, report.Escape(f.Message),
		report.Excerpt(f.Excerpt, f.Pos.Column, "    "))
}

func (r *runner) task(t *Task) {
	r.sum.Tasks++
	r.sum.Definitions++
	if _, ok := r.several[t.Task]; ok {
		// A name defined in several catalogs is one task of several
		// definitions: counted once, as census counts it.
		if r.seen[t.Task] {
			r.sum.Tasks--
		}
	}
	r.sum.Actions[t.Action]++
	if t.Action == plan.Migrate && t.hold > r.hold {
		r.hold, r.holdTask = t.hold, t.Task
	}
	if t.Disabled {
		r.sum.Disabled++
	}
	if t.Action == Deferred && r.mg.wave.oversized(t.Task) {
		r.sum.Oversized++
	}
	if t.Action == Deferred {
		if len(r.defers) < 20 {
			line := t.line()
			if t.Cause == plan.CauseLimit {
				line = line[:strings.LastIndex(line, "): ")+1] // the reason is said once, above
			}
			r.defers = append(r.defers, "  "+line)
		} else {
			r.moreDef++
		}
	}
	if t.Action == plan.Review || t.Action == plan.Skip {
		if plan.NeedsZeroFileSinks(t.Action, t.Cause) && !r.sinks[t.Task] {
			r.sum.FileSinks++
			if _, ok := r.several[t.Task]; ok {
				r.sinks[t.Task] = true // a name counts once
			}
		}
		if plan.IsUnpacedV1(t.Action, t.Cause) {
			r.sum.UnpacedV1++
		}
		if plan.IsBlockedV1Review(t.Action, t.Cause) {
			r.sum.V1Review++
		}
		r.reasons.add(t, r.json != nil)
	}
	if _, ok := r.several[t.Task]; ok {
		r.seen[t.Task] = true
	}
	if t.Verify != nil {
		if r.sum.Verify == nil {
			r.sum.Verify = &VerifySummary{}
		}
		r.sum.Verify.add(t.Task, t.Verify)
	}
	if r.json != nil {
		r.json.task(t)
	}
	if t.Action == plan.Migrate {
		r.changes.add(t)
	}
	if r.opts.Record != nil {
		r.opts.Record.Task(t)
	}
}

// ownDirRoots are the roots, once each, that are a PATH's own directory:
// the users of a config file are found under the root, so a task beside
// it, outside, is not seen (docs/shared-configs.md).
func ownDirRoots(inputs []catalog.Input) []string {
	var out []string
	for _, in := range inputs {
		if in.RootWhy == input.RootOwnDir && !slices.Contains(out, in.Root) {
			out = append(out, in.Root)
		}
	}
	return out
}
