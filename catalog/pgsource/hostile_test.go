package pgsource_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/livespecs"
	"github.com/estuary/schedtool/catalog/pgsource"
	"github.com/estuary/schedtool/catalog/pgsource/pgtest"
	"github.com/estuary/schedtool/catalog/selection"
)

// A connection that breaks part way through the rows (a proxy closing
// the socket) fails the read with a message saying the connection was
// lost and how many rows came before, never a bare "unexpected EOF" and
// never the password; a read cut before the rows (during the startup) is
// an error too.
func TestConnectionLost(t *testing.T) {
	db, _ := load(t, 2000)
	for _, tc := range []struct {
		name  string
		after int64
		want  string
	}{
		{"during the rows", 300 << 10, "the connection to the server was lost after "},
		{"during the startup", 50, "failed to connect"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc, err := pgsource.Open(pgtest.CutAfter(t, db.BypassURL, tc.after, 0), selection.Selector{})
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(rc)
			rc.Close()
			if err == nil {
				t.Fatalf("no error after %d bytes", len(b))
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
			if strings.Contains(err.Error(), db.BypassPassword) {
				t.Errorf("error %q shows the password", err)
			}
			if tc.after > 1000 && (len(b) == 0 || !strings.Contains(err.Error(), "rows of public.live_specs")) {
				t.Errorf("read %d bytes before %q", len(b), err)
			}
		})
	}
}

// The rows come as UTF-8 whatever the database's encoding and whatever
// client_encoding the URL or the role asks for: a LATIN1 database's
// specs are converted by the server, never read as LATIN1 bytes (which
// would be mojibake, or an unreadable row, in a migrated spec).
func TestEncodings(t *testing.T) {
	super := os.Getenv(pgtest.EnvVar)
	if super == "" {
		pgtest.Require(t) // skips, or fails under CI
	}
	const spec = `{"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{"database":"café_Zürich","warehouse":"ÆØÅ ß"}}},"bindings":[]}`
	const name = "acmeCo/enc/materialize-snowflake"
	dump := `{"catalog_name":"` + name + `","spec_type":"materialization","last_pub_id":"00000000000000ab","connector_image_name":"ghcr.io/estuary/materialize-snowflake","connector_image_tag":":v4","spec":` + spec + "}\n"
	for _, tc := range []struct {
		name, encoding, params, sql string
	}{
		{"LATIN1 database", "LATIN1", "", ""},
		{"LATIN1 database, client_encoding=LATIN1 in options", "LATIN1", "&options=-c%20client_encoding%3DLATIN1", ""},
		{"UTF8 database, client_encoding=LATIN1", "", "&client_encoding=LATIN1", ""},
		{"LATIN1 database, the role's client_encoding LATIN1", "LATIN1", "", "ALTER ROLE %s SET client_encoding = 'LATIN1'"},
		{"SQL_ASCII database", "SQL_ASCII", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, err := pgtest.CreateEncoded(context.Background(), super, tc.encoding)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Drop(context.Background()) })
			if _, err := db.Load(context.Background(), strings.NewReader(dump)); err != nil {
				t.Fatal(err)
			}
			if tc.sql != "" {
				if err := pgtest.Exec(context.Background(), db.SuperURL, fmt.Sprintf(tc.sql, db.Bypass)); err != nil {
					t.Fatal(err)
				}
			}
			rc, err := pgsource.Open(db.BypassURL+tc.params, selection.Selector{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := readAll(t, rc)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0].Name != name {
				t.Fatalf("rows %+v", got)
			}
			if string(got[0].Spec) != spec {
				t.Errorf("spec bytes:\n got %s\nwant %s", got[0].Spec, spec)
			}
		})
	}
}

// Rows updated while the read streams: an UPDATE writes each row's new
// version further on in the heap, where the sequential scan comes to it
// later; the read's snapshot sees the old versions only, so every row
// comes exactly once (readAll fails on a name read twice), as it was.
func TestConcurrentUpdates(t *testing.T) {
	db, dump := load(t, 3000)
	rc, err := pgsource.Open(db.BypassURL, selection.Selector{})
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, 4096)
	first, err := br.ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	// Twice: the second update's versions follow the first's.
	for i := 0; i < 2; i++ {
		if err := pgtest.Exec(context.Background(), db.SuperURL, `UPDATE live_specs SET spec = json_build_object('updated', true), updated_at = now() WHERE spec IS NOT NULL`); err != nil {
			t.Fatal(err)
		}
	}
	n, err := pgtest.Count(context.Background(), db.SuperURL, `SELECT count(*) FROM live_specs WHERE spec::text LIKE '%"updated"%'`)
	if err != nil || n < 1000 {
		t.Fatalf("%d rows updated (%v): the test tests nothing", n, err)
	}
	got, err := readAll(t, io.NopCloser(io.MultiReader(bytes.NewReader(first), br)))
	if err != nil {
		t.Fatal(err)
	}
	want := materializations(t, dump)
	if len(got) != len(want) {
		t.Fatalf("read %d rows while they were updated, want the snapshot's %d", len(got), len(want))
	}
	for _, g := range got {
		if bytes.Contains(g.Spec, []byte(`"updated"`)) {
			t.Fatalf("row %s read in its updated version", g.Name)
		}
	}
}

