package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runIn runs the binary in dir with empty standard input, killed after
// 20 s so that a hang fails the test instead of the whole run.
func runIn(t *testing.T, dir string, args ...string) run {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader("")
	r := execRun(t, cmd)
	if ctx.Err() != nil {
		t.Fatalf("%v: hung (killed after 20 s)", args)
	}
	return r
}

func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

// Only regular files are read (docs/behaviour.md §2): a FIFO, a device or a
// directory, directly or through a symlink, is refused with a message
// before it is opened for reading, as a source, an import, a config file,
// a dump or --connectors; and sizes are checked before reading.
func TestSpecialFiles(t *testing.T) {
	const src = "materializations:\n" + "  acmeCo/m:\n" + `    shards: {flags: {enable-runtime-v2: "true"}}
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config: CONFIG
    bindings: []
`
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string)
		args  []string
		code  int
		msg   string
	}{
		{"fifo source found by walking", func(t *testing.T, dir string) {
			mkfifo(t, filepath.Join(dir, "cat", "flow.yaml"))
		}, []string{"validate", "cat"}, 2, "cat/flow.yaml:1:1: error parse-error: cannot read: not a regular file (a FIFO)"},
		{"fifo source named", func(t *testing.T, dir string) {
			mkfifo(t, filepath.Join(dir, "cat", "flow.yaml"))
		}, []string{"validate", "cat/flow.yaml"}, 1, "cat/flow.yaml: not a regular file (a FIFO)"},
		{"symlink to /dev/zero found by walking (root /)", func(t *testing.T, dir string) {
			os.Symlink("/dev/zero", filepath.Join(dir, "cat", "flow.yaml"))
		}, []string{"census", "--root", "/", "cat"}, 0, "not a regular file (a character device)"},
		{"symlink to /dev/zero named", func(t *testing.T, dir string) {
			os.Symlink("/dev/zero", filepath.Join(dir, "cat", "flow.yaml"))
		}, []string{"validate", "cat/flow.yaml"}, 1, "cat/flow.yaml: not a regular file (a character device)"},
		{"fifo import", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "cat", "flow.yaml"), []byte("import: [pipe.yaml]\n"), 0o644)
			mkfifo(t, filepath.Join(dir, "cat", "pipe.yaml"))
		}, []string{"validate", "cat"}, 2, "cannot read import cat/pipe.yaml: not a regular file (a FIFO)"},
		{"fifo config file", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "cat", "flow.yaml"), []byte(strings.Replace(src, "CONFIG", "pipe.config.yaml", 1)), 0o644)
			mkfifo(t, filepath.Join(dir, "cat", "pipe.config.yaml"))
		}, []string{"migrate", "cat"}, 1, "cannot read config file cat/pipe.config.yaml: not a regular file (a FIFO)"},
		{"fifo dump", func(t *testing.T, dir string) {
			mkfifo(t, filepath.Join(dir, "cat", "live_specs.ndjson"))
		}, []string{"census", "cat/live_specs.ndjson"}, 1, "cat/live_specs.ndjson: not a regular file (a FIFO)"},
		{"--connectors /dev/zero", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "cat", "flow.yaml"), []byte(strings.Replace(src, "CONFIG", "{}", 1)), 0o644)
		}, []string{"validate", "--connectors", "/dev/zero", "cat"}, 1, "--connectors /dev/zero: not a regular file (a character device)"},
		{"--connectors fifo", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "cat", "flow.yaml"), []byte(strings.Replace(src, "CONFIG", "{}", 1)), 0o644)
			mkfifo(t, filepath.Join(dir, "reg.json"))
		}, []string{"census", "--connectors", "reg.json", "cat"}, 1, "--connectors reg.json: not a regular file (a FIFO)"},
		{"--connectors directory", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "cat", "flow.yaml"), []byte(strings.Replace(src, "CONFIG", "{}", 1)), 0o644)
		}, []string{"census", "--connectors", "cat", "cat"}, 1, "--connectors cat: not a regular file (a directory)"},
		{"--connectors over --max-file-size", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "cat", "flow.yaml"), []byte(strings.Replace(src, "CONFIG", "{}", 1)), 0o644)
			os.WriteFile(filepath.Join(dir, "reg.json"), []byte(`{"families": {}, "images": []}`+strings.Repeat(" ", 2000)), 0o644)
		}, []string{"validate", "--max-file-size", "1KiB", "--connectors", "reg.json", "cat"}, 1, "--connectors reg.json: file is 2.0 KiB (2030 bytes), over the limit of 1 KiB (see --max-file-size)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.Mkdir(filepath.Join(dir, "cat"), 0o755); err != nil {
				t.Fatal(err)
			}
			tc.setup(t, dir)
			r := runIn(t, dir, tc.args...)
			expect(t, r, tc.code, nil, nil)
			if !strings.Contains(r.stdout+r.stderr, tc.msg) {
				t.Errorf("no %q in\nstdout: %s\nstderr: %s", tc.msg, r.stdout, r.stderr)
			}
		})
	}
}

