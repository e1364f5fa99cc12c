package migrate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"schedtool/catalog"
	"schedtool/finding"
	"schedtool/plan"
	"schedtool/report"
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
	// Limit, when positive, migrates at most this many tasks, the first
	// in catalog name order; the rest are deferred.
	Limit int
	Quiet bool
	// Force lets OutTree replace the sources already in its directory
	// (the command checks the directory; without it, nothing is replaced).
	Force bool
}

// Summary is what a run did.
type Summary struct {
	Tasks    int            `json:"tasks"`
	Disabled int            `json:"disabled,omitempty"` // of which with shards.disable (migrated all the same)
	Actions  map[string]int `json:"actions"`
	Pending  int            `json:"pending"` // files and dump rows with changes
	Files    int            `json:"files"`   // of which files
	Rows     int            `json:"rows"`    // of which dump rows
	Written  int            `json:"written"`
	Refused  int            `json:"refused"`  // files or rows that could not be edited safely
	Failed   int            `json:"failed"`   // files that could not be written
	Problems int            `json:"problems"` // unreadable inputs and rows
	// Verify sums up the equivalence checks (--verify).
	Verify *VerifySummary `json:"verify,omitempty"`
	// Interrupted is the signal that stopped the writes (SIGINT, SIGTERM),
	// and Untouched the files it left as they were.
	Interrupted string `json:"interrupted,omitempty"`
	Untouched   int    `json:"untouched,omitempty"`
}

// Deferred is the number of tasks left for a later run by --limit.
func (s *Summary) Deferred() int { return s.Actions[Deferred] }

// Review is the number of tasks that need a person.
func (s *Summary) Review() int { return s.Actions[string(plan.Review)] }

// Skipped is the number of V1 tasks left on their connector's pacing
// (blocked-v1, without --enable-runtime-v2).
func (s *Summary) Skipped() int { return s.Actions[string(plan.Skip)] }

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
	return s.Refused == 0 && s.Failed == 0 && s.Problems == 0 && s.Interrupted == ""
}

// Run migrates the inputs: catalog trees first, then each dump, writing
// the diff or the JSON report to out and messages to errw.
//
// A run that fails before any of its report reached out leaves out
// untouched, so that the caller can write a failure document instead of
// the start of a report (SPEC 9: a machine format writes nothing but its
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
	r := &runner{mg: mg, opts: opts, out: bw, errw: errw, sum: &Summary{Actions: map[string]int{}}}
	var sources []catalog.Input
	for _, in := range inputs {
		if len(in.Sources) > 0 {
			sources = append(sources, in)
		}
	}
	var cat *catalog.Catalog
	if len(sources) > 0 {
		cat = catalog.Load(sources, r.opts.Load)
		cat.Bystanders = catalog.Bystanders(sources, cat, r.opts.Load)
		if opts.Mode == OutDir {
			// Where each file goes, and whether it may: refused before
			// anything is written, standard output included.
			var err error
			if r.outPaths, err = outPaths(opts.Out, sources, cat); err != nil {
				return r.sum, err
			}
		}
	}
	if opts.Format == "json" {
		r.json = &jsonReport{w: bw}
		r.json.start()
	}
	if opts.Limit > 0 || opts.Mode == OutTree {
		// Two passes over the inputs (the wave's or the case clashes',
		// then the migration): a database is read once, in one
		// snapshot, and both passes read that.
		release, err := catalog.HoldDB(inputs)
		defer release()
		if err != nil {
			return r.sum, err
		}
	}
	if opts.Limit > 0 {
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
	reviews []string
	more    int
	defers  []string
	moreDef int
	stopped os.Signal // a signal stopped the writes
	// published is set once a tree of --out DIR is complete.
	published *Publish
	// outPaths maps each file of the catalog to its place under --out DIR.
	outPaths map[string]string
	// cands are the names of the tasks that would migrate, when a first
	// pass over the inputs found them (--limit).
	cands []string
}

