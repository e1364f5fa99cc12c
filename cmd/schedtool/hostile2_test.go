package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/estuary/schedtool/catalog/pgsource/pgtest"
)

// Regression tests from a hostile pass over migrate (issue 10).

// --force --out FILE with standard input redirected from that same file
// used to replace the input dump with only its migrated rows: standard
// input is an input, compared by identity like any other.
func TestOutFileIsStandardInput(t *testing.T) {
	dump := `{"catalog_name":"acmeCo/a","spec_type":"materialization","last_pub_id":"0102030405060708","spec":{"shards":{"flags":{"enable-runtime-v2":"true"}},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{"syncSchedule":{"syncFrequency":"1h"}}}},"bindings":[]}}
{"catalog_name":"acmeCo/b","spec_type":"collection","spec":{}}
`
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"live.ndjson": dump})
	in, err := os.Open(filepath.Join(dir, "live.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	cmd := exec.Command(binary, "migrate", "--force", "--out", "live.ndjson", "-")
	cmd.Dir, cmd.Stdin = dir, in
	r := execRun(t, cmd)
	if r.code != 1 || !strings.Contains(r.stderr, "is the input -") {
		t.Errorf("exit %d\n%s", r.code, r.stderr)
	}
	if b := mustRead(t, filepath.Join(dir, "live.ndjson")); string(b) != dump {
		t.Errorf("the input dump was replaced:\n%s", b)
	}
}

// The removal gate used to pass (exit 0, zero tasks) on standard input
// holding nothing that can be a task: a flowctl raw get array with no
// rows, or an empty YAML document (`---`, `null`, a comment alone). The
// same bytes in a file, or no bytes at all, already failed.
func TestGateFailsOnEmptyStandardInput(t *testing.T) {
	for _, tc := range []struct {
		stdin string
		code  int
		msg   string
	}{
		{"[]\n", 1, "the dump has no rows"},
		{"[\n  ]\n", 1, "the dump has no rows"},
		{"---\n", 2, "unreadable"},
		{"null\n", 1, "-: it holds null, not a catalog source"},
		{"# nothing here\n", 2, "unreadable"},
		// A source that is an object with no materializations is a
		// catalog of other things: zero tasks is its true answer.
		{"{}\n", 0, ""},
	} {
		r := schedtoolStdin(t, t.TempDir(), tc.stdin, "census", "--fail-if-remaining", "-")
		if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
			t.Errorf("%q: exit %d, want %d and %q\n%s", tc.stdin, r.code, tc.code, tc.msg, r.stderr)
		}
	}
}

// A row's spec_type is read as JSON: "m\u0061terialization" is a
// materialization (the gate used to skip it as another type and pass),
// and a value Flow never stores ("Materialization", "view") is an
// unreadable row, never a row of another type.
func TestGateReadsSpecTypeAsJSON(t *testing.T) {
	const row = `{"catalog_name":"acmeCo/a","spec_type":%s,"spec":{"shards":{"flags":{"enable-runtime-v2":"true"}},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{"syncSchedule":{"syncFrequency":"1h"}}}},"bindings":[]}}` + "\n"
	for _, tc := range []struct {
		specType string
		code     int
		msg      string
	}{
		{`"m\u0061terialization"`, 2, "1 task still rel"},
		{`"Materialization"`, 2, "1 unreadable input"},
		{`"view"`, 2, "1 unreadable input"},
		{`"collection"`, 0, ""},
	} {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"live.ndjson": strings.Replace(row, "%s", tc.specType, 1)})
		for _, args := range [][]string{
			{"census", "--fail-if-remaining", "live.ndjson"},
			{"census", "--fail-if-remaining", "-o", "json", "live.ndjson"},
		} {
			r := schedtoolIn(t, dir, args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
				t.Errorf("%s %v: exit %d, want %d and %q\n%s", tc.specType, args, r.code, tc.code, tc.msg, r.stderr)
			}
		}
	}
}

