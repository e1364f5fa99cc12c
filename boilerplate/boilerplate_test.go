package boilerplate

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/estuary/schedtool/schedule/connector"
)

func labels(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestDecide(t *testing.T) {
	v2 := labels(map[string]string{V2Label: "true"})
	cfg := connector.SyncScheduleSpec{SyncFrequency: "1h", Timezone: "UTC", FastSyncStartTime: "09:00", FastSyncStopTime: "17:00"}
	for _, tc := range []struct {
		name  string
		spec  Spec
		paces bool
	}{
		{"no spec", Spec{}, false},
		{"empty bytes", Spec{SyncScheduleJSON: []byte{}, LabelValue: v2}, false},
		{"null", Spec{SyncScheduleJSON: []byte(" null "), LabelValue: v2}, false},
		{"{}", Spec{SyncScheduleJSON: []byte(`{}`), LabelValue: v2}, true},
		{"a zero baseInterval", Spec{SyncScheduleJSON: []byte(`{"baseInterval":"0s"}`), LabelValue: v2}, true},
		{"a real schedule", Spec{SyncScheduleJSON: []byte(`{"baseInterval":"4h","timezone":"UTC","windows":[{"interval":"15m","start":"09:00","end":"17:00"}]}`), LabelValue: v2}, true},
		{"V1: label absent", Spec{SyncScheduleJSON: []byte(`{"baseInterval":"4h"}`), LabelValue: labels(nil)}, false},
		{"V1: TRUE", Spec{SyncScheduleJSON: []byte(`{"baseInterval":"4h"}`), LabelValue: labels(map[string]string{V2Label: "TRUE"})}, false},
		{"V1: no label func", Spec{SyncScheduleJSON: []byte(`{"baseInterval":"4h"}`)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Decide(tc.spec)
			if d.RuntimePaces != tc.paces || d.Reason == "" {
				t.Fatalf("Decide = %+v, want paces=%v", d, tc.paces)
			}
			// Each family: off when paced, unchanged (configured or the
			// default) otherwise.
			for _, configured := range []connector.SyncScheduleSpec{cfg, {}} {
				got, _ := SyncSchedule(tc.spec, configured)
				want := configured
				if tc.paces {
					want = connector.SyncScheduleSpec{SyncFrequency: "0s"}
				}
				if got != want {
					t.Errorf("SyncSchedule(%+v) = %+v, want %+v", configured, got, want)
				}
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

// The package and everything it imports are the standard library and this
// module: every connector image imports it.
func TestStandardLibraryOnly(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if !strings.HasPrefix(pkg, "github.com/estuary/schedtool/") {
			t.Errorf("boilerplate depends on %s", pkg)
		}
	}
}
