package validate

import (
	"os"
	"strings"
	"testing"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/catalog/livespecs"
	"github.com/estuary/schedtool/schedule/connector"
)

// FuzzCatalogSource loads a catalog source (as standard input) and runs
// every rule over it: no input may panic.
func FuzzCatalogSource(f *testing.F) {
	for _, p := range []string{"../fixtures/catalog/acmeCo/warehouse/flow.yaml", "../fixtures/catalog/acmeCo/lake/flow.yaml", "../fixtures/catalog/estuary/flow.yaml"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(mat(`"true"`, `{baseInterval: 1h, timezone: UTC, windows: [{interval: 1m, start: "22:00", end: "06:00"}]}`, sf, `{syncSchedule: {syncFrequency: 0s}, sops: {overlay: {syncSchedule: {syncFrequency: 1h}}}}`)))
	f.Add([]byte(`{"materializations":{"a/b":{"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-s3-iceberg","config":{"upload_interval":"PT1H"}}}}}}`))
	checker := &Checker{Registry: connector.Builtin()}
	f.Fuzz(func(t *testing.T, b []byte) {
		opts := catalog.DefaultOptions()
		opts.Limits.MaxNodes = 20_000
		opts.Stdin = strings.NewReader(string(b))
		inputs, err := input.Resolve([]string{"-"}, opts)
		if err != nil {
			return
		}
		fs, sum, err := checker.Collect(inputs, opts)
		if err != nil {
			return
		}
		if sum.Errors+sum.Warnings+sum.Infos != len(fs) {
			t.Fatalf("summary %+v for %d findings", sum, len(fs))
		}
		for _, x := range fs {
			if x.Rule == "" || x.Message == "" || x.Pos.File == "" {
				t.Fatalf("incomplete finding %+v", x)
			}
		}
	})
}

// FuzzDumpRow reads one live_specs row and runs every rule over it.
func FuzzDumpRow(f *testing.F) {
	if b, err := os.ReadFile("../fixtures/live_specs.ndjson"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			f.Add([]byte(line))
		}
	}
	checker := &Checker{Registry: connector.Builtin()}
	f.Fuzz(func(t *testing.T, b []byte) {
		opts := catalog.DefaultOptions()
		opts.Limits.MaxNodes = 20_000
		err := livespecs.ScanDump(strings.NewReader(string(b)), "d.ndjson", livespecs.DumpOptions{Options: opts, Workers: 1},
			func(rr *livespecs.RowResult) int {
				if rr.Mat != nil {
					checker.Check(rr.Mat)
				}
				if rr.Problem != nil && rr.Problem.Pos.Line < 1 {
					t.Fatalf("problem without a line: %+v", rr.Problem)
				}
				return 0
			}, func(int) {})
		if err != nil {
			t.Fatal(err)
		}
	})
}
