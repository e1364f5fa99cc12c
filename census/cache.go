package census

import (
	"sync"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/livespecs"
	"github.com/estuary/schedtool/catalog/tree"
	"github.com/estuary/schedtool/finding"
	"github.com/estuary/schedtool/internal/shapecache"
)

// A dump repeats a few shapes of schedule over and over. A census row
// depends only on the image, the runtime flag, the model schedule (whether
// it is there and works), the endpoint kind and the config's schedule keys, so a row
// whose bytes tree.ScanRow can read plainly is looked up by those bytes
// (its shape) and decided once per shape; the rest are read and decided
// one by one. Rows are counted by shape, and a shape's JSON is rendered
// once.

// verdict is a decided row without its task's name and place; has is
// false for a shape that is not on a scheduling image.
type verdict struct {
	row    Row
	has    bool
	once   sync.Once
	shared []byte // the row rendered without task, file and line
}

// dumpRow decides one row of a dump: by its shape when it has a plain
// one, else by reading it.
func (c *Census) dumpRow(cache *shapecache.Cache[verdict], w *livespecs.Worker, file string, line int, b []byte, keys []string, opts catalog.Options) (r Row, has bool, v *verdict, problem *finding.Finding) {
	var shape tree.RowShape
	plain := false
	// A row over several lines of its file (pretty-printed flowctl raw
	// get output) has its task at its spec's line, not the row's: its
	// scan says where the spec is.
	multi := w.MultiLine()
	if b != nil && !c.NoCache {
		if multi {
			shape, plain = tree.ScanRowAt(b, opts.Limits, keys, w.Scratch, w.Ints)
			w.Ints = shape.At.Keys[:0]
			plain = plain && shape.At.Spec >= 0
		} else {
			shape, plain = tree.ScanRow(b, opts.Limits, keys, w.Scratch)
		}
		if plain {
			// Whether the model schedule works decides the status
			// (docs/behaviour.md §8): its bytes are part of the shape.
			shape.Key = append(shape.Key, 0)
			shape.Key = append(shape.Key, shape.Model...)
			w.Scratch = shape.Key[:0]
			skip, byShape := livespecs.PlainTask(&shape, opts.Select)
			if skip {
				return Row{}, false, nil, nil
			}
			plain = byShape
		}
		var vd *verdict
		if plain {
			vd = cache.Get(shape.Key)
		}
		if vd != nil {
			if !vd.has {
				return Row{}, false, nil, nil
			}
			r = vd.row
			r.Task, r.File, r.Line = string(shape.Name), file, line
			if multi {
				r.Line += w.LineIn(shape.At.Spec)
			}
			return r, true, vd, nil
		}
	}
	res := w.Read(line, b)
	if res.Mat == nil || res.Problem != nil {
		return Row{}, false, nil, res.Problem
	}
	r, has = c.RowOf(res.Mat)
	if plain {
		vd := &verdict{row: r, has: has}
		vd.row.Task, vd.row.File, vd.row.Line = "", "", 0
		if v = cache.Put(shape.Key, vd); !has {
			v = nil
		}
	}
	return r, has, v, nil
}
