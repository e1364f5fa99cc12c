package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// writeTree writes files (path relative to dir: content) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// snowflake is a V2 materialization on a 1h connector schedule.
func snowflake(name, image string) string {
	return v2Materialization(name, image, "\n          host: h\n          syncSchedule:\n            syncFrequency: 1h")
}

// v2Materialization is a V2 materialization on image whose config value
// (following "config:") is config.
func v2Materialization(name, image, config string) string {
	return "  " + name + `:
    shards:
      flags:
        enable-runtime-v2: "true"
    endpoint:
      connector:
        image: ` + image + `
        config:` + config + `
    bindings: []
`
}

const sfImage = "ghcr.io/estuary/materialize-snowflake:v4"

func expect(t *testing.T, r run, code int, stdout, stderr []string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
	for _, s := range stdout {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("stdout lacks %q:\n%s", s, r.stdout)
		}
	}
	for _, s := range stderr {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("stderr lacks %q:\n%s", s, r.stderr)
		}
	}
}

// Discovery: *.flow.yaml|yml|json as well as flow.yaml|yml|json, and
// any file whose content is a catalog source (a backup flow.yaml.bak is
// one: flowctl --source publishes it), hidden directories skipped; YAML
// without a catalog source is exit 1 (docs/behaviour.md §2).
func TestDiscovery(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"cat/snowflake.flow.yaml":     "materializations:\n" + snowflake("a/one", sfImage),
		"cat/sub/flow.yml":            "materializations:\n" + snowflake("a/two", sfImage),
		"cat/sub/other.flow.json":     `{"materializations": {}}`,
		"cat/.hidden/flow.yaml":       "materializations:\n" + snowflake("a/hidden", sfImage),
		"cat/notes.yaml":              "x: 1\n",
		"cat/flow.yaml.bak":           "materializations:\n" + snowflake("a/bak", sfImage),
		"nosource/config.yaml":        "host: h\n",
		"nosource/deep/settings.json": "{}",
		"empty/README":                "nothing",
	})
	r := schedtoolIn(t, dir, "census", "-o", "wide", "cat")
	expect(t, r, 0, []string{"a/one", "a/two", "a/bak", "3 tasks on scheduling images"}, nil)
	if strings.Contains(r.stdout, "a/hidden") {
		t.Errorf("read a hidden directory:\n%s", r.stdout)
	}
	r = schedtoolIn(t, dir, "validate", "cat")
	expect(t, r, 0, []string{"in 3 materializations from 4 files"}, nil)
	r = schedtoolIn(t, dir, "validate", "nosource")
	expect(t, r, 1, nil, []string{"nosource: 2 YAML or JSON files under this directory, but no catalog source", "*.flow.yaml"})
	r = schedtoolIn(t, dir, "census", "empty")
	expect(t, r, 1, nil, []string{"empty: no catalog source under this directory"})
}

// Root: the enclosing git work tree by default, else the PATH's own
// directory, --root when given; an escape names the root and --root.
func TestRoot(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"repo/.git":                            "gitdir: elsewhere\n", // a worktree's .git is a file
		"repo/shared/base.flow.yaml":           "materializations:\n" + snowflake("a/base", sfImage),
		"repo/connector/tests/test.flow.yaml":  "import:\n  - ../../shared/base.flow.yaml\n",
		"plain/shared/base.flow.yaml":          "materializations:\n" + snowflake("b/base", sfImage),
		"plain/connector/tests/test.flow.yaml": "import:\n  - ../../shared/base.flow.yaml\n",
		"plain/connector/tests/up.flow.yaml":   "import:\n  - ../../../../etc/passwd\n",
	})
	r := schedtoolIn(t, dir, "census", "-o", "wide", "repo/connector/tests/test.flow.yaml")
	expect(t, r, 0, []string{"a/base"}, nil)
	r = schedtoolIn(t, dir, "validate", "plain/connector/tests/test.flow.yaml")
	expect(t, r, 2, []string{`import "../../shared/base.flow.yaml" escapes the root directory plain/connector/tests (the PATH's own directory); give a wider one with --root DIR`}, nil)
	r = schedtoolIn(t, dir, "census", "-o", "wide", "--root", "plain", "plain/connector/tests/test.flow.yaml")
	expect(t, r, 0, []string{"b/base"}, nil)
	r = schedtoolIn(t, dir, "validate", "--root", "plain", "plain/connector/tests/up.flow.yaml")
	expect(t, r, 2, []string{"escapes the root directory plain (--root)"}, nil)
	r = schedtoolIn(t, dir, "validate", "--root", "repo", "plain/connector/tests/test.flow.yaml")
	expect(t, r, 1, nil, []string{"plain/connector/tests/test.flow.yaml is outside --root repo"})
	r = schedtoolIn(t, dir, "validate", "--root", "nowhere", "plain")
	expect(t, r, 1, nil, []string{"--root nowhere: no such file or directory"})
	// An absolute PATH with a relative --root.
	r = schedtoolIn(t, dir, "census", "-o", "wide", "--root", "plain", filepath.Join(dir, "plain/connector/tests/test.flow.yaml"))
	expect(t, r, 0, []string{"b/base"}, nil)
}