// The removal gate never passes on nothing (docs/behaviour.md §2 and §8): empty
// standard input or an empty dump is an error (exit 1) for every command;
// a row whose spec_type is missing, null or not a string is unreadable,
// which fails the gate (exit 2).
func TestRemovalGateOnNothing(t *testing.T) {
	const coll = `{"catalog_name":"acmeCo/c","spec_type":"collection","spec":{}}` + "\n"
	for _, tc := range []struct {
		name, stdin, dump string
		args              []string
		code              int
		msg               string
	}{
		{"empty stdin", "", "", []string{"census", "--fail-if-remaining", "-"}, 1, "-: standard input is empty"},
		{"blank stdin", "\n \r\n", "", []string{"census", "--fail-if-remaining", "-"}, 1, "-: standard input is empty"},
		{"empty stdin, validate", "", "", []string{"validate", "-"}, 1, "standard input is empty"},
		{"empty dump", "", "", []string{"census", "--fail-if-remaining", "d.ndjson"}, 1, "d.ndjson: the dump has no rows"},
		{"blank dump", "", "\n\n  \n", []string{"census", "--fail-if-remaining", "d.ndjson"}, 1, "d.ndjson: the dump has no rows"},
		{"empty dump, migrate", "", "", []string{"migrate", "d.ndjson"}, 1, "d.ndjson: the dump has no rows"},
		{"empty dump, validate", "", "", []string{"validate", "d.ndjson"}, 1, "d.ndjson: the dump has no rows"},
		{"spec_type missing", "", coll + `{"catalog_name":"acmeCo/m","spec":{}}` + "\n", []string{"census", "--fail-if-remaining", "d.ndjson"}, 2, "d.ndjson:2:1: row has no spec_type"},
		{"spec_type null", "", coll + `{"catalog_name":"acmeCo/m","spec_type":null,"spec":{}}` + "\n", []string{"census", "--fail-if-remaining", "d.ndjson"}, 2, "spec_type is a null, not a string"},
		{"spec_type number", "", `{"catalog_name":"acmeCo/m","spec_type":3,"spec":{}}` + "\n", []string{"census", "--fail-if-remaining", "-o", "json", "d.ndjson"}, 2, "spec_type is a number, not a string"},
		{"spec_type missing, materialization inside", "", `{"catalog_name":"acmeCo/m","spec":{"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{"note":"materialization"}}}}}` + "\n", []string{"census", "--fail-if-remaining", "d.ndjson"}, 2, "row has no spec_type"},
		{"spec_type missing on stdin", `{"catalog_name":"acmeCo/m","spec":{}}` + "\n" + `{"catalog_name":"acmeCo/x","spec_type":"capture","spec":{}}` + "\n", "", []string{"census", "--fail-if-remaining", "-"}, 2, "row has no spec_type"},
		{"only collections: nothing remains", "", coll, []string{"census", "--fail-if-remaining", "d.ndjson"}, 0, "0 tasks"},
		// A first row the dump reader refuses still makes the input a
		// dump: it is one unreadable row, and the next row is read.
		{"first row on stdin with a duplicate key", `{"catalog_name":"acmeCo/m","spec_type":"materialization","spec":{"bindings":[{"source":"a","source":"b"}]}}` + "\n" + `{"catalog_name":"acmeCo/x","spec_type":"materialization","spec":{"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{}}}}}` + "\n", "", []string{"census", "--fail-if-remaining", "-"}, 2, "1 task on scheduling images, 1 still relying on connector-side pacing, 1 unreadable input"},
		{"first row on stdin cut short", `{"catalog_name":"acmeCo/m","spec_type":"materialization","spec":{"endp` + "\n" + `{"catalog_name":"acmeCo/x","spec_type":"materialization","spec":{"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{}}}}}` + "\n", "", []string{"validate", "-"}, 2, "<stdin>:1:71: error parse-error: row does not parse: unexpected end of input in a string\n1 error, 0 warnings, 0 infos in 1 materialization from 1 file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "d.ndjson"), []byte(tc.dump), 0o644); err != nil {
				t.Fatal(err)
			}
			r := schedtoolStdin(t, dir, tc.stdin, tc.args...)
			expect(t, r, tc.code, nil, nil)
			if !strings.Contains(r.stdout+r.stderr, tc.msg) {
				t.Errorf("no %q in\nstdout: %s\nstderr: %s", tc.msg, r.stdout, r.stderr)
			}
		})
	}
}