// migrate given a/ only used to zero ../shared.yaml, which b/flow.yaml
// (under the same root, not given) also reads: b's task ran without
// pacing from its next publication, and census of b called it
// unaffected. A config file used by tasks the run does not read is left
// alone, and the task needs review naming them.
func TestConfigSharedWithATaskOutsideThePaths(t *testing.T) {
	for _, tc := range []struct{ name, ref, link string }{
		{"same path", "../shared.yaml", ""},
		{"symlink alias", "../alias.yaml", "symlink"},
		{"hard link alias", "../alias.yaml", "hard"},
	} {
		t.Run(tc.name, func(t *testing.T) { bystander(t, tc.ref, tc.link) })
	}
}

func bystander(t *testing.T, ref, link string) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a/flow.yaml": "materializations:\n" + task("acmeCo/a", "../shared.yaml", true),
		"b/flow.yaml": "materializations:\n" + task("acmeCo/b", ref, true),
		"shared.yaml": "host: s\nsyncSchedule:\n  syncFrequency: 1h\n",
	})
	switch link {
	case "symlink":
		os.Symlink("shared.yaml", filepath.Join(dir, "alias.yaml"))
	case "hard":
		os.Link(filepath.Join(dir, "shared.yaml"), filepath.Join(dir, "alias.yaml"))
	}
	before := treeState(t, dir)
	r := schedtoolIn(t, dir, "migrate", "--write", "--root", ".", "a")
	if r.code != 2 || !strings.Contains(r.stderr, "also used by acmeCo/b (b/flow.yaml:") {
		t.Errorf("exit %d\n%s", r.code, r.stderr)
	}
	sameTree(t, "migrate a", treeState(t, dir), before)
	if c := schedtoolIn(t, dir, "census", "-o", "json", "--root", ".", "b"); !strings.Contains(c.stdout, `"ready"`) {
		t.Errorf("census of b: %s", c.stdout)
	}
	if link == "hard" {
		// Migrating both used to rename over one name of the hard-linked
		// file and leave the other with the old schedule: b was left in
		// conflict (a model schedule and a configured connector one, which
		// the build rejects) after an exit 0. A file with other names is
		// not replaced; its group is not written.
		r := schedtoolIn(t, dir, "migrate", "--write", "--root", ".", "a", "b")
		if r.code != 1 || !strings.Contains(r.stderr, "has 1 other hard link") {
			t.Errorf("migrate a b: exit %d\n%s", r.code, r.stderr)
		}
		sameTree(t, "migrate a b", treeState(t, dir), before)
		return
	}
	// Given both, they migrate together.
	if r := schedtoolIn(t, dir, "migrate", "--write", "--root", ".", "a", "b"); r.code != 0 {
		t.Errorf("migrate a b: exit %d\n%s", r.code, r.stderr)
	}
	if c := schedtoolIn(t, dir, "census", "--fail-if-remaining", "."); c.code != 0 {
		t.Errorf("census after: exit %d\n%s%s", c.code, c.stdout, c.stderr)
	}
}

// A URL scheme is case-insensitive (RFC 3986), and schedtool takes
// POSTGRES:// as a database PATH; the driver used to read such a URL as
// an empty keyword/value string and connect to its defaults (the local
// socket, as the login user) instead of the URL's host: another server.
func TestDatabaseURLSchemeCase(t *testing.T) {
	host := filepath.Join(t.TempDir(), "no-server-here")
	for _, scheme := range []string{"POSTGRES", "PostgreSQL"} {
		url := scheme + "://someone:Case-Secret-41@/somedb?host=" + host + "&port=5"
		r := schedtool(t, "", "census", url)
		if r.code != 1 || !strings.Contains(r.stderr, host) || strings.Contains(r.stderr, "/var/run/postgresql") {
			t.Errorf("%s: exit %d; the URL's host %s is not the one dialled:\n%s", scheme, r.code, host, r.stderr)
		}
		if strings.Contains(r.stdout+r.stderr, "Case-Secret-41") {
			t.Errorf("%s: the password is in the output:\n%s", scheme, r.stderr)
		}
	}
}

