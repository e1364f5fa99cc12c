package validate

import (
	"io"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/livespecs"
	"github.com/estuary/schedtool/catalog/tree"
	"github.com/estuary/schedtool/finding"
	"github.com/estuary/schedtool/internal/shapecache"
)

// Run validates every input and hands each finding to emit, in a
// deterministic order: the findings of the catalog sources (imports and
// config files followed) sorted by file and position, then each dump's in
// row order, its rows read as a stream and checked in parallel. Nothing is
// held: a dump of any size runs in bounded memory.
func (c *Checker) Run(inputs []catalog.Input, opts catalog.Options, emit func(*finding.Finding)) (finding.Summary, error) {
	return c.RunRendered(inputs, opts, nil, func(f *finding.Finding, _ []byte) { emit(f) })
}

// RunRendered is Run that, with render set, also renders each finding of
// a dump on the goroutine that checked its row, and hands emit the
// rendered bytes (nil for the findings of catalog sources).
//
// With rendered bytes, emit's finding may carry only its severity.
func (c *Checker) RunRendered(inputs []catalog.Input, opts catalog.Options, r Renderer, emit func(*finding.Finding, []byte)) (finding.Summary, error) {
	var sum finding.Summary
	out := func(f *finding.Finding) {
		c.count(&sum, f)
		emit(f, nil)
	}
	cat := catalog.Load(inputs, opts)
	fs := append([]finding.Finding(nil), cat.Problems...)
	for _, m := range cat.Materializations {
		fs = append(fs, c.CheckIn(cat, m)...)
		if c.pacedV1(m) {
			sum.AddPaced(m.Name)
		}
	}
	finding.Sort(fs)
	for i := range fs {
		out(&fs[i])
	}
	sum.Unreadable += len(cat.Unreadable())
	sum.Tasks += cat.Names()
	sum.Definitions += len(cat.Materializations)
	files := map[string]bool{}
	for _, f := range cat.Files {
		files[f] = true
	}
	keys := c.Registry.AllConfigKeys()
	cache := shapecache.New[template]()
	err := livespecs.EachDump(inputs, func(rd io.Reader, name string) error {
		files[name] = true
		dopts := livespecs.DumpOptions{Options: opts, ConfigKeys: keys, Lean: true}
		var escFile []byte
		if r != nil {
			escFile = r.Escape(nil, name)
		}
		return livespecs.ScanDumpRaw(rd, name, dopts, func(w *livespecs.Worker, line int, row []byte) rowOut {
			o := c.dumpRow(cache, w, name, line, row, keys, opts, r, escFile)
			if r != nil && o.rendered == nil && len(o.findings) > 0 {
				buf := make([]byte, 0, 512*len(o.findings))
				o.marks = make([]mark, len(o.findings))
				for i := range o.findings {
					buf = r.Render(buf, &o.findings[i])
					o.marks[i] = mark{end: len(buf), sev: o.findings[i].Severity}
				}
				o.rendered = buf
			}
			return o
		}, func(o rowOut) {
			if o.findings == nil && o.marks != nil {
				start := 0
				for _, m := range o.marks {
					f := finding.Finding{Severity: m.sev}
					sum.Add(&f)
					emit(&f, o.rendered[start:m.end])
					start = m.end
				}
			}
			start := 0
			for i := range o.findings {
				c.count(&sum, &o.findings[i])
				if o.marks != nil {
					emit(&o.findings[i], o.rendered[start:o.marks[i].end])
					start = o.marks[i].end
				} else {
					emit(&o.findings[i], nil)
				}
			}
			if o.task {
				sum.Tasks++
				sum.Definitions++
			}
			if o.bad {
				sum.Unreadable++
			}
			if o.paced != "" {
				sum.AddPaced(o.paced)
			}
		})
	})
	sum.Files = len(files)
	return sum, err
}

type rowOut struct {
	findings []finding.Finding // nil when rendered from a template
	task     bool
	bad      bool   // the row cannot be read: an unreadable input
	paced    string // the task's name, when it is a V1 task paced by its connector
	rendered []byte // the findings rendered one after the other
	marks    []mark // where each ends in rendered, and its severity
}

type mark struct {
	end int
	sev finding.Severity
}

// dumpRow checks one row of a dump: by its shape's template when it has
// a plain shape already seen, else by reading it (see cache.go).
func (c *Checker) dumpRow(cache *shapecache.Cache[template], w *livespecs.Worker, file string, line int, row []byte, keys []string, opts catalog.Options, r Renderer, escFile []byte) rowOut {
	var shape tree.RowShape
	plain := false
	// A row over several lines of its file (pretty-printed flowctl raw
	// get output) is read: a template's positions are its line and a
	// column of the row.
	if row != nil && !c.NoCache && !w.MultiLine() {
		if shape, plain = tree.ScanRowAt(row, opts.Limits, keys, w.Scratch, w.Ints); plain {
			shape.Key = append(shape.Key, 0)
			shape.Key = append(shape.Key, shape.Model...)
			w.Scratch, w.Ints = shape.Key[:0], shape.At.Keys[:0]
			skip, byShape := livespecs.PlainTask(&shape, opts.Select)
			if skip {
				return rowOut{}
			}
			plain = byShape
		}
		if plain {
			// The worker's own map first: no lock, no shared cache lines.
			local, _ := w.Memo.(map[string]*template)
			if local == nil {
				local = map[string]*template{}
				w.Memo = local
			}
			t := local[string(shape.Key)]
			if t == nil {
				if t = cache.Get(shape.Key); t != nil && len(local) < shapecache.Max {
					local[string(shape.Key)] = t
				}
			}
			if t != nil && !t.bad {
				o := rowOut{task: true}
				if t.paced {
					o.paced = string(shape.Name)
				}
				if len(t.findings) == 0 {
					return o
				}
				if t.pre && t.render(&o, r, string(shape.Name), escFile, line, row, &shape.At) {
					return o
				}
				o = rowOut{task: true, paced: o.paced}
				o.findings = t.fill(string(shape.Name), file, line, row, &shape.At)
				return o
			}
		}
	}
	var o rowOut
	rr := w.Read(line, row)
	if rr.Problem != nil {
		o.findings = append(o.findings, *rr.Problem)
		o.bad = true
	}
	if rr.Mat != nil {
		o.task = true
		o.findings = append(o.findings, c.Check(rr.Mat)...)
		if c.pacedV1(rr.Mat) {
			o.paced = rr.Mat.Name
		}
	}
	finding.Sort(o.findings) // a row's findings: by position
	if plain && rr.Problem == nil && rr.Mat != nil && cache.Get(shape.Key) == nil {
		t := c.makeTemplate(rr.Mat, &shape, file, line, row, o.findings, r, escFile)
		t.paced = o.paced != ""
		cache.Put(shape.Key, t)
	}
	return o
}

// Collect runs and returns the findings as a list.
func (c *Checker) Collect(inputs []catalog.Input, opts catalog.Options) ([]finding.Finding, finding.Summary, error) {
	var fs []finding.Finding
	sum, err := c.Run(inputs, opts, func(f *finding.Finding) { fs = append(fs, *f) })
	return fs, sum, err
}

// count adds a finding to the summary, or to its excepted findings when
// the project file excepts it (Except).
func (c *Checker) count(sum *finding.Summary, f *finding.Finding) {
	if c.Except != nil && c.Except(f) {
		sum.Excepted++
		return
	}
	sum.Add(f)
}
