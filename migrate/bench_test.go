package migrate

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	dumpgen "github.com/estuary/schedtool/bench/gen"
	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/schedule/connector"
)

// BenchmarkMigrateDump migrates a generated 20,000-row live_specs dump
// into a file, as `schedtool migrate --out FILE` does.
func BenchmarkMigrateDump(b *testing.B) {
	var dump bytes.Buffer
	if err := dumpgen.Write(&dump, 20000, 1); err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	path := filepath.Join(dir, "dump.ndjson")
	if err := os.WriteFile(path, dump.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	reg := connector.Builtin()
	opts := catalog.DefaultOptions()
	b.SetBytes(int64(dump.Len()))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		mg := &Migrator{Planner: &plan.Planner{Registry: reg}, Registry: reg}
		inputs, err := input.Resolve([]string{path}, opts)
		if err != nil {
			b.Fatal(err)
		}
		sum, err := mg.Run(inputs, RunOptions{Load: opts, Mode: OutFile, Out: filepath.Join(dir, "out.ndjson"), Quiet: true}, io.Discard, io.Discard)
		if err != nil || sum.Written == 0 {
			b.Fatalf("%v %+v", err, sum)
		}
	}
}

// BenchmarkSpecSource writes the --out DIR source of a stored spec with a
// dozen numbers (two with exponents) and a sealed-looking config.
func BenchmarkSpecSource(b *testing.B) {
	spec := []byte(`{"shards":{"flags":{"enable-runtime-v2":"true"},"minTxnDuration":"1s"},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{"host":"h.example","port":443,"retries":3,"backoff":1.5e2,"limit":-2E-3,"warehouse":"WH","credentials":{"password_sops":"ENC[AES256_GCM,data:aGVsbG8=,iv:aXY=,tag:dGFn,type:str]"},"syncSchedule":{"syncFrequency":"1h"}}}},"syncSchedule":{"baseInterval":"1h"},"bindings":[{"resource":{"table":"t","batch":1000,"weights":[1,2,3,4,5]},"source":"acmeCo/c","backfill":2},{"resource":{"table":"u"},"source":"acmeCo/d","fields":{"recommended":true}}]}`)
	b.SetBytes(int64(len(spec)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := SpecSource("acmeCo/some/materialize-snowflake", spec); err != nil {
			b.Fatal(err)
		}
	}
}
