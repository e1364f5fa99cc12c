package migrate

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/internal/groupwrite"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/schedule/connector"
)

// TestCrashHelper is the child of TestCrashAtomicWrites: it migrates the
// tree named by SCHEDTOOL_CRASH_DIR with --write until it is killed.
func TestCrashHelper(t *testing.T) {
	dir := os.Getenv("SCHEDTOOL_CRASH_DIR")
	if dir == "" {
		t.Skip("only run as the child of TestCrashAtomicWrites")
	}
	var hooks groupwrite.Hooks
	if at, _ := strconv.Atoi(os.Getenv("SCHEDTOOL_CRASH_KILL_AT_RENAME")); at > 0 {
		// Die by SIGKILL just before the at-th rename of a shared.yaml:
		// the last file of its group, so the group is half renamed.
		renames := 0
		hooks.Fault = func(step, path string) error {
			if step == "rename" && filepath.Base(path) == "shared.yaml" {
				if renames++; renames == at {
					syscall.Kill(os.Getpid(), syscall.SIGKILL)
					time.Sleep(time.Second)
				}
			}
			return nil
		}
	}
	sum, err := hookedRun(dir, hooks)
	if err != nil || !sum.OK() {
		t.Fatalf("%v %+v", err, sum)
	}
}

func crashRun(dir string) (*Summary, error) { return hookedRun(dir, groupwrite.Hooks{}) }

// hookedRun is crashRun with the writes' faults injected by h.
func hookedRun(dir string, h groupwrite.Hooks) (*Summary, error) {
	reg := connector.Builtin()
	mg := &Migrator{Planner: &plan.Planner{Registry: reg}, Registry: reg}
	inputs, err := input.Resolve([]string{dir}, catalog.DefaultOptions())
	if err != nil {
		return nil, err
	}
	var out, errb bytes.Buffer
	return mg.Run(inputs, RunOptions{Load: catalog.DefaultOptions(), Mode: Write, Quiet: true, Hooks: h}, &out, &errb)
}

const crashFiles = 1000

func crashSource(i int) string {
	return fmt.Sprintf(`# source %d
materializations:
  acmeCo/task%d:
    shards:
      flags:
        enable-runtime-v2: "true"
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config:
          host: h%d.snowflakecomputing.com
          syncSchedule:
            syncFrequency: %dm
    bindings: []
%s`, i, i, i, 5+i%50, strings.Repeat("# padding so that a write takes a little while\n", 40))
}

// TestCrashAtomicWrites kills a child migrating 1,000 files with SIGKILL
// at random moments: every file is afterwards its old or its new content,
// never partial, and a last run completes the migration.
func TestCrashAtomicWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	dir := t.TempDir()
	old := make([]string, crashFiles)
	for i := range old {
		p := filepath.Join(dir, fmt.Sprintf("s%04d", i), "flow.yaml")
		os.MkdirAll(filepath.Dir(p), 0o755)
		old[i] = crashSource(i)
		os.WriteFile(p, []byte(old[i]), 0o644)
	}
	// The new contents, from a migration of a copy.
	want := make([]string, crashFiles)
	{
		cp := t.TempDir()
		copyTree(t, dir, cp)
		if sum, err := crashRun(cp); err != nil || sum.Written != crashFiles {
			t.Fatalf("reference run: %v %+v", err, sum)
		}
		for i := range want {
			b, _ := os.ReadFile(filepath.Join(cp, fmt.Sprintf("s%04d", i), "flow.yaml"))
			want[i] = string(b)
		}
	}
	check := func(round int) (migrated int) {
		for i := range old {
			b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("s%04d", i), "flow.yaml"))
			if err != nil {
				t.Fatalf("round %d: file %d: %v", round, i, err)
			}
			switch string(b) {
			case old[i]:
			case want[i]:
				migrated++
			default:
				t.Fatalf("round %d: file %d is neither old nor new:\n%s", round, i, b)
			}
		}
		return migrated
	}
	r := rand.New(rand.NewPCG(1, 2))
	kills := 0
	for round := 0; round < 8; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashHelper$", "-test.count=1")
		cmd.Env = append(os.Environ(), "SCHEDTOOL_CRASH_DIR="+dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-time.After(time.Duration(20+r.IntN(400)) * time.Millisecond):
			cmd.Process.Signal(syscall.SIGKILL)
			<-done
			kills++
		case err := <-done:
			if err != nil {
				t.Fatalf("child failed: %v", err)
			}
		}
		n := check(round)
		t.Logf("round %d: %d of %d files migrated", round, n, crashFiles)
		if n == crashFiles {
			break
		}
	}
	if kills == 0 {
		t.Fatal("the child was never killed mid-run; the test proved nothing")
	}
	// A run that is not killed completes the migration.
	if _, err := crashRun(dir); err != nil {
		t.Fatal(err)
	}
	if n := check(99); n != crashFiles {
		t.Fatalf("after the last run: %d of %d files migrated", n, crashFiles)
	}
}

