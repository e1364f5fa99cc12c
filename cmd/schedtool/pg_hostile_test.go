package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/estuary/schedtool/catalog/pgsource/pgtest"
)

// filesUnder lists the files (not directories) under dir, temp files too.
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && p == dir {
				return nil
			}
			return err
		}
		if !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A connection that dies in the middle of the rows (a proxy closing the
// socket after 5 MB) is exit 1 with a message that says so, and leaves
// no output behind: not a partial tree under --out DIR (whose sources
// could be published one by one as if the migration were complete), not
// a partial --out FILE, not a temp file.
func TestPostgresConnectionLostMidRead(t *testing.T) {
	// Enough rows that every command has written some output before the
	// cut, when it streams its output.
	db, _ := pgFixture(t, 12000)
	const at = 5 << 20
	cut := pgtest.CutAfter(t, db.BypassURL, at, 0)
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		out  string
		skip int // connections that go through whole
	}{
		{"census", []string{"census"}, "", 0},
		{"census csv", []string{"census", "-o", "csv"}, "", 0},
		{"census json", []string{"census", "-o", "json"}, "", 0},
		{"validate", []string{"validate"}, "", 0},
		{"validate json", []string{"validate", "-o", "json"}, "", 0},
		{"validate sarif", []string{"validate", "-o", "sarif"}, "", 0},
		{"migrate", []string{"migrate"}, "", 0},
		{"migrate json", []string{"migrate", "-o", "json"}, "", 0},
		{"migrate --out DIR", []string{"migrate", "--out", filepath.Join(dir, "tree")}, filepath.Join(dir, "tree"), 0},
		{"migrate --out DIR -o json", []string{"migrate", "-o", "json", "--out", filepath.Join(dir, "tree2")}, filepath.Join(dir, "tree2"), 0},
		{"migrate --out FILE", []string{"migrate", "--out", filepath.Join(dir, "rows.ndjson")}, filepath.Join(dir, "rows.ndjson"), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := cut
			if tc.skip > 0 {
				url = pgtest.CutAfter(t, db.BypassURL, at, tc.skip)
			}
			r := schedtool(t, "", append(tc.args, url)...)
			if r.code != 1 {
				t.Errorf("exit %d, want 1\n%s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, "connection to the server was lost") {
				t.Errorf("stderr does not say the connection was lost:\n%s", r.stderr)
			}
			if strings.Contains(r.stdout+r.stderr, db.BypassPassword) {
				t.Error("the password is in the output")
			}
			// Standard output holds nothing of the rows read: a partial
			// CSV, diff or report would pass for the whole one down a
			// pipe. A machine format gets its failure document.
			switch {
			case strings.Contains(strings.Join(tc.args, " "), "-o json"):
				var doc struct{ Error string }
				if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || !strings.Contains(doc.Error, "connection to the server was lost") {
					t.Errorf("stdout is not the failure document (%v):\n%.300s", err, r.stdout)
				}
			case strings.Contains(strings.Join(tc.args, " "), "-o sarif"):
				if !strings.Contains(r.stdout, `"executionSuccessful": false`) || strings.Contains(r.stdout, `"ruleId"`) {
					t.Errorf("stdout is not the failure document:\n%.300s", r.stdout)
				}
			case r.stdout != "":
				t.Errorf("%d bytes on stdout after a failed read:\n%.300s", len(r.stdout), r.stdout)
			}
			if tc.skip > 0 && !strings.Contains(r.stderr, "nothing written under "+tc.out+": the ") {
				t.Errorf("stderr does not say the staged sources were removed:\n%s", r.stderr)
			}
			if tc.out != "" {
				if files := filesUnder(t, tc.out); len(files) > 0 {
					t.Errorf("%d files left under %s after a failed read, first %s", len(files), tc.out, files[0])
				}
				if _, err := os.Lstat(tc.out); !os.IsNotExist(err) {
					t.Errorf("%s is there after a failed read (%v)", tc.out, err)
				}
			}
		})
	}
	if files := filesUnder(t, dir); len(files) > 0 {
		t.Errorf("files left behind: %v", files[:min(len(files), 5)])
	}
	// --out DIR and --limit make two passes over the rows (case clashes
	// or the wave, then the migration) but read the database once: a
	// second connection would be cut, and none is made.
	for _, args := range [][]string{{"migrate", "--out", filepath.Join(t.TempDir(), "tree")}, {"migrate", "--limit", "5"}} {
		once := pgtest.CutAfter(t, db.BypassURL, at, 1)
		r := schedtool(t, "", append(args, once)...)
		if r.code == 1 || strings.Contains(r.stderr, "connection to the server was lost") {
			t.Errorf("%v read the database twice: exit %d\n%s", args, r.code, r.stderr)
		}
	}
}