// The blow-ups of issue 10 through the binary: each completes (a hang
// fails after 20 s; the linear bounds themselves are asserted by counting
// in catalog/tree and census) and says what is wrong.
func TestResourceBlowUps(t *testing.T) {
	keys := func(n int, format string) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			if format == "json" {
				fmt.Fprintf(&b, `"k%07d":1,`, i)
			} else {
				fmt.Fprintf(&b, "          k%07d: 1\n", i)
			}
		}
		return b.String()
	}
	alias := "x: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\ny: &b [" + strings.Repeat("*a, ", 9) + "*a]\nz: &c [" + strings.Repeat("*b, ", 9) + "*b]\nw: &d [" + strings.Repeat("*c, ", 9) + "*c]\nv: &e [" + strings.Repeat("*d, ", 9) + "*d]\nu: [" + strings.Repeat("*e, ", 5) + "*e]\n"
	for _, tc := range []struct {
		name  string
		files map[string]string
		args  []string
		code  int
		msg   string
	}{
		{"200k keys in a YAML config, the last a duplicate", map[string]string{
			"cat/flow.yaml": "materializations:\n  acmeCo/m:\n    endpoint:\n      connector:\n        image: " + sfImage + "\n        config:\n" + keys(200_000, "yaml") + "          k0000000: 2\n    bindings: []\n",
		}, []string{"validate", "cat"}, 2, `duplicate key "k0000000" (first at line 7)`},
		{"a 2.6 MB dump row of 200k keys, the last a duplicate", map[string]string{
			"d.ndjson": `{"catalog_name":"acmeCo/m","spec_type":"materialization","spec":{"endpoint":{"connector":{"image":"` + sfImage + `","config":{` + keys(200_000, "json") + `"k0000000":2}}}}}` + "\n",
		}, []string{"census", "--fail-if-remaining", "d.ndjson"}, 2, `duplicate key "k0000000"`},
		{"alias expansion summed over files", map[string]string{
			"cat/flow.yaml": "import: [a.yaml, b.yaml]\n", "cat/a.yaml": alias, "cat/b.yaml": alias,
		}, []string{"validate", "cat"}, 2, "cat/b.yaml:1:20: error parse-error: YAML aliases expand to more than 1000000 values over all the files read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, tc.files)
			r := runIn(t, dir, tc.args...)
			expect(t, r, tc.code, nil, nil)
			if !strings.Contains(r.stdout+r.stderr, tc.msg) {
				t.Errorf("no %q in\nstdout: %.2000s\nstderr: %.2000s", tc.msg, r.stdout, r.stderr)
			}
		})
	}
}

// Output that cannot be written is a failure (exit 1), for every command
// and format: explain > /dev/full once exited 0.
func TestWriteErrorsFail(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	defer full.Close()
	for _, args := range [][]string{
		{"explain", "acmeCo/stored/materialize-snowflake", "fixtures/live_specs.ndjson"},
		{"explain", "-o", "json", "acmeCo/stored/materialize-snowflake", "fixtures/live_specs.ndjson"},
		{"validate", "fixtures/catalog"},
		{"validate", "-o", "sarif", "fixtures/catalog"},
		{"validate", "-o", "github", "fixtures/catalog"},
		{"migrate", "fixtures/catalog"},
		{"migrate", "-o", "json", "fixtures/catalog"},
		{"census", "fixtures/catalog"},
		{"census", "-o", "markdown", "fixtures/catalog"},
		{"census", "-o", "csv", "fixtures/catalog"},
		{"schema"},
	} {
		cmd := exec.Command(binary, args...)
		cmd.Dir = "../.."
		cmd.Stdout = full
		var errb strings.Builder
		cmd.Stderr = &errb
		err := cmd.Run()
		if code := cmd.ProcessState.ExitCode(); code != 1 {
			t.Errorf("%v > /dev/full: exit %d (%v), want 1\n%s", args, code, err, errb.String())
		}
		if !strings.Contains(errb.String(), "no space left on device") {
			t.Errorf("%v > /dev/full: stderr does not say why:\n%s", args, errb.String())
		}
	}
}

