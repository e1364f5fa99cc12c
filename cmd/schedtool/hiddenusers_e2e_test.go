package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// "Never unpaced" against hidden users: routes by which a task that uses a shared
// config file is not seen as a user of it, so that migrating the other
// user zeroes the file under it. Each case runs the built binary over a
// root holding flow.yaml (acmeCo/a, config c.yaml) and a second source,
// not named as one, holding acmeCo/b on ../c.yaml, which Flow reads
// (flowctl catalog publish --source other/NAME); migrate is given
// flow.yaml alone, so acmeCo/b must hold c.yaml back.

const hiddenUserConfig = "host: x\nsyncSchedule: {syncFrequency: 1h}\n"

// hiddenUserBody is acmeCo/b's mapping under a materializations key, in
// YAML, with a description of pad bytes (to make the source large).
func hiddenUserBody(pad int) string {
	return "\n  acmeCo/b:\n    description: \"" + strings.Repeat("x", pad) + "\"\n" +
		"    shards: {flags: {enable-runtime-v2: \"true\"}}\n    endpoint:\n      connector:\n" +
		"        image: ghcr.io/estuary/materialize-snowflake:v4\n        config: ../c.yaml\n    bindings: []\n"
}

// hiddenUserJSON is a JSON source whose top-level materializations key
// is spelt key, acmeCo/b's description pad bytes long; first, when set,
// is a first key before it.
func hiddenUserJSON(first, key string, pad int) string {
	if first != "" {
		first += ", "
	}
	return "{" + first + `"` + key + `": {"acmeCo/b": {"description": "` + strings.Repeat("x", pad) + `", "shards": {"flags": {"enable-runtime-v2": "true"}}, "endpoint": {"connector": {"image": "ghcr.io/estuary/materialize-snowflake:v4", "config": "../c.yaml"}}, "bindings": []}}}` + "\n"
}

// hiddenUserRun migrates flow.yaml alone (with extra flags) beside the
// second source and checks that c.yaml is not changed: acmeCo/b holds it.
func hiddenUserRun(t *testing.T, name, source string, flags ...string) {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".git/HEAD":     "ref: refs/heads/main\n",
		"flow.yaml":     "materializations:\n" + pacedByFile("acmeCo/a", "c.yaml"),
		"c.yaml":        hiddenUserConfig,
		"other/" + name: source,
	})
	// Flow reads the second source: census given it by name sees acmeCo/b.
	if r := schedtoolIn(t, dir, "census", "-o", "wide", "other/"+name); !strings.Contains(r.stdout, "acmeCo/b") {
		t.Fatalf("census other/%s does not read acmeCo/b: exit %d\n%s%s", name, r.code, r.stdout, r.stderr)
	}
	r := schedtoolIn(t, dir, append(append([]string{"migrate", "--write"}, flags...), "flow.yaml")...)
	if got := mustReadString(t, dir+"/c.yaml"); got != hiddenUserConfig {
		t.Fatalf("c.yaml was zeroed under acmeCo/b (other/%s), which gets no model schedule: exit %d\n%s\nc.yaml:\n%s", name, r.code, r.stderr, got)
	}
	if r.code != 2 || !strings.Contains(r.stderr, "config file c.yaml is shared") {
		t.Errorf("migrate: exit %d, want 2 with c.yaml held back\n%s", r.code, r.stderr)
	}
}

// Route 1: a top-level key spelt with an escape. Flow's readers decode
// it (serde_json, serde_yaml), so the file is a catalog source; the walk
// for users took it for none, as the key's bytes are not in it.
func TestHiddenUsersEscapedKeyHidesAUser(t *testing.T) {
	t.Run("small JSON", func(t *testing.T) {
		hiddenUserRun(t, "main.json", hiddenUserJSON("", `materi\u0061lizations`, 10))
	})
	t.Run("small YAML", func(t *testing.T) {
		hiddenUserRun(t, "main.yaml", `"materi\x61lizations":`+hiddenUserBody(10))
	})
	t.Run("large JSON", func(t *testing.T) {
		hiddenUserRun(t, "main.json", hiddenUserJSON("", `materi\u0061lizations`, 2<<20))
	})
	t.Run("large YAML", func(t *testing.T) {
		hiddenUserRun(t, "main.yaml", `"materi\x61lizations":`+hiddenUserBody(2<<20))
	})
	t.Run("large YAML, every letter escaped", func(t *testing.T) {
		key := ""
		for _, c := range "materializations" {
			key += `\u00` + strings.ToUpper(string("0123456789abcdef"[c>>4])+string("0123456789abcdef"[c&15]))
		}
		hiddenUserRun(t, "main.yaml", `"`+key+`":`+hiddenUserBody(2<<20))
	})
}

