// Package pgtest makes throwaway control-plane databases for the tests and
// the benchmark: a database with Flow's live_specs shape (schema.sql), two
// login roles (one with BYPASSRLS, one without) and rows loaded from a
// live_specs dump. It needs a running server: the URL of a superuser's
// connection in $SCHEDTOOL_TEST_PG (scripts/pg-test-cluster starts one).
package pgtest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/estuary/schedtool/internal/testreq"
)

//go:embed schema.sql
var Schema string

// EnvVar names the superuser URL of the test cluster.
const EnvVar = "SCHEDTOOL_TEST_PG"

// DB is one throwaway database.
type DB struct {
	Name string
	// SuperURL connects as the cluster's superuser; BypassURL as a role
	// with BYPASSRLS; ReaderURL as a role without it, which the policy
	// lets read only the prefixes given to GrantReader.
	SuperURL, BypassURL, ReaderURL string
	// Passwords of the two login roles.
	BypassPassword, ReaderPassword string
	Bypass, Reader                 string // role names
	super                          string
}

// Require returns a fresh database for a test, dropped at its end. Without
// $SCHEDTOOL_TEST_PG the test is skipped, or fails when
// SCHEDTOOL_REQUIRE_PG is set (CI must run these tests: .ci/run starts the
// server and sets it).
func Require(t testing.TB) *DB {
	t.Helper()
	super := os.Getenv(EnvVar)
	if super == "" {
		testreq.Missing(t, testreq.PG, "$"+EnvVar+` is not set (eval "$(scripts/pg-test-cluster start)" starts a throwaway cluster)`)
	}
	db, err := Create(context.Background(), super)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := db.Drop(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return db
}

func randHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

// WithUser returns the URL u for another user, password and database.
func WithUser(u, user, password, dbname string) (string, error) {
	p, err := url.Parse(u)
	if err != nil {
		return "", err
	}
	if password != "" {
		p.User = url.UserPassword(user, password)
	} else {
		p.User = url.User(user)
	}
	p.Path = "/" + dbname
	return p.String(), nil
}

// Exec runs SQL statements on the database named by url.
func Exec(ctx context.Context, u, sql string) error {
	conn, err := pgconn.Connect(ctx, u)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql).ReadAll()
	return err
}

// Count runs a query whose one row holds one integer and returns it.
func Count(ctx context.Context, u, sql string) (int, error) {
	conn, err := pgconn.Connect(ctx, u)
	if err != nil {
		return 0, err
	}
	defer conn.Close(ctx)
	res := conn.ExecParams(ctx, sql, nil, nil, nil, nil).Read()
	if res.Err != nil {
		return 0, res.Err
	}
	if len(res.Rows) != 1 || len(res.Rows[0]) != 1 {
		return 0, fmt.Errorf("%d rows, not one integer", len(res.Rows))
	}
	var n int
	_, err = fmt.Sscan(string(res.Rows[0][0]), &n)
	return n, err
}

// PhysicalOrder lists the live materializations' names in the table's
// physical (ctid) order, the order a sequential scan reads them: not
// always the order they were loaded in, since a small row can fill space
// an earlier page has left.
func (db *DB) PhysicalOrder(ctx context.Context) ([]string, error) {
	conn, err := pgconn.Connect(ctx, db.SuperURL)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	rr := conn.ExecParams(ctx, `SELECT catalog_name::text FROM live_specs
WHERE spec_type = 'materialization' AND spec IS NOT NULL ORDER BY ctid`, nil, nil, nil, nil)
	var names []string
	for rr.NextRow() {
		names = append(names, string(rr.Values()[0]))
	}
	_, err = rr.Close()
	return names, err
}

// Create makes a database with the schema and two login roles.
func Create(ctx context.Context, super string) (*DB, error) {
	return CreateEncoded(ctx, super, "")
}

// CreateEncoded is Create with the database in a server encoding other
// than the cluster's (LATIN1, SQL_ASCII; "" keeps the cluster's). The
// catalog_name domain then checks only its pattern: IS NFKC NORMALIZED
// needs a UTF8 database.
func CreateEncoded(ctx context.Context, super, encoding string) (*DB, error) {
	name := "schedtool_" + randHex(6)
	create := "CREATE DATABASE " + name
	schema := Schema
	if encoding != "" {
		create += " ENCODING '" + encoding + "' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0"
		schema = strings.Replace(schema, " AND VALUE IS NFKC NORMALIZED", "", 1)
	}
	db := &DB{Name: name, super: super, Bypass: name + "_bypass", Reader: name + "_reader",
		BypassPassword: "bp-" + randHex(12), ReaderPassword: "rd-" + randHex(12)}
	var err error
	if db.SuperURL, err = WithUser(super, "postgres", "", name); err != nil {
		return nil, err
	}
	if db.BypassURL, err = WithUser(super, db.Bypass, db.BypassPassword, name); err != nil {
		return nil, err
	}
	if db.ReaderURL, err = WithUser(super, db.Reader, db.ReaderPassword, name); err != nil {
		return nil, err
	}
	for _, sql := range []string{create,
		fmt.Sprintf("CREATE ROLE %s LOGIN BYPASSRLS PASSWORD '%s'", db.Bypass, db.BypassPassword),
		fmt.Sprintf("CREATE ROLE %s LOGIN NOBYPASSRLS PASSWORD '%s'", db.Reader, db.ReaderPassword)} {
		if err := Exec(ctx, super, sql); err != nil {
			db.Drop(ctx)
			return nil, fmt.Errorf("creating %s: %w", name, err)
		}
	}
	// Column grants leave out built_spec: a query that selected it fails.
	cols := "id, created_at, updated_at, catalog_name, connector_image_name, connector_image_tag, last_build_id, last_pub_id, spec, spec_type, md5"
	if err := Exec(ctx, db.SuperURL, schema+fmt.Sprintf(`
GRANT SELECT (%s) ON live_specs TO %s, %s;
GRANT SELECT ON read_grants TO %s, %s;`, cols, db.Bypass, db.Reader, db.Bypass, db.Reader)); err != nil {
		return nil, fmt.Errorf("loading the schema into %s: %w", name, err)
	}
	return db, nil
}

