package tzdata

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// offsets gives a zone's UTC offsets in January and July 2026, at noon.
func offsets(loc *time.Location) [2]int {
	_, jan := time.Date(2026, 1, 15, 12, 0, 0, 0, loc).Zone()
	_, jul := time.Date(2026, 7, 15, 12, 0, 0, 0, loc).Zone()
	return [2]int{jan, jul}
}

// The spellings that work in the connectors' image load as its files do,
// whatever the host or $ZONEINFO holds (a tree whose right/UTC is Tokyo).
func TestLoadImageSpellings(t *testing.T) {
	fake := t.TempDir()
	f, err := openImage(imageZoneinfo + "Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	tokyo := imageZones()[f.off : f.off+f.size]
	os.MkdirAll(filepath.Join(fake, "right"), 0o755)
	os.WriteFile(filepath.Join(fake, "right", "UTC"), tokyo, 0o644)
	t.Setenv("ZONEINFO", fake)
	newYork, utc := [2]int{-5 * 3600, -4 * 3600}, [2]int{0, 0}
	for name, want := range map[string][2]int{
		"America/New_York":         newYork,
		"America//New_York":        newYork,
		"./America/./New_York":     newYork,
		"./UTC":                    utc,
		"right/UTC":                utc,
		"right/America/New_York":   newYork,
		"localtime":                utc, // /etc/localtime, Etc/UTC in the image
		"posixrules":               newYork,
		"US/Eastern":               newYork,      // tzdata-legacy
		"right/Atlantic/Jan_Mayen": {3600, 7200}, // a link up and across: ../Europe/Oslo
		"Factory":                  utc,
		"":                         utc,
		"UTC":                      utc,
	} {
		loc, err := LoadImage(name)
		if err != nil {
			t.Errorf("LoadImage(%q): %v", name, err)
			continue
		}
		if got := offsets(loc); got != want {
			t.Errorf("LoadImage(%q): offsets %v, want %v", name, got, want)
		}
	}
	// The zone's name is the name as given, as LoadLocation's is.
	if loc, _ := LoadImage("America//New_York"); loc.String() != "America//New_York" {
		t.Errorf("name %q", loc.String())
	}
}

// A right/ zone is read as Go reads it: its leap-second records are
// skipped and its transition times taken as they are, so New York's
// spring change falls 27 seconds late there, until the file's table ends
// (2037) and the TZ rule of its footer takes over, on time.
func TestLoadImageRightZonesAsGoReadsThem(t *testing.T) {
	posix, _ := LoadImage("America/New_York")
	right, err := LoadImage("right/America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	change := time.Date(2026, 3, 8, 7, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		at           time.Time
		posix, right int
	}{
		{change.Add(-time.Second), -5, -5},
		{change, -4, -5},
		{change.Add(26 * time.Second), -4, -5},
		{change.Add(27 * time.Second), -4, -4},
		{time.Date(2040, 3, 11, 7, 0, 0, 0, time.UTC), -4, -4},
		{time.Date(2040, 3, 11, 6, 59, 59, 0, time.UTC), -5, -5},
	} {
		_, p := tc.at.In(posix).Zone()
		_, r := tc.at.In(right).Zone()
		if p != tc.posix*3600 || r != tc.right*3600 {
			t.Errorf("%s: New York %d, right/ %d; want %dh, %dh", tc.at, p, r, tc.posix, tc.right)
		}
	}
}

// Names that just miss: refused by LoadLocation itself, or no TZif file
// at that path in the image.
func TestLoadImageNearMisses(t *testing.T) {
	for name, want := range map[string]string{
		"America/../UTC":                   "time: invalid location name",
		"../UTC":                           "time: invalid location name",
		"right/..":                         "time: invalid location name",
		"/UTC":                             "time: invalid location name",
		"/usr/share/zoneinfo/UTC":          "time: invalid location name",
		`\UTC`:                             "time: invalid location name",
		"posix/America/New_York":           "unknown time zone posix/America/New_York", // trixie's tzdata dropped posix/
		"posix/UTC":                        "unknown time zone posix/UTC",
		"america/new_york":                 "unknown time zone america/new_york",
		"Local/Zone":                       "unknown time zone Local/Zone",
		"America/New_York/":                "not a directory",
		"UTC/":                             "not a directory",
		"localtime/.":                      "not a directory",
		"America":                          "is a directory",
		"right/":                           "is a directory",
		".":                                "is a directory",
		"zone.tab":                         "malformed time zone information",
		"tzdata.zi":                        "malformed time zone information",
		"right/zone.tab":                   "unknown time zone right/zone.tab",
		"leap-seconds.list":                "malformed time zone information",
		strings.Repeat("./", 2040) + "UTC": "file name too long",
	} {
		_, err := LoadImage(name)
		if err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("LoadImage(%.40q) = %v, want %q", name, err, want)
		}
	}
	// Just under PATH_MAX still loads.
	name := strings.Repeat("./", (pathMax-len(imageZoneinfo)-1-len("UTC")-1)/2) + "UTC"
	if _, err := LoadImage(name); err != nil {
		t.Errorf("a %d-byte name: %v", len(name), err)
	}
}

// Every file and link of the two packages resolves to TZif data, but for
// the tables beside the zones; and every name of Go's own list is there.
func TestImageNamesLoad(t *testing.T) {
	notTZif := map[string]bool{"iso3166.tab": true, "leap-seconds.list": true, "leapseconds": true, "tzdata.zi": true, "zone.tab": true, "zone1970.tab": true, "zonenow.tab": true}
	names := ImageNames()
	for _, n := range names {
		if _, err := LoadImage(n); (err == nil) == notTZif[n] {
			t.Errorf("LoadImage(%q): %v", n, err)
		}
	}
	for _, n := range Names() {
		if _, err := LoadImage(n); err != nil {
			t.Errorf("Go's %q: %v", n, err)
		}
	}
	if len(names) < 1200 {
		t.Errorf("%d names", len(names))
	}
}