func (r *runner) note(format string, args ...any) {
	if !r.opts.Quiet {
		fmt.Fprintf(r.errw, format+"\n", args...)
	}
}

func (r *runner) problem(f finding.Finding) {
	r.sum.Problems++
	fmt.Fprintf(r.errw, "schedtool: %s:%d:%d: %s\n", report.Escape(f.Pos.File), f.Pos.Line, f.Pos.Column, report.Escape(f.Message))
}

func (r *runner) task(t *Task) {
	r.sum.Tasks++
	r.sum.Actions[t.Action]++
	if t.Disabled {
		r.sum.Disabled++
	}
	if t.Action == Deferred {
		if len(r.defers) < 20 {
			line := t.line()
			if strings.HasPrefix(t.Reason, "deferred by --limit") {
				line = line[:strings.LastIndex(line, "): ")+1] // the reason is said once, above
			}
			r.defers = append(r.defers, "  "+line)
		} else {
			r.moreDef++
		}
	}
	if t.Action == string(plan.Review) {
		if len(r.reviews) < 20 {
			r.reviews = append(r.reviews, "  "+t.line())
		} else {
			r.more++
		}
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
}

// wave picks the tasks of this run under --limit: a first pass over the
// inputs finds the tasks that would migrate.
func (r *runner) wave(inputs []catalog.Input, cat *catalog.Catalog) error {
	var cands []candidate
	if cat != nil {
		cands = r.mg.catalogCandidates(cat)
	}
	dopts := catalog.DumpOptions{Options: r.opts.Load}
	err := catalog.EachDump(inputs, func(rd io.Reader, name string) error {
		return r.mg.dumpCandidates(rd, name, dopts, func(n string) { cands = append(cands, candidate{name: n}) })
	})
	if err != nil {
		return err
	}
	r.mg.wave = newWave(r.opts.Limit, cands)
	r.cands = make([]string, len(cands))
	for i, c := range cands {
		r.cands[i] = c.name
	}
	return nil
}

// candidates are the names of the tasks of the dumps that would migrate:
// those the wave found, or a first pass over the dumps.
func (r *runner) candidates(inputs []catalog.Input) ([]string, error) {
	if r.cands != nil {
		return r.cands, nil
	}
	var names []string
	dopts := catalog.DumpOptions{Options: r.opts.Load}
	err := catalog.EachDump(inputs, func(rd io.Reader, name string) error {
		return r.mg.dumpCandidates(rd, name, dopts, func(n string) { names = append(names, n) })
	})
	return names, err
}

func (r *runner) catalog(inputs []catalog.Input, cat *catalog.Catalog) error {
	for _, p := range cat.Problems {
		r.problem(p)
	}
	res := r.mg.Catalog(cat)
	for i := range res.Tasks {
		r.task(&res.Tasks[i])
	}
	var changed []*File
	for _, f := range res.Files {
		if f.Err != "" {
			r.sum.Refused++
			fmt.Fprintf(r.errw, "schedtool: %s: not changed: %s\n", report.Escape(f.Path), report.Escape(f.Err))
			if r.json != nil {
				r.json.file(f.Path, "refused", f.Err)
			}
			continue
		}
		r.sum.Files++
		changed = append(changed, f)
		if r.opts.Mode == DryRun {
			if r.json == nil {
				if err := Diff(r.out, f.Path, f.Old, f.Edits, 3); err != nil {
					return err
				}
			} else {
				r.json.file(f.Path, "pending", "")
			}
		}
	}
	switch r.opts.Mode {
	case Write:
		var roots []string
		for _, in := range inputs {
			if real, err := filepath.EvalSymlinks(in.Root); err == nil {
				if abs, err := filepath.Abs(real); err == nil {
					roots = append(roots, abs)
				}
			}
		}
		r.staleTemps(changed)
		for _, g := range groups(changed) {
			puts := make([]*Put, len(g.files))
			for i, f := range g.files {
				puts[i] = &Put{Path: f.Path, Old: f.Old, Data: f.New, Within: roots}
				if f.Path == "<stdin>" && g.err == "" {
					g.err = "standard input cannot be written in place; use --out DIR or a dry run"
				}
			}
			r.writeGroup(g, puts)
		}
	case OutDir:
		return r.outDir(cat, changed)
	}
	return nil
}

// staleTemps names the temp files beside the files to write that a run
// killed outright (SIGKILL, a crash) left: nothing uses them, and
// schedtool does not remove what another run might still be writing.
func (r *runner) staleTemps(files []*File) {
	for _, f := range files {
		real, err := filepath.EvalSymlinks(f.Path)
		if err != nil {
			continue
		}
		for _, t := range tempsBeside(real) {
			r.note("schedtool: %s: a temp file left by a schedtool run that was killed; nothing uses it, remove it once no other run is writing", report.Escape(t))
		}
	}
}

// writeGroup writes one group, or reports why it cannot be. A signal
// during its renames lets it finish and stops the groups after it.
func (r *runner) writeGroup(g group, puts []*Put) {
	if r.stopped != nil {
		for _, p := range puts {
			r.sum.Untouched++
			if r.json != nil {
				r.json.file(p.Path, "interrupted", "left as it was: the run was interrupted before its group")
			}
		}
		return
	}
	if g.err != "" {
		r.notWritten(puts, "", g.err)
		return
	}
	if err := WriteGroup(puts); err != nil {
		ge, _ := err.(*GroupError)
		if ge == nil {
			ge = &GroupError{Path: puts[0].Path, Err: err}
		}
		r.notWritten(puts, ge.Path, ge.Error())
	} else {
		for i, p := range puts {
			written.Add(1)
			if len(g.files[i].Tasks) > 0 { // a changed file, not a copy (--out)
				r.sum.Written++
				if r.json != nil {
					r.json.file(p.Path, "written", "")
				}
			}
		}
	}
	if sig := Interrupted(); sig != nil {
		r.stopped = sig
	}
}

// notWritten reports every file of a group that was not written: the one
// at fault with the reason, the others as its companions.
func (r *runner) notWritten(puts []*Put, at, msg string) {
	for _, p := range puts {
		switch {
		case p.Path == at || len(puts) == 1:
			r.fail(p.Path, msg)
		case at == "":
			r.fail(p.Path, msg)
		default:
			r.fail(p.Path, fmt.Sprintf("written together with %s, which failed: %s", at, msg))
		}
	}
}

func (r *runner) fail(path, msg string) {
	r.sum.Failed++
	fmt.Fprintf(r.errw, "schedtool: %s: not written: %s\n", report.Escape(path), report.Escape(msg))
	if r.json != nil {
		r.json.file(path, "failed", msg)
	}
}

// outPaths maps every file of the catalog to its place under the output
// directory, its path relative to its input's root. Two files that would
// land on one output path, an output path through a symlink, or one that
// is a file read, are refused.
func outPaths(out string, inputs []catalog.Input, cat *catalog.Catalog) (map[string]string, error) {
	dst := map[string]string{}
	owner := map[string]string{}
	for _, path := range cat.Files {
		if path == "<stdin>" {
			return nil, &catalog.UsageError{Msg: "--out: standard input has no place in an output tree; give the catalog by its path"}
		}
		rel := ""
		for _, in := range inputs {
			if rp, ok := catalog.Under(in.Root, path); ok {
				rel = rp
				break
			}
		}
		if rel == "" {
			return nil, &catalog.UsageError{Msg: fmt.Sprintf("--out: %s is outside every input root, so it has no place in the output tree", path)}
		}
		d := filepath.Join(out, rel)
		if prev, ok := owner[d]; ok {
			return nil, &catalog.UsageError{Msg: fmt.Sprintf("--out: %s and %s would both be written to %s; migrate them in separate runs", prev, path, d)}
		}
		if err := noSymlinkBelow(out, d); err != nil {
			return nil, &catalog.UsageError{Msg: "--out: " + err.Error()}
		}
		owner[d], dst[path] = path, d
	}
	// An output file that is one of the files read (by identity: a
	// config reached from inside the output directory) is refused.
	read := map[catalog.FileID]string{}
	for _, path := range cat.Files {
		if id, ok := catalog.Identify(path); ok {
			read[id] = path
		}
	}
	for _, path := range cat.Files {
		if id, ok := catalog.Identify(dst[path]); ok && read[id] != "" {
			return nil, &catalog.UsageError{Msg: fmt.Sprintf("--out: %s is the input file %s; name a directory elsewhere", dst[path], read[id])}
		}
	}
	return dst, nil
}

// outDir writes every file of the catalog, migrated, at its place under
// the output directory (outPaths): the files a migration changes in
// groups, as --write does, the others one by one.
func (r *runner) outDir(cat *catalog.Catalog, changed []*File) error {
	dst := r.outPaths
	isChanged := map[string]bool{}
	var outs []*File
	for _, f := range changed {
		isChanged[f.Path] = true
		o := *f
		o.Path, o.Old = dst[f.Path], nil
		outs = append(outs, &o)
	}
	for _, path := range cat.Files {
		if !isChanged[path] {
			outs = append(outs, &File{Path: dst[path], New: cat.Docs[path].Src})
		}
	}
	sort.Slice(outs, func(i, j int) bool { return outs[i].Path < outs[j].Path })
	for _, g := range groups(outs) {
		puts := make([]*Put, len(g.files))
		for i, f := range g.files {
			puts[i] = &Put{Path: f.Path, Data: f.New}
			if err := mkdirBelow(r.opts.Out, filepath.Dir(f.Path)); err != nil && g.err == "" {
				g.err = err.Error()
			}
		}
		r.writeGroup(g, puts)
	}
	return nil
}

// noSymlinkBelow refuses an output path with a symlink (or a file where a
// directory must be) between the output directory and it: nothing is
// written through a symlink.
func noSymlinkBelow(out, path string) error {
	rel, err := filepath.Rel(out, path)
	if err != nil {
		return err
	}
	cur := out
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		st, err := os.Lstat(cur)
		if err != nil {
			return nil // not there yet: created as a directory or a file
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symlink; schedtool does not write through one", cur)
		}
		if cur != path && !st.IsDir() {
			return fmt.Errorf("%s is not a directory", cur)
		}
		if cur == path && !st.Mode().IsRegular() {
			return fmt.Errorf("%s exists and is not a regular file", cur)
		}
	}
	return nil
}