// A PATH that does not exist is named in the error; when it is a
// connection string written another way (libpq's keyword/value form, a
// misspelt scheme), its password used to be printed with it.
func TestMissingPathHidesPassword(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"host=/tmp port=5432 dbname=flow user=me password=Kv-Secret-1", "keyword/value"},
		{"host=/tmp password='Kv Secret 2' dbname=flow", "keyword/value"},
		{"dbname=flow PASSWORD = Kv-Secret-3", "keyword/value"},
		{"pg://me:Url-Secret-4@db.example.com/flow", "no such file"},
		{"postgress://me:Url-Secret-5@db.example.com/flow?sslmode=require", "no such file"},
		{"http://db.example.com/flow?password=Url-Secret-6", "no such file"},
	} {
		for _, cmd := range []string{"census", "validate", "migrate"} {
			r := schedtool(t, "", cmd, tc.path)
			if r.code != 1 || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("%s %q: exit %d, want 1 and %q\n%s", cmd, tc.path, r.code, tc.want, r.stderr)
			}
			for _, s := range []string{"Kv-Secret", "Kv Secret", "Url-Secret"} {
				if strings.Contains(r.stdout+r.stderr, s) {
					t.Errorf("%s %q: the password is in the output:\n%s", cmd, tc.path, r.stderr)
				}
			}
		}
	}

}

// explain NAME over a database that has no such task used to name the
// database PATH as given, password and all, in its error.
func TestExplainMissingTaskHidesPassword(t *testing.T) {
	db, _ := pgFixture(t, 20)
	for _, args := range [][]string{
		{"explain", "no/such/task", db.BypassURL},
		{"explain", "-o", "json", "no/such/task", db.BypassURL},
	} {
		r := schedtool(t, "", args...)
		if r.code != 1 || !strings.Contains(r.stderr, "no materialization no/such/task in "+displayName(db.BypassURL)) {
			t.Errorf("%v: exit %d\n%s", args[:len(args)-1], r.code, r.stderr)
		}
		if strings.Contains(r.stdout+r.stderr, db.BypassPassword) {
			t.Errorf("%v: the password is in the output:\n%s", args[:len(args)-1], r.stderr)
		}
	}
}