// SIGINT or SIGTERM while the rows are read (the server stalled part
// way) ends migrate --out DIR and --out FILE with 130 or 1, leaving
// nothing behind: no task source, no temp file, no directory made for
// them.
func TestPostgresSignalDuringRead(t *testing.T) {
	db, _ := pgFixture(t, 3000)
	for _, tc := range []struct {
		name string
		sig  syscall.Signal
		file bool
		skip int // connections that go through whole
	}{
		// --out DIR reads the table twice: first the names (case
		// clashes), then the rows it stages.
		{"SIGINT --out DIR, staging", syscall.SIGINT, false, 1},
		{"SIGTERM --out DIR, staging", syscall.SIGTERM, false, 1},
		{"SIGINT --out DIR, first read", syscall.SIGINT, false, 0},
		{"SIGINT --out FILE", syscall.SIGINT, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent := t.TempDir()
			out := filepath.Join(parent, "tree")
			if tc.file {
				out = filepath.Join(parent, "rows.ndjson")
			}
			stall := pgtest.StallAfter(t, db.BypassURL, 600<<10, tc.skip)
			cmd := exec.Command(binary, "migrate", "--out", out, stall)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Wait until the run has staged files (or its temp file), so
			// that the signal comes part way through the read; a first
			// read stages nothing: it has a second to stall.
			deadline := time.Now().Add(20 * time.Second)
			if tc.skip == 0 && !tc.file {
				deadline = time.Now().Add(time.Second)
			}
			for len(filesUnder(t, parent)) == 0 && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if (tc.skip > 0 || tc.file) && len(filesUnder(t, parent)) == 0 {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("nothing staged before the stall\n%s", stderr.String())
			}
			cmd.Process.Signal(tc.sig)
			err := cmd.Wait()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			if want := map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 1}[tc.sig]; code != want {
				t.Errorf("exit %d, want %d\n%s", code, want, stderr.String())
			}
			if files := filesUnder(t, parent); len(files) > 0 {
				t.Errorf("%d files left after the signal, first %s", len(files), files[0])
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				b, _ := exec.Command("find", out).CombinedOutput()
				t.Errorf("%s is still there (%v)\n%.500s", out, err, b)
			}
			if strings.Contains(stderr.String(), db.BypassPassword) {
				t.Error("the password is in the output")
			}
		})
	}
}