// mkdirBelow creates dir and its parents below out, one at a time,
// refusing a symlink on the way.
func mkdirBelow(out, dir string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	rel, err := filepath.Rel(out, dir)
	if err != nil || rel == "." {
		return err
	}
	at, err := mkdirEach(out, rel, func(d string) error { return os.Mkdir(d, 0o755) })
	if err != nil || at == "" {
		return err
	}
	return fmt.Errorf("%s is not a directory (a symlink?); schedtool does not write through one", at)
}

// mkdirEach creates each directory of rel below base with mkdir, one at a
// time, and returns the first one that exists as something other than a
// plain directory (a symlink would lead elsewhere), or "" when there is
// none.
func mkdirEach(base, rel string, mkdir func(string) error) (notDir string, err error) {
	cur := base
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		if err := mkdir(cur); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", err
		}
		st, err := os.Lstat(cur)
		if err != nil {
			return "", err
		}
		if !st.IsDir() {
			return cur, nil
		}
	}
	return "", nil
}

// dumps migrates every dump input as a stream.
func (r *runner) dumps(inputs []catalog.Input) error {
	var outFile *Stream
	var pub *pubTree
	if r.opts.Mode == OutTree {
		pub = newPubTree(r.opts.Out)
		pub.force = r.opts.Force
		// Names that differ only in case would be one file on macOS or
		// Windows: found before anything is written, neither is written.
		names, err := r.candidates(inputs)
		if err != nil {
			return err
		}
		pub.clash = CaseClashes(names)
	}
	if r.opts.Mode == OutFile {
		var err error
		if outFile, err = CreateStream(r.opts.Out); err != nil {
			return &catalog.UsageError{Msg: "--out: " + err.Error()}
		}
	}
	dopts := catalog.DumpOptions{Options: r.opts.Load}
	// A catalog name is one row of live_specs: a dump holding it twice
	// (two exports concatenated) would give two migrated rows for one
	// task. The publishable tree refuses the second when it writes; the
	// diff and the rows file refuse it here.
	first := map[string]string{}
	err := catalog.EachDump(inputs, func(rd io.Reader, name string) error {
		header := false
		rows := 0
		err := r.mg.Dump(rd, name, dopts, func(row Row) {
			if row.Problem != nil {
				r.problem(*row.Problem)
			}
			if row.Refused != "" {
				r.sum.Refused++
				fmt.Fprintf(r.errw, "schedtool: %s:%d: not changed: %s\n", report.Escape(name), row.Line, report.Escape(row.Refused))
			}
			if pub != nil && row.New != nil && row.Task != nil {
				if others := pub.clash[row.Task.Task]; others != nil {
					t := row.Task
					t.Action, t.Reason, t.Model, t.Connector, t.Runtime, t.Files, t.Changes, t.Verify = string(plan.Review), caseClashReason(others), nil, "", "", nil, nil, nil
					r.task(t)
					return
				}
				r.publish(pub, name, row)
			}
			if pub == nil && row.New != nil && row.Task != nil {
				at := fmt.Sprintf("%s:%d", name, row.Line)
				if prev, dup := first[row.Task.Task]; dup {
					r.sum.Refused++
					fmt.Fprintf(r.errw, "schedtool: %s: %s: not changed: the catalog name appears twice (first at %s); a dump holds one row per task\n", report.Escape(at), report.Escape(row.Task.Task), report.Escape(prev))
					r.task(row.Task)
					return
				}
				first[row.Task.Task] = at
			}
			if row.Task != nil {
				r.task(row.Task)
			}
			if row.New == nil {
				return
			}
			rows++
			r.sum.Rows++
			switch r.opts.Mode {
			case DryRun:
				if r.json != nil {
					return
				}
				if !header {
					fmt.Fprintf(r.out, "--- a/%s\n+++ b/%s\n", name, name)
					header = true
				}
				fmt.Fprintf(r.out, "@@ -%d +%d @@\n-", row.Line, row.Line)
				r.out.Write(row.Old)
				r.out.WriteString("\n+")
				r.out.Write(row.New)
				r.out.WriteByte('\n')
			case OutFile:
				// A write error sticks to the stream; Commit reports it.
				outFile.Write(row.New)
				outFile.Write([]byte{'\n'})
				r.sum.Written++
			}
		})
		if r.json != nil && rows > 0 && pub == nil {
			status := "pending"
			if r.opts.Mode == OutFile {
				status = "migrated into " + r.opts.Out
			}
			r.json.file(name, status, fmt.Sprintf("%d rows", rows))
		}
		return err
	})
	if pub != nil {
		if err != nil {
			// Nothing of a read that failed part way is put in place.
			if len(pub.staged) > 0 {
				fmt.Fprintf(r.errw, "schedtool: nothing written under %s: the %d %s staged so far %s removed, since the read failed part way\n", report.Escape(r.opts.Out), len(pub.staged), report.Plural(len(pub.staged), "source", "sources"), report.Plural(len(pub.staged), "was", "were"))
			}
			pub.abort()
		} else {
			r.commitTree(pub)
			if sig := Interrupted(); sig != nil {
				r.stopped = sig
			}
		}
	}
	if outFile != nil {
		if err != nil {
			outFile.Abort()
			r.sum.Failed++
			return err
		}
		if cerr := outFile.Commit(); cerr != nil {
			r.sum.Failed++
			return cerr
		}
		written.Add(1)
		if sig := Interrupted(); sig != nil {
			r.stopped = sig
		}
	}
	return err
}

