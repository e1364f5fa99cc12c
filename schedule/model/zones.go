package model

import (
	"archive/zip"
	"bytes"
	_ "embed"
	"io"
	"sort"
	"sync"
	"time"
)

// The zone data is embedded and is the only source of zones: the host's
// zoneinfo files are never read, so every machine gives the same answer.
//
// zoneinfo.zip is Go 1.26's lib/time/zoneinfo.zip (IANA tzdata 2025c, the
// data time/tzdata embeds). Its names are the tz database's zones and the
// links of its "backward" file, plus "Factory". Flow judges names with
// chrono-tz, which is built from the same zones and links without
// "factory", so the names Flow accepts are these names minus "Factory".
//
//go:embed zoneinfo.zip
var zoneinfoZip []byte

var (
	zoneOnce  sync.Once
	zoneFiles map[string]*zip.File
	zoneNames []string
	zoneCache sync.Map // name -> *time.Location
)

// notChronoTz are names in the zip that chrono-tz does not know.
var notChronoTz = map[string]bool{"Factory": true}

func loadZoneIndex() {
	r, err := zip.NewReader(bytes.NewReader(zoneinfoZip), int64(len(zoneinfoZip)))
	if err != nil {
		panic("model: embedded zoneinfo.zip: " + err.Error())
	}
	zoneFiles = make(map[string]*zip.File, len(r.File))
	for _, f := range r.File {
		if f.FileInfo().IsDir() || notChronoTz[f.Name] {
			continue
		}
		zoneFiles[f.Name] = f
		zoneNames = append(zoneNames, f.Name)
	}
	sort.Strings(zoneNames)
}

// ZoneNames lists the IANA names Flow accepts (chrono-tz's), sorted.
func ZoneNames() []string {
	zoneOnce.Do(loadZoneIndex)
	return append([]string(nil), zoneNames...)
}

// LoadZone loads an IANA zone by its exact (case-sensitive) name from the
// embedded data; ok is false for a name chrono-tz does not know.
func LoadZone(name string) (*time.Location, bool) {
	if loc, ok := zoneCache.Load(name); ok {
		return loc.(*time.Location), true
	}
	zoneOnce.Do(loadZoneIndex)
	f, ok := zoneFiles[name]
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
	zoneCache.Store(name, loc)
	return loc, true
}
