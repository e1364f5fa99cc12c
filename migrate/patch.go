// Package migrate moves connector schedules into the runtime (docs/behaviour.md
// §7): for each materialization the plan's decision becomes
// patches of the documents it lives in, which the edit package turns
// into byte-range edits that change nothing else. Catalog files are
// edited as a whole; live_specs dumps are migrated as a stream.
package migrate

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/edit"
	"github.com/estuary/schedtool/catalog/tree"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/schedule/connector"
	"github.com/estuary/schedtool/schedule/model"
)

// ModelMap is a model schedule as the patch value written: canonical
// durations, clocks quoted, days Sunday first (as the plan built it).
func ModelMap(s *model.Spec) edit.Map {
	m := edit.Map{{Key: "baseInterval", Value: s.BaseInterval}}
	if s.Timezone != "" {
		m = append(m, edit.KV{Key: "timezone", Value: s.Timezone})
	}
	if len(s.Windows) > 0 {
		ws := make([]any, len(s.Windows))
		for i, w := range s.Windows {
			x := edit.Map{{Key: "interval", Value: w.Interval}, {Key: "start", Value: edit.Quoted(w.Start)}, {Key: "end", Value: edit.Quoted(w.End)}}
			if len(w.Days) > 0 {
				days := make([]any, len(w.Days))
				for j, d := range w.Days {
					days[j] = d
				}
				x = append(x, edit.KV{Key: "days", Value: days})
			}
			ws[i] = x
		}
		m = append(m, edit.KV{Key: "windows", Value: ws})
	}
	return m
}

// zeroFrequency is the syncFrequency of the sanctioned off state of the
// syncSchedule family, {syncFrequency: "0s"}.
const zeroFrequency = "0s"

// zeroValue is the connector schedule value that build writes to turn the
// connector's pacing off, the only one it writes; why is set, and no value
// returned, when the control plane would refuse to publish that value
// where it goes (docs/behaviour.md §4.1): an off-enum value in a
// plaintext config, such as a file sink's "0s". Every value migrate
// writes into a connector config passes through here.
func zeroValue(reg *connector.Registry, e *connector.Entry, m *catalog.Materialization) (v any, why string) {
	fam := reg.Family(e.Family)
	var text string
	switch {
	case e.Family == connector.FamilySyncSchedule:
		text, v = zeroFrequency, edit.Replace{Value: edit.Map{{Key: "syncFrequency", Value: edit.Quoted(zeroFrequency)}}}
	case fam.Zero != "":
		text = fam.Zero
	default:
		text = "0s"
	}
	if v == nil {
		v = edit.Quoted(text)
	}
	tag := m.Tag()
	if !reg.Publishable(e, tag, m.Where(), text) {
		return nil, fmt.Sprintf("%s %q, which would turn the connector's pacing off, is not in the values this image's schema publishes (%s), and the config is plaintext (no sops stanza): Flow checks it against that schema before publishing, so flowctl and the dashboard would refuse it. Seal the config with sops (migrate then writes the value into sops.overlay), or use an image tag with the boilerplate deferral",
			connector.PointerPath(fam.Pointer)+zeroLeaf(e), text, strings.Join(reg.EnumFor(e, tag), ", "))
	}
	return v, ""
}

// zeroLeaf is the key under the family's pointer that zeroValue sets.
func zeroLeaf(e *connector.Entry) string {
	if e.Family == connector.FamilySyncSchedule {
		return ".syncFrequency"
	}
	return ""
}

// scheduleLeaves are the keys of the connector's syncSchedule object.
var scheduleLeaves = []string{"syncFrequency", "timezone", "fastSyncStartTime", "fastSyncStopTime", "fastSyncEnabledDays"}

// patches are the changes of one materialization.
type patches struct {
	model  *edit.Patch // on the materialization (its source document)
	config *edit.Patch // on the config (inline, its file, or the sops stanza)
}

// list is the patches there are.
func (p patches) list() []*edit.Patch {
	var out []*edit.Patch
	for _, x := range []*edit.Patch{p.model, p.config} {
		if x != nil {
			out = append(out, x)
		}
	}
	return out
}