// idle_in_transaction_session_timeout (Supabase sets one on some roles):
// once the server has sent the last row it waits in the transaction
// while schedtool still takes in the rows it buffered; a consumer slower
// than the timeout (migrate --out DIR syncing a file per task) must not
// lose a read whose rows all came. 600 rows: more than the reader's
// buffer, less than all the buffers between the server and the consumer,
// so that the server has sent them all while the consumer sleeps.
func TestIdleInTransactionTimeout(t *testing.T) {
	db, dump := load(t, 600)
	for _, tc := range []struct{ name, url, sql string }{
		{"in the URL's options", db.BypassURL + "&options=-c%20idle_in_transaction_session_timeout%3D50ms", ""},
		{"on the role", db.BypassURL, "ALTER ROLE %s SET idle_in_transaction_session_timeout = '50ms'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.sql != "" {
				if err := pgtest.Exec(context.Background(), db.SuperURL, fmt.Sprintf(tc.sql, db.Bypass)); err != nil {
					t.Fatal(err)
				}
			}
			rc, err := pgsource.Open(tc.url, selection.Selector{})
			if err != nil {
				t.Fatal(err)
			}
			br := bufio.NewReaderSize(rc, 4096)
			first, err := br.ReadBytes('\n')
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(400 * time.Millisecond) // a slow consumer
			got, err := readAll(t, io.NopCloser(io.MultiReader(bytes.NewReader(first), br)))
			if err != nil {
				t.Fatalf("a read whose rows all came failed: %v", err)
			}
			if want := len(materializations(t, dump)); len(got) != want {
				t.Errorf("read %d rows, want %d", len(got), want)
			}
		})
	}
}

// A spec longer than the selector's MaxSpec (--max-row-size) never
// crosses the wire: the server sends its length instead, so a 100 MB spec
// costs no 100 MB (pgx holds a whole row in memory), and the row comes
// with spec_bytes and no spec, which the dump reader reports as too long,
// naming the task.
func TestMaxSpec(t *testing.T) {
	db, dump := load(t, 300)
	all := materializations(t, dump)
	big := all[7].Name
	if err := pgtest.Exec(context.Background(), db.SuperURL, `UPDATE live_specs SET spec = json_build_object('pad', repeat('x', 3000000), 'endpoint', spec->'endpoint') WHERE catalog_name = '`+big+`'`); err != nil {
		t.Fatal(err)
	}
	rc, err := pgsource.Open(db.BypassURL, selection.Selector{MaxSpec: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 1<<20 {
		t.Errorf("read %d bytes: the long spec came through", len(b))
	}
	var found bool
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var r struct {
			Name  string          `json:"catalog_name"`
			Spec  json.RawMessage `json:"spec"`
			Bytes *int            `json:"spec_bytes"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		switch {
		case r.Name == big:
			found = true
			if r.Spec != nil || r.Bytes == nil || *r.Bytes < 3000000 {
				t.Errorf("the long row: %s", line)
			}
		case r.Bytes != nil || r.Spec == nil:
			t.Errorf("a short row: %s", line)
		}
	}
	if !found {
		t.Errorf("the long row %s is missing", big)
	}
	// Through the dump reader: one unreadable row, named.
	rc, err = pgsource.Open(db.BypassURL, selection.Selector{MaxSpec: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	opts := catalog.DefaultOptions()
	opts.MaxRowSize = 1 << 20
	var problems []string
	err = livespecs.ScanDump(rc, "db", livespecs.DumpOptions{Options: opts}, func(rr *livespecs.RowResult) *livespecs.RowResult { return rr }, func(rr *livespecs.RowResult) {
		if rr.Problem != nil {
			problems = append(problems, rr.Problem.Task+": "+rr.Problem.Message)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{big + ": materialization row " + big + ": its spec is 300"}
	if len(problems) != 1 || !strings.HasPrefix(problems[0], want[0]) || !strings.Contains(problems[0], "longer than --max-row-size (1 MiB)") {
		t.Errorf("problems %q, want one like %q", problems, want)
	}
}
