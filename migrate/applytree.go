// --out DIR for a saved plan (schedtool apply --out DIR): the tree a run
// with --out DIR writes, from changed files decided before.

package migrate

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/internal/groupwrite"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/report"
)

// WriteTree writes the tree of --out DIR (opts.Out) over the catalog
// inputs as a run with --out DIR writes it, with changed as the files the
// migration changes (a saved plan's, their New already made): every file
// the catalog reads at its place, the changed ones in their groups and
// order, then every other file of the tree, copied. It loads the catalog
// to find the tree, and decides nothing. It returns the files written
// (changed ones, as the listing names them) and the run's counts.
func WriteTree(inputs []catalog.Input, opts RunOptions, changed []*File, errw io.Writer) (*Summary, []string, error) {
	r := &runner{mg: &Migrator{}, opts: opts, out: bufio.NewWriter(io.Discard), errw: errw, sum: &Summary{Actions: map[plan.Action]int{}}}
	var sources []catalog.Input
	for _, in := range inputs {
		if len(in.Sources) > 0 {
			sources = append(sources, in)
		}
	}
	cat := catalog.Load(sources, opts.Load)
	var err error
	if r.outPlan, err = outPaths(opts.Out, sources, cat, opts.Load); err != nil {
		return r.sum, nil, err
	}
	if err := r.outDir(cat, changed); err != nil {
		return r.sum, r.wrote, err
	}
	if r.stopped != nil {
		r.sum.Interrupted = SignalName(r.stopped)
	}
	return r.sum, r.wrote, nil
}

// DumpFileMode is the mode of what is written from the dump files named
// (the rows file, the publishable tree): the narrowest of theirs, owner
// read-write, as a run over them gives it.
func DumpFileMode(names []string) fs.FileMode {
	ins := make([]catalog.Input, len(names))
	for i, n := range names {
		ins[i] = catalog.Input{Arg: n, Dump: n}
	}
	return dumpMode(ins)
}

// PubRow is a migrated stored spec of a saved plan, for WriteRowsTree.
type PubRow struct {
	Dump string // the dump it came from, and its line there
	Line int
	Task string
	Spec []byte // the migrated spec, expectPubId in it
}

// WriteRowsTree writes the publishable tree of --out DIR (opts.Out) from
// migrated stored specs decided before (a saved plan's), as a run over
// the dumps with --out DIR writes it: one source per task at
// DIR/<name>/flow.yaml and DIR/flow.yaml importing them, all put in
// place together; names that differ only in case are refused. It returns
// the run's counts, the files written and how to publish them (nil when
// nothing was written).
func WriteRowsTree(rows []PubRow, mode fs.FileMode, opts RunOptions, errw io.Writer) (*Summary, []string, *Publish) {
	r := &runner{mg: &Migrator{}, opts: opts, out: bufio.NewWriter(io.Discard), errw: errw, sum: &Summary{Actions: map[plan.Action]int{}}}
	pub := newPubTree(opts.Out, mode)
	pub.force = opts.Force
	names := make([]string, len(rows))
	for i, row := range rows {
		names[i] = row.Task
	}
	pub.clash = CaseClashes(names)
	for _, row := range rows {
		if others := pub.clash[row.Task]; others != nil {
			r.sum.Refused++
			fmt.Fprintf(errw, "schedtool: %s:%d: %s: not written: %s\n", report.Escape(row.Dump), row.Line, report.Escape(row.Task), report.Escape(caseClashReason(others)))
			continue
		}
		r.publish(pub, row.Dump, Row{Line: row.Line, Task: &Task{Task: row.Task}, Spec: row.Spec})
	}
	r.commitTree(pub)
	if sig := groupwrite.Interrupted(); sig != nil {
		r.sum.Interrupted = SignalName(sig)
	}
	return r.sum, r.wrote, r.published
}
