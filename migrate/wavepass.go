// The first pass of a run under --limit: which tasks would migrate,
// so that the wave can take the first N of them.

package migrate

import (
	"io"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/livespecs"
)

// wave picks the tasks of this run under --limit: a first pass over the
// inputs finds the tasks that would migrate.
func (r *runner) wave(inputs []catalog.Input, cat *catalog.Catalog) error {
	var cands []candidate
	if cat != nil {
		cands = r.mg.catalogCandidates(cat)
	}
	dopts := livespecs.DumpOptions{Options: r.opts.Load}
	err := livespecs.EachDump(inputs, func(rd io.Reader, name string) error {
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
	dopts := livespecs.DumpOptions{Options: r.opts.Load}
	err := livespecs.EachDump(inputs, func(rd io.Reader, name string) error {
		return r.mg.dumpCandidates(rd, name, dopts, func(n string) { names = append(names, n) })
	})
	return names, err
}
