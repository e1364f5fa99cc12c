package savedplan

import (
	"testing"
)

// FuzzParse: any bytes as a plan are read or refused with an error, never
// a panic.
func FuzzParse(f *testing.F) {
	f.Add(testPlan(f))
	f.Add([]byte(`{"format": "schedtool-plan", "version": 2, "schedtool": "x",` + "\n" + `  "digest": "sha256:0000000000000000000000000000000000000000000000000000000000000000"` + "\n}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		Parse("p", b, "v1.2.0")
	})
}
