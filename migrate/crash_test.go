package migrate

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"schedtool/catalog"
	"schedtool/plan"
	"schedtool/schedule/connector"
)

// TestCrashHelper is the child of TestCrashAtomicWrites: it migrates the
// tree named by SCHEDTOOL_CRASH_DIR with --write until it is killed.
func TestCrashHelper(t *testing.T) {
	dir := os.Getenv("SCHEDTOOL_CRASH_DIR")
	if dir == "" {
		t.Skip("only run as the child of TestCrashAtomicWrites")
	}
	sum, err := crashRun(dir)
	if err != nil || !sum.OK() {
		t.Fatalf("%v %+v", err, sum)
	}
}

func crashRun(dir string) (*Summary, error) {
	reg := connector.Builtin()
	mg := &Migrator{Planner: &plan.Planner{Registry: reg}, Registry: reg}
	inputs, err := catalog.Resolve([]string{dir}, catalog.DefaultOptions())
	if err != nil {
		return nil, err
	}
	var out, errb bytes.Buffer
	return mg.Run(inputs, RunOptions{Load: catalog.DefaultOptions(), Mode: Write, Quiet: true}, &out, &errb)
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