// A dump that starts with a UTF-8 byte order mark (as Windows tools
// write), or a one-row dump saved under a .json name, used to be read as
// a catalog source with no materializations: zero tasks, and the removal
// gate passed. The mark is skipped as for flowctl raw get output, and a
// file whose first line is a live_specs row is read as a dump.
func TestDumpWithBOMOrJSONName(t *testing.T) {
	const row = `{"catalog_name":"acmeCo/a","spec_type":"materialization","last_pub_id":"0102030405060708","spec":{"shards":{"flags":{"enable-runtime-v2":"true"}},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{"syncSchedule":{"syncFrequency":"1h"}}}},"bindings":[]}}`
	const other = `{"catalog_name":"acmeCo/c","spec_type":"collection","spec":{}}`
	dir := t.TempDir()
	files := map[string]string{
		"bom.ndjson":  "\ufeff" + row + "\n",
		"bom2.ndjson": "\ufeff" + row + "\n" + other + "\n",
		"one.json":    row + "\n",
		"rows.json":   row + "\n" + other + "\n",
		"bom.json":    "\ufeff" + row + "\n",
		"dump.txt":    row,
	}
	writeFiles(t, dir, files)
	for name, content := range files {
		for _, args := range [][]string{
			{"census", "--fail-if-remaining", name},
			{"census", "--fail-if-remaining", "-"},
		} {
			stdin := ""
			if args[len(args)-1] == "-" {
				stdin = content
			}
			r := schedtoolStdin(t, dir, stdin, args...)
			if r.code != 2 || !strings.Contains(r.stdout, "1 task on scheduling images") || !strings.Contains(r.stdout, " 0 unreadable inputs") {
				t.Errorf("%s %v: exit %d, want 2 with the task read\n%s%s", name, args, r.code, r.stdout, r.stderr)
			}
		}
	}
	// The migrated tree of a BOM dump is written as any other.
	r := schedtoolIn(t, dir, "migrate", "--out", "tree", "bom.json")
	if r.code != 0 || !strings.Contains(string(mustRead(t, filepath.Join(dir, "tree", "acmeCo", "a", "flow.yaml"))), `"expectPubId":"0102030405060708"`) {
		t.Errorf("migrate --out tree bom.json: exit %d\n%s", r.code, r.stderr)
	}
	// A JSON catalog source is still a source.
	writeFiles(t, dir, map[string]string{"flow.json": `{"materializations":{"acmeCo/b":{"shards":{"flags":{"enable-runtime-v2":"true"}},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{"syncSchedule":{"syncFrequency":"1h"}}}},"bindings":[]}}}`})
	if r := schedtoolIn(t, dir, "migrate", "flow.json"); r.code != 2 || !strings.Contains(r.stdout, "+++ b/flow.json") {
		t.Errorf("migrate flow.json: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// A database whose live_specs holds no materialization (the wrong
// database, a restored table without rows) used to give zero tasks and
// pass the removal gate when the role bypasses row-level security; an
// empty dump, and the same read by a role without BYPASSRLS, already
// failed (docs/behaviour.md §8: a PostgreSQL source that returns no rows fails the gate).
func TestPostgresNoMaterializationRows(t *testing.T) {
	db := pgtest.Require(t)
	rows := `{"catalog_name":"acmeCo/orders","spec_type":"collection","last_pub_id":"0f1e2d3c4b5a6978","spec":{"key":["/id"]}}` + "\n" + deletedRow
	if _, err := db.Load(context.Background(), strings.NewReader(rows)); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"census", "--fail-if-remaining", db.BypassURL},
		{"census", "--fail-if-remaining", "-o", "json", db.BypassURL},
		{"validate", db.BypassURL},
		{"migrate", db.BypassURL},
	} {
		r := schedtool(t, "", args...)
		if r.code != 1 || !strings.Contains(r.stderr, "read no rows from public.live_specs") || strings.Contains(r.stderr, "row-level security") {
			t.Errorf("%v: exit %d, want 1\n%s%s", args[:len(args)-1], r.code, r.stdout, r.stderr)
		}
		if strings.Contains(r.stdout+r.stderr, db.BypassPassword) {
			t.Errorf("%v: the password is in the output", args[:len(args)-1])
		}
	}
	// A selector that picks nothing is still told as the selector's fault.
	if r := schedtool(t, "", "census", "--prefix", "acmeCo/", db.BypassURL); r.code != 1 || !strings.Contains(r.stderr, "--prefix acmeCo/ selects no materialization") {
		t.Errorf("census --prefix: exit %d\n%s", r.code, r.stderr)
	}
}

// A duplicate key in a dump row said "(first at line 1)", the line inside
// the row, whatever line of the dump the row is on.
func TestDumpDuplicateKeyLine(t *testing.T) {
	const row = `{"catalog_name":"acmeCo/%d","spec_type":"materialization","last_pub_id":"0102030405060708","spec":{"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{}}},"bindings":[]}}`
	dump := strings.Join([]string{
		strings.Replace(row, "%d", "a", 1),
		"",
		strings.Replace(row, "%d", "b", 1),
		strings.Replace(strings.Replace(row, "%d", "c", 1), `"bindings":[]`, `"bindings":[],"bindings":[]`, 1),
		strings.Replace(strings.Replace(row, "%d", "d", 1), `"spec_type":"materialization",`, `"spec_type":"materialization","catalog_name":"x",`, 1),
	}, "\n") + "\n"
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"live.ndjson": dump})
	r := schedtoolIn(t, dir, "census", "live.ndjson")
	for _, want := range []string{`live.ndjson:4:`, `duplicate key "bindings" (first at line 4)`, `live.ndjson:5:`, `duplicate key "catalog_name" (first at line 5)`} {
		if !strings.Contains(r.stdout+r.stderr, want) {
			t.Errorf("census does not say %q:\n%s%s", want, r.stdout, r.stderr)
		}
	}
}

// An empty --out (an unset variable in a script) was taken as no --out:
// a dry run, and with --write the inputs were changed in place although
// --write and --out exclude each other. An empty --resolve was no
// --resolve.
func TestMigrateEmptyFlagValues(t *testing.T) {
	src := `materializations:
  acmeCo/a:
    shards: {flags: {enable-runtime-v2: "true"}}
    endpoint: {connector: {image: "ghcr.io/estuary/materialize-snowflake:v4", config: {syncSchedule: {syncFrequency: 1h}}}}
    bindings: []
`
	for _, args := range [][]string{
		{"migrate", "--write", "--out", "", "flow.yaml"},
		{"migrate", "--out", "", "flow.yaml"},
		{"migrate", "--out", " ", "flow.yaml"},
		{"migrate", "--resolve", "", "flow.yaml"},
	} {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"flow.yaml": src})
		r := schedtoolIn(t, dir, args...)
		if r.code != 1 {
			t.Errorf("%q: exit %d, want 1\n%s", args, r.code, r.stderr)
		}
		if b := mustRead(t, filepath.Join(dir, "flow.yaml")); string(b) != src {
			t.Errorf("%q: the input was changed:\n%s", args, b)
		}
	}
}

