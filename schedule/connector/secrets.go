package connector

import "strings"

// A materialization's `secrets` stanza (docs/behaviour.md §4.5, Flow's
// models::MaterializationDef) maps secret names to JSON pointers into the
// endpoint config; at task start each secret's value is merged there as
// an RFC 7396 merge patch. A schedule location such a pointer covers
// holds a value schedtool cannot see, as an encrypted one.

// ScheduleLocations are the config locations whose values make up the
// schedule of this image tag: its family's pointer, and, on a tag that
// still reads it, /advanced/updateDelay.
func (r *Registry) ScheduleLocations(e *Entry, tag string) []string {
	locs := []string{r.Family(e.Family).Pointer}
	if e.Family == FamilySyncSchedule && !e.AcceptsSyncSchedule(tag) {
		locs = append(locs, "/advanced/updateDelay")
	}
	return locs
}

// Covers reports whether a merge at JSON pointer ptr can change what the
// connector reads at loc: ptr equals loc, is above it (the config root
// "" included) or below it. Tokens match as the connectors match keys
// (encoding/json folds case), since a secret merged at /SyncSchedule is
// the schedule the connector reads.
func Covers(ptr, loc string) bool {
	a, b := PointerTokens(ptr), PointerTokens(loc)
	if len(a) > len(b) {
		a, b = b, a
	}
	for i, t := range a {
		if !strings.EqualFold(t, b[i]) {
			return false
		}
	}
	return true
}
