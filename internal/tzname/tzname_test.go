package tzname

import (
	"archive/zip"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"testing"
	"time"
	_ "time/tzdata"
)

func TestZonesLoad(t *testing.T) {
	for _, z := range zones() {
		if _, err := time.LoadLocation(z); err != nil {
			t.Errorf("%s: %v", z, err)
		}
	}
}

// The names are the Go release's list (schedule/tzdata embeds a copy of
// $GOROOT/lib/time/zoneinfo.zip).
func TestZonesAreGos(t *testing.T) {
	z, err := zip.OpenReader(filepath.Join(runtime.GOROOT(), "lib", "time", "zoneinfo.zip"))
	if err != nil {
		if os.IsNotExist(err) {
			t.Skip("no zoneinfo.zip in GOROOT")
		}
		t.Fatal(err)
	}
	defer z.Close()
	var names []string
	for _, f := range z.File {
		names = append(names, f.Name)
	}
	sort.Strings(names)
	if !reflect.DeepEqual(names, zones()) {
		t.Errorf("the zone names differ from Go's zoneinfo.zip (%d names, zip %d)", len(zones()), len(names))
	}
}

func TestHint(t *testing.T) {
	for tz, want := range map[string]string{
		"America/New_Yrok":  " (closest: America/New_York)",
		"europe/paris":      " (closest: Europe/Paris)",
		"Mars/Olympus_Mons": "",
		"+5:30":             "",
		"UTC":               "", // a zone, though one edit from UCT
		"UTX":               " (closest: UTC)",
	} {
		if got := Hint(tz); got != want {
			t.Errorf("Hint(%q) = %q, want %q", tz, got, want)
		}
	}
}