// line is a task in a list of notes: name, disabled, place, reason.
func (t *Task) line() string {
	s := report.Escape(t.Task)
	if t.Disabled {
		s += " [disabled]"
	}
	return fmt.Sprintf("%s (%s:%d): %s", s, report.Escape(t.File), t.Line, report.Escape(t.Reason))
}

// publish writes a migrated row's spec as its own catalog source under
// --out DIR; the task then names that file and how to publish it.
func (r *runner) publish(pub *pubTree, name string, row Row) {
	t := row.Task
	t.Files = nil
	dst, err := pub.add(t.Task, row.Spec)
	if err != nil {
		var no *refusal
		if errors.As(err, &no) {
			r.sum.Refused++
		} else {
			r.sum.Failed++
		}
		fmt.Fprintf(r.errw, "schedtool: %s:%d: %s: not written: %s\n", report.Escape(name), row.Line, report.Escape(t.Task), report.Escape(err.Error()))
		if r.json != nil {
			r.json.file(filepath.Join(r.opts.Out, filepath.FromSlash(t.Task), "flow.yaml"), "failed", err.Error())
		}
		return
	}
	t.Files = []string{dst}
	t.Publish = PublishEach(dst)
}

// commitTree puts the staged sources of --out DIR in place once every
// row is read, then writes DIR/flow.yaml.
func (r *runner) commitTree(pub *pubTree) {
	if len(pub.order) == 0 {
		return
	}
	// The sources and the index are one group: a signal during it lets
	// the whole tree finish (the run stops after it, Interrupted).
	beginCommit()
	defer endCommit()
	failed := false
	pub.commit(func(dst string, err error) {
		if err != nil {
			failed = true
			r.fail(dst, err.Error())
			return
		}
		r.sum.Written++
		if r.json != nil {
			r.json.file(dst, "written", "")
		}
	})
	if failed {
		return
	}
	dst, err := pub.index()
	if err != nil {
		r.fail(dst, err.Error())
		return
	}
	r.published = &Publish{Each: PublishEach(filepath.Join(r.opts.Out, "<name>", "flow.yaml")), All: PublishAll(r.opts.Out)}
	if r.json != nil {
		r.json.file(dst, "written", fmt.Sprintf("imports %d %s", len(pub.order), report.Plural(len(pub.order), "source", "sources")))
		r.json.publish = r.published
	}
}

