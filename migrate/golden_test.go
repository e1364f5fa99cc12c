package migrate

import (
	"bytes"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/finding"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/schedule/connector"
	"github.com/estuary/schedtool/validate"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/golden")

// newMigrator builds a migrator from golden-test args ("--absent=drop").
func newMigrator(t *testing.T, args []string) *Migrator {
	t.Helper()
	reg := connector.Builtin()
	opts := plan.Options{}
	verify := false
	for _, a := range args {
		switch {
		case a == "--verify":
			verify = true
		case strings.HasPrefix(a, "--absent="):
			opts.Absent = strings.TrimPrefix(a, "--absent=")
		case strings.HasPrefix(a, "--resolve="):
			opts.Resolve = strings.TrimPrefix(a, "--resolve=")
		case a == "--zero-file-sinks":
			opts.ZeroFileSinks = true
		default:
			t.Fatalf("unknown golden arg %q", a)
		}
	}
	return &Migrator{Planner: &plan.Planner{Registry: reg, Options: opts}, Registry: reg, Verify: verify, VerifyYear: 2026}
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			b, _ := os.ReadFile(p)
			out[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	return out
}

// goldenTree compares the tree at dir with the golden tree wantDir (or
// rewrites wantDir under -update); what names the tree in a failure.
func goldenTree(t *testing.T, wantDir, dir, what string) {
	t.Helper()
	got := readTree(t, dir)
	if *update {
		os.RemoveAll(wantDir)
		for rel, text := range got {
			golden(t, filepath.Join(wantDir, rel), []byte(text))
		}
	} else if d := cmp.Diff(readTree(t, wantDir), got); d != "" {
		t.Errorf("%s differs (-want +got):\n%s", what, d)
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./migrate -update)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, d)
	}
}

// TestGolden migrates each tree of testdata/golden/*/in: the dry-run
// diff, the JSON report and the migrated tree are golden; a second run
// finds nothing to do; validate reports no error on a migrated task.
func TestGolden(t *testing.T) {
	dirs, _ := filepath.Glob("testdata/golden/*")
	if len(dirs) == 0 {
		t.Fatal("no golden cases")
	}
	for _, dir := range dirs {
		dir, _ := filepath.Abs(dir)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			var args []string
			if b, err := os.ReadFile(filepath.Join(dir, "args")); err == nil {
				args = strings.Fields(string(b))
			}
			work := t.TempDir()
			copyTree(t, filepath.Join(dir, "in"), filepath.Join(work, "in"))
			t.Chdir(work)
			dumps, _ := filepath.Glob("in/*.ndjson")
			paths := []string{"in"}
			if len(dumps) > 0 {
				paths = dumps
			}
			inputs, err := input.Resolve(paths, catalog.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			run := func(mode Mode, format string) (*Summary, string, string) {
				var out, errb bytes.Buffer
				sum, err := newMigrator(t, args).Run(inputs, RunOptions{Load: catalog.DefaultOptions(), Mode: mode, Format: format, Out: "out/migrated.ndjson"}, &out, &errb)
				if err != nil {
					t.Fatalf("run: %v\n%s", err, errb.String())
				}
				return sum, out.String(), errb.String()
			}
			_, diff, notes := run(DryRun, "diff")
			golden(t, filepath.Join(dir, "want.diff"), []byte(diff))
			golden(t, filepath.Join(dir, "want.notes"), []byte(notes))
			_, rep, _ := run(DryRun, "json")
			golden(t, filepath.Join(dir, "want.json"), []byte(rep))

			mode, result := Write, "in"
			if len(dumps) > 0 {
				os.MkdirAll("out", 0o755)
				mode, result = OutFile, "out"
			}
			if sum, _, notes := run(mode, "diff"); sum.Failed > 0 || sum.Refused > 0 {
				t.Fatalf("write: %+v\n%s", sum, notes)
			}
			goldenTree(t, filepath.Join(dir, "want"), result, "migrated tree")

			if len(dumps) > 0 {
				// The publishable tree of --out DIR, with its report and notes.
				var out, errb bytes.Buffer
				sum, err := newMigrator(t, args).Run(inputs, RunOptions{Load: catalog.DefaultOptions(), Mode: OutTree, Format: "json", Out: "tree"}, &out, &errb)
				if err != nil || sum.Failed > 0 || sum.Refused > 0 {
					t.Fatalf("--out tree: %v %+v\n%s", err, sum, errb.String())
				}
				golden(t, filepath.Join(dir, "want-tree.json"), out.Bytes())
				golden(t, filepath.Join(dir, "want-tree.notes"), errb.Bytes())
				goldenTree(t, filepath.Join(dir, "want-tree"), "tree", "published tree")
			}

			// Idempotent: a second run over the result finds nothing.
			again := inputs
			if len(dumps) > 0 {
				again, _ = input.Resolve([]string{"out/migrated.ndjson"}, catalog.DefaultOptions())
			}
			var out, errb bytes.Buffer
			sum, err := newMigrator(t, args).Run(again, RunOptions{Load: catalog.DefaultOptions(), Format: "diff"}, &out, &errb)
			if err != nil || sum.Pending != 0 {
				t.Errorf("second run: %v, %d pending:\n%s", err, sum.Pending, out.String())
			}

			// validate finds no error on a task that was migrated.
			migrated := map[string]bool{}
			for _, line := range strings.Split(rep, "\n") {
				if strings.Contains(line, `"action":"migrate"`) {
					name := strings.SplitN(strings.SplitN(line, `"task":"`, 2)[1], `"`, 2)[0]
					migrated[name] = true
				}
			}
			fs, _, err := (&validate.Checker{Registry: connector.Builtin()}).Collect(again, catalog.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range fs {
				if f.Severity == finding.Error && migrated[f.Task] {
					t.Errorf("validate after migration: %s: %s", f.Task, f.Message)
				}
			}
		})
	}
}
