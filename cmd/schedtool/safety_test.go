package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Regression tests for issue 10: migrate never loses a task's pacing,
// compares files by identity, and never clobbers an output.

// writeFiles writes name -> content under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// treeState is every regular file under dir and its content, and every
// symlink as "-> target".
func treeState(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if info.Mode()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			out[rel] = "-> " + target
			return nil
		}
		if !info.Mode().IsRegular() { // a FIFO: reading it would block
			out[rel] = info.Mode().Type().String()
			return nil
		}
		b, _ := os.ReadFile(p)
		out[rel] = string(b)
		return nil
	})
	return out
}

func sameTree(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s changed:\n%s", what, k, got[k])
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: %s appeared", what, k)
		}
	}
}

const v2Task = `  %s:
    shards: {flags: {enable-runtime-v2: "true"}}
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config: %s
    bindings: []
`

func task(name, config string, v2 bool) string {
	s := strings.Replace(strings.Replace(v2Task, "%s", name, 1), "%s", config, 1)
	if !v2 {
		s = strings.Replace(s, `    shards: {flags: {enable-runtime-v2: "true"}}`+"\n", "", 1)
	}
	return s
}

// Item 1: migrate --write - with the config in another file used to zero
// the config and leave the source (standard input) unwritten: the task
// ran unpaced. It is refused before anything is written.
func TestWriteStdinRefusedBeforeAnyWrite(t *testing.T) {
	dir := t.TempDir()
	src := "materializations:\n" + task("acmeCo/a", "a.config.yaml", true)
	writeFiles(t, dir, map[string]string{"flow.yaml": src, "a.config.yaml": "host: a\nsyncSchedule:\n  syncFrequency: 1h\n"})
	before := treeState(t, dir)
	r := schedtoolStdin(t, dir, src, "migrate", "--write", "-")
	if r.code != 1 || !strings.Contains(r.stderr, "--write -") {
		t.Errorf("exit %d\n%s", r.code, r.stderr)
	}
	sameTree(t, "--write -", treeState(t, dir), before)
	// The dry run still works on standard input.
	if r := schedtoolStdin(t, dir, src, "migrate", "-"); r.code != 2 || !strings.Contains(r.stdout, "+    syncSchedule:") {
		t.Errorf("dry run of -: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// Item 1: a read-only directory next to a writable one. The source is
// writable, the config's directory is not: nothing of the group is
// written, the task keeps its connector schedule.
func TestWriteGroupWithAReadOnlyConfigDirectory(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"flow.yaml":        "materializations:\n" + task("acmeCo/a", "ro/a.config.yaml", true),
		"ro/a.config.yaml": "host: a\nsyncSchedule:\n  syncFrequency: 1h\n",
		"other/flow.yaml":  "materializations:\n" + task("acmeCo/b", "{syncSchedule: {syncFrequency: 2h}}", true),
	})
	uid := -1
	if os.Geteuid() == 0 {
		uid = 65534
		openPath(t, dir)
		openPath(t, filepath.Dir(binary))
		for _, d := range []string{dir, filepath.Join(dir, "other")} {
			os.Chmod(d, 0o777)
		}
		for _, f := range []string{"flow.yaml", "other/flow.yaml"} {
			os.Chmod(filepath.Join(dir, f), 0o666)
		}
	}
	os.Chmod(filepath.Join(dir, "ro"), 0o555)
	defer os.Chmod(filepath.Join(dir, "ro"), 0o755)
	before := treeState(t, dir)
	r := faultRun(t, dir, `exec "$SCHEDTOOL" migrate --write .`, uid)
	if r.code != 1 || !strings.Contains(r.stderr, "permission denied") || !strings.Contains(r.stderr, "written together with") {
		t.Errorf("exit %d\n%s", r.code, r.stderr)
	}
	after := treeState(t, dir)
	for _, f := range []string{"flow.yaml", "ro/a.config.yaml"} {
		if after[f] != before[f] {
			t.Errorf("%s was written although its group failed:\n%s", f, after[f])
		}
	}
	if after["other/flow.yaml"] == before["other/flow.yaml"] {
		t.Error("the independent group was not written")
	}
	for f := range after {
		if strings.Contains(f, ".schedtool-") {
			t.Errorf("temp file left: %s", f)
		}
	}
}

// Item 2: a config reached by two paths (a symlink inside the root) is one
// shared file. The V2 task would zero it; the V1 task reading it through
// the alias would lose its pacing. Both are left alone, and say why.
func TestSymlinkAliasIsASharedConfig(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"flow.yaml":        "materializations:\n" + task("acmeCo/v2", "real.config.yaml", true) + task("acmeCo/v1", "alias.config.yaml", false),
		"real.config.yaml": "host: h\nsyncSchedule:\n  syncFrequency: 1h\n",
	})
	if err := os.Symlink("real.config.yaml", filepath.Join(dir, "alias.config.yaml")); err != nil {
		t.Fatal(err)
	}
	before := treeState(t, dir)
	r := schedtoolIn(t, dir, "migrate", "--write", "-o", "json", ".")
	if r.code != 2 {
		t.Errorf("exit %d, want 2: a task needs review (docs/behaviour.md §7, §9)\n%s", r.code, r.stderr)
	}
	sameTree(t, "symlink alias", treeState(t, dir), before)
	var doc struct {
		Tasks []struct{ Task, Action, Reason string } `json:"tasks"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	for _, tk := range doc.Tasks {
		if tk.Task == "acmeCo/v2" && (tk.Action != "review" || !strings.Contains(tk.Reason, "shared")) {
			t.Errorf("v2: %+v", tk)
		}
	}
	// census: the V1 task is still paced by its connector.
	c := schedtoolIn(t, dir, "census", "-o", "json", ".")
	if !strings.Contains(c.stdout, `"blocked-v1"`) {
		t.Errorf("census after: %s", c.stdout)
	}
}

// Items 3 and 4: --out never names an input and never clobbers.
func TestOutNeverClobbers(t *testing.T) {
	dump := `{"catalog_name":"acmeCo/a","spec_type":"materialization","last_pub_id":"0102030405060708","spec":{"shards":{"flags":{"enable-runtime-v2":"true"}},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{"syncSchedule":{"syncFrequency":"1h"}}}},"bindings":[]}}
{"catalog_name":"acmeCo/b","spec_type":"collection","spec":{}}
{"catalog_name":"acmeCo/c","spec_type":"materialization","spec":{"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-postgres:v4","config":{}}}}}
`
	src := "materializations:\n" + task("acmeCo/a", "{syncSchedule: {syncFrequency: 1h}}", true)
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string)
		args  []string
		code  int
		msg   string
	}{
		{"out is the input dump", nil, []string{"--out", "live.ndjson", "live.ndjson"}, 1, "is the input live.ndjson"},
		{"out is the input dump by another path", nil, []string{"--out", "./sub/../live.ndjson", "live.ndjson"}, 1, "is the input"},
		{"out is a symlink to the input dump", func(t *testing.T, dir string) {
			os.Symlink("live.ndjson", filepath.Join(dir, "link.ndjson"))
		}, []string{"--out", "link.ndjson", "live.ndjson"}, 1, "is the input"},
		{"out file exists", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string]string{"rows.ndjson": "keep me\n"})
		}, []string{"--out", "rows.ndjson", "live.ndjson"}, 1, "exists"},
		{"out file is a dangling symlink", func(t *testing.T, dir string) {
			os.Symlink("elsewhere.ndjson", filepath.Join(dir, "rows.ndjson"))
		}, []string{"--out", "rows.ndjson", "live.ndjson"}, 1, "symlink"},
		{"out dir holds the input", nil, []string{"--out", ".", "a/flow.yaml"}, 1, "holds the input"},
		{"out dir is inside the input", nil, []string{"--out", "a/m", "a"}, 1, "inside the input"},
		{"out dir is not empty", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string]string{"m/keep": "keep me\n"})
		}, []string{"--out", "m", "a/flow.yaml"}, 1, "not empty"},
		{"two inputs to one output", nil, []string{"--out", "m", "a/flow.yaml", "b/flow.yaml"}, 1, "would both be written to"},
		{"two directories to one output", nil, []string{"--out", "m", "a", "b"}, 1, "would both be written to"},
		{"out dir through a symlink in it", func(t *testing.T, dir string) {
			os.MkdirAll(filepath.Join(dir, "elsewhere"), 0o755)
			os.MkdirAll(filepath.Join(dir, "m"), 0o755)
			os.Symlink("../elsewhere", filepath.Join(dir, "m", "a"))
		}, []string{"--force", "--out", "m", "--root", ".", "a/flow.yaml"}, 1, "symlink"},
		{"out dir is a symlink", func(t *testing.T, dir string) {
			os.MkdirAll(filepath.Join(dir, "elsewhere"), 0o755)
			os.Symlink("elsewhere", filepath.Join(dir, "m"))
		}, []string{"--out", "m", "a/flow.yaml"}, 1, "symlink"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"live.ndjson": dump, "a/flow.yaml": src, "b/flow.yaml": src, "sub/.keep": ""})
			if tc.setup != nil {
				tc.setup(t, dir)
			}
			before := treeState(t, dir)
			r := schedtoolIn(t, dir, append([]string{"migrate"}, tc.args...)...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
				t.Errorf("exit %d, want %d and %q\n%s", r.code, tc.code, tc.msg, r.stderr)
			}
			sameTree(t, tc.name, treeState(t, dir), before)
		})
	}
	// --force replaces an existing output file (never an input), and writes
	// into a non-empty directory.
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"live.ndjson": dump, "rows.ndjson": "old\n", "a/flow.yaml": src, "m/keep": "keep me\n"})
	if r := schedtoolIn(t, dir, "migrate", "--force", "--out", "rows.ndjson", "live.ndjson"); r.code != 0 {
		t.Errorf("--force --out FILE: exit %d\n%s", r.code, r.stderr)
	}
	if b := mustRead(t, filepath.Join(dir, "rows.ndjson")); !strings.Contains(string(b), "expectPubId") {
		t.Errorf("rows.ndjson: %s", b)
	}
	if r := schedtoolIn(t, dir, "migrate", "--force", "--out", "live.ndjson", "live.ndjson"); r.code != 1 {
		t.Errorf("--force --out INPUT: exit %d", r.code)
	}
	if b := mustRead(t, filepath.Join(dir, "live.ndjson")); string(b) != dump {
		t.Error("the input dump changed")
	}
	if r := schedtoolIn(t, dir, "migrate", "--force", "--out", "m", "a/flow.yaml"); r.code != 0 {
		t.Errorf("--force --out DIR: exit %d\n%s", r.code, r.stderr)
	}
	if b := mustRead(t, filepath.Join(dir, "m/flow.yaml")); !strings.Contains(string(b), "baseInterval: 1h") {
		t.Errorf("m/flow.yaml: %s", b)
	}
}

// signalTree writes n groups of three tasks: one with its own config
// file, two sharing a config file from two sources.
func signalTree(t *testing.T, dir string, n int) {
	t.Helper()
	files := map[string]string{}
	pad := strings.Repeat("# padding so that a write takes a little while\n", 200)
	for i := range n {
		g := fmt.Sprintf("g%03d/", i)
		files[g+"flow.yaml"] = "materializations:\n" + task(fmt.Sprintf("t%03d/a", i), "a.config.yaml", true) + task(fmt.Sprintf("t%03d/b", i), "shared.yaml", true) + pad
		files[g+"b/flow.yaml"] = "materializations:\n" + task(fmt.Sprintf("t%03d/c", i), "../shared.yaml", true) + pad
		files[g+"a.config.yaml"] = "host: a\nsyncSchedule:\n  syncFrequency: 1h\n" + pad
		files[g+"shared.yaml"] = "host: s\nsyncSchedule:\n  syncFrequency: 2h\n" + pad
	}
	writeFiles(t, dir, files)
}

// Item 9: SIGINT or SIGTERM during migrate --write leaves no temp file and
// no half-written group, and exits 130 (SIGINT) or 1 (SIGTERM) saying so.
// A run that is not interrupted then finishes the migration.
func TestSignalsDuringWrite(t *testing.T) {
	dir := t.TempDir()
	const groups = 150
	signalTree(t, dir, groups)
	statuses := func() map[string]int { return statusCounts(t, dir) }
	interrupted := 0
	prev := statuses()
	for i, delay := range []time.Duration{150, 300, 450, 600, 250, 400} {
		sig := []syscall.Signal{syscall.SIGINT, syscall.SIGTERM}[i%2]
		cmd := exec.Command(binary, "migrate", "--write", ".")
		cmd.Dir = dir
		var errb strings.Builder
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(delay * time.Millisecond)
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		code := cmd.ProcessState.ExitCode()
		want := map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 1}[sig]
		ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
		st := statuses()
		switch {
		case err == nil:
			// It finished before the signal.
		case ws.Signaled() && st["migrated"] == prev["migrated"]:
			// Killed by the signal itself before its handler was
			// installed (a loaded machine): nothing was written yet.
		case code == want && strings.Contains(errb.String(), "interrupted by "+map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM"}[sig]):
			interrupted++
		default:
			t.Errorf("%v after %dms: exit %d (%v), want %d\n%s", sig, delay, code, err, want, errb.String())
		}
		filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
			if err == nil && strings.Contains(info.Name(), ".schedtool-") {
				t.Errorf("%v: temp file left: %s", sig, p)
			}
			return nil
		})
		prev = st
		if st["ready"]+st["migrated"] != 3*groups {
			t.Errorf("%v after %dms: a group half written or a task unpaced: %v", sig, delay, st)
		}
		t.Logf("%v after %dms: exit %d, %v", sig, delay, code, st)
		if st["migrated"] == 3*groups {
			break
		}
	}
	if interrupted == 0 {
		t.Error("no run was interrupted: the test proved nothing")
	}
	if r := schedtoolIn(t, dir, "migrate", "--write", "."); r.code != 0 {
		t.Errorf("the last run: exit %d\n%s", r.code, r.stderr)
	}
	if st := statuses(); st["migrated"] != 3*groups {
		t.Errorf("after the last run: %v", st)
	}
}
