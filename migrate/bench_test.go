package migrate

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	dumpgen "schedtool/bench/gen"
	"schedtool/catalog"
	"schedtool/plan"
	"schedtool/schedule/connector"
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
		inputs, err := catalog.Resolve([]string{path}, opts)
		if err != nil {
			b.Fatal(err)
		}
		sum, err := mg.Run(inputs, RunOptions{Load: opts, Mode: OutFile, Out: filepath.Join(dir, "out.ndjson"), Quiet: true}, io.Discard, io.Discard)
		if err != nil || sum.Written == 0 {
			b.Fatalf("%v %+v", err, sum)
		}
	}
}
