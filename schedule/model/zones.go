package model

import (
	"sync"
	"time"

	"github.com/estuary/schedtool/schedule/tzdata"
)

// The zone data is embedded (package tzdata) and is the only source of
// zones: the host's zoneinfo files are never read, so every machine gives
// the same answer. Its names are the tz database's zones and the links of
// its "backward" file, plus "Factory". Flow judges names with chrono-tz,
// which is built from the same zones and links without "factory", so the
// names Flow accepts are these names minus "Factory".

// notChronoTz are names in the data that chrono-tz does not know.
var notChronoTz = map[string]bool{"Factory": true}

var zoneNames = sync.OnceValue(func() []string {
	var out []string
	for _, n := range tzdata.Names() {
		if !notChronoTz[n] {
			out = append(out, n)
		}
	}
	return out
})

// ZoneNames lists the IANA names Flow accepts (chrono-tz's), sorted.
func ZoneNames() []string { return append([]string(nil), zoneNames()...) }

// LoadZone loads an IANA zone by its exact (case-sensitive) name from the
// embedded data; ok is false for a name chrono-tz does not know.
func LoadZone(name string) (*time.Location, bool) {
	if notChronoTz[name] {
		return nil, false
	}
	return tzdata.Load(name)
}
