// Package tzname suggests IANA timezone names for one that does not
// load (America/New_Yrok). The names are those of the embedded tz data
// both schedule kinds are evaluated with (schedule/tzdata), Go's
// release's list: the test checks that each loads and that the list is
// the Go release's.
package tzname

import (
	"slices"
	"strings"
	"sync"

	"github.com/estuary/schedtool/internal/suggest"
	"github.com/estuary/schedtool/schedule/tzdata"
)

var zones = sync.OnceValue(tzdata.Names)

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
