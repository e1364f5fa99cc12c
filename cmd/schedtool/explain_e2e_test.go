package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// explain previews what migrate does, not what the task's own plan
// would: a V2 task sharing its config file with a V1 task needs review
// in migrate (zeroing the file would unpace the V1 task), so explain
// shows no migration for it, in text, json and the timeline.
func TestExplainPreviewIsMigratesSharedConfig(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "flow.yaml"), []byte(`materializations:
  acme/a:
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config: shared.config.yaml
    bindings: []
    shards:
      flags:
        enable-runtime-v2: "true"
  acme/b:
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config: shared.config.yaml
    bindings: []
`), 0o644)
	os.WriteFile(filepath.Join(dir, "shared.config.yaml"), []byte("host: x\nsyncSchedule:\n  syncFrequency: 30m\n"), 0o644)
	m := schedtoolIn(t, dir, "migrate", "-o", "json", ".")
	if !strings.Contains(m.stdout, `"action":"review"`) || !strings.Contains(m.stdout, "config file shared.config.yaml is shared") {
		t.Fatalf("migrate does not review acme/a:\n%s", m.stdout)
	}
	r := schedtoolIn(t, dir, "explain", "-o", "json", "acme/a", ".")
	var e struct{ Migration string }
	if err := json.Unmarshal([]byte(r.stdout), &e); err != nil {
		t.Fatalf("explain -o json: %v\n%s\n%s", err, r.stdout, r.stderr)
	}
	if !strings.HasPrefix(e.Migration, "review (config file shared.config.yaml is shared") {
		t.Errorf("explain previews a migration migrate refuses: %q", e.Migration)
	}
	html := schedtoolIn(t, dir, "explain", "-o", "html", "acme/a", ".")
	if html.code != 0 || strings.Contains(html.stdout, "the schedule migrate writes") {
		t.Errorf("explain -o html draws the schedule migrate would not write (exit %d)", html.code)
	}
	// With --enable-runtime-v2 both migrate, and the preview is shown.
	v2 := schedtoolIn(t, dir, "explain", "-o", "html", "--enable-runtime-v2", "acme/a", ".")
	if !strings.Contains(v2.stdout, "the schedule migrate writes") {
		t.Errorf("explain --enable-runtime-v2 -o html does not draw migrate's schedule")
	}
}

// explain's text wrote the catalog's strings raw: a task name or image
// holding ESC sequences drove the terminal (\x1b[2J clears it) and a
// newline in a name forged a line. Escaped as in every other command.
func TestExplainTextEscapesCatalogStrings(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"flow.yaml": `materializations:
  "acmeCo/\e[31mred\nFAKE":
    shards: {flags: {enable-runtime-v2: "true"}}
    endpoint:
      connector:
        image: "ghcr.io/estuary/materialize-snowflake:v4\e[2J"
        config: {host: x, syncSchedule: {syncFrequency: 1h}}
    bindings: []
`})
	r := schedtoolIn(t, dir, "explain", "acmeCo/\x1b[31mred\nFAKE", ".")
	if r.code != 0 || strings.ContainsAny(r.stdout+r.stderr, "\x1b") || !strings.Contains(r.stdout, `materialization acmeCo/\x1b[31mred\nFAKE (flow.yaml)`) {
		t.Errorf("exit %d\n%q\n%q", r.code, r.stdout, r.stderr)
	}
	r = schedtoolIn(t, dir, "explain", "acmeCo/\x1b[31mre", ".")
	if strings.ContainsAny(r.stdout+r.stderr, "\x1b") {
		t.Errorf("the not-found message: %q", r.stderr)
	}
}
