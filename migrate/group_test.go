package migrate

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/internal/groupwrite"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/schedule/connector"
)

// groupTree writes a catalog whose migration touches multi-file groups:
//
//   - flow.yaml, b/flow.yaml, shared.yaml, a.config.yaml: task A with its
//     own config file, B1 and B2 (in two sources) sharing shared.yaml, and
//     D on the 30m default with an inline config (one group: they share
//     files);
//   - c/flow.yaml and c/reports.config.json: C with a sealed config (the
//     change goes into sops.overlay);
//   - e/flow.yaml: E, alternating, inline (a group of one file).
func groupTree(t testing.TB, dir string) { groupTreeOf(t, dir, "acmeCo") }

// groupTreeOf is groupTree with the tasks under another tenant.
func groupTreeOf(t testing.TB, dir, tenant string) {
	t.Helper()
	files := map[string]string{
		"flow.yaml": `materializations:
  acmeCo/a:
    shards: {flags: {enable-runtime-v2: "true"}}
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config: a.config.yaml
    bindings: []
  acmeCo/b1:
    shards: {flags: {enable-runtime-v2: "true"}}
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config: shared.yaml
    bindings: []
  acmeCo/d:
    shards: {flags: {enable-runtime-v2: "true"}}
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-redshift:v2
        config: {host: d}
    bindings: []
`,
		"b/flow.yaml": `materializations:
  acmeCo/b2:
    shards: {flags: {enable-runtime-v2: "true"}}
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config: ../shared.yaml
    bindings: []
`,
		"shared.yaml":   "host: shared\nsyncSchedule:\n  syncFrequency: 2h\n",
		"a.config.yaml": "host: a\nsyncSchedule:\n  syncFrequency: 1h\n",
		"c/flow.yaml": `materializations:
  acmeCo/c:
    shards: {flags: {enable-runtime-v2: "true"}}
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-bigquery:v3
        config: reports.config.json
    bindings: []
`,
		"e/flow.yaml": `materializations:
  acmeCo/e:
    shards: {flags: {enable-runtime-v2: "true"}}
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config:
          syncSchedule: {syncFrequency: 15m, timezone: UTC, fastSyncStartTime: "09:00", fastSyncStopTime: "17:00"}
    bindings: []
`,
	}
	sealed, err := os.ReadFile("testdata/golden/sealed/in/reports.config.json")
	if err != nil {
		t.Fatal(err)
	}
	files["c/reports.config.json"] = string(sealed)
	for name, content := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(strings.ReplaceAll(content, "acmeCo/", tenant+"/")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// groupTasks are the tasks of groupTree, all of which migrate.
var groupTasks = []string{"acmeCo/a", "acmeCo/b1", "acmeCo/b2", "acmeCo/c", "acmeCo/d", "acmeCo/e"}

// taskState is how a task reads from the files as they are: its plan's
// situation, and whether anything paces it (a model schedule, or a
// connector delay that is not known to be zero).
type taskState struct {
	Situation plan.Situation
	Paced     bool
}

func taskStates(t testing.TB, dir string) map[string]taskState {
	t.Helper()
	inputs, err := input.Resolve([]string{dir}, catalog.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	cat := catalog.Load(inputs, catalog.DefaultOptions())
	if len(cat.Problems) > 0 {
		t.Fatalf("the tree does not load: %+v", cat.Problems)
	}
	reg := connector.Builtin()
	p := &plan.Planner{Registry: reg}
	out := map[string]taskState{}
	for _, m := range cat.Materializations {
		_, _, res := m.ConnectorSchedule(reg)
		out[m.Name] = taskState{p.Decide(m).Situation, m.ModelSchedule() != nil || !(res.Known && res.Delay == 0)}
	}
	return out
}

// snapshot is every file under dir (temp files too) and its content.
func snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			out[rel] = string(b)
		}
		return nil
	})
	return out
}

func writeRun(dir string) (*Summary, string, error) {
	return faultRun(dir, groupwrite.Hooks{})
}

// faultRun is writeRun with the writes' faults injected by h.
func faultRun(dir string, h groupwrite.Hooks) (*Summary, string, error) {
	reg := connector.Builtin()
	mg := &Migrator{Planner: &plan.Planner{Registry: reg}, Registry: reg}
	inputs, err := input.Resolve([]string{dir}, catalog.DefaultOptions())
	if err != nil {
		return nil, "", err
	}
	var out, errb bytes.Buffer
	sum, err := mg.Run(inputs, RunOptions{Load: catalog.DefaultOptions(), Mode: Write, Hooks: h}, &out, &errb)
	return sum, errb.String(), err
}

