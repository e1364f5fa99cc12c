package migrate

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/internal/groupwrite"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/schedule/connector"
)

// outRun migrates dir into out (--out DIR).
func outRun(t *testing.T, dir, out string) (*Summary, string) {
	t.Helper()
	return outRunHooks(t, dir, out, groupwrite.Hooks{})
}

// outRunHooks is outRun with faults injected into the writes.
func outRunHooks(t *testing.T, dir, out string, hooks groupwrite.Hooks) (*Summary, string) {
	t.Helper()
	reg := connector.Builtin()
	mg := &Migrator{Planner: &plan.Planner{Registry: reg}, Registry: reg}
	inputs, err := input.Resolve([]string{dir}, catalog.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	sum, err := mg.Run(inputs, RunOptions{Load: catalog.DefaultOptions(), Mode: OutDir, Out: out, Hooks: hooks}, &stdout, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	return sum, stderr.String()
}

const mirrorSource = `materializations:
  acme/snow:
    shards: {flags: {enable-runtime-v2: "true"}}
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config: snow.config.yaml
    bindings: []
`

// Copies keep their bytes and mode whichever way they are written: a
// small file as a group of one, a file larger than copyInMemory
// streamed; a migrated file keeps its input's mode too.
func TestOutDirCopiesKeepBytesAndMode(t *testing.T) {
	defer func(n int64) { copyInMemory = n }(copyInMemory)
	copyInMemory = 64
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<12) // 64 KiB: streamed
	files := []struct {
		name string
		data []byte
		mode fs.FileMode
	}{
		{"flow.yaml", []byte(mirrorSource), 0o644},
		{"snow.config.yaml", []byte("host: h\nsyncSchedule: {syncFrequency: 1h}\n"), 0o600}, // migrated
		{"small.txt", []byte("small\n"), 0o640},
		{"run.sh", []byte("#!/bin/sh\n"), 0o755},
		{"big.bin", big, 0o600},
		{"big-open.bin", big, 0o644},
	}
	os.MkdirAll(in, 0o755)
	for _, f := range files {
		p := filepath.Join(in, f.name)
		if err := os.WriteFile(p, f.data, 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, f.mode)
	}
	out := filepath.Join(dir, "out")
	sum, stderr := outRun(t, in, out)
	if !sum.OK() || sum.Written != 2 {
		t.Fatalf("%+v\n%s", sum, stderr)
	}
	for _, f := range files {
		p := filepath.Join(out, f.name)
		st, err := os.Lstat(p)
		if err != nil {
			t.Errorf("%s: %v", f.name, err)
			continue
		}
		if st.Mode() != f.mode {
			t.Errorf("%s: mode %v, want %v", f.name, st.Mode(), f.mode)
		}
		got := mustReadFile(t, p)
		if migrated := f.name == "flow.yaml" || f.name == "snow.config.yaml"; bytes.Equal(got, f.data) == migrated {
			t.Errorf("%s: changed %v, want %v", f.name, !bytes.Equal(got, f.data), migrated)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(out, ".*")); len(left) > 0 {
		t.Errorf("temp files left: %v", left)
	}
}

// A copy that cannot be written is said and leaves nothing behind: not
// the empty file made to give it its mode, not a temp file; the others
// are written.
func TestOutDirCopyFailureLeavesNothing(t *testing.T) {
	defer func(n int64) { copyInMemory = n }(copyInMemory)
	copyInMemory = 64
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	os.MkdirAll(in, 0o755)
	os.WriteFile(filepath.Join(in, "flow.yaml"), []byte("{}\n"), 0o644)
	os.WriteFile(filepath.Join(in, "private.yaml"), []byte("a: 1\n"), 0o600)
	os.WriteFile(filepath.Join(in, "big.bin"), bytes.Repeat([]byte("x"), 1000), 0o600)
	os.WriteFile(filepath.Join(in, "kept.txt"), []byte("kept\n"), 0o644)
	fault := func(step, path string) error {
		if step == "rename" && (strings.HasSuffix(path, "private.yaml") || strings.HasSuffix(path, "big.bin")) {
			return errors.New("injected")
		}
		return nil
	}
	out := filepath.Join(dir, "out")
	sum, stderr := outRunHooks(t, in, out, groupwrite.Hooks{Fault: fault})
	if sum.Failed != 2 || !strings.Contains(stderr, "private.yaml: not written: injected") || !strings.Contains(stderr, "big.bin: not written: writing") {
		t.Errorf("%+v\n%s", sum, stderr)
	}
	entries, _ := os.ReadDir(out)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "flow.yaml kept.txt" {
		t.Errorf("output directory holds %v, want flow.yaml kept.txt", names)
	}
}

func mustReadFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
