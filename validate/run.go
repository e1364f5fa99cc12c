package validate

import (
	"io"

	"schedtool/catalog"
	"schedtool/finding"
)

// Run validates every input and hands each finding to emit, in a
// deterministic order: the findings of the catalog sources (imports and
// config files followed) sorted by file and position, then each dump's in
// row order, its rows read as a stream and checked in parallel. Nothing is
// held: a dump of any size runs in bounded memory.
func (c *Checker) Run(inputs []catalog.Input, opts catalog.Options, emit func(*finding.Finding)) (finding.Summary, error) {
	var sum finding.Summary
	out := func(f *finding.Finding) {
		sum.Add(f)
		emit(f)
	}
	cat := catalog.Load(inputs, opts)
	fs := append([]finding.Finding(nil), cat.Problems...)
	for _, m := range cat.Materializations {
		fs = append(fs, c.Check(m)...)
	}
	finding.Sort(fs)
	for i := range fs {
		out(&fs[i])
	}
	sum.Tasks += len(cat.Materializations)
	files := map[string]bool{}
	for _, f := range cat.Files {
		files[f] = true
	}
	err := catalog.EachDump(inputs, func(r io.Reader, name string) error {
		files[name] = true
		type rowOut struct {
			findings []finding.Finding
			task     bool
		}
		return catalog.ScanDump(r, name, catalog.DumpOptions{Options: opts, ConfigKeys: c.Registry.AllConfigKeys(), Lean: true}, func(rr *catalog.RowResult) rowOut {
			var o rowOut
			if rr.Problem != nil {
				o.findings = append(o.findings, *rr.Problem)
			}
			if rr.Mat != nil {
				o.task = true
				o.findings = append(o.findings, c.Check(rr.Mat)...)
			}
			finding.Sort(o.findings) // a row's findings: by position
			return o
		}, func(o rowOut) {
			for i := range o.findings {
				out(&o.findings[i])
			}
			if o.task {
				sum.Tasks++
			}
		})
	})
	sum.Files = len(files)
	return sum, err
}

// Collect runs and returns the findings as a list.
func (c *Checker) Collect(inputs []catalog.Input, opts catalog.Options) ([]finding.Finding, finding.Summary, error) {
	var fs []finding.Finding
	sum, err := c.Run(inputs, opts, func(f *finding.Finding) { fs = append(fs, *f) })
	return fs, sum, err
}
