package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// complete runs cobra's hidden __complete command in dir and returns the
// candidates (the directive line dropped).
func complete(t *testing.T, dir string, args ...string) []string {
	t.Helper()
	if dir != "" {
		wd, _ := os.Getwd()
		if err := os.Chdir(dir); err != nil {
			t.Fatal(err)
		}
		defer os.Chdir(wd)
	}
	var out, errb bytes.Buffer
	Main(append([]string{"__complete"}, args...), Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if l != "" && !strings.HasPrefix(l, ":") {
			got = append(got, l)
		}
	}
	return got
}

func TestCompletion(t *testing.T) {
	catalog, _ := filepath.Abs("../../fixtures/catalog")
	dump, _ := filepath.Abs("../../fixtures/live_specs.ndjson")
	for _, c := range []struct {
		name string
		dir  string
		args []string
		want string // the candidates, joined by spaces
	}{
		{"validate -o", "", []string{"validate", "-o", ""}, "text json sarif github"},
		{"validate --fail-on", "", []string{"validate", "--fail-on", ""}, "error warning info"},
		{"census -o", "", []string{"census", "-o", ""}, "table wide json csv markdown html"},
		{"migrate -o", "", []string{"migrate", "-o", ""}, "diff json markdown"},
		{"migrate --absent", "", []string{"migrate", "--absent", ""}, "preserve drop"},
		{"migrate --resolve", "", []string{"migrate", "--resolve", ""}, "model connector"},
		{"explain -o", "", []string{"explain", "-o", ""}, "text json html svg"},
		{"--color", "", []string{"census", "--color", ""}, "auto always never"},
		{"--name from a catalog PATH", "", []string{"validate", catalog, "--name", "acmeCo/lake/materialize-s3"},
			"acmeCo/lake/materialize-s3-iceberg acmeCo/lake/materialize-s3-parquet"},
		{"--name from a dump PATH", "", []string{"census", dump, "--name", "acmeCo/stored/materialize-snow"}, "acmeCo/stored/materialize-snowflake"},
		{"explain NAME from the current directory", catalog, []string{"explain", "acmeCo/lake/materialize-gcs"}, "acmeCo/lake/materialize-gcs-csv"},
		{"an unreadable PATH offers nothing", "", []string{"validate", "/nonexistent", "--name", ""}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := strings.Join(complete(t, c.dir, c.args...), " ")
			if got != c.want {
				t.Errorf("got %q\nwant %q", got, c.want)
			}
		})
	}
}

// Completing --name with "-" among the PATHs never reads standard input
// (the terminal, which would block the shell): run with a stdin that
// never ends, completion still answers (issue 24 §3).
func TestCompletionNeverReadsStdin(t *testing.T) {
	catalog, _ := filepath.Abs("../../fixtures/catalog")
	for _, args := range [][]string{
		{"__complete", "validate", "-", "--name", ""},
		{"__complete", "census", "-", catalog, "--name", "acmeCo/lake/materialize-s3"},
		{"__complete", "explain", "x", "-", "--name", ""},
	} {
		t.Run(strings.Join(args[1:], " "), func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close() // never written: a read blocks until the test ends
			defer r.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, binary, args...)
			cmd.Stdin = r
			var out bytes.Buffer
			cmd.Stdout = &out
			if err := cmd.Run(); ctx.Err() != nil {
				t.Fatalf("completion blocked reading standard input (killed after 20s)")
			} else if err != nil {
				t.Fatalf("%v", err)
			}
			if args[1] == "census" && !strings.Contains(out.String(), "acmeCo/lake/materialize-s3-parquet") {
				t.Errorf("the other PATH's names are not offered:\n%s", out.String())
			}
		})
	}
}
