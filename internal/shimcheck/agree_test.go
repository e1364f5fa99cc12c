package shimcheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	schedshim "github.com/estuary/schedtool/boilerplate"
	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/schedule/connector"
)

// schedtool and the shim agree on when the runtime paces a task: a model
// syncSchedule (what Flow's build puts in the spec's sync_schedule_json)
// on the V2 runtime (shards.flags.enable-runtime-v2, the shard template's
// estuary.dev/flag/enable-runtime-v2 label). Each case of the shim's
// decision table is written as the catalog source that builds it, read by
// schedtool (plan.StateOf, the one decision every command takes), and
// judged by both. The table's schedules are ones Flow's build accepts:
// schedtool also asks that a model schedule work, which a built spec's
// always does.
func TestRuntimePacesAgreesWithCatalog(t *testing.T) {
	for _, c := range schedshim.DecisionTable() {
		t.Run(c.Name, func(t *testing.T) {
			src := "materializations:\n  acmeCo/shim/case:\n" +
				"    endpoint: {connector: {image: ghcr.io/estuary/materialize-snowflake:v4, config: {}}}\n" +
				"    bindings: []\n"
			var sched []byte
			var label string
			if !c.NilMaterialization {
				if c.SyncScheduleJSON != nil {
					sched = []byte(*c.SyncScheduleJSON)
					// Absent, empty and blank are all no syncSchedule in a
					// source; a null one is written as null.
					if s := strings.TrimSpace(*c.SyncScheduleJSON); s != "" {
						src += "    syncSchedule: " + s + "\n"
					}
				}
				if !c.NilShardTemplate && c.Label != nil {
					label = *c.Label
					src += "    shards: {flags: {enable-runtime-v2: \"" + label + "\"}}\n"
				}
			}
			state := plan.StateOf(load(t, src), connector.Builtin())
			schedtool := state.RuntimePaces()
			if shim := schedshim.RuntimePaces(sched, label); schedtool != shim || shim != c.RuntimePaces {
				t.Errorf("schedtool says the runtime paces: %v; the shim: %v; the table: %v\n%s", schedtool, shim, c.RuntimePaces, src)
			}
		})
	}
}

// load reads one catalog source holding one materialization.
func load(t *testing.T, src string) *catalog.Materialization {
	t.Helper()
	p := filepath.Join(t.TempDir(), "flow.yaml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := input.Resolve([]string{p}, catalog.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	cat := catalog.Load(in, catalog.DefaultOptions())
	if len(cat.Materializations) != 1 || len(cat.Problems) > 0 {
		t.Fatalf("%s: %d materializations, problems %+v", src, len(cat.Materializations), cat.Problems)
	}
	return cat.Materializations[0]
}
