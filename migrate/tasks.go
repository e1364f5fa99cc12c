package migrate

import (
	"io"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/livespecs"
	"github.com/estuary/schedtool/catalog/users"
)

// Replay is migrate's planning of one set of inputs, made again under
// other decisions (census's what unblocks what, docs/behaviour.md §8): a
// dry run's tasks, as Run would report them, without its diff. The
// catalog sources are loaded, and the users of their config files found
// under the root, once for every replay; the dumps are read each time.
type Replay struct {
	inputs  []catalog.Input
	load    catalog.Options
	sources []catalog.Input
	cat     *catalog.Catalog
	holders map[string][]users.Holder // every user of each config file
}

// NewReplay prepares the replays of the inputs.
func NewReplay(inputs []catalog.Input, load catalog.Options) *Replay {
	rp := &Replay{inputs: inputs, load: load}
	for _, in := range inputs {
		if len(in.Sources) > 0 {
			rp.sources = append(rp.sources, in)
		}
	}
	return rp
}

// Tasks plans the inputs with mg (its planner's options and per-name
// Options are the decisions) and hands each task to each, with the
// action and reason a dry run of migrate with those decisions gives it.
// A stored-spec row whose name want refuses is left unplanned (each row
// is planned alone, so the others' plans are the same); the catalog
// sources are always planned whole, as their tasks share config files.
// want is called from several goroutines at once.
func (rp *Replay) Tasks(mg *Migrator, want func(string) bool, each func(*Task)) error {
	if len(rp.sources) > 0 {
		if rp.cat == nil {
			// As Run loads them: every user of each config file, from the
			// whole root.
			rp.cat = catalog.Load(rp.sources, rp.load)
			rp.holders, _ = users.Users(rp.sources, rp.cat, rp.load)
		}
		mg.Holders = rp.holders
		res := mg.Catalog(rp.cat)
		for i := range res.Tasks {
			each(&res.Tasks[i])
		}
	}
	dopts := livespecs.DumpOptions{Options: rp.load}
	return livespecs.EachDump(rp.inputs, func(rd io.Reader, name string) error {
		return mg.dump(rd, name, dopts, want, func(row Row) {
			if row.Task != nil {
				each(row.Task)
			}
		})
	})
}
