package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A file under the root with a YAML or JSON name that cannot be read
// (permission denied, a FIFO) was not taken for a catalog source: census
// passed the gate without a word, and migrate zeroed a config file the
// unread file's task may use. An unknown is not a zero: it is a source
// that cannot be read, counted unreadable and holding every config back.
func TestUnreadableYAMLUnderRootIsAnUnreadableSource(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		"flow.yaml": `materializations:
  acmeCo/a:
    shards: {flags: {enable-runtime-v2: "true"}}
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config: c.yaml
    bindings: []
`,
		"c.yaml": "host: x\nsyncSchedule: {syncFrequency: 1h}\n",
	})
	if err := syscall.Mkfifo(filepath.Join(dir, "other.yaml"), 0o600); err != nil {
		t.Skip(err)
	}
	r := schedtoolIn(t, dir, "migrate", "--write", ".")
	if r.code == 0 || !strings.Contains(r.stderr, "other.yaml cannot be read") || !strings.Contains(r.stderr, "holds back c.yaml") {
		t.Errorf("migrate: exit %d\n%s", r.code, r.stderr)
	}
	if b := mustRead(t, filepath.Join(dir, "c.yaml")); !strings.Contains(string(b), "1h") {
		t.Errorf("c.yaml zeroed beside an unreadable source:\n%s", b)
	}
	// Migrated, the task no longer relies on its connector: the gate
	// still fails on the unreadable file.
	writeFiles(t, dir, map[string]string{"c.yaml": "host: x\nsyncSchedule: {syncFrequency: 0s}\n", "flow.yaml": strings.Replace(mustReadString(t, filepath.Join(dir, "flow.yaml")), "    endpoint:", "    syncSchedule: {baseInterval: 1h}\n    endpoint:", 1)})
	r = schedtoolIn(t, dir, "census", "--fail-if-remaining", ".")
	if r.code != 2 || !strings.Contains(r.stderr+r.stdout, "other.yaml:1:1: cannot read: not a regular file (a FIFO)") {
		t.Errorf("census: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
