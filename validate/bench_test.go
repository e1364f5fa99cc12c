package validate

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/estuary/schedtool/bench/gen"
	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/finding"
	"github.com/estuary/schedtool/report"
	"github.com/estuary/schedtool/schedule/connector"
)

// BenchmarkValidateDump validates a generated 20,000-row live_specs dump
// and writes the JSON report, as `schedtool validate -o json` does.
func BenchmarkValidateDump(b *testing.B) {
	var dump bytes.Buffer
	if err := gen.Write(&dump, 20000, 1); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "dump.ndjson")
	if err := os.WriteFile(path, dump.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	reg := connector.Builtin()
	opts := catalog.DefaultOptions()
	b.SetBytes(int64(dump.Len()))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// A new crash finder each run, as the command makes one: every
		// schedule shape is searched once per run.
		checker := &Checker{Registry: reg, Crashes: connector.NewCrashFinder(time.Now())}
		inputs, err := input.Resolve([]string{path}, opts)
		if err != nil {
			b.Fatal(err)
		}
		w, _ := report.New("json", io.Discard, "")
		r := w.(report.Renderer)
		sum, err := checker.RunRendered(inputs, opts, r, func(f *finding.Finding, b []byte) {
			if b != nil {
				r.Rendered(b)
			} else {
				r.Finding(f)
			}
		})
		if err != nil {
			b.Fatal(err)
		}
		if err := w.End(sum); err != nil {
			b.Fatal(err)
		}
	}
}
