package pgsource_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/estuary/schedtool/bench/gen"
	"github.com/estuary/schedtool/catalog/pgsource"
	"github.com/estuary/schedtool/catalog/pgsource/pgtest"
	"github.com/estuary/schedtool/catalog/selection"
)

func TestQuery(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sel   selection.Selector
		where string
		args  []string
	}{
		{"all", selection.Selector{}, "", nil},
		{"names and prefixes", selection.Selector{Names: []string{"a/b"}, Prefixes: []string{"c/", "d/"}},
			"\n  AND (catalog_name::text = $1 OR starts_with(catalog_name::text, $2) OR starts_with(catalog_name::text, $3))",
			[]string{"a/b", "c/", "d/"}},
		{"images narrow", selection.Selector{Prefixes: []string{"c/"}, Images: []string{"ghcr.io/estuary/materialize-snowflake", "x"}},
			"\n  AND (starts_with(catalog_name::text, $1))\n  AND (connector_image_name IS NULL OR regexp_replace(connector_image_name, ':[^/]*$', '') IN ($2, $3))",
			[]string{"c/", "ghcr.io/estuary/materialize-snowflake", "x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sql, args := pgsource.Query(tc.sel)
			want := `SELECT catalog_name::text, last_pub_id, connector_image_name, connector_image_tag, spec::text
FROM public.live_specs
WHERE spec_type = 'materialization' AND spec IS NOT NULL` + tc.where
			if diff := cmp.Diff(want, sql); diff != "" {
				t.Errorf("query (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.args, args); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
			if strings.Contains(sql, "built_spec") {
				t.Error("the query names built_spec")
			}
			// No ORDER BY: name order would make the server fetch every
			// row through the index (a random heap access each).
			if strings.Contains(sql, "ORDER BY") {
				t.Error("the query orders its rows")
			}
		})
	}
}

// extra rows: a deleted spec, a spec written over several lines with a
// sealed-looking config (its bytes must come back as stored), a name
// with a quote-worthy character, a row without connector_image_name, a
// pinned image (Flow cuts it at '@': its connector_image_name keeps the
// tag).
const extra = `{"catalog_name":"acmeCo/pinned/materialize-snowflake","spec_type":"materialization","last_pub_id":"00000000000000ac","connector_image_name":"ghcr.io/estuary/materialize-snowflake:v4","connector_image_tag":"@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef","spec":{"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef","config":{"host":"h","warehouse":"w","syncSchedule":{"syncFrequency":"4h"}}}},"bindings":[]}}
{"catalog_name":"acmeCo/deleted/materialize-snowflake","spec_type":null,"last_pub_id":"00000000000000aa","spec":null}
{"catalog_name":"acmeCo/noimage/materialize-snowflake","spec_type":"materialization","last_pub_id":"00000000000000ab","spec":{"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{}}},"bindings":[]}}
{"catalog_name":"acmeCo/pretty/materialize-snowflake","spec_type":"materialization","last_pub_id":"12:34:ff:4b:56:80:03:a5","connector_image_name":"ghcr.io/estuary/materialize-snowflake","connector_image_tag":":v4","spec":{"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4",  "config":{"host":"h","warehouse":"w","syncSchedule":{"syncFrequency":"2h"}}}},"bindings":[]}}
`

// load fills a database with n generated rows plus extra.
func load(t *testing.T, n int) (*pgtest.DB, []byte) {
	t.Helper()
	db := pgtest.Require(t)
	var dump bytes.Buffer
	if err := gen.Write(&dump, n, 7); err != nil {
		t.Fatal(err)
	}
	dump.WriteString(extra)
	if _, err := db.Load(context.Background(), bytes.NewReader(dump.Bytes())); err != nil {
		t.Fatal(err)
	}
	// A spec written over several lines, as a json column keeps it.
	if err := pgtest.Exec(context.Background(), db.SuperURL, `UPDATE live_specs SET spec = E'{\n  "endpoint": {"connector": {"image": "ghcr.io/estuary/materialize-snowflake:v4",\r\n "config": {"host": "h\\nx", "warehouse": "w"}}},\n  "bindings": []\n}' WHERE catalog_name = 'acmeCo/pretty/materialize-snowflake'`); err != nil {
		t.Fatal(err)
	}
	return db, dump.Bytes()
}

type row struct {
	Name  string          `json:"catalog_name"`
	Type  string          `json:"spec_type"`
	Pub   string          `json:"last_pub_id"`
	Image string          `json:"connector_image_name"`
	Tag   string          `json:"connector_image_tag"`
	Spec  json.RawMessage `json:"spec"`
}

// readAll reads a stream of Open, checking each line is one JSON row.
// The rows come in the server's order; readAll returns them in name
// order, and fails the test when a name comes twice.
func readAll(t *testing.T, rc io.ReadCloser) ([]row, error) {
	t.Helper()
	defer rc.Close()
	var out []row
	sc := bufio.NewScanner(rc)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r row
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %d is not a JSON row: %v\n%s", len(out)+1, err, sc.Bytes())
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	for i := 1; i < len(out); i++ {
		if out[i].Name == out[i-1].Name {
			t.Fatalf("%s read twice", out[i].Name)
		}
	}
	return out, sc.Err()
}

// materializations lists the dump's live materialization rows in byte
// order of their names.
func materializations(t *testing.T, dump []byte) []row {
	var out []row
	for _, line := range bytes.Split(bytes.TrimSpace(dump), []byte("\n")) {
		var r row
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		if r.Type == "materialization" && string(r.Spec) != "null" {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func TestRead(t *testing.T) {
	db, dump := load(t, 1500)
	rc, err := pgsource.Open(db.BypassURL, selection.Selector{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := readAll(t, rc)
	if err != nil {
		t.Fatal(err)
	}
	want := materializations(t, dump)
	if len(got) != len(want) || len(want) < 900 {
		t.Fatalf("read %d rows, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Name != w.Name {
			t.Fatalf("row %d in name order: %s, want %s", i+1, g.Name, w.Name)
		}
		if g.Type != "materialization" || g.Image != w.Image || g.Tag != w.Tag {
			t.Errorf("row %s: %+v, want %+v", g.Name, g, w)
		}
		wantPub := strings.ReplaceAll(w.Pub, ":", "")
		if g.Pub != wantPub || len(g.Pub) != 16 {
			t.Errorf("row %s: last_pub_id %q, want %q", g.Name, g.Pub, wantPub)
		}
		if g.Name == "acmeCo/pretty/materialize-snowflake" {
			want := `{   "endpoint": {"connector": {"image": "ghcr.io/estuary/materialize-snowflake:v4",   "config": {"host": "h\nx", "warehouse": "w"}}},   "bindings": [] }`
			if string(g.Spec) != want {
				t.Errorf("multi-line spec:\n got %s\nwant %s", g.Spec, want)
			}
		} else if !bytes.Equal(g.Spec, w.Spec) {
			t.Errorf("row %s: spec bytes changed:\n got %s\nwant %s", g.Name, g.Spec, w.Spec)
		}
	}
}

func TestSelectorsPushedDown(t *testing.T) {
	db, dump := load(t, 600)
	all := materializations(t, dump)
	for _, tc := range []struct {
		name string
		sel  selection.Selector
	}{
		{"name", selection.Selector{Names: []string{all[3].Name, all[10].Name}}},
		{"prefix", selection.Selector{Prefixes: []string{"acmeCo/", "materialize-globex/team1"}}},
		{"image", selection.Selector{Images: []string{"ghcr.io/estuary/materialize-snowflake"}}},
		{"prefix and image", selection.Selector{Prefixes: []string{"materialize-acmeCo/"}, Images: []string{"ghcr.io/estuary/materialize-bigquery"}}},
		{"nothing", selection.Selector{Names: []string{"nobody/x"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc, err := pgsource.Open(db.BypassURL, tc.sel)
			if err != nil {
				t.Fatal(err)
			}
			got, err := readAll(t, rc)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, r := range all {
				// A row without connector_image_name is read whatever
				// the images: the spec's image decides on reading.
				if tc.sel.MatchName(r.Name) && (len(tc.sel.Images) == 0 || r.Image == "" || tc.sel.MatchImage(r.Image)) {
					want = append(want, r.Name)
				}
			}
			var names []string
			for _, r := range got {
				names = append(names, r.Name)
			}
			if diff := cmp.Diff(want, names); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
			if tc.name != "nothing" && len(want) == 0 {
				t.Fatal("the case selects nothing: it tests nothing")
			}
		})
	}
}

// One snapshot: rows deleted after the reader has started are still read,
// and rows added are not.
func TestOneSnapshot(t *testing.T) {
	db, dump := load(t, 1500)
	rc, err := pgsource.Open(db.BypassURL, selection.Selector{})
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	br := bufio.NewReader(rc)
	first, err := br.ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	if err := pgtest.Exec(context.Background(), db.SuperURL, `DELETE FROM live_specs WHERE catalog_name NOT LIKE 'acmeCo/pretty%';
INSERT INTO live_specs (id, catalog_name, spec_type, spec, last_pub_id, last_build_id) VALUES ('ff:ff:ff:ff:ff:ff:ff:ff', 'zzz/new/m', 'materialization', '{}', 'ff:ff:ff:ff:ff:ff:ff:ff', 'ff:ff:ff:ff:ff:ff:ff:ff')`); err != nil {
		t.Fatal(err)
	}
	got, err := readAll(t, io.NopCloser(io.MultiReader(bytes.NewReader(first), br)))
	if err != nil {
		t.Fatal(err)
	}
	if want := len(materializations(t, dump)); len(got) != want {
		t.Errorf("read %d rows after a concurrent delete and insert, want the snapshot's %d", len(got), want)
	}
}

// Errors name the cause and never the password, whatever its source.
func TestErrorsHideThePassword(t *testing.T) {
	db := pgtest.Require(t)
	wrong, err := pgtest.WithUser(db.BypassURL, db.Bypass, "Wrong-Secret-4711", db.Name)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, url, want, secret string
	}{
		{"wrong password", wrong, "password authentication failed", "Wrong-Secret-4711"},
		{"no such port", regexp.MustCompile(`port=\d+`).ReplaceAllString(db.BypassURL, "port=1"), "failed to connect", db.BypassPassword},
		{"no such database", strings.Replace(db.BypassURL, "/"+db.Name+"?", "/nodb_x?", 1), "does not exist", db.BypassPassword},
		{"password parameter", strings.Replace(wrong, "Wrong-Secret-4711@", "@", 1) + "&password=Param-Secret-0815", "password authentication failed", "Param-Secret-0815"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc, err := pgsource.Open(tc.url, selection.Selector{})
			if err == nil {
				_, err = readAll(t, rc)
			}
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
			if strings.Contains(err.Error(), tc.secret) {
				t.Errorf("error %q shows the password", err)
			}
		})
	}
}

// Rows larger than the writer's buffer (256 KiB) and than the spare
// buffer kept for them (4 MiB) come through whole, between ordinary rows.
func TestLargeRows(t *testing.T) {
	db, dump := load(t, 300)
	all := materializations(t, dump)
	sizes := map[string]int{all[5].Name: 300 << 10, all[6].Name: 5 << 20, all[40].Name: 1 << 20}
	for name, n := range sizes {
		if err := pgtest.Exec(context.Background(), db.SuperURL, `UPDATE live_specs SET spec = json_build_object('pad', repeat('x', `+strconv.Itoa(n)+`), 'endpoint', spec->'endpoint') WHERE catalog_name = '`+name+`'`); err != nil {
			t.Fatal(err)
		}
	}
	rc, err := pgsource.Open(db.BypassURL, selection.Selector{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := readAll(t, rc)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(all) {
		t.Fatalf("read %d rows, want %d", len(got), len(all))
	}
	for i, g := range got {
		if g.Name != all[i].Name {
			t.Fatalf("row %d: %s, want %s", i+1, g.Name, all[i].Name)
		}
		n, large := sizes[g.Name]
		switch {
		case large && (len(g.Spec) < n || !bytes.Contains(g.Spec, []byte(`"endpoint"`))):
			t.Errorf("row %s: spec of %d bytes, want over %d with its endpoint", g.Name, len(g.Spec), n)
		case !large && !bytes.Equal(g.Spec, all[i].Spec) && g.Name != "acmeCo/pretty/materialize-snowflake":
			t.Errorf("row %s: spec bytes changed", g.Name)
		}
	}
}