// failAt makes the n-th step of the writes fail (counting from 1), and,
// when restore > 0, the restore-th restore of a rollback too. It returns
// how many steps ran.
func failAt(n, restore int) (groupwrite.Hooks, *int) {
	count, restores := 0, 0
	fault := func(step, path string) error {
		if step == "restore" {
			restores++
			if restores == restore {
				return fmt.Errorf("injected fault at %s of %s", step, path)
			}
			return nil
		}
		count++
		if count == n {
			return fmt.Errorf("injected fault at %s of %s", step, path)
		}
		return nil
	}
	return groupwrite.Hooks{Fault: fault}, &count
}

// TestGroupFaultAtEveryStep fails each step of the writes in turn (every
// temp file's create, write, sync and close, every original's backup,
// every rename) and then also a restore of the rollback. Afterwards every
// file is old or new, no temp file is left, each task is untouched or
// fully migrated (with a failed restore: still paced), and a run without
// faults completes the migration.
func TestGroupFaultAtEveryStep(t *testing.T) {
	ref := t.TempDir()
	groupTree(t, ref)
	old := snapshot(t, ref)
	before := taskStates(t, ref)
	count, steps := failAt(0, 0)
	if sum, msg, err := faultRun(ref, count); err != nil || !sum.OK() || sum.Written != 7 {
		t.Fatalf("reference run: %v %+v\n%s", err, sum, msg)
	}
	total := *steps
	want := snapshot(t, ref)
	migrated := taskStates(t, ref)
	for _, task := range groupTasks {
		if migrated[task].Situation != plan.Migrated || before[task].Situation == plan.Migrated || !before[task].Paced {
			t.Fatalf("%s: %+v before, %+v after the reference run", task, before[task], migrated[task])
		}
	}
	if total < 7*6 {
		t.Fatalf("only %d steps for 7 files", total)
	}
	for n := 1; n <= total; n++ {
		for _, restore := range []int{0, 1, 2} {
			t.Run(fmt.Sprintf("step%d-restore%d", n, restore), func(t *testing.T) {
				dir := t.TempDir()
				groupTree(t, dir)
				sum, msg, err := faultRun(dir, first(failAt(n, restore)))
				if err != nil {
					t.Fatal(err)
				}
				if sum.OK() || sum.Failed == 0 || !strings.Contains(msg, "injected fault") {
					t.Errorf("the fault was not reported: %+v\n%s", sum, msg)
				}
				got := snapshot(t, dir)
				for name, content := range got {
					if groupwrite.IsTemp(name) {
						t.Errorf("temp file left behind: %s", name)
					} else if content != old[name] && content != want[name] {
						t.Errorf("%s is neither old nor new:\n%s", name, content)
					}
				}
				states := taskStates(t, dir)
				for _, task := range groupTasks {
					s := states[task]
					if !s.Paced {
						t.Errorf("%s is unpaced: %+v", task, s)
					}
					if restore == 0 && s != before[task] && s != migrated[task] {
						t.Errorf("%s is half migrated: %+v (before %+v)", task, s, before[task])
					}
				}
				if sum, msg, err := writeRun(dir); err != nil || !sum.OK() {
					t.Fatalf("the rerun: %v %+v\n%s", err, sum, msg)
				}
				if got := snapshot(t, dir); !equalMaps(got, want) {
					t.Errorf("the rerun did not complete the migration:\n%s", diffMaps(got, want))
				}
			})
		}
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func diffMaps(got, want map[string]string) string {
	var out []string
	for k, v := range got {
		if want[k] != v {
			out = append(out, fmt.Sprintf("%s:\n%s\nwant:\n%s", k, v, want[k]))
		}
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			out = append(out, k+": missing")
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// The write order of a group: the file adding a task's model schedule
// before the file zeroing its connector, whatever the paths' order.
func TestGroupWriteOrder(t *testing.T) {
	files := []*File{
		{Path: "a.config.yaml", Tasks: []string{"a"}, Zeroes: []string{"a"}},
		{Path: "b/flow.yaml", Tasks: []string{"b2"}, Models: []string{"b2"}},
		{Path: "flow.yaml", Tasks: []string{"a", "b1", "d"}, Models: []string{"a", "b1", "d"}, Zeroes: []string{"d"}},
		{Path: "shared.yaml", Tasks: []string{"b1", "b2"}, Zeroes: []string{"b1", "b2"}},
		{Path: "z/flow.yaml", Tasks: []string{"z"}, Models: []string{"z"}, Zeroes: []string{"z"}},
	}
	gs := groups(files)
	var got []string
	for _, g := range gs {
		var names []string
		for _, f := range g.files {
			names = append(names, f.Path)
		}
		got = append(got, strings.Join(names, " "), g.err)
	}
	want := []string{"b/flow.yaml flow.yaml a.config.yaml shared.yaml", "", "z/flow.yaml", ""}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("groups %q, want %q", got, want)
	}
	// Two files that each hold the other's model: no safe order.
	cyc := groups([]*File{
		{Path: "x", Tasks: []string{"p", "q"}, Models: []string{"p"}, Zeroes: []string{"q"}},
		{Path: "y", Tasks: []string{"p", "q"}, Models: []string{"q"}, Zeroes: []string{"p"}},
	})
	if len(cyc) != 1 || !strings.Contains(cyc[0].err, "no order") {
		t.Errorf("a cycle was not refused: %+v", cyc)
	}
}

// The dump output (--out FILE) is a group of one file: a fault at any of
// its steps leaves no output and no temp file, and the input as it was.
func TestDumpOutFaultAtEveryStep(t *testing.T) {
	var rows strings.Builder
	for i := range 20 {
		fmt.Fprintf(&rows, `{"catalog_name":"acmeCo/t%d","spec_type":"materialization","last_pub_id":"0102030405060708","spec":{"shards":{"flags":{"enable-runtime-v2":"true"}},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{"syncSchedule":{"syncFrequency":"1h"}}}},"bindings":[]}}`+"\n", i)
	}
	run := func(dir string, h groupwrite.Hooks) (*Summary, error) {
		reg := connector.Builtin()
		mg := &Migrator{Planner: &plan.Planner{Registry: reg}, Registry: reg}
		in := filepath.Join(dir, "live.ndjson")
		inputs, err := input.Resolve([]string{in}, catalog.DefaultOptions())
		if err != nil {
			return nil, err
		}
		var out, errb bytes.Buffer
		return mg.Run(inputs, RunOptions{Load: catalog.DefaultOptions(), Mode: OutFile, Out: filepath.Join(dir, "rows.ndjson"), Quiet: true, Hooks: h}, &out, &errb)
	}
	ref := t.TempDir()
	os.WriteFile(filepath.Join(ref, "live.ndjson"), []byte(rows.String()), 0o644)
	count, steps := failAt(0, 0)
	if sum, err := run(ref, count); err != nil || !sum.OK() || sum.Written != 20 {
		t.Fatalf("reference: %v %+v", err, sum)
	}
	total := *steps
	want := snapshot(t, ref)
	if total < 4 {
		t.Fatalf("only %d steps", total)
	}
	for n := 1; n <= total; n++ {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "live.ndjson"), []byte(rows.String()), 0o644)
		_, err := run(dir, first(failAt(n, 0)))
		if err == nil || !strings.Contains(err.Error(), "injected fault") {
			t.Errorf("step %d: err = %v", n, err)
		}
		if got := snapshot(t, dir); len(got) != 1 || got["live.ndjson"] != rows.String() {
			t.Errorf("step %d: left %v", n, got)
		}
		if sum, err := run(dir, groupwrite.Hooks{}); err != nil || !sum.OK() || !equalMaps(snapshot(t, dir), want) {
			t.Errorf("step %d: the rerun: %v %+v", n, err, sum)
		}
	}
}

// A signal that arrives while a group is being renamed lets that group
// finish; the groups after it are left as they were, and the summary
// says so. (Outside the renames a signal ends the process at once, its
// temp files removed: cmd/schedtool's TestSignalsDuringWrite.)
func TestSignalDuringRenamesFinishesTheGroup(t *testing.T) {
	defer groupwrite.ResetInterrupt()
	dir := t.TempDir()
	groupTree(t, dir)
	old := snapshot(t, dir)
	// b/flow.yaml is the first rename of the first group (a.config.yaml,
	// b/flow.yaml, flow.yaml, shared.yaml).
	signal := groupwrite.Hooks{Fault: func(step, path string) error {
		if step == "rename" && strings.HasSuffix(path, filepath.Join("b", "flow.yaml")) {
			groupwrite.OnSignal(os.Interrupt, func() { t.Error("exit called during a group's renames") })
		}
		return nil
	}}
	sum, msg, err := faultRun(dir, signal)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Interrupted != "SIGINT" || sum.Written != 4 || sum.Untouched != 3 || sum.OK() {
		t.Errorf("summary %+v\n%s", sum, msg)
	}
	got := snapshot(t, dir)
	for _, f := range []string{"a.config.yaml", "b/flow.yaml", "flow.yaml", "shared.yaml"} {
		if got[f] == old[f] {
			t.Errorf("%s: its group was not finished", f)
		}
	}
	for _, f := range []string{"c/flow.yaml", "c/reports.config.json", "e/flow.yaml"} {
		if got[f] != old[f] {
			t.Errorf("%s: written after the signal", f)
		}
	}
	for name := range got {
		if groupwrite.IsTemp(name) {
			t.Errorf("temp file left: %s", name)
		}
	}
	if !strings.Contains(msg, "interrupted by SIGINT") {
		t.Errorf("stderr: %s", msg)
	}
}

// A file read as two documents (a source whose config names the source
// itself) would get two edits that undo each other: its group is refused
// and the file left as it was.
func TestOneFileReadTwiceIsNotWritten(t *testing.T) {
	dir := t.TempDir()
	src := `materializations:
  acmeCo/self:
    shards: {flags: {enable-runtime-v2: "true"}}
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config: flow.yaml
    bindings: []
`
	p := filepath.Join(dir, "flow.yaml")
	os.WriteFile(p, []byte(src), 0o644)
	sum, msg, err := writeRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != src {
		t.Errorf("written:\n%s", b)
	}
	if sum.OK() || sum.Written != 0 || !strings.Contains(msg, "read twice") {
		t.Errorf("%+v\n%s", sum, msg)
	}
	noTemps(t, dir)
}

// Temp files a killed run left are named, and left alone.
func TestStaleTempsAreNamed(t *testing.T) {
	dir := t.TempDir()
	groupTree(t, dir)
	stale := filepath.Join(dir, ".shared.yaml.schedtool-123")
	os.WriteFile(stale, []byte("half"), 0o644)
	_, msg, err := writeRun(dir)
	if err != nil || !strings.Contains(msg, stale+": a temp file left") {
		t.Errorf("%v\n%s", err, msg)
	}
	if _, err := os.Stat(stale); err != nil {
		t.Error("removed")
	}
}

// first is the hooks of failAt, for a run that does not count its steps.
func first(h groupwrite.Hooks, _ *int) groupwrite.Hooks { return h }

func noTemps(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if groupwrite.IsTemp(e.Name()) {
			t.Errorf("temp file left behind: %s", e.Name())
		}
	}
}

