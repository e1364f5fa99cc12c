package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/estuary/schedtool/internal/testreq"
)

// realCatalogs is ../shared/real-catalogs beside the repository (public
// catalogs read in place, never copied into the repository), or
// $SCHEDTOOL_REAL_CATALOGS. Absent, the test skips, unless
// SCHEDTOOL_REQUIRE_REAL_CATALOGS is set.
func realCatalogs(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("SCHEDTOOL_REAL_CATALOGS")
	if dir == "" {
		dir = "../../../shared/real-catalogs"
	}
	abs, _ := filepath.Abs(dir)
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		testreq.Missing(t, testreq.RealCatalogs, abs+" is absent (it is ../shared/real-catalogs beside the repository; set SCHEDTOOL_REAL_CATALOGS to read it elsewhere)")
	}
	return abs
}

// catalogFiles are the YAML and JSON files under dir, relative to it.
func catalogFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch filepath.Ext(p) {
		case ".yaml", ".yml", ".json":
			rel, _ := filepath.Rel(dir, p)
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

// noCrash fails on a panic or a Go runtime trace in a run's output.
func noCrash(t *testing.T, what string, r run) {
	t.Helper()
	if strings.Contains(r.stderr, "panic:") || strings.Contains(r.stderr, "goroutine ") || r.code > 2 {
		t.Errorf("%s crashed: exit %d\n%s", what, r.code, r.stderr)
	}
}

// TestRealCatalogs runs schedtool over the real catalogs of
// ../shared/real-catalogs (SOURCES.md there says where each comes from).
func TestRealCatalogs(t *testing.T) {
	real := realCatalogs(t)
	repos, err := os.ReadDir(real)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	// Every file, given by name, with its repository as the root: read
	// without a crash, and no import or config file escapes that root.
	for _, repo := range repos {
		if !repo.IsDir() {
			continue
		}
		root := filepath.Join(real, repo.Name())
		files := catalogFiles(t, root)
		total += len(files)
		for _, cmd := range [][]string{{"validate"}, {"census", "-o", "json"}, {"migrate", "-o", "json"}} {
			args := append(append([]string{}, cmd...), "--root", root)
			for _, f := range files {
				args = append(args, filepath.Join(root, f))
			}
			r := schedtoolIn(t, real, args...)
			noCrash(t, strings.Join(cmd, " ")+" "+repo.Name(), r)
			if strings.Contains(r.stdout+r.stderr, "escapes the root") {
				t.Errorf("%s %s: an escape inside the repository's root:\n%s%s", cmd[0], repo.Name(), r.stdout, r.stderr)
			}
		}
		// The repository as a directory, the default root: every source
		// found, nothing escapes, no error on these catalogs (a test task
		// defined in several catalogs is an info: docs/behaviour.md §2).
		r := schedtoolIn(t, real, "validate", repo.Name())
		noCrash(t, "validate "+repo.Name(), r)
		if r.code != 0 || strings.Contains(r.stdout, " error ") || strings.Contains(r.stdout+r.stderr, "escapes the root") {
			t.Errorf("validate %s: exit %d\n%s%s", repo.Name(), r.code, r.stdout, r.stderr)
		}
		if repo.Name() == "estuary__connectors" && !strings.Contains(r.stdout, "info defined-in-several-catalogs: materialization acmeCo/tests/materialize-snowflake is also defined at estuary__connectors/materialize-snowflake/testdata/materialize.flow.yaml:6:5, estuary__connectors/materialize-snowflake/testdata/migrate.flow.yaml:6:5") {
			t.Errorf("validate %s: no defined-in-several-catalogs info for the Snowflake test task:\n%s", repo.Name(), r.stdout)
		}
		// census: no unreadable input from them; migrate: 0 or 2.
		r = schedtoolIn(t, real, "census", "-o", "json", repo.Name())
		if !strings.Contains(r.stdout, `"unreadable":[]`) || !strings.Contains(r.stdout, `"unreadable":0}`) {
			t.Errorf("census %s: unreadable inputs:\n%s%s", repo.Name(), r.stdout, r.stderr)
		}
		r = schedtoolIn(t, real, "migrate", repo.Name())
		if r.code != 0 && r.code != 2 || strings.Contains(r.stderr, "defined more than once") {
			t.Errorf("migrate %s: exit %d\n%s", repo.Name(), r.code, r.stderr)
		}
	}
	if total < 100 {
		t.Errorf("%d YAML and JSON files under %s, want the 100 or more of SOURCES.md", total, real)
	}

	// Discovery: the two Snowflake tasks of Estuary's examples, sources
	// named *.flow.yaml.
	r := schedtoolIn(t, real, "census", "-o", "json", "estuary__examples")
	var doc struct {
		Tasks []struct{ Task, Image, Runtime, File string } `json:"tasks"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("census -o json: %v\n%s%s", err, r.stdout, r.stderr)
	}
	var found []string
	for _, x := range doc.Tasks {
		if x.Image == "ghcr.io/estuary/materialize-snowflake" && strings.HasSuffix(x.File, ".flow.yaml") {
			found = append(found, x.Task)
		}
	}
	if strings.Join(found, " ") != "yourprefix/agent-demo/destination-snowflake yourprefix/pg-snowflake-demo/destination-snowflake" {
		t.Errorf("census estuary__examples found %v\n%s", found, r.stdout)
	}

	// migrate --out on a copy (in a temp dir) whose materializations are
	// all flagged for the V2 runtime.
	work := t.TempDir()
	in, out := filepath.Join(work, "in"), filepath.Join(work, "out")
	flagged := 0
	for _, f := range catalogFiles(t, real) {
		src := mustRead(t, filepath.Join(real, f))
		n := 0
		if filepath.Ext(f) != ".json" {
			src, n = flagV2(src)
		}
		flagged += n
		writeTree(t, in, map[string]string{f: string(src)})
	}
	// A connectors' test catalog given alone imports ../../: outside a git
	// work tree the escape names the root used and --root; inside one
	// (the connectors' repository, as a user has it) the default root is
	// the work tree's top and nothing escapes.
	one := filepath.Join("in", "estuary__connectors", "materialize-bigquery", "testdata", "apply.flow.yaml")
	r = schedtoolIn(t, work, "validate", one)
	if !strings.Contains(r.stdout, "escapes the root directory in/estuary__connectors/materialize-bigquery/testdata (the PATH's own directory); give a wider one with --root DIR") {
		t.Errorf("validate %s outside a git work tree:\n%s%s", one, r.stdout, r.stderr)
	}
	writeTree(t, in, map[string]string{"estuary__connectors/.git": "gitdir: elsewhere\n"})
	r = schedtoolIn(t, work, "validate", one)
	if r.code != 0 || strings.Contains(r.stdout, "escapes") {
		t.Errorf("validate %s in a git work tree: exit %d\n%s%s", one, r.code, r.stdout, r.stderr)
	}
	os.Remove(filepath.Join(in, "estuary__connectors/.git"))

	r = schedtoolIn(t, work, "census", "-o", "json", "in")
	if !strings.Contains(r.stdout, `"runtime":{"v2":2}`) || flagged < 2 {
		t.Fatalf("the copy is not flagged for V2 (%d flags written):\n%s%s", flagged, r.stdout, r.stderr)
	}
	r = schedtoolIn(t, work, "migrate", "--out", out, "in")
	noCrash(t, "migrate --out", r)
	// The connectors' test catalogs define their test tasks in several
	// catalogs: each definition is read as itself, and the run is whole.
	if r.code != 0 || !strings.Contains(r.stderr, "2 to migrate") || strings.Contains(r.stderr, "defined more than once") {
		t.Fatalf("migrate --out: exit %d\n%s", r.code, r.stderr)
	}
	changed := 0
	for _, f := range catalogFiles(t, filepath.Join(work, "in")) {
		old := mustRead(t, filepath.Join(in, f))
		got, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Errorf("a file of the tree missing from --out: %v", err)
			continue
		}
		if bytes.Equal(old, got) {
			continue
		}
		changed++
		// Outside the schedule keys, every byte as it was: the model
		// schedule taken out again, the connector's frequency put back.
		if want, back := zeroFrequency(old), dropModelSchedule(got); !bytes.Equal(want, back) {
			t.Errorf("%s: bytes outside the schedule keys changed:\n--- want\n%s\n--- got\n%s", f, want, back)
		}
		if !bytes.Contains(got, []byte("    syncSchedule:\n      baseInterval: 5m\n")) {
			t.Errorf("%s: no model schedule:\n%s", f, got)
		}
	}
	if changed != 2 {
		t.Errorf("%d files changed, want the 2 Snowflake materializations", changed)
	}
	// The migrated tree re-parses, validates clean, and has nothing left.
	r = schedtoolIn(t, work, "validate", "out")
	if r.code != 0 {
		t.Errorf("validate on the migrated tree: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = schedtoolIn(t, work, "census", "-o", "json", "out")
	if !strings.Contains(r.stdout, `"status":{"migrated":2}`) {
		t.Errorf("census on the migrated tree:\n%s%s", r.stdout, r.stderr)
	}
	r = schedtoolIn(t, work, "migrate", "out")
	if r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "80 with nothing to do") {
		t.Errorf("a second migrate: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

var (
	taskLine   = regexp.MustCompile(`^  [^ #][^:]*:\s*$`)
	topLine    = regexp.MustCompile(`^[^ #\n]`)
	frequency  = regexp.MustCompile(`(?m)^( +syncFrequency: ).*$`)
	modelBlock = regexp.MustCompile(`(?m)^ +syncSchedule:\n +baseInterval: .*\n( +(timezone:|windows:|- |interval:|start:|end:|days:).*\n)*`)
)

// flagV2 adds shards.flags.enable-runtime-v2: "true" to each
// materialization of a YAML source that has no shards, as a user would.
func flagV2(src []byte) ([]byte, int) {
	lines := strings.SplitAfter(string(src), "\n")
	var b strings.Builder
	in, n := false, 0
	for i, line := range lines {
		if topLine.MatchString(line) {
			in = strings.HasPrefix(line, "materializations:")
		}
		b.WriteString(line)
		if !in || !taskLine.MatchString(line) {
			continue
		}
		shards := false
		for _, next := range lines[i+1:] {
			if strings.HasPrefix(next, "    shards:") {
				shards = true
			}
			if taskLine.MatchString(next) || topLine.MatchString(next) {
				break
			}
		}
		if !shards {
			b.WriteString("    shards:\n      flags:\n        enable-runtime-v2: \"true\"\n")
			n++
		}
	}
	return []byte(b.String()), n
}

// zeroFrequency sets every syncFrequency to the connector's off state.
func zeroFrequency(src []byte) []byte {
	return frequency.ReplaceAll(src, []byte(`${1}"0s"`))
}

// dropModelSchedule removes the model syncSchedule blocks migrate wrote.
func dropModelSchedule(src []byte) []byte {
	return modelBlock.ReplaceAll(src, nil)
}