// Publish says how to publish the tree of --out DIR.
type Publish struct {
	Each string `json:"each"` // one task per draft (<name> is the catalog name)
	All  string `json:"all"`  // every task in one publication
}

// summary writes the closing notes to standard error.
func (r *runner) summary() {
	s := r.sum
	acts := make([]string, 0, len(s.Actions))
	for _, a := range []string{"migrate", Deferred, "review", "skip", "none"} {
		if n := s.Actions[a]; n > 0 {
			acts = append(acts, fmt.Sprintf("%d %s", n, map[string]string{"migrate": "to migrate", Deferred: fmt.Sprintf("deferred (--limit %d)", r.opts.Limit), "review": "need review", "skip": "skipped (V1)", "none": "with nothing to do"}[a]))
		}
	}
	line := fmt.Sprintf("migrate: %d %s", s.Tasks, report.Plural(s.Tasks, "materialization", "materializations"))
	if s.Disabled > 0 {
		line += fmt.Sprintf(" (%d disabled)", s.Disabled)
	}
	if len(acts) > 0 {
		line += ": " + strings.Join(acts, ", ")
	}
	switch r.opts.Mode {
	case DryRun:
		var what []string
		if s.Files > 0 || s.Rows == 0 {
			what = append(what, fmt.Sprintf("%d %s", s.Files, report.Plural(s.Files, "file", "files")))
		}
		if s.Rows > 0 {
			what = append(what, fmt.Sprintf("%d dump %s", s.Rows, report.Plural(s.Rows, "row", "rows")))
		}
		line += fmt.Sprintf("; %s to change (dry run: --write applies, --out writes elsewhere)", strings.Join(what, " and "))
	default:
		line += fmt.Sprintf("; %d written", s.Written)
	}
	if s.Refused > 0 {
		line += fmt.Sprintf("; %d refused", s.Refused)
	}
	if s.Failed > 0 {
		line += fmt.Sprintf("; %d failed", s.Failed)
	}
	if s.Interrupted != "" {
		line += fmt.Sprintf("; interrupted by %s: the group being renamed was finished, %d %s left as %s were, no temp file is left", s.Interrupted, s.Untouched, report.Plural(s.Untouched, "file", "files"), report.Plural(s.Untouched, "it", "they"))
	}
	r.note("%s", line)
	if r.opts.Mode == OutTree {
		if p := r.published; p != nil {
			r.note("publish each task: %s\nor all at once:    %s", report.Escape(p.Each), report.Escape(p.All))
		} else {
			r.note("nothing to publish: no source was written under %s", report.Escape(r.opts.Out))
		}
	}
	if r.mg.Verify {
		v := s.Verify
		if v == nil {
			v = &VerifySummary{MaxDiff: "0s"}
		}
		// Asked for by name: said even with --quiet.
		fmt.Fprintln(r.errw, v.Line())
	}
	if len(r.defers) > 0 {
		r.note("deferred to a later run (--limit %d, catalog name order):\n%s", r.opts.Limit, strings.Join(r.defers, "\n"))
		if r.moreDef > 0 {
			r.note("  ... and %d more (-o json lists them all)", r.moreDef)
		}
	}
	if len(r.reviews) > 0 {
		r.note("needs review:\n%s", strings.Join(r.reviews, "\n"))
		if r.more > 0 {
			r.note("  ... and %d more (-o json lists them all)", r.more)
		}
	}
}

