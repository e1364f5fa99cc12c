package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/estuary/schedtool/internal/groupwrite"
)

// pausedChild runs this test binary as schedtool when
// SCHEDTOOL_TEST_PAUSE is set (STEP:N:MARKER[:SUFFIX]): the group writer
// pauses at the Nth STEP (create, write, rename, ...) of the run (of a
// path ending in SUFFIX, when given), writes MARKER,
// and waits there until a signal is handled, so that a test can send
// one at a known point of a write rather than after a guessed delay.
func pausedChild() (int, bool) {
	spec := os.Getenv("SCHEDTOOL_TEST_PAUSE")
	if spec == "" {
		return 0, false
	}
	parts := append(strings.SplitN(spec, ":", 4), "")
	n, _ := strconv.Atoi(parts[1])
	seen := 0
	writeHooks.Fault = func(step, path string) error {
		if step != parts[0] || !strings.HasSuffix(path, parts[3]) {
			return nil
		}
		if seen++; seen != n {
			return nil
		}
		os.WriteFile(parts[2], []byte(path), 0o644)
		// Outside a group's renames the handler ends the process; during
		// them it records the signal and the group goes on.
		for i := 0; i < 60000 && groupwrite.Interrupted() == nil; i++ {
			time.Sleep(time.Millisecond)
		}
		return nil
	}
	return Main(os.Args[1:], Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}), true
}

// SIGHUP (the terminal or the ssh session closing) and SIGQUIT during
// migrate --write are handled as SIGTERM: while a file is staged the
// temp files are removed and the run exits 1 saying so; during a group's
// renames the group finishes and the run stops after it with its
// summary. Never a temp file left, never a task unpaced (issue 24 §3:
// SIGHUP used to kill the process at once, SIGQUIT to dump goroutines).
func TestSignalsHupQuitDuringWrite(t *testing.T) {
	const groups = 4
	for _, c := range []struct {
		sig  syscall.Signal
		name string
		step string
		n    int
	}{
		{syscall.SIGHUP, "SIGHUP", "write", 5},
		{syscall.SIGHUP, "SIGHUP", "rename", 2},
		{syscall.SIGQUIT, "SIGQUIT", "write", 5},
		{syscall.SIGQUIT, "SIGQUIT", "rename", 2},
	} {
		t.Run(fmt.Sprintf("%s at %s %d", c.name, c.step, c.n), func(t *testing.T) {
			dir := t.TempDir()
			signalTree(t, dir, groups)
			marker := filepath.Join(t.TempDir(), "paused")
			cmd := exec.Command(os.Args[0], "migrate", "--write", ".")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), fmt.Sprintf("SCHEDTOOL_TEST_PAUSE=%s:%d:%s", c.step, c.n, marker))
			var errb strings.Builder
			cmd.Stderr = &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			for i := 0; ; i++ {
				if _, err := os.Stat(marker); err == nil {
					break
				}
				if i == 30000 {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("the run never reached %s %d:\n%s", c.step, c.n, errb.String())
				}
				time.Sleep(time.Millisecond)
			}
			cmd.Process.Signal(c.sig)
			cmd.Wait()
			ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if ws.Signaled() || cmd.ProcessState.ExitCode() != 1 || !strings.Contains(errb.String(), "interrupted by "+c.name) {
				t.Errorf("exit %v, want 1 and a message:\n%s", cmd.ProcessState, errb.String())
			}
			if c.step == "rename" && !strings.Contains(errb.String(), "written: ") {
				t.Errorf("the group being renamed did not finish, or no summary:\n%s", errb.String())
			}
			filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
				if err == nil && strings.Contains(info.Name(), ".schedtool-") {
					t.Errorf("temp file left: %s", p)
				}
				return nil
			})
			r := schedtoolIn(t, dir, "census", "-o", "json", ".")
			var doc struct {
				Tasks []struct{ Task, Status string } `json:"tasks"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
				t.Fatalf("census: %v\n%s", err, r.stderr)
			}
			st := map[string]int{}
			for _, tk := range doc.Tasks {
				st[tk.Status]++
			}
			if st["ready"]+st["migrated"] != 3*groups || c.step == "rename" && st["migrated"] == 0 {
				t.Errorf("a group half written or a task unpaced: %v", st)
			}
			if r := schedtoolIn(t, dir, "migrate", "--write", "."); r.code != 0 {
				t.Errorf("the next run: exit %d\n%s", r.code, r.stderr)
			}
		})
	}
}