// Selectors on every command: names and prefixes are alternatives,
// images narrow; a value that picks nothing is exit 1.
func TestSelectors(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"cat/flow.yaml": "materializations:\n" + snowflake("acme/a/one", sfImage) + snowflake("acme/a/two", sfImage) +
			snowflake("acme/b/three", "ghcr.io/estuary/materialize-bigquery:v3") + snowflake("other/four", sfImage),
		"dump.ndjson": `{"catalog_name":"acme/d/five","spec_type":"materialization","spec":{"shards":{"flags":{"enable-runtime-v2":"true"}},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{"syncSchedule":{"syncFrequency":"1h"}}}},"bindings":[]}}
{"catalog_name":"other/d/six","spec_type":"materialization","spec":{"shards":{"flags":{"enable-runtime-v2":"true"}},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-bigquery:v3","config":{"syncSchedule":{"syncFrequency":"1h"}}}},"bindings":[]}}
`,
	})
	tasks := func(out string) string {
		var names []string
		for _, n := range []string{"acme/a/one", "acme/a/two", "acme/b/three", "other/four", "acme/d/five", "other/d/six"} {
			if strings.Contains(out, `"task":"`+n+`"`) || strings.Contains(out, `"task": "`+n+`"`) {
				names = append(names, n)
			}
		}
		return strings.Join(names, " ")
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--prefix", "acme/a/"}, "acme/a/one acme/a/two"},
		{[]string{"--name", "other/four", "--prefix", "acme/b/"}, "acme/b/three other/four"},
		{[]string{"--prefix", "acme/", "--image", "ghcr.io/estuary/materialize-snowflake"}, "acme/a/one acme/a/two acme/d/five"},
		{[]string{"--image", "ghcr.io/estuary/materialize-bigquery"}, "acme/b/three other/d/six"},
		{[]string{"--name", "other/d/six", "--name", "acme/a/one"}, "acme/a/one other/d/six"},
	} {
		for _, cmd := range [][]string{{"census", "-o", "json"}, {"validate", "-o", "json", "--fail-on", "info"}, {"migrate", "-o", "json"}} {
			args := append(append(append([]string{}, cmd...), tc.args...), "cat", "dump.ndjson")
			r := schedtoolIn(t, dir, args...)
			if got := tasks(r.stdout + r.stderr); got != tc.want || r.code == 1 {
				t.Errorf("%v: exit %d, tasks %q, want %q\n%s%s", args, r.code, got, tc.want, r.stdout, r.stderr)
			}
		}
	}
	for _, cmd := range [][]string{{"census"}, {"validate"}, {"migrate"}, {"explain", "acme/a/one"}} {
		args := append(append([]string{}, cmd...), "--prefix", "acme/", "--name", "acme/typo", "--image", "ghcr.io/estuary/materialize-redshift", "cat", "dump.ndjson")
		r := schedtoolIn(t, dir, args...)
		expect(t, r, 1, nil, []string{"--name acme/typo, --prefix acme/, --image ghcr.io/estuary/materialize-redshift select no materialization"})
	}
	r := schedtoolIn(t, dir, "census", "--image", "ghcr.io/estuary/materialize-snowflake:v4", "cat")
	expect(t, r, 1, nil, []string{"give the image name without its tag v4 (--image ghcr.io/estuary/materialize-snowflake)"})
	r = schedtoolIn(t, dir, "census", "--name", "", "cat")
	expect(t, r, 1, nil, []string{"--name: an empty value selects nothing"})
	// explain NAME within a selection.
	r = schedtoolIn(t, dir, "explain", "--prefix", "acme/", "acme/a/two", "cat")
	expect(t, r, 0, []string{"materialization acme/a/two"}, nil)
}

// Sizes take units; zero and negative sizes are usage errors.
func TestSizes(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"cat/flow.yaml": "materializations:\n" + snowflake("a/one", sfImage)})
	for _, tc := range []struct {
		flag string
		code int
		msg  string
	}{
		{"--max-file-size=64MiB", 0, ""},
		{"--max-file-size=4096", 0, ""},
		{"--max-file-size=100B", 2, "over the limit of 100 bytes (see --max-file-size)"},
		{"--max-file-size=0", 1, `"0": a size must be at least 1 byte`},
		{"--max-file-size=-5MiB", 1, "a size must be at least 1 byte"},
		{"--max-row-size=0", 1, `"0": a size must be at least 1 byte`},
		{"--max-row-size=512KiB", 0, ""},
		{"--max-row-size=8GiB", 1, "a size must be at most"},
		{"--max-file-size=lots", 1, `"lots" is not a size`},
	} {
		r := schedtoolIn(t, dir, "validate", tc.flag, "cat")
		if r.code != tc.code || !strings.Contains(r.stdout+r.stderr, tc.msg) {
			t.Errorf("%s: exit %d, want %d with %q\n%s%s", tc.flag, r.code, tc.code, tc.msg, r.stdout, r.stderr)
		}
	}
}