// Drop removes the database and its roles.
func (db *DB) Drop(ctx context.Context) error {
	var first error
	for _, sql := range []string{"DROP DATABASE IF EXISTS " + db.Name + " WITH (FORCE)",
		"DROP ROLE IF EXISTS " + db.Bypass, "DROP ROLE IF EXISTS " + db.Reader} {
		if err := Exec(ctx, db.super, sql); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// GrantReader lets the reader role see the rows under a catalog prefix.
func (db *DB) GrantReader(ctx context.Context, prefix string) error {
	return Exec(ctx, db.SuperURL, fmt.Sprintf(`INSERT INTO read_grants VALUES ('%s', '%s')`, db.Reader, prefix))
}

type dumpRow struct {
	CatalogName string          `json:"catalog_name"`
	SpecType    *string         `json:"spec_type"`
	LastPubID   *string         `json:"last_pub_id"`
	ImageName   *string         `json:"connector_image_name"`
	ImageTag    *string         `json:"connector_image_tag"`
	Spec        json.RawMessage `json:"spec"`
}

// Load copies the rows of a live_specs dump (one JSON object a line) into
// live_specs, each spec as its bytes in the dump, and returns how many.
// A row whose spec is null is a deleted spec (spec_type NULL too).
func (db *DB) Load(ctx context.Context, dump io.Reader) (int, error) {
	// The dump is UTF-8, whatever the database's encoding.
	cfg, err := pgconn.ParseConfig(db.SuperURL)
	if err != nil {
		return 0, err
	}
	cfg.RuntimeParams["client_encoding"] = "UTF8"
	conn, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return 0, err
	}
	defer conn.Close(ctx)
	pr, pw := io.Pipe()
	n := 0
	go func() {
		pw.CloseWithError(copyText(dump, pw, &n))
	}()
	_, err = conn.CopyFrom(ctx, pr, `COPY live_specs (id, catalog_name, spec_type, spec, last_pub_id, last_build_id, connector_image_name, connector_image_tag) FROM STDIN`)
	pr.Close()
	if err != nil {
		return n, err
	}
	_, err = conn.Exec(ctx, "ANALYZE live_specs").ReadAll()
	return n, err
}

// copyText turns dump lines into COPY's text format.
func copyText(dump io.Reader, w io.Writer, n *int) error {
	sc := bufio.NewScanner(dump)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	bw := bufio.NewWriterSize(w, 1<<20)
	var line []byte
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var r dumpRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return fmt.Errorf("dump row %d: %w", *n+1, err)
		}
		if r.CatalogName == "" {
			return fmt.Errorf("dump row %d: no catalog_name", *n+1)
		}
		*n++
		pub := fmt.Sprintf("%016x", *n)
		if r.LastPubID != nil {
			pub = *r.LastPubID
		}
		spec := string(r.Spec)
		typ := r.SpecType
		if spec == "" || spec == "null" {
			spec, typ = "", nil
		}
		line = line[:0]
		line = field(line, ptr(fmt.Sprintf("%016x", *n)), '\t')
		line = field(line, &r.CatalogName, '\t')
		line = field(line, typ, '\t')
		if spec == "" {
			line = field(line, nil, '\t')
		} else {
			line = field(line, &spec, '\t')
		}
		line = field(line, &pub, '\t')
		line = field(line, &pub, '\t')
		line = field(line, r.ImageName, '\t')
		line = field(line, r.ImageTag, '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return bw.Flush()
}

func ptr(s string) *string { return &s }

// field appends one value in COPY's text format, then sep.
func field(b []byte, v *string, sep byte) []byte {
	if v == nil {
		return append(append(b, `\N`...), sep)
	}
	for i := 0; i < len(*v); i++ {
		switch c := (*v)[i]; c {
		case '\\':
			b = append(b, `\\`...)
		case '\t':
			b = append(b, `\t`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		default:
			b = append(b, c)
		}
	}
	return append(b, sep)
}

// ErrNoServer is returned by FromEnv when $SCHEDTOOL_TEST_PG is unset.
var ErrNoServer = errors.New("$" + EnvVar + " is not set (eval \"$(scripts/pg-test-cluster start)\" starts a throwaway cluster)")

// FromEnv creates a database on the server of $SCHEDTOOL_TEST_PG.
func FromEnv(ctx context.Context) (*DB, error) {
	super := os.Getenv(EnvVar)
	if super == "" {
		return nil, ErrNoServer
	}
	return Create(ctx, super)
}

// Open names a database made by Create earlier, to Drop it.
func Open(super, name string) *DB {
	return &DB{Name: name, super: super, Bypass: name + "_bypass", Reader: name + "_reader"}
}