// A deleted spec as live_specs keeps it (spec and spec_type both NULL,
// Flow's table constraint) was an unreadable row, so the census gate of a
// real dump never passed; docs/behaviour.md §2: a row whose spec is null is a deleted
// spec, skipped. A null spec_type with a spec, or no spec at all, stays
// unreadable.
func TestDumpDeletedRowsSkipped(t *testing.T) {
	const live = `{"catalog_name":"acmeCo/a","spec_type":"materialization","last_pub_id":"0102030405060708","spec":{"shards":{"flags":{"enable-runtime-v2":"true"}},"syncSchedule":{"baseInterval":"1h"},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{"syncSchedule":{"syncFrequency":"0s"}}}},"bindings":[]}}`
	for _, tc := range []struct {
		row  string
		code int // census's; migrate's is 1 where census's is 2 (an unreadable input)
	}{
		{`{"catalog_name":"acmeCo/gone","spec_type":null,"last_pub_id":"00000000000000aa","spec":null}`, 0},
		{`{"catalog_name":"acmeCo/gone","spec_type":"materialization","last_pub_id":"00000000000000aa","spec":null}`, 0},
		{`{"catalog_name":"acmeCo/gone","spec_type":null,"spec":{}}`, 2},
		{`{"catalog_name":"acmeCo/gone","spec":null}`, 2},
		{`{"catalog_name":"acmeCo/gone","spec_type":"materialization"}`, 2},
	} {
		for _, name := range []string{"live.ndjson", "raw.json"} {
			dump := live + "\n" + tc.row + "\n"
			if name == "raw.json" {
				dump = "[" + live + ",\n" + tc.row + "]\n"
			}
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{name: dump})
			for _, args := range [][]string{{"census", "--fail-if-remaining", name}, {"migrate", name}} {
				want := tc.code
				if args[0] == "migrate" && want == 2 {
					want = 1
				}
				r := schedtoolIn(t, dir, args...)
				if r.code != want {
					t.Errorf("%s %s %v: exit %d, want %d\n%s%s", tc.row, name, args[:len(args)-1], r.code, want, r.stdout, r.stderr)
				}
			}
		}
	}
}

// A dump holding a catalog name twice (two exports concatenated) gave two
// migrated rows for one task in the diff and in --out FILE, with two
// expectPubIds; the publishable tree already refused the second. Every
// output now refuses it (exit 1, as the tree).
func TestDumpDuplicateNameRefused(t *testing.T) {
	const row = `{"catalog_name":"acmeCo/a","spec_type":"materialization","last_pub_id":"%s","spec":{"shards":{"flags":{"enable-runtime-v2":"true"}},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{"syncSchedule":{"syncFrequency":"1h"}}}},"bindings":[]}}`
	dump := strings.Replace(row, "%s", "0102030405060708", 1) + "\n" + strings.Replace(row, "%s", "0102030405060709", 1) + "\n"
	for _, args := range [][]string{
		{"migrate", "live.ndjson"},
		{"migrate", "-o", "json", "live.ndjson"},
		{"migrate", "--out", "rows.ndjson", "live.ndjson"},
		{"migrate", "--out", "tree", "live.ndjson"},
	} {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"live.ndjson": dump})
		r := schedtoolIn(t, dir, args...)
		if r.code != 1 || !strings.Contains(r.stderr, "appears twice") {
			t.Errorf("%q: exit %d, want 1 and the duplicate said\n%s", args, r.code, r.stderr)
		}
		if n := strings.Count(r.stdout, `"expectPubId":"0102030405060709"`); n != 0 {
			t.Errorf("%q: the second row was migrated too:\n%s", args, r.stdout)
		}
		if b, err := os.ReadFile(filepath.Join(dir, "rows.ndjson")); err == nil && strings.Count(string(b), "\n") != 1 {
			t.Errorf("%q: rows written:\n%s", args, b)
		}
	}
}
