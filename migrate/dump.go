package migrate

import (
	"io"
	"strconv"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/edit"
	"github.com/estuary/schedtool/catalog/livespecs"
	"github.com/estuary/schedtool/finding"
	"github.com/estuary/schedtool/plan"
)

// Row is one row of a dump, migrated.
type Row struct {
	Line    int
	Task    *Task            // nil for rows that are not materializations
	Problem *finding.Finding // a row that cannot be read
	Refused string           // why a row that migrates could not be edited
	Old     []byte           // the row as read, when it changes
	New     []byte           // the migrated row, nil when unchanged
	Spec    []byte           // the migrated row's spec, inside New
	// Edits are the byte edits of Old that make New, and PubID the
	// row's last_pub_id as read: what a saved plan keeps of the row.
	Edits []finding.TextEdit
	PubID string
	// SpecStart and SpecEnd are where the spec is in Old.
	SpecStart, SpecEnd int
}

// rowPlan decides a stored spec and builds its patches; pub is the
// expectPubId a migrated spec carries.
func (mg *Migrator) rowPlan(m *catalog.Materialization) (d plan.Decision, p patches, pub string) {
	d = mg.decide(m)
	p, why := build(d, m, mg.Registry)
	pub, pubOK := PubID(m.Row.LastPubID)
	if why == "" && d.Action == plan.Migrate {
		if m.Row.LastPubID == "" {
			why = "the row has no last_pub_id, so the migrated spec could not carry expectPubId and might overwrite a concurrent publication"
		} else if !pubOK {
			why = "the row's last_pub_id " + strconv.Quote(m.Row.LastPubID) + " is not 16 hex digits (':' or '-' separators aside), so the migrated spec could not carry a valid expectPubId"
		}
	}
	if why != "" {
		review(&d, why)
		p = patches{}
	}
	return d, p, pub
}

// Dump migrates a live_specs dump as a stream: rows are decoded and
// edited in parallel, and emit receives them in row order. A migrated
// row's spec carries expectPubId, the row's last_pub_id as 16 hex digits
// (see PubID), so that publishing it cannot overwrite a concurrent change.
func (mg *Migrator) Dump(r io.Reader, name string, opts livespecs.DumpOptions, emit func(Row)) error {
	return mg.dump(r, name, opts, nil, emit)
}

// dump is Dump planning only the rows whose name want takes (nil: all);
// a row not taken comes with no Task.
func (mg *Migrator) dump(r io.Reader, name string, opts livespecs.DumpOptions, want func(string) bool, emit func(Row)) error {
	parse := livespecs.RowParser(opts)
	return livespecs.ScanDump(r, name, opts, func(rr *livespecs.RowResult) Row {
		out := Row{Line: rr.Line, Problem: rr.Problem}
		m := rr.Mat
		if m == nil || want != nil && !want(m.Name) {
			return out
		}
		d, p, pub := mg.rowPlan(m)
		if d.Action == plan.Migrate {
			if cause, why, ok := mg.wave.defers(m.Name); ok {
				deferDecision(&d, cause, why)
				p = patches{}
			}
		}
		var ps []edit.Patch
		if d.Action == plan.Migrate {
			spec := edit.Map{{Key: "expectPubId", Value: pub}}
			if p.model != nil {
				spec = append(p.model.Changes, spec...)
			}
			ps = append(ps, edit.Patch{Target: m.Spec, Changes: spec})
			if p.config != nil {
				ps = append(ps, *p.config)
			}
		}
		if len(ps) > 0 {
			res, err := edit.Do(m.Source, ps, parse)
			if err != nil {
				out.Refused = "row cannot be edited safely: " + editMsg(err)
				review(&d, "the "+out.Refused)
			} else if len(res.Edits) > 0 {
				out.Old = append([]byte(nil), m.Source.Src...)
				out.New = res.New
				out.Edits, out.PubID = res.Edits, m.Row.LastPubID
				out.SpecStart, out.SpecEnd = m.Spec.Offset, m.Spec.End
				// Every edit is inside the spec: it grew by what the row grew.
				out.Spec = res.New[m.Spec.Offset : m.Spec.End+len(res.New)-len(m.Source.Src)]
			}
		}
		t := mg.task(m, d)
		if out.New != nil {
			t.Files = []string{name}
		}
		out.Task = &t
		return out
	}, emit)
}