// --out FILE from a dump where no row migrates writes nothing: no file
// (an empty one would block the next --out and census refuses it) and
// no "written:" line; a near miss, one row that migrates, writes it.
func TestDumpOutNothingMigratedWritesNoFile(t *testing.T) {
	row := func(name string, v2 bool) string {
		flags := ""
		if v2 {
			flags = `"shards":{"flags":{"enable-runtime-v2":"true"}},`
		}
		return `{"catalog_name":"` + name + `","spec_type":"materialization","last_pub_id":"0102030405060708","spec":{` + flags + `"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{"syncSchedule":{"syncFrequency":"1h"}}}},"bindings":[]}}` + "\n"
	}
	for _, tc := range []struct {
		name, rows string
		want       int
	}{
		{"V1 only", row("acmeCo/v1", false), 0},
		{"one to migrate", row("acmeCo/v1", false) + row("acmeCo/v2", true), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "live.ndjson")
			os.WriteFile(in, []byte(tc.rows), 0o644)
			reg := connector.Builtin()
			mg := &Migrator{Planner: &plan.Planner{Registry: reg}, Registry: reg}
			inputs, err := input.Resolve([]string{in}, catalog.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			sum, err := mg.Run(inputs, RunOptions{Load: catalog.DefaultOptions(), Mode: OutFile, Out: filepath.Join(dir, "rows.ndjson")}, &out, &errb)
			if err != nil || sum.Written != tc.want {
				t.Fatalf("%v, %d written, want %d\n%s", err, sum.Written, tc.want, errb.String())
			}
			b, rerr := os.ReadFile(filepath.Join(dir, "rows.ndjson"))
			written := strings.Contains(errb.String(), "written: ")
			if tc.want == 0 && (rerr == nil || written) || tc.want > 0 && (rerr != nil || strings.Count(string(b), "\n") != tc.want || !written) {
				t.Errorf("rows.ndjson: %q %v; written line %v\n%s", b, rerr, written, errb.String())
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
				t.Errorf("temp files left: %v", left)
			}
		})
	}
}
