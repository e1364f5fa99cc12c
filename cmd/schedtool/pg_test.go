package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/estuary/schedtool/bench/gen"
	"github.com/estuary/schedtool/catalog/pgsource/pgtest"
)

// deletedRow is a deleted spec as live_specs keeps it: spec and
// spec_type NULL. It is loaded into the database only; no command reads it.
const deletedRow = `{"catalog_name":"materialize-acmeCo/deleted/gone","spec_type":null,"last_pub_id":"00000000000000aa","spec":null}` + "\n"

// pgFixture loads n generated rows (and a deleted one) into a fresh
// database and writes, beside it, the dump of the same materializations
// in the order the database reads them: the table's physical order.
func pgFixture(t *testing.T, n int) (db *pgtest.DB, dump string) {
	t.Helper()
	db = pgtest.Require(t)
	var all bytes.Buffer
	if err := gen.Write(&all, n, 3); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Load(context.Background(), io2(all.Bytes(), []byte(deletedRow))); err != nil {
		t.Fatal(err)
	}
	type line struct {
		name string
		b    []byte
	}
	var mats []line
	for _, b := range bytes.Split(bytes.TrimSpace(all.Bytes()), []byte("\n")) {
		var r struct {
			Name string `json:"catalog_name"`
			Type string `json:"spec_type"`
		}
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		if r.Type == "materialization" {
			mats = append(mats, line{r.Name, b})
		}
	}
	order, err := db.PhysicalOrder(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	at := map[string]int{}
	for i, n := range order {
		at[n] = i
	}
	if len(at) != len(mats) {
		t.Fatalf("%d materializations in the database, %d loaded", len(at), len(mats))
	}
	sort.Slice(mats, func(i, j int) bool { return at[mats[i].name] < at[mats[j].name] })
	var out bytes.Buffer
	for _, m := range mats {
		out.Write(m.b)
		out.WriteByte('\n')
	}
	dump = filepath.Join(t.TempDir(), "live_specs.ndjson")
	if err := os.WriteFile(dump, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return db, dump
}

func io2(a, b []byte) *bytes.Reader { return bytes.NewReader(append(append([]byte{}, a...), b...)) }

// schedtoolEnv runs the binary with extra environment variables.
func schedtoolEnv(t *testing.T, env []string, args ...string) run {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	return execRun(t, cmd)
}

// displayName is how schedtool names a database PATH: without password.
func displayName(url string) string {
	return regexp.MustCompile(`://([^:@/]*):[^@]*@`).ReplaceAllString(url, "://$1@")
}

// Census over PostgreSQL is census over a dump of the same rows: every
// format, byte for byte, once the source's name is set aside.
func TestCensusPostgresMatchesDump(t *testing.T) {
	db, dump := pgFixture(t, 2000)
	name := displayName(db.BypassURL)
	if strings.Contains(name, db.BypassPassword) || !strings.Contains(name, db.Bypass+"@") {
		t.Fatalf("display name %q", name)
	}
	for _, format := range []string{"table", "wide", "json", "csv", "markdown"} {
		t.Run(format, func(t *testing.T) {
			fromDB := schedtool(t, "", "census", "-o", format, db.BypassURL)
			fromDump := schedtool(t, "", "census", "-o", format, dump)
			if fromDB.code != 0 || fromDump.code != 0 {
				t.Fatalf("exit %d and %d\n%s\n%s", fromDB.code, fromDump.code, fromDB.stderr, fromDump.stderr)
			}
			if strings.Contains(fromDB.stdout+fromDB.stderr, db.BypassPassword) {
				t.Error("the password is in the output")
			}
			// Markdown breaks autolinks and mentions with a word joiner
			// (U+2060) after "postgres:" and "@": set it aside on both sides.
			joinerless := func(s string) string {
				if format == "markdown" {
					return strings.ReplaceAll(s, "\u2060", "")
				}
				return s
			}
			got := strings.ReplaceAll(joinerless(fromDB.stdout), name, "SOURCE")
			got = strings.ReplaceAll(got, strings.ReplaceAll(name, "&", `\u0026`), "SOURCE")
			want := strings.ReplaceAll(joinerless(fromDump.stdout), dump, "SOURCE")
			if format == "json" || format == "csv" {
				if !strings.Contains(fromDB.stdout, name) {
					t.Errorf("%s output does not name the database %s", format, name)
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("census -o %s from PostgreSQL differs from the dump's (-dump +db):\n%s", format, diff)
			}
			if !strings.Contains(got, "materialize-snowflake") {
				t.Error("no task counted: the comparison tests nothing")
			}
		})
	}
}

// The other commands read the database as they read a dump.
func TestCommandsOverPostgres(t *testing.T) {
	db, dump := pgFixture(t, 400)
	name := displayName(db.BypassURL)
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"validate", []string{"validate", "-o", "json"}},
		{"migrate", []string{"migrate", "-o", "json"}},
		{"migrate --out", []string{"migrate", "--out", "OUT"}},
		{"census selected", []string{"census", "-o", "csv", "--prefix", "materialize-acmeCo/", "--image", "ghcr.io/estuary/materialize-snowflake"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := func(src, out string) []string {
				a := append([]string{}, tc.args...)
				for i := range a {
					if a[i] == "OUT" {
						a[i] = filepath.Join(dir, out)
					}
				}
				return append(a, src)
			}
			fromDB := schedtool(t, "", args(db.BypassURL, "db.ndjson")...)
			fromDump := schedtool(t, "", args(dump, "dump.ndjson")...)
			if fromDB.code != fromDump.code || fromDB.code == 1 {
				t.Fatalf("exit %d from the database, %d from the dump\n%s\n%s", fromDB.code, fromDump.code, fromDB.stderr, fromDump.stderr)
			}
			norm := func(s, src string) string {
				s = strings.ReplaceAll(s, src, "SOURCE")
				s = strings.ReplaceAll(s, strings.ReplaceAll(src, "&", `\u0026`), "SOURCE")
				if len(tc.args) > 3 {
					// Selected rows: the database sends only those, so
					// their row numbers differ from the dump's lines.
					s = regexp.MustCompile(`,SOURCE,\d+`).ReplaceAllString(s, ",SOURCE,N")
				}
				s = strings.ReplaceAll(s, filepath.Join(dir, "db.ndjson"), "OUT")
				return strings.ReplaceAll(s, filepath.Join(dir, "dump.ndjson"), "OUT")
			}
			if diff := cmp.Diff(norm(fromDump.stdout, dump), norm(fromDB.stdout, name)); diff != "" {
				t.Errorf("stdout (-dump +db):\n%s", diff)
			}
			if diff := cmp.Diff(norm(fromDump.stderr, dump), norm(fromDB.stderr, name)); diff != "" {
				t.Errorf("stderr (-dump +db):\n%s", diff)
			}
			if len(fromDB.stdout) < 100 && tc.args[1] != "--out" {
				t.Errorf("little output: %q", fromDB.stdout)
			}
		})
	}
	a, errA := os.ReadFile(filepath.Join(dir, "db.ndjson"))
	b, errB := os.ReadFile(filepath.Join(dir, "dump.ndjson"))
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	if !bytes.Equal(a, b) || len(a) == 0 {
		t.Errorf("migrate --out FILE wrote %d bytes from the database, %d from the dump, or they differ", len(a), len(b))
	}
	// explain finds one task in the database.
	var first struct {
		Name string `json:"catalog_name"`
	}
	raw, _ := os.ReadFile(dump)
	line, _, _ := bytes.Cut(raw, []byte("\n"))
	if err := json.Unmarshal(line, &first); err != nil {
		t.Fatal(err)
	}
	r := schedtool(t, "", "explain", "--at", "2026-01-05T08:00:00Z", first.Name, db.BypassURL)
	if r.code != 0 || !strings.Contains(r.stdout, first.Name) {
		t.Errorf("explain over the database: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// Connection and query failures: exit 1, the server's or the dialer's
// message, and never the password, wherever it came from.
func TestPostgresFailures(t *testing.T) {
	db := pgtest.Require(t)
	port := regexp.MustCompile(`port=\d+`)
	noPW := strings.Replace(db.BypassURL, ":"+db.BypassPassword+"@", "@", 1)
	wrongPW := strings.Replace(db.BypassURL, db.BypassPassword, "Not-The-Password-93", 1)
	for _, tc := range []struct {
		name    string
		url     string
		env     []string
		want    string
		secrets []string
	}{
		{"wrong port", port.ReplaceAllString(db.BypassURL, "port=1"), nil, "failed to connect", []string{db.BypassPassword}},
		{"wrong port, PGPASSWORD", port.ReplaceAllString(noPW, "port=1"), []string{"PGPASSWORD=" + db.BypassPassword}, "failed to connect", []string{db.BypassPassword}},
		{"wrong password", wrongPW, nil, "password authentication failed", []string{"Not-The-Password-93", db.BypassPassword}},
		{"wrong password in PGPASSWORD", noPW, []string{"PGPASSWORD=Not-The-Password-93"}, "password authentication failed", []string{"Not-The-Password-93"}},
		{"no such database", strings.Replace(db.BypassURL, "/"+db.Name+"?", "/no_such_db?", 1), nil, `database "no_such_db" does not exist`, []string{db.BypassPassword}},
		{"not a URL", "postgres://u:Bad-Secret-77@h:notaport/db", nil, "not a valid PostgreSQL URL", []string{"Bad-Secret-77"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, cmd := range []string{"census", "validate", "migrate"} {
				r := schedtoolEnv(t, tc.env, cmd, tc.url)
				if r.code != 1 {
					t.Errorf("%s: exit %d, want 1\n%s", cmd, r.code, r.stderr)
				}
				if !strings.Contains(r.stderr, tc.want) {
					t.Errorf("%s: stderr does not say %q:\n%s", cmd, tc.want, r.stderr)
				}
				for _, s := range tc.secrets {
					if strings.Contains(r.stdout+r.stderr, s) {
						t.Errorf("%s: the password %q is in the output:\n%s%s", cmd, s, r.stdout, r.stderr)
					}
				}
			}
		})
	}
}

// PGPASSWORD and ~/.pgpass give the password as libpq does.
func TestPostgresPasswordSources(t *testing.T) {
	db, _ := pgFixture(t, 50)
	noPW := strings.Replace(db.BypassURL, ":"+db.BypassPassword+"@", "@", 1)
	home := t.TempDir()
	pgpass := filepath.Join(home, ".pgpass")
	if err := os.WriteFile(pgpass, []byte("*:*:*:"+db.Bypass+":"+db.BypassPassword+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		env  []string
	}{
		{"PGPASSWORD", []string{"PGPASSWORD=" + db.BypassPassword}},
		{"~/.pgpass", []string{"HOME=" + home}},
		{"PGPASSFILE", []string{"PGPASSFILE=" + pgpass}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := schedtoolEnv(t, tc.env, "census", noPW)
			if r.code != 0 || !strings.Contains(r.stdout, "tasks on scheduling images") {
				t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
		})
	}
	r := schedtoolEnv(t, []string{"HOME=" + t.TempDir(), "PGPASSWORD=", "PGPASSFILE="}, "census", noPW)
	if r.code != 1 {
		t.Errorf("no password anywhere: exit %d, want 1\n%s", r.code, r.stderr)
	}
}

// A role without BYPASSRLS reads nothing when no policy grants it rows:
// schedtool says row-level security is the likely cause, exits 1, and the
// census gate fails. A policy that grants some rows is honoured.
func TestPostgresRowLevelSecurity(t *testing.T) {
	db, _ := pgFixture(t, 300)
	for _, args := range [][]string{
		{"census", db.ReaderURL},
		{"census", "--fail-if-remaining", "-o", "json", db.ReaderURL},
		{"validate", db.ReaderURL},
		{"migrate", db.ReaderURL},
	} {
		r := schedtool(t, "", args...)
		if r.code != 1 {
			t.Errorf("%v: exit %d, want 1\n%s", args[:len(args)-1], r.code, r.stderr)
		}
		for _, want := range []string{"read no rows from public.live_specs", "row-level security", `role "` + db.Reader + `"`, "BYPASSRLS"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("%v: stderr does not say %q:\n%s", args[:len(args)-1], want, r.stderr)
			}
		}
		if strings.Contains(r.stdout+r.stderr, db.ReaderPassword) {
			t.Errorf("%v: the password is in the output", args[:len(args)-1])
		}
	}
	// A role that sees every row and selects nothing is told about the
	// selector, not about row-level security.
	r := schedtool(t, "", "census", "--name", "nobody/here", db.BypassURL)
	if r.code != 1 || strings.Contains(r.stderr, "row-level security") || !strings.Contains(r.stderr, "--name nobody/here") {
		t.Errorf("selector picking nothing as BYPASSRLS: exit %d\n%s", r.code, r.stderr)
	}
	// A grant on one tenant: the reader sees exactly those rows.
	if err := db.GrantReader(context.Background(), "materialize-acmeCo/"); err != nil {
		t.Fatal(err)
	}
	granted := schedtool(t, "", "census", "-o", "csv", db.ReaderURL)
	selected := schedtool(t, "", "census", "-o", "csv", "--prefix", "materialize-acmeCo/", db.BypassURL)
	if granted.code != 0 || selected.code != 0 {
		t.Fatalf("exit %d and %d\n%s%s", granted.code, selected.code, granted.stderr, selected.stderr)
	}
	strip := func(s, url string) string { return strings.ReplaceAll(s, displayName(url), "SOURCE") }
	if diff := cmp.Diff(strip(selected.stdout, db.BypassURL), strip(granted.stdout, db.ReaderURL)); diff != "" {
		t.Errorf("reader granted materialize-acmeCo/ vs --prefix as BYPASSRLS (-bypass +reader):\n%s", diff)
	}
	if !strings.Contains(granted.stdout, "materialize-acmeCo/") || strings.Contains(granted.stdout, "materialize-globex/") {
		t.Errorf("the reader's rows:\n%s", granted.stdout)
	}
	// An owner that the table forces row-level security on.
	if err := pgtest.Exec(context.Background(), db.SuperURL, "DELETE FROM read_grants; ALTER TABLE live_specs OWNER TO "+db.Reader+"; ALTER TABLE live_specs FORCE ROW LEVEL SECURITY"); err != nil {
		t.Fatal(err)
	}
	r = schedtool(t, "", "census", db.ReaderURL)
	if r.code != 1 || !strings.Contains(r.stderr, "FORCE ROW LEVEL SECURITY") {
		t.Errorf("forced on the owner: exit %d\n%s", r.code, r.stderr)
	}
}

// rawOf writes dump lines as flowctl raw get prints them (PostgREST's
// JSON: one array, elements joined by ", \n ", last_pub_id as macaddr8).
func rawOf(t *testing.T, dump string) []byte {
	t.Helper()
	b, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	pub := regexp.MustCompile(`"last_pub_id":"([0-9a-f]{16})"`)
	var out bytes.Buffer
	out.WriteByte('[')
	for i, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		if i > 0 {
			out.WriteString(", \n ")
		}
		out.Write(pub.ReplaceAllFunc(line, func(m []byte) []byte {
			h := string(pub.FindSubmatch(m)[1])
			var parts []string
			for j := 0; j < 16; j += 2 {
				parts = append(parts, h[j:j+2])
			}
			return []byte(`"last_pub_id":"` + strings.Join(parts, ":") + `"`)
		}))
	}
	out.WriteString("]\n")
	return out.Bytes()
}

// flowctl raw get output is a stored-spec source, told by its content,
// from a file or standard input: the same census as the dump, the same
// migrated rows (expectPubId as 16 hex digits), positions in the file.
func TestFlowctlRawOutput(t *testing.T) {
	var all bytes.Buffer
	if err := gen.Write(&all, 600, 5); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	dump := filepath.Join(dir, "live_specs.ndjson")
	if err := os.WriteFile(dump, all.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	raw := rawOf(t, dump)
	if !bytes.Contains(raw, []byte(`:`)) || bytes.Count(raw, []byte("\n")) < 500 {
		t.Fatal("the raw fixture is not PostgREST-shaped")
	}
	rawFile := filepath.Join(dir, "live_specs.json") // a .json name: content decides
	if err := os.WriteFile(rawFile, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"wide", "json", "csv"} {
		want := schedtool(t, "", "census", "-o", format, dump)
		fromFile := schedtool(t, "", "census", "-o", format, rawFile)
		fromStdin := schedtool(t, string(raw), "census", "-o", format, "-")
		if want.code != 0 || fromFile.code != 0 || fromStdin.code != 0 {
			t.Fatalf("%s: exit %d %d %d\n%s%s", format, want.code, fromFile.code, fromStdin.code, fromFile.stderr, fromStdin.stderr)
		}
		// Each element starts on the dump line's number, so only the name differs.
		if diff := cmp.Diff(strings.ReplaceAll(want.stdout, dump, "SRC"), strings.ReplaceAll(fromFile.stdout, rawFile, "SRC")); diff != "" {
			t.Errorf("census -o %s of the raw file (-dump +raw):\n%s", format, diff)
		}
		// The scope names the inputs as given: "-" for standard input.
		stdin := strings.ReplaceAll(strings.ReplaceAll(fromStdin.stdout, "<stdin>", "SRC"), `"inputs":["-"]`, `"inputs":["SRC"]`)
		if diff := cmp.Diff(strings.ReplaceAll(want.stdout, dump, "SRC"), stdin); diff != "" {
			t.Errorf("census -o %s of raw standard input (-dump +raw):\n%s", format, diff)
		}
	}
	a := schedtool(t, "", "migrate", "--out", filepath.Join(dir, "a.ndjson"), dump)
	b := schedtool(t, "", "migrate", "--out", filepath.Join(dir, "b.ndjson"), rawFile)
	if a.code == 1 || b.code != a.code {
		t.Fatalf("migrate: exit %d %d\n%s%s", a.code, b.code, a.stderr, b.stderr)
	}
	ea := regexp.MustCompile(`"expectPubId":"[0-9a-f]{16}"`).FindAll(mustRead(t, filepath.Join(dir, "a.ndjson")), -1)
	eb := regexp.MustCompile(`"expectPubId":"[0-9a-f]{16}"`).FindAll(mustRead(t, filepath.Join(dir, "b.ndjson")), -1)
	if len(ea) < 50 || !cmp.Equal(ea, eb) {
		t.Errorf("expectPubId from the dump (%d) and from raw output (%d) differ", len(ea), len(eb))
	}
	// A broken array: exit 1 naming file, line and column.
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("[{\"catalog_name\":\"a/b\",\"spec_type\":\"collection\",\"spec\":{}},\n ,{}]"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := schedtool(t, "", "census", bad)
	if r.code != 1 || !strings.Contains(r.stderr, bad+": line 2, column 2: ',' where an element should be") {
		t.Errorf("broken array: exit %d\n%s", r.code, r.stderr)
	}
}
