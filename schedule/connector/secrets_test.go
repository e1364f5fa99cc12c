package connector

import (
	"slices"
	"testing"
)

// A secret's pointer covers a schedule location when it equals it, is
// above it (the config root included) or below it, with keys folded as
// the connectors fold them (docs/behaviour.md §4.5).
func TestCovers(t *testing.T) {
	for _, tc := range []struct {
		ptr, loc string
		want     bool
	}{
		{"/syncSchedule", "/syncSchedule", true},
		{"", "/syncSchedule", true},
		{"/syncSchedule/syncFrequency", "/syncSchedule", true},
		{"/SYNCSCHEDULE/timezone", "/syncSchedule", true},
		{"/advanced", "/advanced/updateDelay", true},
		{"/a~1b", "/a~1b/c", true},
		{"/host", "/syncSchedule", false},
		{"/syncScheduleX", "/syncSchedule", false},
		{"/sync", "/syncSchedule", false},
		{"/a~1b", "/a/b", false},
		{"/advanced/other", "/advanced/updateDelay", false},
	} {
		if got := Covers(tc.ptr, tc.loc); got != tc.want {
			t.Errorf("Covers(%q, %q) = %v, want %v", tc.ptr, tc.loc, got, tc.want)
		}
	}
}

// The schedule locations of an image tag: its family's, and on a tag
// that still reads it, advanced.updateDelay.
func TestScheduleLocations(t *testing.T) {
	reg := Builtin()
	for _, tc := range []struct {
		image string
		want  []string
	}{
		{"ghcr.io/estuary/materialize-snowflake:v4", []string{"/syncSchedule"}},
		{"ghcr.io/estuary/materialize-snowflake:v1", []string{"/syncSchedule", "/advanced/updateDelay"}},
		{"ghcr.io/estuary/materialize-s3-csv:v1", []string{"/uploadInterval"}},
		{"ghcr.io/estuary/materialize-s3-iceberg:v1", []string{"/upload_interval"}},
	} {
		e, tag, ok := reg.Lookup(tc.image)
		if !ok {
			t.Fatalf("%s: not in the registry", tc.image)
		}
		if got := reg.ScheduleLocations(e, tag); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.image, got, tc.want)
		}
	}
}
