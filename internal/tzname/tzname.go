// Package tzname suggests IANA timezone names for one that does not
// load (America/New_Yrok). The names are those of Go's tz database
// (time/tzdata), listed in zones.txt: the test checks that each loads
// and that the list is the Go release's.
package tzname

import (
	_ "embed"
	"slices"
	"strings"
	"sync"

	"github.com/estuary/schedtool/internal/suggest"
)

//go:embed zones.txt
var zonesTxt string

var zones = sync.OnceValue(func() []string { return strings.Fields(zonesTxt) })

// Closest is up to three timezone names nearest to tz, none when
// nothing is near.
func Closest(tz string) []string { return suggest.Closest(tz, zones(), 3) }

// Hint is " (closest: A, B)" for a name that is not a zone, "" for a
// zone (UTC is not a typo of UCT) or when nothing is near.
func Hint(tz string) string {
	if slices.Contains(zones(), tz) {
		return ""
	}
	if l := Closest(tz); len(l) > 0 {
		return " (closest: " + strings.Join(l, ", ") + ")"
	}
	return ""
}
