// --out DIR for a saved plan (schedtool apply --out DIR): the tree a run
// with --out DIR writes, from changed files decided before.

package migrate

import (
	"bufio"
	"io"

	"github.com/estuary/schedtool/catalog"
)

// WriteTree writes the tree of --out DIR (opts.Out) over the catalog
// inputs as a run with --out DIR writes it, with changed as the files the
// migration changes (a saved plan's, their New already made): every file
// the catalog reads at its place, the changed ones in their groups and
// order, then every other file of the tree, copied. It loads the catalog
// to find the tree, and decides nothing. It returns the files written
// (changed ones, as the listing names them) and the run's counts.
func WriteTree(inputs []catalog.Input, opts RunOptions, changed []*File, errw io.Writer) (*Summary, []string, error) {
	r := &runner{mg: &Migrator{}, opts: opts, out: bufio.NewWriter(io.Discard), errw: errw, sum: &Summary{Actions: map[string]int{}}}
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