// A spec longer than --max-row-size is not sent by the server: census
// counts the row unreadable, naming its task and its length.
func TestPostgresSpecLongerThanMaxRowSize(t *testing.T) {
	db, dump := pgFixture(t, 200)
	var first struct {
		Name string `json:"catalog_name"`
	}
	line, _, _ := bytes.Cut(mustRead(t, dump), []byte("\n"))
	if err := json.Unmarshal(line, &first); err != nil {
		t.Fatal(err)
	}
	if err := pgtest.Exec(context.Background(), db.SuperURL, `UPDATE live_specs SET spec = json_build_object('pad', repeat('x', 200000), 'endpoint', spec->'endpoint') WHERE catalog_name = '`+first.Name+`'`); err != nil {
		t.Fatal(err)
	}
	r := schedtool(t, "", "census", "--max-row-size", "64KiB", "--fail-if-remaining", db.BypassURL)
	want := "materialization row " + first.Name + ": its spec is 200"
	if r.code != 2 || !strings.Contains(r.stdout+r.stderr, want) || !strings.Contains(r.stdout+r.stderr, "longer than --max-row-size (64 KiB)") {
		t.Errorf("exit %d, want 2 and %q\n%s%s", r.code, want, r.stdout, r.stderr)
	}
	if r := schedtool(t, "", "census", db.BypassURL); r.code != 0 || !strings.Contains(r.stdout, ", 0 unreadable inputs") {
		t.Errorf("with the default --max-row-size: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// A role that row-level security applies to, granted some rows, reads
// those silently: its census would pass the gate while the rows hidden
// from it still rely on connector pacing. The read says so, as an
// unreadable input: the counts stand for the rows read, the gate fails.
func TestPostgresRowLevelSecurityPartial(t *testing.T) {
	db, _ := pgFixture(t, 300)
	if err := db.GrantReader(context.Background(), "materialize-acmeCo/"); err != nil {
		t.Fatal(err)
	}
	r := schedtool(t, "", "census", "--fail-if-remaining", db.ReaderURL)
	for _, want := range []string{"row-level security applies to role \"" + db.Reader + "\"", "only the rows its policies grant were read", "BYPASSRLS", "1 unreadable input"} {
		if !strings.Contains(r.stdout+r.stderr, want) {
			t.Errorf("census does not say %q:\n%s%s", want, r.stdout, r.stderr)
		}
	}
	if r.code != 2 {
		t.Errorf("census --fail-if-remaining as a role under row-level security: exit %d, want 2", r.code)
	}
	// A role that reads every row gets no such note.
	r = schedtool(t, "", "census", "--prefix", "materialize-acmeCo/", db.BypassURL)
	if r.code != 0 || strings.Contains(r.stdout+r.stderr, "row-level security") {
		t.Errorf("as BYPASSRLS: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// A server that stalls (a proxy that stops forwarding and keeps the
// socket open) while connecting, before the first row or part way
// through the rows fails every command with exit 1 within about
// --db-timeout, naming it and the rows read; --db-timeout 0 waits.
func TestPostgresStalledServer(t *testing.T) {
	db, _ := pgFixture(t, 3000)
	const query = "WHERE spec_type" // only in the query of the rows
	dir := t.TempDir()
	for _, tc := range []struct {
		name      string
		query     string
		n         int64
		args      []string
		where     string // in the message
		wantTrace string // a regexp the rows read match
	}{
		{"connecting", "", 0, []string{"census"}, "while connecting to it", ""},
		{"first row", query, 0, []string{"census", "-o", "json"}, "before the first row of public.live_specs (0 rows read)", ""},
		{"part way", query, 300 << 10, []string{"validate"}, "of public.live_specs, before the last one", `after [1-9][0-9]* rows`},
		{"part way, migrate --out FILE", query, 300 << 10, []string{"migrate", "--out", filepath.Join(dir, "rows.ndjson")}, "before the last one", `after [1-9][0-9]* rows`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := pgtest.StallAt(t, db.BypassURL, tc.query, tc.n)
			start := time.Now()
			r := schedtool(t, "", append(tc.args, "--db-timeout", "1s", url)...)
			took := time.Since(start)
			if r.code != 1 {
				t.Errorf("exit %d, want 1\n%s", r.code, r.stderr)
			}
			if took > 6*time.Second {
				t.Errorf("took %v with --db-timeout 1s", took)
			}
			for _, want := range []string{"the server sent nothing for 1s (--db-timeout)", tc.where, "the read is incomplete"} {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr does not say %q:\n%s", want, r.stderr)
				}
			}
			if tc.wantTrace != "" && !regexp.MustCompile(tc.wantTrace).MatchString(r.stderr) {
				t.Errorf("stderr does not match %q:\n%s", tc.wantTrace, r.stderr)
			}
			if strings.Contains(r.stdout+r.stderr, db.BypassPassword) {
				t.Error("the password is in the output")
			}
		})
	}
	if files := filesUnder(t, dir); len(files) > 0 {
		t.Errorf("files left behind: %v", files)
	}
	// The near miss: with --db-timeout 0 the stalled read still waits
	// after several timeouts' worth of time.
	cmd := exec.Command(binary, "census", "--db-timeout", "0", pgtest.StallAt(t, db.BypassURL, query, 0))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		t.Errorf("--db-timeout 0 ended a stalled read (%v):\n%s", err, stderr.String())
	case <-time.After(3 * time.Second):
		cmd.Process.Kill()
		<-done
	}
}

// --db-timeout takes a duration or a number of seconds; a negative or
// malformed one is a usage error.
func TestDBTimeoutFlag(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want string // in stderr; "" for accepted
	}{
		{"-1s", "a duration cannot be negative"},
		{"-5", "a duration cannot be negative"},
		{"soon", "is not a duration"},
		{"0", ""},
		{"90", ""},
		{"1m30s", ""},
	} {
		r := schedtool(t, "", "census", "--db-timeout", tc.v, "testdata/does-not-exist.ndjson")
		if r.code != 1 {
			t.Errorf("--db-timeout %s: exit %d, want 1", tc.v, r.code)
		}
		if tc.want != "" && !strings.Contains(r.stderr, tc.want) {
			t.Errorf("--db-timeout %s: stderr does not say %q:\n%s", tc.v, tc.want, r.stderr)
		}
		if tc.want == "" && strings.Contains(r.stderr, "--db-timeout") {
			t.Errorf("--db-timeout %s refused:\n%s", tc.v, r.stderr)
		}
	}
}

// On a terminal, the rows that have arrived are shown while they come
// (here until the server stalls); on a pipe nothing is (the stalled
// server test reads stderr from a pipe, and census's table from a pipe
// holds no such line either).
func TestPostgresProgressOnTerminal(t *testing.T) {
	scriptBin, err := exec.LookPath("script")
	if err != nil {
		t.Skip("script(1) is needed to run schedtool on a terminal")
	}
	db, _ := pgFixture(t, 3000)
	url := pgtest.StallAt(t, db.BypassURL, "WHERE spec_type", 300<<10)
	// script runs the command on a new terminal and copies what it
	// writes there to its own standard output.
	cmd := exec.Command(scriptBin, "-q", "-e", "-c", binary+" census -o json --db-timeout 2s '"+url+"'", "/dev/null")
	out, _ := cmd.CombinedOutput()
	if !regexp.MustCompile(`census: [1-9][0-9]* rows from the database, [0-9]+ rows/s`).Match(out) {
		t.Errorf("no progress line on the terminal:\n%.2000s", out)
	}
	if !bytes.Contains(out, []byte("the server sent nothing for 2s (--db-timeout)")) {
		t.Errorf("the stall is not reported:\n%.2000s", out)
	}
	r := schedtool(t, "", "census", "-o", "json", "--db-timeout", "1s", pgtest.StallAt(t, db.BypassURL, "WHERE spec_type", 300<<10))
	if strings.Contains(r.stderr, "rows from the database") {
		t.Errorf("a progress line on a pipe:\n%s", r.stderr)
	}
}