// build turns a decision into patches; reason is set when the decision
// cannot be carried out in these documents.
func build(d plan.Decision, m *catalog.Materialization, reg *connector.Registry) (p patches, reason string) {
	if d.Action != plan.Migrate {
		return p, ""
	}
	var spec edit.Map
	if d.EnableRuntimeV2 {
		// The runtime flag and the schedule in one change: a V1 task
		// cannot take a model schedule, a V2 one needs it.
		spec = append(spec, edit.KV{Key: "shards", Value: edit.Map{{Key: "flags", Value: edit.Map{{Key: "enable-runtime-v2", Value: edit.Quoted("true")}}}}, Before: "endpoint"})
	}
	if d.Model != nil {
		spec = append(spec, edit.KV{Key: "syncSchedule", Value: edit.Replace{Value: ModelMap(d.Model)}, Before: "endpoint"})
	}
	if len(spec) > 0 {
		p.model = &edit.Patch{Target: m.Spec, Changes: spec}
	}
	if !d.ZeroConnector && !d.RemoveUpdateDelay {
		return p, ""
	}
	fam := reg.Family(d.Entry.Family)
	toks := connector.PointerTokens(fam.Pointer)
	zero, why := zeroValue(reg, d.Entry, m)
	if why != "" && d.ZeroConnector {
		return patches{}, why
	}
	c := m.Config
	if c == nil {
		// No config at all: the connector runs on its default.
		conn := m.Spec.Path("endpoint", "connector")
		if conn == nil || conn.Kind != tree.Object {
			return p, "the materialization has no endpoint.connector object to write the connector schedule into"
		}
		changes := edit.Map{{Key: "config", Value: atPointer(toks, zero)}}
		p.config = &edit.Patch{Target: conn, Changes: changes}
		return p, ""
	}
	if c.Node == nil || c.Node.Kind != tree.Object {
		return p, "the connector config cannot be read, so it cannot be edited"
	}
	if !c.Sealed {
		var changes edit.Map
		if d.ZeroConnector {
			changes = append(changes, atPointer(toks, zero)...)
		}
		if d.RemoveUpdateDelay {
			changes = append(changes, edit.KV{Key: "advanced", Value: edit.Map{{Key: "updateDelay", Value: edit.Remove}}})
		}
		p.config = &edit.Patch{Target: c.Node, Changes: changes}
		return p, ""
	}
	// Sealed: never touch a value; write into sops.overlay instead.
	if d.RemoveUpdateDelay {
		return p, "the config is sealed (sops) and advanced.updateDelay is not a schedule leaf sops.overlay may set; remove it by re-encrypting the config"
	}
	var overlay edit.Map
	if d.Entry.Family == connector.FamilySyncSchedule {
		inner := edit.Map{{Key: "syncFrequency", Value: edit.Quoted(zeroFrequency)}}
		present := map[string]bool{}
		if base := baseSchedule(c); base != nil && base.Kind == tree.Object {
			for _, f := range base.Fields {
				present[strings.TrimSuffix(f.Key, c.Suffix)] = true
			}
		}
		if ov := c.Overlay.Path(toks...); ov != nil && ov.Kind == tree.Object {
			for _, f := range ov.Fields {
				present[f.Key] = true
			}
		}
		for _, leaf := range scheduleLeaves[1:] {
			if present[leaf] {
				inner = append(inner, edit.KV{Key: leaf, Value: nil})
			}
		}
		overlay = atPointer(toks, inner)
	} else {
		overlay = atPointer(toks, zero)
	}
	p.config = &edit.Patch{Target: c.Sops, Changes: edit.Map{{Key: "overlay", Value: overlay}}}
	return p, ""
}

// atPointer nests a value under a family's pointer tokens: /advanced/x
// is {advanced: {x: v}}, merged into what is there, never a flat key
// "advanced/x".
func atPointer(toks []string, v any) edit.Map {
	m := edit.Map{{Key: toks[len(toks)-1], Value: v}}
	for i := len(toks) - 2; i >= 0; i-- {
		m = edit.Map{{Key: toks[i], Value: m}}
	}
	return m
}

// baseSchedule is the schedule object of a sealed config before its
// overlay: under the key itself or the key with the encrypted suffix.
func baseSchedule(c *catalog.Config) *tree.Node {
	if n := c.Node.Get("syncSchedule"); n != nil {
		return n
	}
	if c.Suffix != "" {
		return c.Node.Get("syncSchedule" + c.Suffix)
	}
	return nil
}

// patchKey identifies a patch's content, to tell whether the users of a
// shared config file ask for the same change.
func patchKey(p *edit.Patch) string {
	if p == nil {
		return ""
	}
	b, _ := json.Marshal(edit.Generic(p.Changes))
	return p.Target.Pointer() + " " + string(b)
}
