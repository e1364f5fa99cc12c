// The catalog step of a run: the edits planned over the loaded catalog,
// each file diffed (dry run) or written with its group, all or nothing.

package migrate

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/internal/groupwrite"
	"github.com/estuary/schedtool/internal/paths"
	"github.com/estuary/schedtool/report"
)

func (r *runner) catalog(inputs []catalog.Input, cat *catalog.Catalog) error {
	for _, p := range cat.Unreadable() {
		r.problem(*p)
	}
	res := r.mg.Catalog(cat)
	for i := range res.Tasks {
		r.task(&res.Tasks[i])
	}
	var changed []*File
	for _, f := range res.Files {
		if f.Err != "" {
			r.sum.Refused++
			fmt.Fprintf(r.errw, "schedtool: %s: not changed: %s\n", report.Escape(paths.Display(f.Path)), report.Escape(f.Err))
			if r.json != nil {
				r.json.file(f.Path, "refused", f.Err)
			}
			if r.opts.Record != nil {
				r.opts.Record.Group([]*File{f}, f.Err)
			}
			continue
		}
		changed = append(changed, f)
	}
	if r.opts.Record != nil {
		// The recorder sees every group, and keeps those it answers
		// true to (a saved plan's apply: those the plan holds as they
		// are now).
		keep := map[*File]bool{}
		for _, g := range groups(changed) {
			for _, f := range g.files {
				if f.Path == "<stdin>" && g.err == "" {
					g.err = stdinInPlace
				}
			}
			if r.opts.Record.Group(g.files, g.err) {
				for _, f := range g.files {
					keep[f] = true
				}
			}
		}
		kept := changed[:0:0]
		for _, f := range changed {
			if keep[f] {
				kept = append(kept, f)
			}
		}
		changed = kept
	}
	for _, f := range changed {
		r.sum.Files++
		if r.opts.Mode == DryRun {
			if r.json == nil {
				diff := Diff
				if r.opts.Review {
					diff = ReviewDiff
				}
				if err := diff(r.out, f.Path, f.Old, f.Edits, 3); err != nil {
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
		r.uncommitted(changed)
		for _, g := range groups(changed) {
			puts := make([]*Put, len(g.files))
			for i, f := range g.files {
				puts[i] = &Put{Path: f.Path, Old: f.Old, Data: f.New, Within: roots}
				if f.Path == "<stdin>" && g.err == "" {
					g.err = stdinInPlace
				}
			}
			r.writeGroup(g, puts)
		}
	case OutDir:
		return r.outDir(cat, changed)
	}
	return nil
}

// stdinInPlace is why a group reading standard input is not written.
const stdinInPlace = "standard input cannot be written in place; use --out DIR or a dry run"

// staleTemps names the temp files beside the files to write that a run
// killed outright (SIGKILL, a crash) left: nothing uses them, and
// schedtool does not remove what another run might still be writing.
func (r *runner) staleTemps(files []*File) {
	for _, f := range files {
		real, err := filepath.EvalSymlinks(f.Path)
		if err != nil {
			continue
		}
		for _, t := range groupwrite.TempsBeside(real) {
			r.note("schedtool: %s: a temp file left by a schedtool run that was killed; nothing uses it, remove it once no other run is writing", report.Escape(t))
		}
	}
}

// uncommitted says, before anything is written, which of the files to
// write hold changes git has not committed (an earlier wave's, written
// and not yet committed): this run's changes join them, so that one git
// diff, and one commit, would hold both waves.
func (r *runner) uncommitted(files []*File) {
	var paths []string
	for _, f := range files {
		if f.Path != "<stdin>" {
			paths = append(paths, f.Path)
		}
	}
	if dirty := input.Uncommitted(paths); len(dirty) > 0 {
		names := make([]string, len(dirty))
		for i, p := range dirty {
			names[i] = report.Escape(p)
		}
		r.note("schedtool: --write: %s %s changes git has not committed (an earlier wave's?): this run's changes join them, so one git diff would show both; commit each wave before the next (git commit -am 'schedtool: wave N')",
			strings.Join(names, ", "), report.Plural(len(dirty), "holds", "hold"))
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
	if err := groupwrite.WriteGroup(puts, r.opts.Hooks); err != nil {
		ge, _ := err.(*groupwrite.GroupError)
		if ge == nil {
			ge = &groupwrite.GroupError{Path: puts[0].Path, Err: err}
		}
		r.notWritten(puts, ge.Path, ge.Error())
	} else {
		for i, p := range puts {
			written.Add(1)
			if len(g.files[i].Tasks) > 0 { // a changed file, not a copy (--out)
				r.sum.Written++
				r.wrote = append(r.wrote, p.Path)
				if r.json != nil {
					r.json.file(p.Path, "written", "")
				}
			}
		}
	}
	if sig := groupwrite.Interrupted(); sig != nil {
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
			r.fail(p.Path, fmt.Sprintf("written together with %s, which failed: %s", paths.Display(at), msg))
		}
	}
}

func (r *runner) fail(path, msg string) {
	r.sum.Failed++
	fmt.Fprintf(r.errw, "schedtool: %s: not written: %s\n", report.Escape(paths.Display(path)), report.Escape(msg))
	if r.json != nil {
		r.json.file(path, "failed", msg)
	}
}