// --version prints the module version and the VCS revision; -v is not
// an alias (operators read it as verbose: TestColorAndVersionFlags).
func TestVersion(t *testing.T) {
	r := schedtool(t, "", "--version")
	expect(t, r, 0, []string{"schedtool version "}, nil)
	if _, err := exec.Command("git", "-C", "../..", "rev-parse", "HEAD").Output(); err != nil {
		t.Skip("not in a git work tree: no revision to compare with")
	}
	bin := filepath.Join(t.TempDir(), "schedtool")
	if out, err := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build -buildvcs=true: %v\n%s", err, out)
	}
	info, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	_, rev, ok := strings.Cut(string(info), "vcs.revision=")
	if !ok {
		// go records no VCS stamp from a linked git worktree.
		t.Skip("go recorded no VCS revision in this checkout")
	}
	// The module version is what go stamped: (devel), or since go 1.24 a
	// pseudo-version built from the same revision.
	modVersion := "(devel)"
	for _, line := range strings.Split(string(info), "\n") {
		if f := strings.Fields(line); len(f) >= 3 && f[0] == "mod" && f[1] == "github.com/estuary/schedtool" {
			modVersion = f[2]
		}
	}
	r = execRun(t, exec.Command(bin, "--version"))
	expect(t, r, 0, []string{"schedtool version " + modVersion + ", revision " + rev[:12]}, nil)
}

// conflicting is a V2 materialization with both a model schedule and a
// connector one: it needs review.
func conflicting(name string) string {
	return "  " + name + `:
    shards:
      flags:
        enable-runtime-v2: "true"
    syncSchedule:
      baseInterval: 2h
    endpoint:
      connector:
        image: ` + sfImage + `
        config:
          syncSchedule:
            syncFrequency: 1h
    bindings: []
`
}

// Exit 2 whenever a person is needed: changes pending in a dry run, or a
// task that needs review, in every mode; 0 only when everything is done.
func TestMigrateNeedsPerson(t *testing.T) {
	for _, tc := range []struct {
		name, catalog string
		dry, write    int
		stderr        string
	}{
		{"review only", conflicting("a/conflict"), 2, 2, "schedtool: 1 task needs review"},
		{"pending and review", conflicting("a/conflict") + snowflake("a/ready", sfImage), 2, 2, "schedtool: 1 task needs review"},
		{"pending only", snowflake("a/ready", sfImage), 2, 0, "1 to migrate"},
		{"nothing", "  a/local:\n    endpoint:\n      local: {command: [x]}\n    bindings: []\n", 0, 0, "1 with nothing to do"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, map[string]string{"cat/flow.yaml": "materializations:\n" + tc.catalog})
			expect(t, schedtoolIn(t, dir, "migrate", "cat"), tc.dry, nil, []string{tc.stderr})
			expect(t, schedtoolIn(t, dir, "migrate", "-o", "json", "cat"), tc.dry, nil, []string{tc.stderr})
			expect(t, schedtoolIn(t, dir, "migrate", "--out", "out", "cat"), tc.write, nil, []string{tc.stderr})
			expect(t, schedtoolIn(t, dir, "migrate", "--write", "cat"), tc.write, nil, []string{tc.stderr})
			// After --write, only the reviews are left.
			expect(t, schedtoolIn(t, dir, "migrate", "cat"), tc.write, nil, nil)
		})
	}
}

// --verify prints its summary in the diff format too, and -o json
// carries it in the summary.
func TestVerifySummary(t *testing.T) {
	dir := t.TempDir()
	overnight := strings.Replace(snowflake("a/overnight", sfImage), "            syncFrequency: 1h\n",
		"            syncFrequency: 15m\n            timezone: America/New_York\n            fastSyncStartTime: \"22:00\"\n            fastSyncStopTime: \"06:00\"\n            fastSyncEnabledDays: M-F\n", 1)
	writeTree(t, dir, map[string]string{"cat/flow.yaml": "materializations:\n" + snowflake("a/fixed", sfImage) + overnight})
	want := "verify: 2 tasks checked, 1 identical, 1 differing (utc-midnight-quirk: 180 minutes); largest difference 3h, first at 2026-01-05T04:00:00Z (a/overnight)"
	r := schedtoolIn(t, dir, "migrate", "--verify", "--verify-year", "2026", "cat")
	expect(t, r, 2, []string{"+++ b/cat/flow.yaml"}, []string{want})
	r = schedtoolIn(t, dir, "migrate", "-q", "--verify", "--verify-year", "2026", "cat")
	expect(t, r, 2, nil, []string{want})
	r = schedtoolIn(t, dir, "migrate", "-o", "json", "--verify", "--verify-year", "2026", "cat")
	expect(t, r, 2, []string{`"verify":{"checked":2,"identical":1,"differing":1,"byCause":{"utc-midnight-quirk":180},"maxDiff":"3h","maxTask":"a/overnight","maxAt":"2026-01-05T04:00:00Z"}`}, nil)
	// Without --verify, no verify line.
	if r := schedtoolIn(t, dir, "migrate", "cat"); strings.Contains(r.stderr, "verify:") {
		t.Errorf("a verify summary without --verify:\n%s", r.stderr)
	}
}

