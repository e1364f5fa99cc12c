package tree

import "testing"

// ConfigKeyMatch keeps the config keys a schedule classification reads:
// the schedule keys in any case, with a sops suffix, and their near misses
// (other separators, spaces, non-ASCII look-alikes), which the connector
// refuses (issue 24 §4); other keys are skipped.
func TestConfigKeyMatch(t *testing.T) {
	keys := []string{"advanced", "sops", "syncSchedule", "uploadInterval", "upload_interval"}
	for key, want := range map[string]bool{
		"syncSchedule":      true,
		"SYNCSCHEDULE":      true,
		"syncSchedule_sops": true,
		"sync_schedule":     true,
		" syncSchedule":     true,
		"syncSchedule ":     true,
		"Sync-Schedule":     true,
		"sync.schedule":     true,
		"upload_interval":   true,
		"uploadinterval":    true,
		"upload-Interval":   true,
		"ｕploadInterval":    true,
		"ſyncSchedule":      true,
		"host":              false,
		"sync":              false,
		"schedule":          false,
		"uploadIntrval":     false,
		"warehouse":         false,
		"_":                 false,
		"":                  false,
	} {
		if got := ConfigKeyMatch(key, keys); got != want {
			t.Errorf("ConfigKeyMatch(%q) = %v, want %v", key, got, want)
		}
	}
}