// jsonReport streams the -o json document: tasks, files, summary.
type jsonReport struct {
	w       *bufio.Writer
	ntasks  int
	files   []jsonFile
	publish *Publish
}

type jsonFile struct {
	File   string `json:"file"`
	Status string `json:"status"`
	Detail string `json:"detail,omitempty"`
}

func (j *jsonReport) start() { j.w.WriteString("{\n  \"tasks\": [") }

func (j *jsonReport) task(t *Task) {
	if j.ntasks > 0 {
		j.w.WriteByte(',')
	}
	j.ntasks++
	b := marshal(t)
	j.w.WriteString("\n    ")
	j.w.Write(b)
}

func (j *jsonReport) file(path, status, detail string) {
	j.files = append(j.files, jsonFile{path, status, detail})
}

func (j *jsonReport) end(s *Summary) {
	if j.ntasks > 0 {
		j.w.WriteString("\n  ")
	}
	j.w.WriteString("],\n  \"files\": ")
	sort.SliceStable(j.files, func(a, b int) bool { return j.files[a].File < j.files[b].File })
	if j.files == nil {
		j.files = []jsonFile{}
	}
	b := marshal(j.files)
	j.w.Write(b)
	if j.publish != nil {
		j.w.WriteString(",\n  \"publish\": ")
		b = marshal(j.publish)
		j.w.Write(b)
	}
	j.w.WriteString(",\n  \"summary\": ")
	b = marshal(s)
	j.w.Write(b)
	j.w.WriteString("\n}\n")
}

// marshal is json.Marshal without HTML escaping: the report quotes shell
// commands, whose && should read as written.
func marshal(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