// explain: one column of commits when the zone is UTC, two otherwise;
// a NAME without a PATH asks for the PATH.
func TestExplainZoneAndArgs(t *testing.T) {
	dir := t.TempDir()
	ny := strings.Replace(snowflake("a/ny", sfImage), "            syncFrequency: 1h\n",
		"            syncFrequency: 15m\n            timezone: America/New_York\n            fastSyncStartTime: \"09:00\"\n            fastSyncStopTime: \"17:00\"\n", 1)
	writeTree(t, dir, map[string]string{"cat/flow.yaml": "materializations:\n" + snowflake("a/utc", sfImage) + ny})
	at := "--at=2026-01-05T08:00:00Z"
	r := schedtoolIn(t, dir, "explain", at, "a/utc", "cat")
	expect(t, r, 0, []string{"  next commits (UTC):\n    2026-01-05T08:59:16Z\n"}, nil)
	if strings.Contains(r.stdout, "UTC, UTC") || strings.Contains(r.stdout, "Z  2026") {
		t.Errorf("two identical columns:\n%s", r.stdout)
	}
	r = schedtoolIn(t, dir, "explain", at, "a/ny", "cat")
	expect(t, r, 0, []string{"  next commits (UTC, America/New_York):\n", "Z  2026-01-05T"}, nil)
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"explain", "a/utc"}, "explain a/utc: give a catalog PATH (a source, a directory or a live_specs dump) to find it in"},
		{[]string{"explain"}, "explain needs a materialization NAME and a catalog PATH"},
	} {
		r := schedtoolIn(t, dir, tc.args...)
		expect(t, r, 1, nil, []string{tc.msg})
		if strings.Contains(r.stderr, "requires at least") {
			t.Errorf("%v: cobra's arity error:\n%s", tc.args, r.stderr)
		}
	}
}

// Deleted tasks are not tasks: skipped everywhere, not counted. Disabled
// tasks are users of their schedule: migrated, counted, shown disabled.
func TestDeletedAndDisabled(t *testing.T) {
	dir := t.TempDir()
	disable := func(s string) string {
		return strings.Replace(s, "    shards:\n", "    shards:\n      disable: true\n", 1)
	}
	deleted := strings.Replace(snowflake("a/deleted", sfImage), "    shards:\n", "    delete: true\n    shards:\n", 1)
	writeTree(t, dir, map[string]string{
		"cat/flow.yaml": "materializations:\n" + deleted + disable(snowflake("a/disabled", sfImage)) +
			disable(conflicting("a/disabled-conflict")) + snowflake("a/ready", sfImage),
		"dump.ndjson": `{"catalog_name":"d/deleted","spec_type":"materialization","last_pub_id":"0123456789abcdef","spec":{"delete":true,"shards":{"flags":{"enable-runtime-v2":"true"}},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{"syncSchedule":{"syncFrequency":"1h"}}}},"bindings":[]}}
{"catalog_name":"d/disabled","spec_type":"materialization","last_pub_id":"0123456789abcdef","spec":{"shards":{"disable":true,"flags":{"enable-runtime-v2":"true"}},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{"syncSchedule":{"syncFrequency":"1h"}}}},"bindings":[]}}
`,
	})
	r := schedtoolIn(t, dir, "migrate", "-o", "json", "cat", "dump.ndjson")
	expect(t, r, 2, []string{
		`"task":"a/disabled","file":"cat/flow.yaml","line":16,"disabled":true,"situation":"fixed","action":"migrate"`,
		`"task":"a/disabled-conflict","file":"cat/flow.yaml","line":29,"disabled":true,"situation":"conflict","action":"review"`,
		`"task":"d/disabled","file":"dump.ndjson","line":2,"disabled":true,"situation":"fixed","action":"migrate"`,
		`"summary": {"tasks":4,"disabled":3,`,
	}, []string{"  1 task: both a materialization syncSchedule", "\n    a/disabled-conflict [disabled] (cat/flow.yaml:29)\n"})
	if strings.Contains(r.stdout, "deleted") {
		t.Errorf("a deleted task in the report:\n%s", r.stdout)
	}
	r = schedtoolIn(t, dir, "migrate", "cat", "dump.ndjson")
	expect(t, r, 2, []string{"+    syncSchedule:", "@@ d/disabled (line 2, "}, []string{"migrate: 4 materializations (3 disabled): 3 to migrate, 1 needs review; 1 file and 1 dump row to change"})
	if strings.Contains(r.stdout, "deleted") {
		t.Errorf("a deleted task migrated:\n%s", r.stdout)
	}
	r = schedtoolIn(t, dir, "census", "-o", "wide", "cat", "dump.ndjson")
	expect(t, r, 0, []string{"4 tasks on scheduling images (3 disabled)"}, nil)
	if strings.Contains(r.stdout, "deleted") {
		t.Errorf("census counts a deleted task:\n%s", r.stdout)
	}
	r = schedtoolIn(t, dir, "validate", "cat", "dump.ndjson")
	expect(t, r, 2, []string{"in 4 materializations"}, nil)
	r = schedtoolIn(t, dir, "explain", "a/disabled", "cat")
	expect(t, r, 0, []string{"runtime:             v2, disabled (shards.disable"}, nil)
	r = schedtoolIn(t, dir, "explain", "a/deleted", "cat")
	expect(t, r, 1, nil, []string{"no materialization a/deleted"})
	// --write: the disabled task is migrated like any other.
	schedtoolIn(t, dir, "migrate", "--write", "cat")
	r = schedtoolIn(t, dir, "census", "-o", "wide", "cat")
	expect(t, r, 0, nil, nil)
	if !regexp.MustCompile(`a/disabled\s.*\syes\s+migrated`).MatchString(r.stdout) {
		t.Errorf("the disabled task is not migrated and shown disabled:\n%s", r.stdout)
	}
}

// withConfigFile is snowflake with its config in a file of its own.
func withConfigFile(name, file string) string {
	return v2Materialization(name, sfImage, " "+file)
}

