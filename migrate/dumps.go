// The stored-spec step of a run: each dump streamed row by row into a
// diff, a rows file (--out FILE) or a publishable tree (--out DIR).

package migrate

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/livespecs"
	"github.com/estuary/schedtool/internal/groupwrite"
	"github.com/estuary/schedtool/internal/usage"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/report"
)

// dumps migrates every dump input as a stream.
func (r *runner) dumps(inputs []catalog.Input) error {
	var outFile *groupwrite.Stream
	var pub *pubTree
	// What is written from stored specs holds their plaintext config
	// values: it is created with the narrowest mode of the dumps read.
	mode := dumpMode(inputs)
	if r.opts.Mode == OutTree {
		pub = newPubTree(r.opts.Out, mode)
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
		if outFile, err = groupwrite.CreateStream(r.opts.Out, mode, r.opts.Hooks); err != nil {
			return &usage.Error{Msg: "--out: " + err.Error()}
		}
	}
	dopts := livespecs.DumpOptions{Options: r.opts.Load}
	// A catalog name is one row of live_specs: a dump holding it twice
	// (two exports concatenated) would give two migrated rows for one
	// task. The publishable tree refuses the second when it writes; the
	// diff and the rows file refuse it here.
	// The names seen are kept as hashes and places (nameSet), so that
	// the check costs 16 bytes a row, not the name and its place.
	first := newNameSet()
	outRows := 0           // rows put in --out FILE
	var dumpNames []string // by input, for the places first gives back
	err := livespecs.EachDump(inputs, func(rd io.Reader, name string) error {
		input := len(dumpNames)
		dumpNames = append(dumpNames, name)
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
					t.Action, t.Cause, t.Reason, t.Model, t.Connector, t.Runtime, t.Files, t.Changes, t.Verify = plan.Review, plan.CauseMigrate, caseClashReason(others), nil, "", "", nil, nil, nil
					r.task(t)
					return
				}
				if !r.keepRow(name, &row) {
					r.task(row.Task)
					return
				}
				r.publish(pub, name, row)
			}
			if pub == nil && row.New != nil && row.Task != nil {
				if prev, dup := first.add(row.Task.Task, rowPlace(input, row.Line)); dup {
					in, line := unplace(prev)
					r.sum.Refused++
					fmt.Fprintf(r.errw, "schedtool: %s:%d: %s: not changed: the catalog name appears twice (first at %s:%d); a dump holds one row per task\n", report.Escape(name), row.Line, report.Escape(row.Task.Task), report.Escape(dumpNames[in]), line)
					r.task(row.Task)
					return
				}
				if !r.keepRow(name, &row) {
					r.task(row.Task)
					return
				}
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
					RowsHeader(r.out, name)
					header = true
				}
				// By field, never whole: a row holds its config's values.
				RowDiff(r.out, row.Line, row.Task.Task, row.PubID, row.Old, row.New, row.SpecStart, row.SpecEnd)
			case OutFile:
				// A write error sticks to the stream; Commit reports it.
				outFile.Write(row.New)
				outFile.Write([]byte{'\n'})
				r.sum.Written++
				outRows++
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
	return r.finishDumps(pub, outFile, outRows, err)
}

// finishDumps puts what the dumps' read staged in place (the
// publishable tree, the rows file), or removes it when the read (err)
// failed part way; it returns the read's error or the commit's.
func (r *runner) finishDumps(pub *pubTree, outFile *groupwrite.Stream, outRows int, err error) error {
	if pub != nil {
		if err != nil {
			// Nothing of a read that failed part way is put in place.
			if len(pub.staged) > 0 {
				fmt.Fprintf(r.errw, "schedtool: nothing written under %s: the %d %s staged so far %s removed, since the read failed part way\n", report.Escape(r.opts.Out), len(pub.staged), report.Plural(len(pub.staged), "source", "sources"), report.Plural(len(pub.staged), "was", "were"))
			}
			pub.abort()
		} else {
			r.commitTree(pub)
			if sig := groupwrite.Interrupted(); sig != nil {
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
		if outRows == 0 {
			// Nothing migrated: no file, which an empty one would
			// block the next --out with and census refuse as no rows.
			outFile.Abort()
			return err
		}
		if cerr := outFile.Commit(); cerr != nil {
			r.sum.Failed++
			return cerr
		}
		written.Add(1)
		r.wrote = append(r.wrote, r.opts.Out)
		if sig := groupwrite.Interrupted(); sig != nil {
			r.stopped = sig
		}
	}
	return err
}

// keepRow asks the recorder whether a migrated row is shown and written
// (a saved plan's apply keeps only the rows the plan holds as they are).
func (r *runner) keepRow(name string, row *Row) bool {
	return r.opts.Record == nil || r.opts.Record.Row(name, row)
}

// line is a task in a list of notes: name, disabled, place, reason.
func (t *Task) line() string {
	return t.where() + ": " + report.Escape(t.Reason)
}

// where is a task in a list of notes without its reason: name, disabled,
// place.
func (t *Task) where() string {
	s := report.Escape(t.Task)
	if t.Disabled {
		s += " [disabled]"
	}
	return fmt.Sprintf("%s (%s:%d)", s, report.Escape(t.File), t.Line)
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
	groupwrite.BeginCommit()
	defer groupwrite.EndCommit()
	failed := false
	pub.commit(func(dst string, err error) {
		if err != nil {
			failed = true
			r.fail(dst, err.Error())
			return
		}
		r.sum.Written++
		r.wrote = append(r.wrote, dst)
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
	r.wrote = append(r.wrote, dst)
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

// dumpMode is the mode of the files written from the dump inputs: the
// narrowest of theirs (each read and write bit for group and others that
// every dump file has), always readable and writable by its owner and
// never executable; 0600 for standard input and a database, which have no
// mode to follow.
func dumpMode(inputs []catalog.Input) fs.FileMode {
	mode := fs.FileMode(0o066)
	for _, in := range inputs {
		switch {
		case in.Dump == "":
		case in.DB != "" || in.Arg == "-":
			mode = 0
		default:
			mode &= inputMode(in.Dump) // 0600 for "-"
		}
	}
	return mode | 0o600
}
