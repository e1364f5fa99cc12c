package pgsource

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// row writes the result columns (text names and spec, binary
// last_pub_id) as one dump line that encoding/json reads back to the
// same values.
func TestRow(t *testing.T) {
	pub := []byte{0x12, 0x34, 0xff, 0x4b, 0x56, 0x80, 0x03, 0xa5}
	for _, tc := range []struct {
		name string
		v    [][]byte
		want string
	}{
		{"plain", [][]byte{[]byte("acmeCo/a/m"), pub, []byte("ghcr.io/estuary/materialize-s3"), []byte(":v1"), []byte(`{"a":1}`)},
			`{"catalog_name":"acmeCo/a/m","spec_type":"materialization","last_pub_id":"1234ff4b568003a5","connector_image_name":"ghcr.io/estuary/materialize-s3","connector_image_tag":":v1","spec":{"a":1}}` + "\n"},
		{"no image, no tag", [][]byte{[]byte("a/b"), pub, nil, nil, []byte(`{}`)},
			`{"catalog_name":"a/b","spec_type":"materialization","last_pub_id":"1234ff4b568003a5","spec":{}}` + "\n"},
		{"names escaped", [][]byte{[]byte("a/\"q\"\\é\x01\x7f"), pub, []byte("img\t"), []byte(":\u2028"), []byte(`{}`)},
			`{"catalog_name":"a/\"q\"\\é\u0001\u007f","spec_type":"materialization","last_pub_id":"1234ff4b568003a5","connector_image_name":"img\t","connector_image_tag":":` + "\u2028" + `","spec":{}}` + "\n"},
		{"newlines in the spec", [][]byte{[]byte("a/b"), pub, nil, nil, []byte("{\n  \"a\": \"x\\ny\",\r\n  \"b\": []\n}\n")},
			`{"catalog_name":"a/b","spec_type":"materialization","last_pub_id":"1234ff4b568003a5","spec":{   "a": "x\ny",    "b": [] } }` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := string(row([]byte("prefix"), tc.v))
			if !strings.HasPrefix(got, "prefix") {
				t.Fatalf("row dropped what the buffer held: %q", got)
			}
			got = strings.TrimPrefix(got, "prefix")
			if got != tc.want {
				t.Errorf("row:\n got %s\nwant %s", got, tc.want)
			}
			if strings.Count(got, "\n") != 1 {
				t.Errorf("row is not one line: %q", got)
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal([]byte(got), &m); err != nil {
				t.Errorf("row is not JSON: %v", err)
			}
			var name string
			if err := json.Unmarshal(m["catalog_name"], &name); err != nil || name != string(bytes.ToValidUTF8(tc.v[0], []byte("\uFFFD"))) {
				t.Errorf("catalog_name reads back as %q (%v), want %q", name, err, tc.v[0])
			}
		})
	}
}

func BenchmarkRow(b *testing.B) {
	v := [][]byte{[]byte("acmeCo/some/materialize-snowflake"), {1, 2, 3, 4, 5, 6, 7, 8}, []byte("ghcr.io/estuary/materialize-snowflake"), []byte(":v4"),
		[]byte(`{"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{"host":"h","warehouse":"w","syncSchedule":{"syncFrequency":"2h"}}}},"bindings":[{"resource":{"table":"t"},"source":"acmeCo/c"}]}`)}
	buf := make([]byte, 0, 4096)
	b.ReportAllocs()
	for b.Loop() {
		buf = row(buf[:0], v)
	}
}

// describe gives the server's message, and for a statement timeout says
// how to lift it for one run: the rows come from one statement.
func TestDescribe(t *testing.T) {
	for _, tc := range []struct {
		err  *pgconn.PgError
		want string
	}{
		{&pgconn.PgError{Severity: "ERROR", Code: "57014", Message: "canceling statement due to statement timeout"},
			"ERROR: canceling statement due to statement timeout (SQLSTATE 57014); the rows are read by one statement: lift the role's statement_timeout for this run by adding options=-c%20statement_timeout%3D0 to the URL"},
		// Cancelled for another reason (a user's request): no hint.
		{&pgconn.PgError{Severity: "ERROR", Code: "57014", Message: "canceling statement due to user request"},
			"ERROR: canceling statement due to user request (SQLSTATE 57014)"},
		// The wrong database, or a role without the grant: say what is needed.
		{&pgconn.PgError{Severity: "ERROR", Code: "42P01", Message: `relation "public.live_specs" does not exist`},
			`ERROR: relation "public.live_specs" does not exist (SQLSTATE 42P01); the URL must name the control plane's database, the one holding Flow's public.live_specs`},
		{&pgconn.PgError{Severity: "ERROR", Code: "42501", Message: "permission denied for table live_specs"},
			"ERROR: permission denied for table live_specs (SQLSTATE 42501); the role needs SELECT on public.live_specs (at least its columns catalog_name, spec_type, spec, last_pub_id, connector_image_name, connector_image_tag), or connect as one that has it"},
		{&pgconn.PgError{Severity: "FATAL", Code: "28P01", Message: `password authentication failed for user "x"`, Detail: "d", Hint: "h"},
			`FATAL: password authentication failed for user "x" (SQLSTATE 28P01); d; hint: h`},
	} {
		if got := describe(fmt.Errorf("reading: %w", tc.err)); got != tc.want {
			t.Errorf("describe:\n got %s\nwant %s", got, tc.want)
		}
		// Ended by the server part way: how many rows had come, and
		// that the read is incomplete.
		if got, want := describe(lost(tc.err, 1)), "the server ended the read after 1 row of public.live_specs, before the last one: "+tc.want+"; the read is incomplete"; got != want {
			t.Errorf("describe(lost(1)):\n got %s\nwant %s", got, want)
		}
		if got := describe(lost(tc.err, 0)); got != tc.want {
			t.Errorf("describe(lost(0)):\n got %s\nwant %s", got, tc.want)
		}
	}
	if got, want := describe(lost(errors.New("unexpected EOF"), 3)), "the connection to the server was lost after 3 rows of public.live_specs, before the last one: unexpected EOF; the read is incomplete"; got != want {
		t.Errorf("describe(lost(EOF)):\n got %s\nwant %s", got, want)
	}
}