// Route 2: a source over 1 MiB is judged by a stream (catalog/sniff),
// which looked for a key at column 0 as `key:` only: YAML also spells a
// top-level key explicitly (`? key`), with a tag or with an anchor, or
// brings it in by a merge key (`<<:`).
func TestHiddenUsersLargeYAMLKeyHidesAUser(t *testing.T) {
	for _, tc := range []struct{ name, key string }{
		{"explicit key", "? materializations\n:"},
		{"tag", "!!str materializations:"},
		{"anchor", "&k materializations:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hiddenUserRun(t, "main.yaml", tc.key+hiddenUserBody(2<<20))
		})
	}
	// A merge key's mapping at the top level: the loader applies it, as
	// Flow does.
	t.Run("merge key", func(t *testing.T) {
		hiddenUserRun(t, "main.yaml", "<<:\n  materializations:"+strings.ReplaceAll(hiddenUserBody(2<<20), "\n  ", "\n    "))
	})
}

// Route 3: a source over --max-file-size (up to 1 MiB) was judged by its
// first 64 KiB, a catalog key at the start of a line: a JSON source on
// one line whose first key is "$schema", or a YAML one whose key comes
// after 64 KiB of comments, was taken for no source, so its tasks were
// no users. Such a file is one that cannot be read, which holds every
// config file back.
func TestHiddenUsersTooLargeSourceHidesAUser(t *testing.T) {
	t.Run("JSON on one line", func(t *testing.T) {
		hiddenUserRun(t, "main.json", hiddenUserJSON(`"$schema": "`+strings.Repeat("x", 200<<10)+`"`, "materializations", 10), "--max-file-size", "100KiB")
	})
	t.Run("YAML after comments", func(t *testing.T) {
		hiddenUserRun(t, "main.yaml", strings.Repeat("# "+strings.Repeat("x", 1000)+"\n", 100)+"materializations:"+hiddenUserBody(10), "--max-file-size", "90KiB")
	})
}

// Route 4: a source reached by two paths in different directories (a
// symlink to it, or a hard link) was read once, under the first path,
// its relative references resolved from that path's directory. Flow
// resolves them from the path it is given (sub/real.flow.yaml, or the
// file a symlink leads to: flowctl publishes a source by its canonical
// path), so the task there uses sub/c.yaml, which migrating acmeCo/a
// zeroed under it.
func TestHiddenUsersSourceByTwoPathsHidesAUser(t *testing.T) {
	for _, kind := range []string{"symlink", "hard link"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{
				".git/HEAD":          "ref: refs/heads/main\n",
				"flow.yaml":          "materializations:\n" + pacedByFile("acmeCo/a", "sub/c.yaml"),
				"c.yaml":             hiddenUserConfig,
				"sub/c.yaml":         hiddenUserConfig,
				"sub/real.flow.yaml": "materializations:\n" + pacedByFile("acmeCo/b", "c.yaml"),
			})
			link := os.Symlink
			if kind == "hard link" {
				link = os.Link
			}
			if err := link(filepath.Join(dir, "sub/real.flow.yaml"), filepath.Join(dir, "link.flow.yaml")); err != nil {
				t.Fatal(err)
			}
			r := schedtoolIn(t, dir, "migrate", "--write", "flow.yaml")
			if got := mustReadString(t, filepath.Join(dir, "sub/c.yaml")); got != hiddenUserConfig {
				t.Fatalf("sub/c.yaml was zeroed under acmeCo/b (sub/real.flow.yaml), which gets no model schedule: exit %d\n%s\nsub/c.yaml:\n%s", r.code, r.stderr, got)
			}
			if r.code != 2 || !strings.Contains(r.stderr, "config file sub/c.yaml is shared: also used by acmeCo/b (sub/real.flow.yaml:") {
				t.Errorf("migrate: exit %d, want 2 with sub/c.yaml held back by acmeCo/b\n%s", r.code, r.stderr)
			}
		})
	}
}