// TestCrashGroups kills a child migrating 60 copies of groupTree (multi-
// file groups: a config file, a shared config, a sealed config, sources
// that hold several tasks) with SIGKILL at random moments. After every
// kill each file is old or new and every task is paced (a kill between a
// group's renames leaves a task stacked, never unpaced); a last run
// completes every group.
func TestCrashGroups(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	const copies = 60
	dir, ref := t.TempDir(), t.TempDir()
	for i := range copies {
		groupTreeOf(t, filepath.Join(dir, fmt.Sprintf("g%03d", i)), fmt.Sprintf("tenant%03d", i))
		groupTreeOf(t, filepath.Join(ref, fmt.Sprintf("g%03d", i)), fmt.Sprintf("tenant%03d", i))
	}
	old := snapshot(t, dir)
	if sum, err := crashRun(ref); err != nil || !sum.OK() {
		t.Fatalf("reference run: %v %+v", err, sum)
	}
	want := snapshot(t, ref)
	check := func(round int) (migrated, stacked int) {
		for name, content := range snapshot(t, dir) {
			if groupwrite.IsTemp(name) {
				continue // a SIGKILL leaves its temp files; nothing else can
			}
			if content != old[name] && content != want[name] {
				t.Fatalf("round %d: %s is neither old nor new:\n%s", round, name, content)
			}
		}
		for task, s := range taskStates(t, dir) {
			switch {
			case !s.Paced:
				t.Fatalf("round %d: %s is unpaced: %+v", round, task, s)
			case s.Situation == plan.Migrated:
				migrated++
			case s.Situation == plan.Conflict || s.Situation == plan.Stacked:
				stacked++
			}
		}
		return migrated, stacked
	}
	r := rand.New(rand.NewPCG(3, 4))
	kills, halfway := 0, 0
	tasks := copies * len(groupTasks)
	for round := 0; round < 12; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashHelper$", "-test.count=1")
		cmd.Env = append(os.Environ(), "SCHEDTOOL_CRASH_DIR="+dir)
		// Odd rounds are killed from outside at a random moment.
		wait := time.Duration(200+r.IntN(1000)) * time.Millisecond
		if round%2 == 0 {
			// Every other round the child kills itself at a rename; it is
			// not killed from outside first, however slow it runs (under
			// -race on a loaded machine it may not reach a rename for
			// seconds), so these rounds always stop between renames.
			cmd.Env = append(cmd.Env, fmt.Sprintf("SCHEDTOOL_CRASH_KILL_AT_RENAME=%d", 1+r.IntN(5)))
			wait = 5 * time.Minute
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-time.After(wait):
			cmd.Process.Signal(syscall.SIGKILL)
			<-done
			kills++
		case err := <-done:
			if ee, ok := err.(*exec.ExitError); ok && ee.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL {
				kills++
			} else if err != nil {
				t.Fatalf("child failed: %v", err)
			}
		}
		m, s := check(round)
		if s > 0 {
			halfway++
		}
		t.Logf("round %d: %d of %d tasks migrated, %d stacked", round, m, tasks, s)
		if m == tasks {
			break
		}
	}
	if kills == 0 || halfway == 0 {
		t.Fatalf("%d kills, %d of them between a group's renames: the test proved nothing", kills, halfway)
	}
	if sum, err := crashRun(dir); err != nil || !sum.OK() {
		t.Fatalf("the last run: %v %+v", err, sum)
	}
	if m, _ := check(99); m != tasks {
		t.Fatalf("after the last run: %d of %d tasks migrated", m, tasks)
	}
	for name, content := range snapshot(t, dir) {
		if !groupwrite.IsTemp(name) && content != want[name] {
			t.Errorf("%s differs from a migration in one go:\n%s", name, content)
		}
	}
}

// A run over a catalog whose file is replaced between read and write:
// that file is reported and kept, the exit is a failure, no temp is left.
func TestRunReportsAFileReplacedBeforeTheWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "flow.yaml")
	os.WriteFile(p, []byte(crashSource(1)), 0o644)
	sum, err := hookedRun(dir, groupwrite.Hooks{BeforeRename: func(target string) { os.WriteFile(target, []byte("# edited by hand\n"), 0o644) }})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 1 || sum.OK() {
		t.Errorf("summary %+v, want one failed file", sum)
	}
	if b, _ := os.ReadFile(p); string(b) != "# edited by hand\n" {
		t.Errorf("content %q", b)
	}
	noTemps(t, dir)
}
