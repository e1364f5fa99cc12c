package validate

import (
	"bytes"
	"io"
	"os"

	"schedtool/catalog"
	"schedtool/finding"
)

// Run validates every input: catalog sources (imports and config files
// followed) and stored-spec dumps (streamed, rows checked in parallel).
// Findings come back in a deterministic order: those of the sources sorted
// by file and position, then each dump's in row order.
func (c *Checker) Run(inputs []catalog.Input, opts catalog.Options) ([]finding.Finding, finding.Summary, error) {
	var out []finding.Finding
	var sum finding.Summary
	cat := catalog.Load(inputs, opts)
	out = append(out, cat.Problems...)
	for _, m := range cat.Materializations {
		out = append(out, c.Check(m)...)
	}
	finding.Sort(out)
	sum.Tasks += len(cat.Materializations)
	files := map[string]bool{}
	for _, f := range cat.Files {
		files[f] = true
	}
	// Dump findings are kept per row and copied out once, exactly sized:
	// growing one slice by doubling costs more than reading the rows.
	var rows [][]finding.Finding
	n := 0
	for _, in := range inputs {
		if in.Dump == "" {
			continue
		}
		var r io.Reader
		name := in.Dump
		if in.Dump == "-" {
			r, name = bytes.NewReader(in.Stdin), "<stdin>"
		} else {
			f, err := os.Open(in.Dump)
			if err != nil {
				return nil, sum, &catalog.UsageError{Msg: in.Dump + ": " + err.Error()}
			}
			defer f.Close()
			r = f
		}
		files[name] = true
		type rowOut struct {
			findings []finding.Finding
			task     bool
		}
		err := catalog.ScanDump(r, name, catalog.DumpOptions{Options: opts}, func(rr *catalog.RowResult) rowOut {
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
			if len(o.findings) > 0 {
				rows = append(rows, o.findings)
				n += len(o.findings)
			}
			if o.task {
				sum.Tasks++
			}
		})
		if err != nil {
			return nil, sum, &catalog.UsageError{Msg: name + ": " + err.Error()}
		}
	}
	all := make([]finding.Finding, len(out), len(out)+n)
	copy(all, out)
	for _, r := range rows {
		all = append(all, r...)
	}
	out = all
	sum.Files = len(files)
	for i := range out {
		sum.Add(&out[i])
	}
	return out, sum, nil
}