// Instants, years and sizes out of range are usage errors that say the
// range, not nonsense.
func TestFlagRanges(t *testing.T) {
	const stored = "acmeCo/stored/materialize-snowflake"
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"explain", "--at", "0001-01-01T00:00:00Z", stored, "fixtures/live_specs.ndjson"}, 1, "--at 0001-01-01T00:00:00Z: give an instant from 1970 to 2199"},
		{[]string{"explain", "--at", "9999-12-31T23:59:59Z", stored, "fixtures/live_specs.ndjson"}, 1, "give an instant from 1970 to 2199"},
		{[]string{"explain", "--at", "yesterday", stored, "fixtures/live_specs.ndjson"}, 1, `--at "yesterday": not an RFC 3339 instant`},
		{[]string{"census", "--at", "1969-12-31T23:59:59Z", "fixtures/catalog"}, 1, "give an instant from 1970 to 2199"},
		{[]string{"migrate", "--at", "0001-01-01T00:00:00Z", "fixtures/catalog"}, 1, "give an instant from 1970 to 2199"},
		{[]string{"migrate", "--verify", "--verify-year", "-5", "fixtures/catalog"}, 1, "--verify-year -5: give a year from 1970 to 2199"},
		{[]string{"migrate", "--verify", "--verify-year", "999999999", "fixtures/catalog"}, 1, "--verify-year 999999999: give a year from 1970 to 2199"},
		{[]string{"census", "--max-row-size", "0", "fixtures/live_specs.ndjson"}, 1, `"0": a size must be at least 1 byte`},
		{[]string{"census", "--max-row-size", "-1KiB", "fixtures/live_specs.ndjson"}, 1, "a size must be at least 1 byte"},
		{[]string{"validate", "--max-file-size", "0", "fixtures/catalog"}, 1, "a size must be at least 1 byte"},
		{[]string{"explain", "--at", "2026-01-05T08:00:00Z", stored, "fixtures/live_specs.ndjson"}, 0, "next commits"},
	} {
		r := schedtool(t, "", tc.args...)
		if r.code != tc.code || !strings.Contains(r.stdout+r.stderr, tc.msg) {
			t.Errorf("%v: exit %d, want %d with %q\nstdout: %s\nstderr: %s", tc.args, r.code, tc.code, tc.msg, r.stdout, r.stderr)
		}
	}
}

// What a hostile catalog can put in front of a reader: raw C1 controls
// and bidi overrides in a JSON catalog reach the dry-run diff escaped;
// Markdown cells neutralise links, images and @mentions; SARIF's uri is
// percent-encoded.
func TestOutputNeutralised(t *testing.T) {
	dir := t.TempDir()
	name := "acmeCo/@octocat/![img](https://e.vil/x.png)/[click](https://e.vil)/www.e.vil"
	cfg := map[string]any{"host": "h\u009b31m\u202eevil\u2066", "syncSchedule": map[string]any{"syncFrequency": "1h"}}
	spec := map[string]any{"materializations": map[string]any{name: map[string]any{
		"shards":   map[string]any{"flags": map[string]any{"enable-runtime-v2": "true"}},
		"endpoint": map[string]any{"connector": map[string]any{"image": sfImage, "config": cfg}},
		"bindings": []any{}}}}
	b, _ := json.MarshalIndent(spec, "", "  ")
	// encoding/json writes U+2028/9 escaped but C1 and bidi raw: what a
	// hostile file holds.
	writeTree(t, dir, map[string]string{"odd dir #1/flow.json": string(b)})
	if !strings.Contains(string(b), "\u009b") || !strings.Contains(string(b), "\u202e") {
		t.Fatal("the catalog does not hold the raw characters")
	}
	bad := func(what, s string) {
		t.Helper()
		for _, r := range s {
			if r == 0x1b || (r >= 0x80 && r < 0xa0) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f {
				t.Errorf("%s: a raw %U reached the output:\n%q", what, r, s)
				return
			}
		}
	}
	r := runIn(t, dir, "migrate", "odd dir #1")
	expect(t, r, 2, []string{"+      \"syncSchedule\": {"}, nil)
	bad("migrate diff", r.stdout+r.stderr)
	if strings.Contains(r.stdout, "evil\\u2066") {
		t.Errorf("the diff shows a config value, escaped or not:\n%s", r.stdout) // host is the config's, never shown
	}

	r = runIn(t, dir, "census", "-o", "markdown", "odd dir #1")
	expect(t, r, 0, []string{"acmeCo/@\u2060octocat/\\!\\[img\\](https:\u2060//e.vil/x.png)/\\[click\\](https:\u2060//e.vil)/www\u2060.e.vil"}, nil)
	bad("census -o markdown", r.stdout+r.stderr)
	for _, raw := range []string{"@octocat", "](https://", "www.e"} {
		if strings.Contains(r.stdout, raw) {
			t.Errorf("census -o markdown keeps %q live:\n%s", raw, r.stdout)
		}
	}

	r = runIn(t, dir, "validate", "-o", "sarif", "--fail-on", "info", "odd dir #1")
	expect(t, r, 2, []string{`"uri": "odd%20dir%20%231/flow.json"`}, nil)
	var doc map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Errorf("sarif: %v", err)
	}
}

