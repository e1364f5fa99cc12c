package migrate

import (
	"os"
	"strings"
	"testing"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/catalog/livespecs"
	"github.com/estuary/schedtool/catalog/tree"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/schedule/connector"
)

// FuzzMigrateRow migrates one fuzzed live_specs row: no panic, and a
// migrated row is one JSON object that carries expectPubId.
func FuzzMigrateRow(f *testing.F) {
	if b, err := os.ReadFile("testdata/golden/dump/in/live_specs.ndjson"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			f.Add([]byte(line))
		}
	}
	reg := connector.Builtin()
	mg := &Migrator{Planner: &plan.Planner{Registry: reg, Options: plan.Options{ZeroFileSinks: true}}, Registry: reg}
	f.Fuzz(func(t *testing.T, b []byte) {
		opts := catalog.DefaultOptions()
		opts.Limits.MaxNodes = 20_000
		err := mg.Dump(strings.NewReader(string(b)), "d.ndjson", livespecs.DumpOptions{Options: opts, Workers: 1}, func(r Row) {
			if r.New == nil {
				return
			}
			doc, err := tree.ParseJSON("out", r.New, opts.Limits)
			if err != nil || doc.Root.Kind != tree.Object {
				t.Fatalf("migrated row is not a JSON object: %v\n%s", err, r.New)
			}
			if _, ok := doc.Root.Path("spec", "expectPubId").Str(); !ok {
				t.Fatalf("migrated row without expectPubId:\n%s", r.New)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzMigrateSource migrates one fuzzed catalog source in memory.
func FuzzMigrateSource(f *testing.F) {
	for _, p := range []string{"testdata/golden/table/in/flow.yaml", "testdata/golden/flow-style/in/flow.yaml", "testdata/golden/json/in/flow.json", "testdata/golden/crlf/in/flow.yaml"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	reg := connector.Builtin()
	f.Fuzz(func(t *testing.T, b []byte) {
		opts := catalog.DefaultOptions()
		opts.Limits = tree.Limits{MaxDepth: 50, MaxNodes: 5000}
		opts.Stdin = strings.NewReader(string(b))
		inputs, err := input.Resolve([]string{"-"}, opts)
		if err != nil || len(inputs[0].Sources) == 0 {
			return
		}
		mg := &Migrator{Planner: &plan.Planner{Registry: reg}, Registry: reg, Limits: opts.Limits}
		res := mg.Catalog(catalog.Load(inputs, opts))
		for _, file := range res.Files {
			if file.Err != "" {
				continue
			}
			if _, err := tree.Parse(file.Path, file.New, opts.Limits); err != nil {
				t.Fatalf("accepted a result that does not parse: %v\n%s", err, file.New)
			}
		}
	})
}
