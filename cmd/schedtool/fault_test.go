package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// faultCatalog writes a one-task catalog (size bytes or more, padded with
// comments) that migrate changes, and returns its file and content.
func faultCatalog(t *testing.T, dir string, size int) (string, []byte) {
	t.Helper()
	src := `materializations:
  acmeCo/task:
    shards:
      flags:
        enable-runtime-v2: "true"
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config:
          host: h.snowflakecomputing.com
          syncSchedule:
            syncFrequency: 1h
    bindings: []
`
	for len(src) < size {
		src += "# padding so that the file has the size this test needs\n"
	}
	p := filepath.Join(dir, "flow.yaml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, []byte(src)
}

// faultRun runs the binary through sh (for ulimit), as uid when uid >= 0.
func faultRun(t *testing.T, dir, shell string, uid int) run {
	t.Helper()
	cmd := exec.Command("sh", "-c", shell)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SCHEDTOOL="+binary)
	if uid >= 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
	}
	return execRun(t, cmd)
}

// intact checks that a faulted write left the file and its directory as
// they were: the old content, and no temp file.
func intact(t *testing.T, path string, old []byte, r run, problem string) {
	t.Helper()
	if r.code != 1 {
		t.Errorf("exit %d, want 1\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, filepath.Base(path)) || !strings.Contains(r.stderr, "not written: ") || !strings.Contains(r.stderr, problem) {
		t.Errorf("stderr does not name the file and %q:\n%s", problem, r.stderr)
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, old) {
		t.Errorf("the file changed:\n%s", b)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".schedtool-") {
			t.Errorf("temp file left behind: %s", e.Name())
		}
	}
}

// openPath makes dir and its parents traversable by another user.
func openPath(t *testing.T, dir string) {
	t.Helper()
	for d := dir; d != "/" && d != "."; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		if err == nil && st.Mode().Perm()&0o005 != 0o005 {
			os.Chmod(d, st.Mode().Perm()|0o755)
		}
	}
}

func TestFaultReadOnlyDirectory(t *testing.T) {
	dir := t.TempDir()
	path, old := faultCatalog(t, dir, 0)
	uid := -1
	if os.Geteuid() == 0 {
		// root ignores permissions: run as nobody, who may read the
		// catalog and the binary but not write the directory.
		uid = 65534
		openPath(t, dir)
		openPath(t, filepath.Dir(binary))
	}
	os.Chmod(dir, 0o555)
	defer os.Chmod(dir, 0o755)
	r := faultRun(t, dir, `"$SCHEDTOOL" migrate --write .`, uid)
	intact(t, path, old, r, "permission denied")
}

func TestFaultFileSizeLimit(t *testing.T) {
	dir := t.TempDir()
	path, old := faultCatalog(t, dir, 4096)
	// ulimit -f counts 1024-byte blocks: the 4 KiB rewrite is cut short
	// (Go ignores SIGXFSZ, so the write fails with EFBIG).
	r := faultRun(t, dir, `ulimit -f 2 && exec "$SCHEDTOOL" migrate --write .`, -1)
	intact(t, path, old, r, "file too large")
}

func TestFaultFileSizeLimitOnDumpOut(t *testing.T) {
	dir := t.TempDir()
	var rows strings.Builder
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&rows, `{"catalog_name":"acmeCo/t%d","spec_type":"materialization","last_pub_id":"0102030405060708","spec":{"shards":{"flags":{"enable-runtime-v2":"true"}},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{"host":"h","syncSchedule":{"syncFrequency":"1h"}}}},"bindings":[]}}`+"\n", i)
	}
	os.WriteFile(filepath.Join(dir, "live_specs.ndjson"), []byte(rows.String()), 0o644)
	r := faultRun(t, dir, `ulimit -f 4 && exec "$SCHEDTOOL" migrate --out rows.ndjson live_specs.ndjson`, -1)
	if r.code != 1 || !strings.Contains(r.stderr, "rows.ndjson") || !strings.Contains(r.stderr, "file too large") {
		t.Errorf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != "live_specs.ndjson" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// smallDisk mounts a 64 KiB tmpfs for the test (unmounted at its end), or
// skips the test where that needs a root it does not have.
func smallDisk(t *testing.T) string {
	t.Helper()
	mnt := filepath.Join(t.TempDir(), "small")
	os.Mkdir(mnt, 0o755)
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs here (%v: %s); the full-disk case needs root", err, bytes.TrimSpace(out))
	}
	t.Cleanup(func() { exec.Command("umount", mnt).Run() })
	return mnt
}

// A full disk, for real: a 64 KiB tmpfs holding a 40 KiB catalog has no
// room for the rewritten copy.
func TestFaultDiskFull(t *testing.T) {
	mnt := smallDisk(t)
	path, old := faultCatalog(t, mnt, 40<<10)
	r := faultRun(t, mnt, `exec "$SCHEDTOOL" migrate --write .`, -1)
	intact(t, path, old, r, "no space left on device")
}

// faultGroup writes a task whose config is in its own file, the source
// padded to size bytes: migrating it writes both files, as one group.
func faultGroup(t *testing.T, dir string, size int) map[string][]byte {
	t.Helper()
	src := "materializations:\n" + task("acmeCo/task", "task.config.yaml", true)
	for len(src) < size {
		src += "# padding so that the file has the size this test needs\n"
	}
	files := map[string][]byte{"flow.yaml": []byte(src), "task.config.yaml": []byte("host: h\nsyncSchedule:\n  syncFrequency: 1h\n")}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// groupIntact checks that a faulted group left both of its files as they
// were (the config file, which could be written, too) and no temp file.
func groupIntact(t *testing.T, dir string, files map[string][]byte, r run, problem string) {
	t.Helper()
	if r.code != 1 || !strings.Contains(r.stderr, problem) || !strings.Contains(r.stderr, "written together with") {
		t.Errorf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	for name, old := range files {
		if b, _ := os.ReadFile(filepath.Join(dir, name)); !bytes.Equal(b, old) {
			t.Errorf("%s changed although its group failed:\n%s", name, b)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".schedtool-") {
			t.Errorf("temp file left behind: %s", e.Name())
		}
	}
}

// ulimit -f cuts the source's rewrite short; its small config file could
// be written, but is not: the task keeps its connector schedule.
func TestFaultFileSizeLimitInAGroup(t *testing.T) {
	dir := t.TempDir()
	files := faultGroup(t, dir, 4096)
	r := faultRun(t, dir, `ulimit -f 2 && exec "$SCHEDTOOL" migrate --write .`, -1)
	groupIntact(t, dir, files, r, "file too large")
}

// A full disk: no room for the source's copy, so neither file is renamed.
func TestFaultDiskFullInAGroup(t *testing.T) {
	mnt := smallDisk(t)
	files := faultGroup(t, mnt, 40<<10)
	r := faultRun(t, mnt, `exec "$SCHEDTOOL" migrate --write .`, -1)
	groupIntact(t, mnt, files, r, "no space left on device")
}