// dumpRow is a V2 snowflake row on a 1h schedule.
func dumpRow(name string) string {
	return `{"catalog_name":"` + name + `","spec_type":"materialization","last_pub_id":"0123456789abcdef","spec":{"shards":{"flags":{"enable-runtime-v2":"true"}},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{"syncSchedule":{"syncFrequency":"1h"}}}},"bindings":[]}}` + "\n"
}

// jsonActions is task: action of a migrate -o json report.
func jsonActions(t *testing.T, out string) map[string]string {
	t.Helper()
	var doc struct {
		Tasks []struct{ Task, Action, Reason string } `json:"tasks"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("migrate -o json: %v\n%s", err, out)
	}
	m := map[string]string{}
	for _, x := range doc.Tasks {
		m[x.Task] = x.Action
	}
	return m
}

// --limit N: at most N tasks per run, the first in catalog name order over
// every input; the rest deferred (exit 2: a later wave is to run). Tasks
// sharing a config file move together.
func TestMigrateLimit(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"cat/one.flow.yaml": "materializations:\n" + snowflake("acme/c", sfImage) + snowflake("acme/a", sfImage) + conflicting("acme/0-conflict"),
		"cat/two.flow.yaml": "materializations:\n" + snowflake("acme/e", sfImage) + withConfigFile("acme/g2", "g.config.yaml") + withConfigFile("acme/g1", "g.config.yaml"),
		"cat/g.config.yaml": "host: h\nsyncSchedule:\n  syncFrequency: 1h\n",
		"dump.ndjson":       dumpRow("acme/d") + dumpRow("acme/b"),
	})
	// Over a tree and a dump: one order.
	r := schedtoolIn(t, dir, "migrate", "-o", "json", "--limit", "3", "cat", "dump.ndjson")
	got := jsonActions(t, r.stdout)
	want := map[string]string{"acme/0-conflict": "review", "acme/a": "migrate", "acme/b": "migrate", "acme/c": "migrate", "acme/d": "defer", "acme/e": "defer", "acme/g1": "defer", "acme/g2": "defer"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("--limit 3: %v, want %v", got, want)
	}
	expect(t, r, 2, []string{`"actions":{"defer":4,"migrate":3,"review":1}`, `"reason":"deferred by --limit 3: this run migrates the first 3 in catalog name order`}, nil)
	r = schedtoolIn(t, dir, "migrate", "--limit", "3", "cat", "dump.ndjson")
	expect(t, r, 2, []string{"=== dump.ndjson: stored specs, by field (--out FILE writes the rows)\n@@ acme/b (line 2, "}, []string{
		"migrate: 8 materializations: 3 to migrate, 4 deferred (--limit 3), 1 needs review; 1 file and 1 dump row to change",
		"deferred to a later run (--limit 3, catalog name order):\n  acme/e (cat/two.flow.yaml:3)\n  acme/g1 (cat/two.flow.yaml:24)\n  acme/g2 (cat/two.flow.yaml:15)\n  acme/d (dump.ndjson:1)\n"})
	if strings.Contains(r.stdout, "(line 1, ") {
		t.Errorf("the deferred row acme/d is in the diff:\n%s", r.stdout)
	}

	// Waves with --write over the tree: a, c; then e (the g pair does not
	// fit beside it); then g1 and g2; then nothing.
	cfg := mustRead(t, filepath.Join(dir, "cat/g.config.yaml"))
	for i, w := range []struct {
		code     int
		migrated string
	}{
		{2, "acme/a acme/c"},
		{2, "acme/e"},
		{2, "acme/g1 acme/g2"}, // only the conflict is left: it needs review
		{2, ""},
	} {
		plan := jsonActions(t, schedtoolIn(t, dir, "migrate", "-o", "json", "--limit", "2", "cat").stdout)
		r := schedtoolIn(t, dir, "migrate", "--write", "--limit", "2", "cat")
		var names []string
		for n, a := range plan {
			if a == "migrate" {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		if r.code != w.code || strings.Join(names, " ") != w.migrated {
			t.Errorf("wave %d: exit %d, migrated %v; want exit %d, %s\n%s", i+1, r.code, names, w.code, w.migrated, r.stderr)
		}
		if i == 1 && !bytes.Equal(cfg, mustRead(t, filepath.Join(dir, "cat/g.config.yaml"))) {
			t.Error("the shared config file changed while its users were deferred")
		}
	}
	r = schedtoolIn(t, dir, "census", "-o", "wide", "cat")
	for _, n := range []string{"acme/a", "acme/c", "acme/e", "acme/g1", "acme/g2"} {
		if !regexp.MustCompile(n + `\s.*\smigrated\s`).MatchString(r.stdout) {
			t.Errorf("%s not migrated after the waves:\n%s", n, r.stdout)
		}
	}

	// A group larger than the limit says so; a wave within a prefix.
	dir = t.TempDir()
	writeTree(t, dir, map[string]string{
		"cat/flow.yaml":     "materializations:\n" + withConfigFile("acme/g1", "g.config.yaml") + withConfigFile("acme/g2", "g.config.yaml") + snowflake("acme/h", sfImage) + snowflake("other/a", sfImage),
		"cat/g.config.yaml": "syncSchedule:\n  syncFrequency: 1h\n",
	})
	r = schedtoolIn(t, dir, "migrate", "--limit", "1", "cat")
	expect(t, r, 2, nil, []string{"  acme/g1 (cat/flow.yaml:3): deferred: it shares a config file with 1 other task that must migrate with it, more than --limit 1 allows; raise --limit to at least 2\n",
		"1 to migrate, 3 deferred (--limit 1)", "  other/a (cat/flow.yaml:33)\n", "schedtool: 2 tasks share config files with more tasks than --limit 1 takes: no run at this limit migrates them; raise --limit; 3 tasks deferred by --limit 1: run again for the next wave"})
	r = schedtoolIn(t, dir, "migrate", "--write", "--limit", "5", "--prefix", "acme/", "cat")
	expect(t, r, 0, nil, []string{"migrate: 3 materializations: 3 to migrate; 2 written"})
	for _, bad := range []string{"0", "-2", "x"} {
		expect(t, schedtoolIn(t, dir, "migrate", "--limit", bad, "cat"), 1, nil, []string{"--limit"})
	}
}

// --enable-runtime-v2: a V1 task is planned as V2 and also gets
// shards.flags.enable-runtime-v2: "true", in one change that keeps every
// other byte; without it V1 tasks are skipped.
func TestEnableRuntimeV2(t *testing.T) {
	dir := t.TempDir()
	src := mustRead(t, "testdata/rollout/v1.flow.yaml")
	writeTree(t, dir, map[string]string{
		"cat/flow.yaml": string(src),
		"dump.ndjson":   strings.Replace(dumpRow("d/v1"), `"shards":{"flags":{"enable-runtime-v2":"true"}},`, "", 1),
	})
	r := schedtoolIn(t, dir, "migrate", "cat", "dump.ndjson")
	// a/v1-invalid's connector config is invalid: the flag alone would
	// not move it, and the closing line says so apart.
	expect(t, r, 2, nil, []string{"6 skipped (V1)", "schedtool: 1 V1 task skipped whose connector schedule needs a person first (the reason above): --enable-runtime-v2 alone would not move it; 5 V1 tasks skipped, still paced by their connectors: --enable-runtime-v2 moves them to the V2 runtime with their schedules\n"})
	if r.stdout != "" {
		t.Errorf("V1 tasks changed without --enable-runtime-v2:\n%s", r.stdout)
	}
	r = schedtoolIn(t, dir, "migrate", "-o", "json", "--enable-runtime-v2", "cat", "dump.ndjson")
	got := jsonActions(t, r.stdout)
	want := map[string]string{"a/flag-bool": "migrate", "a/flag-wrong": "migrate", "a/flags-other": "migrate", "a/plain": "migrate", "a/v1-invalid": "review", "d/v1": "migrate"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("--enable-runtime-v2: %v, want %v", got, want)
	}
	expect(t, r, 2, []string{`"runtime":"v1 -> v2: shards.flags.enable-runtime-v2: \"true\" (--enable-runtime-v2)"`}, nil)
	r = schedtoolIn(t, dir, "migrate", "--enable-runtime-v2", "cat", "dump.ndjson")
	expect(t, r, 2, []string{
		"   a/plain:\n+    shards:\n+      flags:\n+        enable-runtime-v2: \"true\"\n+    syncSchedule:\n+      baseInterval: 5m\n",
		"         other-flag: \"x\"   # keep me\n+        enable-runtime-v2: \"true\"\n",
		"-    shards: {flags: {enable-runtime-v2: \"TRUE\"}}\n+    shards: {flags: {enable-runtime-v2: \"true\"}}\n",
		"-        enable-runtime-v2: true\n+        enable-runtime-v2: \"true\"\n",
		"@@ d/v1 (line 1, last_pub_id 0123456789abcdef) @@\n+ /shards: {flags: {enable-runtime-v2: \"true\"}}\n+ /syncSchedule: {baseInterval: 1h}\n",
		"+ /expectPubId: \"0123456789abcdef\"\n",
	}, []string{"  1 task: the connector schedule is invalid", "\n    a/v1-invalid (cat/flow.yaml:42)\n"})
	// Every removed line is a schedule or flag line: nothing else changes.
	for _, line := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(line, "-") && !strings.HasPrefix(line, "---") &&
			!strings.Contains(line, "syncFrequency") && !strings.Contains(line, "enable-runtime-v2") && !strings.HasPrefix(line, "-{") {
			t.Errorf("a line outside the schedule and the flag changed: %q", line)
		}
	}
	// Written, the tasks are migrated V2 tasks; a second run has nothing to do.
	r = schedtoolIn(t, dir, "migrate", "--write", "--enable-runtime-v2", "cat")
	expect(t, r, 2, nil, []string{"4 to migrate, 1 needs review; 1 written"})
	after := mustRead(t, filepath.Join(dir, "cat/flow.yaml"))
	if i, j := bytes.Index(src, []byte("  a/v1-invalid:")), bytes.Index(after, []byte("  a/v1-invalid:")); i < 0 || j < 0 || !bytes.Equal(src[i:], after[j:]) {
		t.Errorf("the task that needs review changed:\n%s", after)
	}
	r = schedtoolIn(t, dir, "census", "-o", "wide", "cat")
	for _, n := range []string{"a/plain", "a/flags-other", "a/flag-wrong", "a/flag-bool"} {
		if !regexp.MustCompile(n + `\s.*\sv2\s.*\smigrated\s`).MatchString(r.stdout) {
			t.Errorf("%s is not a migrated V2 task:\n%s", n, r.stdout)
		}
	}
	r = schedtoolIn(t, dir, "validate", "-o", "json", "cat")
	if strings.Contains(r.stdout, `"task":"a/plain"`) || strings.Contains(r.stdout, `"task":"a/flag-bool"`) {
		t.Errorf("validate finds something on a moved task:\n%s", r.stdout)
	}
	r = schedtoolIn(t, dir, "migrate", "--enable-runtime-v2", "cat")
	expect(t, r, 2, nil, []string{"1 needs review, 4 with nothing to do; 0 files to change"})
}

// A run that leaves V1 tasks on their connectors' pacing is not done: it
// exits 2 in every mode (docs/behaviour.md §7: 0 only when everything is done), says
// so on standard error, and changes nothing. A V1 task with no delay is
// not held back by anything and does not count.
func TestBlockedV1ExitsTwo(t *testing.T) {
	v1 := func(name, freq string) string {
		return "  " + name + ":\n    endpoint:\n      connector:\n        image: ghcr.io/estuary/materialize-snowflake:v4\n        config:\n          host: h\n          syncSchedule:\n            syncFrequency: " + freq + "\n    bindings: []\n"
	}
	one := "schedtool: 1 V1 task skipped, still paced by its connector: --enable-runtime-v2 moves it to the V2 runtime with its schedule\n"
	two := "schedtool: 2 V1 tasks skipped, still paced by their connectors: --enable-runtime-v2 moves them to the V2 runtime with their schedules\n"
	for _, tc := range []struct {
		name   string
		src    string
		args   []string
		code   int
		stdout string // a prefix of standard output
		stderr []string
	}{
		{"dry run, one V1 task", v1("a/v1", "1h"), nil, 2, "", []string{"1 skipped (V1); 0 files to change", one}},
		{"dry run, two V1 tasks", v1("a/v1", "1h") + v1("a/v1b", "30m"), nil, 2, "", []string{"2 skipped (V1)", two}},
		{"-o json", v1("a/v1", "1h"), []string{"-o", "json"}, 2, "{\n  \"tasks\": [", []string{one}},
		{"--write", v1("a/v1", "1h"), []string{"--write"}, 2, "", []string{"1 skipped (V1)", one}},
		{"a V1 task with no delay is done", v1("a/v1", "0s"), nil, 0, "", []string{"1 with nothing to do"}},
		{"--enable-runtime-v2 moves it", v1("a/v1", "1h"), []string{"--enable-runtime-v2"}, 2, "--- a/cat/flow.yaml", []string{"1 to migrate"}},
		// The flag alone would not move a V1 task whose connector schedule
		// is invalid: the advice is a person's, not the flag's.
		{"an invalid connector schedule needs a person first", v1("a/v1", "soon") + v1("a/v1b", "1h"), nil, 2, "", []string{
			"  1 task: a V1 task whose connector schedule needs a person before migrate --enable-runtime-v2 can move it: the connector schedule is invalid: validating schedule configuration: parsing interval in CreateSchedule: time: invalid duration \"soon\"\n",
			"  1 task: a V1 task: a materialization syncSchedule would be rejected; migrate --enable-runtime-v2 moves it to the V2 runtime with its schedule\n",
			"schedtool: 1 V1 task skipped whose connector schedule needs a person first (the reason above): --enable-runtime-v2 alone would not move it; " + strings.TrimPrefix(one, "schedtool: ")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			src := "materializations:\n" + tc.src
			writeTree(t, dir, map[string]string{"cat/flow.yaml": src})
			r := schedtoolIn(t, dir, append(append([]string{"migrate"}, tc.args...), "cat")...)
			expect(t, r, tc.code, nil, tc.stderr)
			if !strings.HasPrefix(r.stdout, tc.stdout) || (tc.stdout == "" && r.stdout != "") {
				t.Errorf("stdout: %q, want it to start with %q", r.stdout, tc.stdout)
			}
			if tc.code == 0 && strings.Contains(r.stderr, "V1 task") {
				t.Errorf("a V1 task with nothing to do is reported:\n%s", r.stderr)
			}
			if got := string(mustRead(t, filepath.Join(dir, "cat/flow.yaml"))); got != src {
				t.Errorf("the catalog changed:\n%s", got)
			}
		})
	}
}

// Values Flow's model refuses (shards.flags not an object of strings,
// shards.disable or delete not a boolean), from a source and from a dump:
// validate reports each at its node, migrate leaves the task for review
// (also with --enable-runtime-v2, which must not overwrite flags: "x"),
// census says needs-review, and nothing panics or changes.
func TestSpecRefusedByFlowEndToEnd(t *testing.T) {
	dir := t.TempDir()
	cfg := "\n          host: h\n          syncSchedule:\n            syncFrequency: 1h"
	src := "materializations:\n" +
		strings.Replace(v2Materialization("a/disable", sfImage, cfg), "    shards:\n", "    shards:\n      disable: \"true\"\n", 1) +
		strings.Replace(v2Materialization("a/delete", sfImage, cfg), "    shards:\n", "    delete: \"yes\"\n    shards:\n", 1) +
		strings.Replace(v2Materialization("a/flags", sfImage, cfg), "      flags:\n        enable-runtime-v2: \"true\"\n", "      flags: \"x\"\n", 1)
	row := strings.Replace(dumpRow("d/other-flag"), `{"enable-runtime-v2":"true"}`, `{"enable-runtime-v2":"true","other":3}`, 1)
	writeTree(t, dir, map[string]string{"cat/flow.yaml": src, "dump.ndjson": row})

	r := schedtoolIn(t, dir, "validate", "cat", "dump.ndjson")
	want := `cat/flow.yaml:4:16: error parse-error: materialization a/disable: shards.disable must be a boolean, not the string "true"; Flow's model refuses the spec, so its build fails
cat/flow.yaml:13:13: info connector-schedule-in-use: materialization a/disable is paced by its connector, which delays commit acknowledgements by up to 1h (syncSchedule.syncFrequency); sync-now cannot collapse that delay: run schedtool migrate to move the schedule into the runtime
cat/flow.yaml:16:13: error parse-error: materialization a/delete: delete must be a boolean, not the string "yes"; Flow's model refuses the spec, so its build fails (schedtool reads it as a task, not a deletion)
cat/flow.yaml:26:13: info connector-schedule-in-use: materialization a/delete is paced by its connector, which delays commit acknowledgements by up to 1h (syncSchedule.syncFrequency); sync-now cannot collapse that delay: run schedtool migrate to move the schedule into the runtime
cat/flow.yaml:30:14: error invalid-shard-flag: materialization a/flags: shards.flags must be an object of string values, not the string "x"; Flow refuses the spec, and the task is not on the V2 runtime
dump.ndjson:1:157: error invalid-shard-flag: materialization d/other-flag: shards.flags.other must be a string, not the number 3; Flow refuses the spec
dump.ndjson:1:262: info connector-schedule-in-use: materialization d/other-flag is paced by its connector, which delays commit acknowledgements by up to 1h (syncSchedule.syncFrequency); sync-now cannot collapse that delay: run schedtool migrate to move the schedule into the runtime
4 errors, 0 warnings, 3 infos in 4 materializations from 2 files; 1 task still paced by its connector (V1): a/flags (census lists it; migrate --enable-runtime-v2 moves it)
`
	expect(t, r, 2, nil, nil)
	if r.stdout != want || r.stderr != "" {
		t.Errorf("validate:\n%s\nwant:\n%s\nstderr: %s", r.stdout, want, r.stderr)
	}
	// -o json and sarif stay documents, with the same findings.
	for _, format := range []string{"json", "sarif"} {
		r = schedtoolIn(t, dir, "validate", "-o", format, "cat", "dump.ndjson")
		if r.code != 2 || !json.Valid([]byte(r.stdout)) || strings.Count(r.stdout, "Flow refuses the spec") != 2 || strings.Count(r.stdout, "Flow's model refuses the spec") != 2 {
			t.Errorf("validate -o %s: exit %d\n%s", format, r.code, r.stdout)
		}
	}

	reviews := []string{
		"  1 task: Flow refuses the spec as it is (delete must be a boolean, not the string \"yes\"); fix that first\n    a/delete (cat/flow.yaml:16)\n",
		"  1 task: Flow refuses the spec as it is (shards.disable must be a boolean, not the string \"true\"); fix that first\n    a/disable (cat/flow.yaml:3)\n",
		"  1 task: Flow refuses the spec as it is (shards.flags.other must be a string, not the number 3); fix that first\n    d/other-flag (dump.ndjson:1)\n",
	}
	r = schedtoolIn(t, dir, "migrate", "cat", "dump.ndjson")
	expect(t, r, 2, nil, append([]string{"migrate: 4 materializations: 3 need review, 1 skipped (V1); 0 files to change", "schedtool: 3 tasks need review; 1 V1 task skipped"}, reviews...))
	if r.stdout != "" {
		t.Errorf("migrate changed a spec Flow refuses:\n%s", r.stdout)
	}
	r = schedtoolIn(t, dir, "migrate", "--write", "--enable-runtime-v2", "--out", "rows.ndjson", "cat", "dump.ndjson")
	expect(t, r, 1, nil, []string{"--write and --out"})
	r = schedtoolIn(t, dir, "migrate", "--write", "--enable-runtime-v2", "cat")
	expect(t, r, 2, nil, []string{"3 need review; 0 written", reviews[0], reviews[1],
		"  1 task: Flow refuses the spec as it is (shards.flags must be an object of string values, not the string \"x\"); fix that first\n    a/flags (cat/flow.yaml:29)\n"})
	if got := string(mustRead(t, filepath.Join(dir, "cat/flow.yaml"))); got != src {
		t.Errorf("the source changed:\n%s", got)
	}

	r = schedtoolIn(t, dir, "census", "-o", "csv", "cat", "dump.ndjson")
	for _, line := range []string{
		"a/delete,ghcr.io/estuary/materialize-snowflake,v4,syncSchedule,v2,fixed,1h,false,false,needs-review,",
		"a/disable,ghcr.io/estuary/materialize-snowflake,v4,syncSchedule,v2,fixed,1h,false,false,needs-review,",
		"a/flags,ghcr.io/estuary/materialize-snowflake,v4,syncSchedule,v1,fixed,1h,false,false,blocked-v1,",
		"d/other-flag,ghcr.io/estuary/materialize-snowflake,v4,syncSchedule,v2,fixed,1h,false,false,needs-review,",
	} {
		if !strings.Contains(r.stdout, line) {
			t.Errorf("census lacks %q:\n%s", line, r.stdout)
		}
	}
	if r.code != 0 {
		t.Errorf("census: exit %d\n%s", r.code, r.stderr)
	}
}
