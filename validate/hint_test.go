package validate

import (
	"strings"
	"testing"
)

// A misspelt key or timezone names what was likely meant, after the
// message Flow or the connector gives; nothing near, no suggestion.
func TestSuggestions(t *testing.T) {
	zero := `{syncSchedule: {syncFrequency: 0s}}`
	for _, c := range []struct {
		name, sched, config, rule, want string
	}{
		{"model key", `{baseInterval: 4h, timeZone: UTC}`, zero, "invalid-sync-schedule", "invalid sync schedule: unknown field `timeZone` (closest: timezone)"},
		{"model window key", `{baseInterval: 4h, timezone: UTC, windows: [{interval: 1m, start: "09:00", end: "10:00", dayz: "M-F"}]}`, zero, "invalid-sync-schedule", "unknown field `dayz` (closest: days)"},
		{"model key, nothing near", `{baseInterval: 4h, zzzzzzzzz: 1}`, zero, "invalid-sync-schedule", "unknown field `zzzzzzzzz`"},
		{"model timezone", `{baseInterval: 4h, timezone: America/New_Yrok, windows: [{interval: 1m, start: "09:00", end: "10:00"}]}`, zero, "invalid-sync-schedule", `or a +HH:MM offset) (closest: America/New_York)`},
		{"connector timezone", "", `{syncSchedule: {syncFrequency: 30m, timezone: America/New_Yrok, fastSyncStartTime: "09:00", fastSyncStopTime: "17:00"}}`, "invalid-connector-schedule",
			`validating schedule configuration: unknown or invalid timezone "America/New_Yrok": timezone must be a valid IANA timezone name or +HH:MM offset (closest: America/New_York)`},
		{"connector timezone, nothing near", "", `{syncSchedule: {syncFrequency: 30m, timezone: Mars/Olympus_Mons, fastSyncStartTime: "09:00", fastSyncStopTime: "17:00"}}`, "invalid-connector-schedule",
			`timezone must be a valid IANA timezone name or +HH:MM offset`},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := runCatalog(t, map[string]string{"flow.yaml": mat(v2, c.sched, sf, c.config)}, nil)
			for _, f := range fs {
				if f.Rule != c.rule {
					continue
				}
				if !strings.Contains(f.Message, c.want) {
					t.Errorf("message %q\nwant it to hold %q", f.Message, c.want)
				}
				if strings.HasSuffix(c.name, "nothing near") && strings.Contains(f.Message, "closest") {
					t.Errorf("unrelated suggestion: %s", f.Message)
				}
				return
			}
			t.Errorf("no %s in %+v", c.rule, fs)
		})
	}
}
