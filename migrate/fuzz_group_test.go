package migrate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/estuary/schedtool/internal/groupwrite"
)

// fuzzTree is a catalog generated from shape, one task per byte: which
// source holds it (flow.yaml, s0/flow.yaml, s1/flow.yaml), how its
// connector is configured (inline fixed or default, its own config file,
// one of two shared config files, V1 on a shared file, inline
// alternating) and its frequency.
func fuzzTree(shape []byte) map[string]string {
	files := map[string]string{
		"shared-a.yaml": "host: a\nsyncSchedule:\n  syncFrequency: 2h\n",
		"shared-b.yaml": "host: b\n",
	}
	sources := []string{"flow.yaml", "s0/flow.yaml", "s1/flow.yaml"}
	body := map[string]string{}
	for i, b := range shape {
		src := sources[int(b&3)%3]
		up := ""
		if strings.Contains(src, "/") {
			up = "../"
		}
		freq := []string{"1h", "2h", "30m", "90m"}[b>>5&3]
		v2 := "    shards: {flags: {enable-runtime-v2: \"true\"}}\n"
		var config string
		kind := b >> 2 & 7
		if kind == 5 && b>>5 != 3 {
			kind = 3 // a V1 user of shared-a.yaml, one time in four
		}
		switch kind {
		case 0:
			config = "{syncSchedule: {syncFrequency: " + freq + "}}"
		case 1:
			config = "{host: x}"
		case 2:
			name := fmt.Sprintf("own-%d.yaml", i)
			files[name] = "host: own\nsyncSchedule:\n  syncFrequency: " + freq + "\n"
			config = up + name
		case 3:
			config = up + "shared-a.yaml"
		case 4:
			config = up + "shared-b.yaml"
		case 5:
			config, v2 = up+"shared-a.yaml", ""
		case 6:
			config = `{syncSchedule: {syncFrequency: 15m, timezone: UTC, fastSyncStartTime: "09:00", fastSyncStopTime: "17:00"}}`
		case 7:
			name := fmt.Sprintf("own-%d.json", i)
			files[name] = "{\"host\": \"own\"}\n"
			config = up + name
		}
		body[src] += fmt.Sprintf("  acmeCo/t%d:\n%s    endpoint:\n      connector:\n        image: ghcr.io/estuary/materialize-snowflake:v4\n        config: %s\n    bindings: []\n", i, v2, config)
	}
	for src, b := range body {
		files[src] = "materializations:\n" + b
	}
	return files
}

// fuzzDir is a fresh directory for one execution, on tmpfs when there is
// one (fsync is then cheap).
func fuzzDir(t *testing.T) string {
	t.Helper()
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if d, err := os.MkdirTemp("/dev/shm", "schedtool-fuzz-"); err == nil {
			t.Cleanup(func() { os.RemoveAll(d) })
			return d
		}
	}
	return t.TempDir()
}

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// fuzzRefs are the runs without faults of the shapes seen so far.
var fuzzRefs = map[string]struct {
	total         int
	want          map[string]string
	before, after map[string]taskState
}{}

// FuzzGroupWrites migrates a generated multi-file tree with --write while
// one step of the writes fails (and, with restore set, a restore of the
// rollback too): every task stays paced, each file is old or new, no temp
// file is left, with no failed restore every task is untouched or fully
// migrated, and a rerun without faults ends where a run without faults
// ends.
func FuzzGroupWrites(f *testing.F) {
	f.Add([]byte{0x08, 0x0c, 0x0d, 0x10, 0x11}, uint16(26), uint8(0))
	f.Add([]byte{0x0c, 0x0d, 0x0e, 0x10, 0x01}, uint16(20), uint8(1))
	f.Add([]byte{0x04, 0x29, 0x1a, 0x1c, 0x09}, uint16(31), uint8(2))
	f.Add([]byte{0x0c, 0x0d, 0x74}, uint16(5), uint8(0))
	f.Fuzz(func(t *testing.T, shape []byte, failStep uint16, restore uint8) {
		if len(shape) == 0 || len(shape) > 12 {
			return
		}
		files := fuzzTree(shape)
		dir := fuzzDir(t)
		writeTree(t, dir, files)
		old := snapshot(t, dir)
		r, ok := fuzzRefs[string(shape)]
		if !ok {
			// The run without faults, once per shape (the fuzzer varies
			// the steps of one shape often).
			ref := fuzzDir(t)
			writeTree(t, ref, files)
			r.before = taskStates(t, ref)
			count, steps := failAt(0, 0)
			if _, msg, err := faultRun(ref, count); err != nil {
				t.Fatalf("reference run: %v\n%s", err, msg)
			}
			r.total, r.want, r.after = *steps, snapshot(t, ref), taskStates(t, ref)
			if len(fuzzRefs) < 10000 {
				fuzzRefs[string(shape)] = r
			}
		}
		before, want, after, total := r.before, r.want, r.after, r.total
		if total == 0 {
			return
		}
		if _, msg, err := faultRun(dir, first(failAt(1+int(failStep)%total, int(restore%3)))); err != nil {
			t.Fatalf("%v\n%s", err, msg)
		}
		got := snapshot(t, dir)
		for name, content := range got {
			if groupwrite.IsTemp(name) {
				t.Fatalf("temp file left: %s", name)
			}
			if content != old[name] && content != want[name] {
				t.Fatalf("%s is neither old nor new:\n%s", name, content)
			}
		}
		for task, s := range taskStates(t, dir) {
			if before[task].Paced && !s.Paced {
				t.Fatalf("%s lost its pacing: %+v, before %+v", task, s, before[task])
			}
			if restore%3 == 0 && s != before[task] && s != after[task] {
				t.Fatalf("%s is half migrated: %+v (before %+v, after %+v)", task, s, before[task], after[task])
			}
		}
		if equalMaps(got, old) {
			return // untouched: a rerun is the run without faults
		}
		if _, msg, err := writeRun(dir); err != nil {
			t.Fatalf("rerun: %v\n%s", err, msg)
		}
		if got := snapshot(t, dir); !equalMaps(got, want) {
			t.Fatalf("the rerun does not end where a run without faults ends:\n%s", diffMaps(got, want))
		}
	})
}
