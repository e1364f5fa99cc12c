package boilerplate

import (
	"os/exec"
	"strings"
	"testing"
)

func labels(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestDecide(t *testing.T) {
	v2 := labels(map[string]string{V2Label: "true"})
	for _, tc := range []struct {
		name  string
		spec  Spec
		paces bool
	}{
		{"no spec", Spec{}, false},
		{"empty bytes", Spec{SyncScheduleJSON: []byte{}, LabelValue: v2}, false},
		{"null", Spec{SyncScheduleJSON: []byte(" null "), LabelValue: v2}, false},
		{"{}", Spec{SyncScheduleJSON: []byte(`{}`), LabelValue: v2}, true},
		{"a real schedule", Spec{SyncScheduleJSON: []byte(`{"baseInterval":"4h"}`), LabelValue: v2}, true},
		{"V1: label absent", Spec{SyncScheduleJSON: []byte(`{"baseInterval":"4h"}`), LabelValue: labels(nil)}, false},
		{"V1: TRUE", Spec{SyncScheduleJSON: []byte(`{"baseInterval":"4h"}`), LabelValue: labels(map[string]string{V2Label: "TRUE"})}, false},
		{"V1: no label func", Spec{SyncScheduleJSON: []byte(`{"baseInterval":"4h"}`)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Decide(tc.spec)
			if d.RuntimePaces != tc.paces || d.Reason == "" {
				t.Fatalf("Decide = %+v, want paces=%v", d, tc.paces)
			}
			if got, _ := UploadInterval(tc.spec, "15m"); (got == "0s") != tc.paces || (!tc.paces && got != "15m") {
				t.Errorf("UploadInterval = %q", got)
			}
			if got, _ := UploadIntervalISO(tc.spec, "PT15M"); (got == "PT0S") != tc.paces || (!tc.paces && got != "PT15M") {
				t.Errorf("UploadIntervalISO = %q", got)
			}
		})
	}
}

// The package imports the standard library only: every connector image
// imports it, and its module requires nothing.
func TestStandardLibraryOnly(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if pkg != "github.com/estuary/schedtool/boilerplate" {
			t.Errorf("boilerplate depends on %s", pkg)
		}
	}
}
