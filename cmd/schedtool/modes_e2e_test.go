package main

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// umaskCmd runs the binary (or, with pause set, this test binary as
// schedtool paused at a write step, see pausedChild) under a umask.
func umaskCmd(dir, umask, pause string, args ...string) *exec.Cmd {
	bin := binary
	env := os.Environ()
	if pause != "" {
		bin = os.Args[0]
		env = append(env, "SCHEDTOOL_TEST_PAUSE="+pause)
	}
	cmd := exec.Command("sh", append([]string{"-c", `umask ` + umask + `; exec "$SCHEDTOOL" "$@"`, "sh"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(env, "SCHEDTOOL="+bin)
	return cmd
}

// modes is the permission bits of every regular file under dir (temp
// files too), by path relative to dir.
func modes(t *testing.T, dir string) map[string]fs.FileMode {
	t.Helper()
	out := map[string]fs.FileMode{}
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			out[rel] = info.Mode().Perm()
		}
		return nil
	})
	return out
}

// Every file migrate writes is created with its input's mode at most, and
// never wider than the umask allows, from its first byte: a 0600 dump's
// rows (--out FILE) and publishable tree (--out DIR), a catalog tree's
// copies and migrated files (--out DIR). Issue 24 §3: stored specs were
// written 0644 whatever the input's mode and the umask, and a tree's
// copies were given their input's mode by a chmod that ignores the umask.
func TestOutputModes(t *testing.T) {
	dump := storedLine("acmeCo/a", `{"host":"h","password":"hunter2","syncSchedule":{"syncFrequency":"1h"}}`) + "\n" +
		storedLine("acmeCo/b", `{"host":"h","password":"hunter2","syncSchedule":{"syncFrequency":"2h"}}`) + "\n"
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "live.ndjson"), []byte(dump), 0o600)
	os.Chmod(filepath.Join(dir, "live.ndjson"), 0o600)
	writeFiles(t, dir, map[string]string{
		"cat/flow.yaml":        "materializations:\n" + task("acmeCo/a", "a.config.yaml", true),
		"cat/a.config.yaml":    "host: a\npassword: hunter2\nsyncSchedule:\n  syncFrequency: 1h\n",
		"cat/README.md":        "hello\n",
		"cat/run.sh":           "#!/bin/sh\n",
		"cat/private.yaml":     "password: hunter2\n",
		"cat/sub/private.yaml": "password: hunter2\n",
	})
	for name, m := range map[string]fs.FileMode{"cat/a.config.yaml": 0o600, "cat/run.sh": 0o755, "cat/private.yaml": 0o600, "cat/sub/private.yaml": 0o640} {
		os.Chmod(filepath.Join(dir, name), m)
	}
	in := modes(t, filepath.Join(dir, "cat"))
	for _, umask := range []string{"022", "077"} {
		t.Run("umask "+umask, func(t *testing.T) {
			var mask fs.FileMode = 0o022
			if umask == "077" {
				mask = 0o077
			}
			out := "out-" + umask
			// A 0644 file replaced (--force) does not lend its mode.
			os.WriteFile(filepath.Join(dir, out+".ndjson"), nil, 0o644)
			for _, args := range [][]string{
				{"migrate", "--force", "--out", out + ".ndjson", "live.ndjson"},
				{"migrate", "--out", out + "-tree", "live.ndjson"},
			} {
				r := execRun(t, umaskCmd(dir, umask, "", args...))
				if r.code != 0 {
					t.Fatalf("%v: exit %d\n%s", args, r.code, r.stderr)
				}
			}
			if st, err := os.Stat(filepath.Join(dir, out+".ndjson")); err != nil || st.Mode().Perm() != 0o600 {
				t.Errorf("--out FILE from a 0600 dump: %v, %v; want 0600", st.Mode(), err)
			}
			// Standard input has no mode to follow: 0600.
			cmd := umaskCmd(dir, umask, "", "migrate", "--out", out+"-stdin.ndjson", "-")
			cmd.Stdin = strings.NewReader(dump)
			if r := execRun(t, cmd); r.code != 0 {
				t.Fatalf("--out FILE from -: exit %d\n%s", r.code, r.stderr)
			}
			if st, err := os.Stat(filepath.Join(dir, out+"-stdin.ndjson")); err != nil || st.Mode().Perm() != 0o600 {
				t.Errorf("--out FILE from standard input: %v, %v; want 0600", st.Mode(), err)
			}
			tree := modes(t, filepath.Join(dir, out+"-tree"))
			if len(tree) < 2 {
				t.Errorf("--out DIR wrote %v", tree)
			}
			for p, m := range tree {
				if m != 0o600 {
					t.Errorf("--out DIR from a 0600 dump: %s is %v, want 0600", p, m)
				}
			}
			r := execRun(t, umaskCmd(dir, umask, "", "migrate", "--out", out+"-cat", "cat"))
			if r.code != 0 {
				t.Fatalf("--out DIR of a tree: exit %d\n%s", r.code, r.stderr)
			}
			got := modes(t, filepath.Join(dir, out+"-cat"))
			for p, m := range in {
				if want := m &^ mask; got[p] != want {
					t.Errorf("--out DIR of a tree: %s is %v, want %v (its input's %v under umask %s)", p, got[p], want, m, umask)
				}
			}
		})
	}
}

// A copy over 8 MiB (streamed) is created with its input's mode: seen
// just before the rename, paused there, the temp file of a 0600 input is
// 0600 (it was 0644 until narrowed after the rename, which another user
// could read in between). The same for the migrated files, seen just
// before their group's renames.
func TestOutputModesAtCreation(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"cat/flow.yaml":     "materializations:\n" + task("acmeCo/a", "a.config.yaml", true),
		"cat/a.config.yaml": "host: a\npassword: hunter2\nsyncSchedule:\n  syncFrequency: 1h\n",
		"cat/big.bin":       strings.Repeat("password: hunter2\n", 9<<20/18+1),
	})
	for _, name := range []string{"cat/flow.yaml", "cat/a.config.yaml", "cat/big.bin"} {
		os.Chmod(filepath.Join(dir, name), 0o600)
	}
	for i, at := range []string{"rename:1:%s:big.bin", "rename:1:%s:a.config.yaml"} {
		t.Run(strings.Split(at, ":")[3], func(t *testing.T) {
			out := filepath.Join(dir, fmt.Sprint("out", i))
			marker := filepath.Join(t.TempDir(), "paused")
			cmd := umaskCmd(dir, "022", fmt.Sprintf(at, marker), "migrate", "--out", out, "cat")
			var errb strings.Builder
			cmd.Stderr = &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Wait()
			for i := 0; ; i++ {
				if _, err := os.Stat(marker); err == nil {
					break
				}
				if i == 30000 {
					cmd.Process.Kill()
					t.Fatalf("the run never paused:\n%s", errb.String())
				}
				time.Sleep(time.Millisecond)
			}
			seen := modes(t, out)
			temps := 0
			for p, m := range seen {
				if strings.Contains(p, ".schedtool-") {
					temps++
				}
				if m&0o077 != 0 {
					t.Errorf("%s is %v before its rename: a 0600 input's copy readable by others", p, m)
				}
			}
			if temps == 0 {
				t.Errorf("no temp file seen at the pause: %v", seen)
			}
			cmd.Process.Signal(syscall.SIGTERM)
		})
	}
}