// A registry pointer of two levels (/advanced/uploadInterval) is a path
// into the config, read and written nested, never one flat key
// "advanced/uploadInterval".
func TestRegistryNestedPointer(t *testing.T) {
	dir := t.TempDir()
	// No enum: a plaintext config can take the zero (docs/behaviour.md §7).
	reg := `{"families": {"uploadInterval": {"pointer": "/advanced/uploadInterval", "required": true, "zero": "0s"}}, "images": [{"image": "ghcr.io/estuary/materialize-s3-parquet", "family": "uploadInterval"}]}`
	task := func(name, config string) string {
		return "  " + name + ":\n    shards: {flags: {enable-runtime-v2: \"true\"}}\n    endpoint:\n      connector:\n        image: ghcr.io/estuary/materialize-s3-parquet:v1\n        config:\n" + config + "    bindings: []\n"
	}
	writeTree(t, dir, map[string]string{
		"reg.json": reg,
		"cat/flow.yaml": "materializations:\n" +
			task("acmeCo/nested", "          bucket: b\n          advanced:\n            other: 1\n            uploadInterval: 15m\n") +
			task("acmeCo/scalar", "          bucket: b\n          advanced: soon\n"),
	})
	r := runIn(t, dir, "census", "-o", "csv", "--connectors", "reg.json", "cat")
	expect(t, r, 0, []string{"acmeCo/nested,ghcr.io/estuary/materialize-s3-parquet,v1,uploadInterval,v2,file-interval,15m,", "acmeCo/scalar,ghcr.io/estuary/materialize-s3-parquet,v1,uploadInterval,v2,invalid,unknown,"}, nil)
	r = runIn(t, dir, "validate", "--connectors", "reg.json", "cat")
	expect(t, r, 2, []string{"cat/flow.yaml:20:21: error invalid-connector-schedule: ", "json: cannot unmarshal string into Go struct field config.advanced of type struct"}, nil)
	r = runIn(t, dir, "migrate", "--zero-file-sinks", "--name", "acmeCo/nested", "--connectors", "reg.json", "cat")
	expect(t, r, 2, []string{"-            uploadInterval: 15m\n+            uploadInterval: \"0s\"\n"}, nil)
	if strings.Contains(r.stdout, "advanced/uploadInterval") {
		t.Errorf("a flat key was written:\n%s", r.stdout)
	}
}

// A source named on the command line that is a symlink resolving outside
// its root is neither read nor written (docs/behaviour.md §7: a path that resolves
// outside the root is never read or written), whichever command names it;
// with --root wide enough it is read.
func TestNamedSymlinkOutsideRoot(t *testing.T) {
	const src = "materializations:\n" + "  acmeCo/m:\n" + `    shards: {flags: {enable-runtime-v2: "true"}}
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config: {syncSchedule: {syncFrequency: 2h}}
    bindings: []
`
	dir := t.TempDir()
	outside := filepath.Join(dir, "outside.flow.yaml")
	if err := os.WriteFile(outside, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "root"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../outside.flow.yaml", filepath.Join(dir, "root", "flow.yaml")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int // census lists an unreadable input and exits 0 (its gate fails)
	}{
		{[]string{"validate", "root/flow.yaml"}, 2},
		{[]string{"census", "root/flow.yaml"}, 0},
		{[]string{"census", "--fail-if-remaining", "root/flow.yaml"}, 2},
		{[]string{"migrate", "--write", "root/flow.yaml"}, 1},
	} {
		args := tc.args
		r := runIn(t, dir, args...)
		if out := r.stderr + r.stdout; r.code != tc.code || !strings.Contains(out, "root/flow.yaml:1:1: ") || !strings.Contains(out, "resolves through a symlink to outside.flow.yaml, outside the root directory root") {
			t.Errorf("%v: exit %d, want the source refused\nstdout:\n%s\nstderr:\n%s", args, r.code, r.stdout, r.stderr)
		}
		if b := mustRead(t, outside); string(b) != src {
			t.Fatalf("%v wrote the file outside the root:\n%s", args, b)
		}
	}
	r := runIn(t, dir, "migrate", "--root", ".", "root/flow.yaml")
	if r.code != 2 || !strings.Contains(r.stdout, "syncSchedule") {
		t.Errorf("with --root .: exit %d, want 2 and a diff\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}
