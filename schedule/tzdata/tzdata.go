// Package tzdata is the time zone data the schedules are evaluated with
// (docs/behaviour.md §3, §4.2), embedded, and the only source of zones:
// for Flow's timezones a copy of the IANA data Go ships (Load, Names), for
// the connectors' the files of their image's Debian packages (LoadImage,
// image.go). The host's zoneinfo files and $ZONEINFO are never read
// (time.LoadLocation prefers them to the data time/tzdata embeds), so every
// machine gives the same answer. Standard library only.
package tzdata

import (
	"archive/zip"
	"bytes"
	_ "embed"
	"io"
	"sort"
	"sync"
	"time"
)

// Version is the IANA tz data release of the embedded zip: Go 1.26's
// lib/time/zoneinfo.zip, built by lib/time/update.bash from tzdata
// 2025c (DATA=2025c), the data time/tzdata embeds. The test pins the
// zip's SHA-256 to this version, and compares it with the toolchain's.
const Version = "2025c"

//go:embed zoneinfo.zip
var zoneinfoZip []byte

var (
	index = sync.OnceValues(func() (map[string]*zip.File, []string) {
		r, err := zip.NewReader(bytes.NewReader(zoneinfoZip), int64(len(zoneinfoZip)))
		if err != nil {
			panic("tzdata: embedded zoneinfo.zip: " + err.Error())
		}
		files := make(map[string]*zip.File, len(r.File))
		names := make([]string, 0, len(r.File))
		for _, f := range r.File {
			if f.FileInfo().IsDir() {
				continue
			}
			files[f.Name] = f
			names = append(names, f.Name)
		}
		sort.Strings(names)
		return files, names
	})
	cache sync.Map // name -> *time.Location
)

// Names lists the zone names of the embedded data, sorted: the tz
// database's zones, the links of its "backward" file, and "Factory".
func Names() []string {
	_, names := index()
	return append([]string(nil), names...)
}

// Load loads a zone by its exact (case-sensitive) name from the embedded
// data; ok is false for a name it does not hold.
func Load(name string) (*time.Location, bool) {
	if loc, ok := cache.Load(name); ok {
		return loc.(*time.Location), true
	}
	files, _ := index()
	f, ok := files[name]
	if !ok {
		return nil, false
	}
	rc, err := f.Open()
	if err != nil {
		return nil, false
	}
	data, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		return nil, false
	}
	loc, err := time.LoadLocationFromTZData(name, data)
	if err != nil {
		return nil, false
	}
	cache.Store(name, loc)
	return loc, true
}
