package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/estuary/schedtool/bench/gen"
	"github.com/estuary/schedtool/catalog/pgsource/pgtest"
)

// peakRSS runs cmd and samples its peak resident memory (VmHWM) until
// it ends; 0 without /proc. (The rusage of a child is no measure: it
// counts the memory of the test process it was forked from.)
func peakRSS(t *testing.T, cmd *exec.Cmd) (run, int64) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	done := make(chan struct{})
	var peak int64
	go func() {
		defer close(done)
		for {
			b, err := os.ReadFile(status)
			if err != nil {
				return // gone
			}
			for _, line := range strings.Split(string(b), "\n") {
				var kb int64
				if _, err := fmt.Sscanf(line, "VmHWM: %d kB", &kb); err == nil && kb<<10 > peak {
					peak = kb << 10
				}
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	err := cmd.Wait()
	<-done
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return run{code, out.String(), errb.String()}, peak
}

// A one-line flowctl raw get array (jq -c) is read in bounded memory,
// each finding at its column on the file's one line (2,000 rows of 950
// KB took 3.5 GB).
func TestCompactRawArrayBounded(t *testing.T) {
	const rows = 2000
	in := gen.OneLineRaw(rows)
	p := filepath.Join(t.TempDir(), "live_specs.json")
	if err := os.WriteFile(p, in, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"census", "-o", "json"}, {"validate", "-o", "json"}, {"migrate", "-o", "json"}} {
		r, rss := peakRSS(t, exec.Command(binary, append(args, p)...))
		if r.code == 1 || !strings.Contains(r.stdout, fmt.Sprintf("acmeCo/t%06d/", rows-1)) {
			t.Fatalf("%v: exit %d\n%.500s\n%s", args, r.code, r.stdout, r.stderr)
		}
		if rss > 256<<20 {
			t.Errorf("%v on %d bytes peaked at %d MiB", args, len(in), rss>>20)
		}
		if args[0] != "validate" {
			continue
		}
		var out struct{ Findings []rawFinding }
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || len(out.Findings) != rows {
			t.Fatalf("validate: %d findings (%v)", len(out.Findings), err)
		}
		for _, f := range out.Findings {
			key := f.Pointer[strings.LastIndexByte(f.Pointer, '/')+1:]
			if f.Line != 1 || f.Column < 1 || f.Column > len(in) || !bytes.HasSuffix(in[:f.Column-1], []byte(`"`+key+`":`)) {
				t.Fatalf("%s at %d:%d (%s), not after its key", f.Rule, f.Line, f.Column, f.Pointer)
			}
		}
	}
}

// pinnedImage is a connector image pinned by digest after its tag.
const pinnedImage = "ghcr.io/estuary/materialize-snowflake:v4@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// pinnedRow is a live_specs row of a task on pinnedImage paced every 4h,
// its image columns as Flow writes them: cut at '@', the name keeping
// the tag.
const pinnedRow = `{"catalog_name":"acmeCo/pinned/materialize-snowflake","spec_type":"materialization","last_pub_id":"00000000000000ac","connector_image_name":"ghcr.io/estuary/materialize-snowflake:v4","connector_image_tag":"@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef","spec":{"shards":{"flags":{"enable-runtime-v2":"true"}},"endpoint":{"connector":{"image":"` + pinnedImage + `","config":{"host":"h","warehouse":"w","syncSchedule":{"syncFrequency":"4h"}}}},"bindings":[]}}` + "\n"

// A task on a pinned image (name:tag@sha256:...) is on its connector:
// census's gate counts it, with its tag, from a source, a dump and
// PostgreSQL, --image picks it, and migrate moves its schedule.
func TestPinnedImage(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "flow.yaml")
	dump := filepath.Join(dir, "live_specs.ndjson")
	writeFiles(t, dir, map[string]string{"flow.yaml": `materializations:
  acmeCo/pinned/materialize-snowflake:
    shards: {flags: {enable-runtime-v2: "true"}}
    endpoint:
      connector:
        image: ` + pinnedImage + `
        config: {host: h, warehouse: w, syncSchedule: {syncFrequency: 4h}}
    bindings: []
`, "live_specs.ndjson": pinnedRow})
	gate := func(t *testing.T, in string) {
		for _, sel := range [][]string{nil, {"--image", "ghcr.io/estuary/materialize-snowflake"}} {
			args := append(append([]string{"census", "-o", "json", "--fail-if-remaining"}, sel...), in)
			r := schedtool(t, "", args...)
			var out struct {
				Tasks []struct{ Task, Image, Tag, Delay string }
			}
			if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 2 || len(out.Tasks) != 1 ||
				out.Tasks[0].Image != "ghcr.io/estuary/materialize-snowflake" || out.Tasks[0].Tag != "v4" || out.Tasks[0].Delay != "4h" {
				t.Errorf("%s %v: exit %d %v\n%s%s", displayName(in), sel, r.code, err, r.stdout, r.stderr)
			}
		}
	}
	gate(t, src)
	gate(t, dump)
	t.Run("postgres", func(t *testing.T) {
		db := pgtest.Require(t)
		if _, err := db.Load(context.Background(), strings.NewReader(pinnedRow)); err != nil {
			t.Fatal(err)
		}
		gate(t, db.BypassURL)
	})
	r := schedtool(t, "", "migrate", src)
	if r.code != 2 || !strings.Contains(r.stdout, "+      baseInterval: 4h") {
		t.Errorf("migrate: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = schedtool(t, "", "census", "--image", pinnedImage, src)
	if r.code != 1 || !strings.Contains(r.stderr, "without its tag v4 and digest (--image ghcr.io/estuary/materialize-snowflake)") {
		t.Errorf("--image with a digest: exit %d\n%s", r.code, r.stderr)
	}
}

// A PATH that only resembles a database URL names no file: the message
// that says so masks what stands between its ':' and '@', on standard
// error and in the json and sarif documents.
func TestNearURLPasswordMasked(t *testing.T) {
	const pw = "Hunter2-Secret"
	for _, arg := range []string{"postgres:/ops:" + pw + "@db/postgres", "postgres//ops:" + pw + "@db", "postgres:ops:" + pw + "@db", "postgresql:/ops:" + pw + "@db?password=" + pw} {
		for _, args := range [][]string{{"validate"}, {"validate", "-o", "json"}, {"validate", "-o", "sarif"}, {"census", "-o", "json"}, {"migrate", "-o", "json"}, {"explain", "acme/x"}} {
			r := schedtool(t, "", append(args, arg)...)
			if r.code != 1 || strings.Contains(r.stdout+r.stderr, pw) || !strings.Contains(r.stderr, "[password]@db") {
				t.Errorf("%v %s: exit %d\n%s%s", args, arg, r.code, r.stdout, r.stderr)
			}
			if len(args) > 1 && args[1] == "-o" && (!json.Valid([]byte(r.stdout)) || !strings.Contains(r.stdout, "[password]@db")) {
				t.Errorf("%v %s: the document does not say what failed: %s", args, arg, r.stdout)
			}
		}
	}
}

// A file named as a PATH, or standard input, that is neither a catalog
// source, a stored-spec dump nor a raw array is an error saying what it
// looks like, exit 1 for every command (docs/behaviour.md §2): the gate used to pass
// ("0 tasks") on null, one pretty-printed row or {"data": [rows]}, and
// validate said 0 findings on an unrelated YAML file.
func TestNotAnInput(t *testing.T) {
	dir := t.TempDir()
	row := `{"catalog_name": "acmeCo/a", "spec_type": "materialization", "spec": {"endpoint": {"connector": {"image": "ghcr.io/estuary/materialize-snowflake:v4", "config": {"syncSchedule": {"syncFrequency": "4h"}}}}, "bindings": []}}`
	refused := map[string][2]string{
		"null.yaml":    {"null\n", "it holds null"},
		"tilde.yaml":   {"--- ~\n", "it holds null"},
		"row.json":     {prettyJSON(t, row), "it is one stored-spec row written over several lines"},
		"data.json":    {`{"data": [` + row + "]}\n", `it is a mapping whose "data" holds stored-spec rows`},
		"compose.yaml": {"version: '3'\nservices:\n  web: {image: nginx}\n", "it is a mapping whose keys (version, services) are none of a catalog source's"},
		"list.yaml":    {"- a\n- b\n", "it is a YAML list"},
		"word.yaml":    {"hello\n", "it holds a string"},
		"nums.json":    {"[1, 2]\n", "it is a JSON array whose first element is a number"},
		"lists.json":   {"\n[[" + row + "]]\n", "it is a JSON array whose first element is a list"},
	}
	files := map[string]string{}
	for name, c := range refused {
		files[name] = c[0]
	}
	// Near misses: sources with nothing in them, and a source with a
	// key Flow no longer knows beside the ones it does.
	accepted := map[string]string{
		"empty.yaml":  "# nothing yet\n---\n",
		"object.json": "{}\n",
		"schema.yaml": "$schema: https://example.com/flow.schema.json\n",
		"import.yaml": "import: [empty.yaml]\n",
		"legacy.yaml": "collections: {}\nendpoints: {}\n",
	}
	for name, text := range accepted {
		files[name] = text
	}
	writeFiles(t, dir, files)
	commands := [][]string{{"validate"}, {"validate", "-o", "json"}, {"census", "--fail-if-remaining"}, {"migrate"}, {"explain", "acmeCo/a"}}
	for name, c := range refused {
		for _, args := range commands {
			r := schedtoolIn(t, dir, append(args, name)...)
			if r.code != 1 || !strings.Contains(r.stderr, name+": "+c[1]) {
				t.Errorf("%v %s: exit %d, want 1 and %q\n%s", args, name, r.code, c[1], r.stderr)
			}
			r = schedtoolStdin(t, dir, c[0], append(args, "-")...)
			if r.code != 1 || !strings.Contains(r.stderr, "-: "+c[1]) {
				t.Errorf("%v - (%s): exit %d, want 1 and %q\n%s", args, name, r.code, c[1], r.stderr)
			}
		}
	}
	for name := range accepted {
		if r := schedtoolIn(t, dir, "census", "--fail-if-remaining", name); r.code != 0 {
			t.Errorf("census %s: exit %d\n%s", name, r.code, r.stderr)
		}
		if r := schedtoolIn(t, dir, "validate", name); r.code != 0 {
			t.Errorf("validate %s: exit %d\n%s", name, r.code, r.stderr)
		}
	}
}

// prettyJSON is text as jq prints it: one field a line.
func prettyJSON(t *testing.T, text string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(text), "", "  "); err != nil {
		t.Fatal(err)
	}
	return b.String() + "\n"
}

// A migrated copy left in the tree (docs/behaviour.md §2) is another
// catalog defining the same name: validate says so (an info), census
// counts the name once with the original's status (the gate stays shut
// until the original migrates), migrate migrates the original as itself.
func TestMigratedCopyInTheTree(t *testing.T) {
	dir := t.TempDir()
	const task = `materializations:
  acmeCo/%s/materialize-snowflake:
    shards: {flags: {enable-runtime-v2: "true"}}
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config: {host: h, warehouse: w, syncSchedule: {syncFrequency: 4h}}
    bindings: []
`
	twice := fmt.Sprintf(task, "twice")
	migrated := strings.Replace(strings.Replace(twice, "syncFrequency: 4h", `syncFrequency: "0s"`, 1), "    endpoint:", "    syncSchedule: {baseInterval: 4h}\n    endpoint:", 1)
	copyPath := filepath.Join("out", "acmeCo", "twice", "materialize-snowflake", "flow.yaml")
	writeFiles(t, dir, map[string]string{
		"flow.yaml":       "import: [twice.flow.yaml, other.flow.yaml]\n",
		"twice.flow.yaml": twice,
		"other.flow.yaml": fmt.Sprintf(task, "other"),
		copyPath:          migrated,
	})

	r := schedtoolIn(t, dir, "validate", ".")
	if r.code != 0 || !strings.Contains(r.stdout, copyPath+":3:5: info defined-in-several-catalogs: materialization acmeCo/twice/materialize-snowflake is also defined at twice.flow.yaml:3:5") {
		t.Errorf("validate: exit %d\n%s", r.code, r.stdout)
	}

	status := func() string {
		r := schedtoolIn(t, dir, "census", "-o", "json", "--fail-if-remaining", ".")
		var c struct {
			Tasks []struct{ Task, Status string }
		}
		if err := json.Unmarshal([]byte(r.stdout), &c); err != nil {
			t.Fatal(err, r.stdout)
		}
		for _, x := range c.Tasks {
			if x.Task == "acmeCo/twice/materialize-snowflake" {
				return fmt.Sprintf("%s exit %d tasks %d", x.Status, r.code, len(c.Tasks))
			}
		}
		return "absent"
	}
	if got := status(); got != "ready exit 2 tasks 2" {
		t.Errorf("census before the original migrates: %s, want the original's status (ready), the gate shut", got)
	}

	r = schedtoolIn(t, dir, "migrate", "--write", ".")
	if r.code != 0 || strings.Contains(r.stderr, "defined more than once") {
		t.Errorf("migrate --write: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if got := string(mustRead(t, filepath.Join(dir, copyPath))); got != migrated {
		t.Errorf("migrate changed the migrated copy:\n%s", got)
	}
	if got := status(); got != "migrated exit 0 tasks 2" {
		t.Errorf("census after: %s", got)
	}
}

// migrate --out DIR from stored specs leaves no empty directory behind
// for a task whose file cannot be staged (here: over the file size limit
// of the process, as a full disk would refuse it); the directories other
// tasks use, and those that were there before, stay.
func TestOutTreeDropsDirectoriesOfUnstagedTasks(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash for ulimit -f")
	}
	row := func(name, host string) string {
		return fmt.Sprintf(`{"catalog_name":%q,"spec_type":"materialization","last_pub_id":"1234ff4b568003a5","spec":{"shards":{"flags":{"enable-runtime-v2":"true"}},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{"host":%q,"warehouse":"w","syncSchedule":{"syncFrequency":"4h"}}}},"bindings":[]}}`+"\n", name, host)
	}
	big := strings.Repeat("h", 64<<10) // over ulimit -f 16 (16 KiB) once written
	for _, tc := range []struct {
		name, dump string
		left       []string // directories under DIR after the run
		pre        bool     // DIR/pre is there before the run
	}{
		{"beside a task written", row("acmeCo/big/deep/materialize-snowflake", big) + row("acmeCo/small/materialize-snowflake", "h"),
			[]string{"acmeCo", "acmeCo/small", "acmeCo/small/materialize-snowflake"}, false},
		{"alone", row("acmeCo/big/deep/materialize-snowflake", big), nil, false},
		{"under a directory already there", row("pre/big/materialize-snowflake", big), []string{"pre"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			work := t.TempDir()
			out := filepath.Join(work, "out")
			writeFiles(t, work, map[string]string{"live.ndjson": tc.dump})
			if tc.pre {
				os.MkdirAll(filepath.Join(out, "pre"), 0o755)
			}
			args := []string{"-c", `ulimit -f 16 && exec "$0" "$@"`, binary, "migrate", "--out", out, filepath.Join(work, "live.ndjson")}
			if tc.pre {
				args = append(args, "--force") // DIR is not empty
			}
			cmd := exec.Command("bash", args...)
			r := execRun(t, cmd)
			if r.code != 1 || !strings.Contains(r.stderr, "acmeCo/big") && !strings.Contains(r.stderr, "pre/big") {
				t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			var dirs []string
			filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
				if err == nil && d.IsDir() && p != out {
					rel, _ := filepath.Rel(out, p)
					dirs = append(dirs, filepath.ToSlash(rel))
				}
				return nil
			})
			if strings.Join(dirs, ",") != strings.Join(tc.left, ",") {
				t.Errorf("directories left under DIR: %v, want %v", dirs, tc.left)
			}
			_, err := os.Stat(out)
			if wantOut := len(tc.left) > 0; (err == nil) != wantOut {
				t.Errorf("DIR exists: %v, want %v", err == nil, wantOut)
			}
		})
	}
}

// A name defined twice in one catalog whose definitions use a config
// file shared with another task holds the file back: the other task's
// change would leave the duplicated one without pacing once it is
// published again (and with no other user, migrate used to panic).
func TestDuplicateTaskNamesHoldTheirConfig(t *testing.T) {
	const task = `materializations:
  acmeCo/%s/materialize-snowflake:
    shards: {flags: {enable-runtime-v2: "true"}}
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config: shared.config.yaml
    bindings: []
`
	const config = "host: h\nwarehouse: w\nsyncSchedule:\n  syncFrequency: 4h\n"
	for _, withOther := range []bool{false, true} {
		dir := t.TempDir()
		files := map[string]string{"shared.config.yaml": config, "flow.yaml": "import: [a.yaml, b.yaml]\n", "a.yaml": fmt.Sprintf(task, "twice"), "b.yaml": fmt.Sprintf(task, "twice")}
		if withOther {
			files["c.flow.yaml"] = fmt.Sprintf(task, "other")
		}
		writeFiles(t, dir, files)
		r := schedtoolIn(t, dir, "migrate", "--write", ".")
		if r.code != 1 || strings.Contains(r.stderr, "panic") || withOther && !strings.Contains(r.stdout+r.stderr, "acmeCo/twice/materialize-snowflake (a.yaml:7: defined more than once in one catalog") {
			t.Errorf("other user %v: exit %d\n%s%s", withOther, r.code, r.stdout, r.stderr)
		}
		for name, text := range files {
			if got := string(mustRead(t, filepath.Join(dir, name))); got != text {
				t.Errorf("other user %v: %s changed:\n%s", withOther, name, got)
			}
		}
	}
}
