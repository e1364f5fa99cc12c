// Package pgsource reads the stored specs of Flow's control plane straight
// from PostgreSQL (docs/behaviour.md §12): the live_specs table, in one
// REPEATABLE READ, READ ONLY transaction, as one streamed query in the
// table's physical order, each spec as the raw text of its json column.
// Rows come out as the lines of a dump, so every command reads them as it
// reads a dump, in bounded memory.
//
// docs/behaviour.md §12 first paged by keyset on catalog_name. That order costs the server a
// random heap fetch per row through the catalog_name index, which alone
// takes longer than twice the whole census of a dump of the same rows
// (README, "Census from PostgreSQL"); a sequential read streams the rows
// at the speed the client takes them, and memory stays bounded all the
// same, since the server waits on the socket while the client is busy.
//
// Open reads PostgreSQL URLs: cmd/schedtool sets catalog.Options.OpenDB
// to it. The package is the only one that imports a database driver
// (pgx: the wire protocol and libpq's URL, PGPASSWORD and ~/.pgpass rules
// in pure Go).
package pgsource

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/estuary/schedtool/catalog/livespecs"
	"github.com/estuary/schedtool/catalog/selection"
	"github.com/estuary/schedtool/internal/jsonstr"
	"github.com/estuary/schedtool/internal/words"
)

// maxSpare bounds the buffer kept for rows larger than the writer's.
const maxSpare = 4 << 20

// readBuffer is the size of the reads from the server's socket.
const readBuffer = 256 << 10

// resultFormats asks for each column of Query in the format cheapest to
// write into a dump row: text for the names and the spec (a json
// column's text is its stored bytes), binary for last_pub_id (its 8
// bytes, written as 16 hex digits here rather than formatted, split on
// ':' and joined again by the server for every row).
var resultFormats = []int16{0, 1, 0, 0, 0, 0}

// Open connects to the database of a libpq URL and streams its
// materializations as dump rows, one JSON object a line, in the order the
// server reads them (its heap order, not name order). Errors come
// through the reader; their text never holds the password.
func Open(url string, sel selection.Selector) (io.ReadCloser, error) {
	secrets := livespecs.URLSecrets(url)
	// The scheme is case-insensitive (RFC 3986) and catalog.IsDBURL says
	// so; pgconn only takes it in lower case and reads any other spelling
	// as an empty keyword/value string: its defaults, another server.
	if scheme, rest, ok := strings.Cut(url, "://"); ok {
		url = strings.ToLower(scheme) + "://" + rest
	}
	cfg, err := pgconn.ParseConfig(url)
	if err != nil {
		return nil, errors.New(livespecs.Scrub(unwrapParse(err), secrets...))
	}
	secrets = append(secrets, cfg.Password)
	// The rows are written as UTF-8 JSON: the server converts the
	// database's encoding (LATIN1, say) to UTF-8, whatever the URL, its
	// options or the role ask for (a startup parameter overrides both);
	// read in another encoding, a spec would be mojibake. Server messages
	// come in UTF-8 too.
	cfg.RuntimeParams["client_encoding"] = "UTF8"
	// pgx reads the socket 8 KiB at a time; rows come at tens of MB a
	// second, so a larger read buffer takes it in far fewer system calls
	// and wake-ups.
	cfg.BuildFrontend = func(r io.Reader, w io.Writer) *pgproto3.Frontend {
		return pgproto3.NewFrontend(bufio.NewReaderSize(r, readBuffer), w)
	}
	// TCP keepalives: a server host that vanished (no FIN, no RST) is
	// noticed by the kernel rather than waited on.
	cfg.DialFunc = (&net.Dialer{KeepAliveConfig: net.KeepAliveConfig{Enable: true, Idle: 15 * time.Second, Interval: 15 * time.Second, Count: 4}}).DialContext
	ctx, cancel := context.WithCancelCause(context.Background())
	q := newQueue()
	p := &progress{shared: sel.Rows}
	if sel.Timeout > 0 {
		// A stalled server (or proxy) keeps the connection open and
		// sends nothing: neither keepalives nor pgx end that, so a
		// watchdog does, by cancelling the read (pgx then sets a past
		// deadline on the socket).
		go watch(ctx, cancel, sel.Timeout, p, q)
	}
	go func() {
		err := read(ctx, cfg, sel, q, p)
		if err != nil && context.Cause(ctx) == errStalled {
			err = stalled(sel.Timeout, p)
		}
		if err != nil {
			err = errors.New(livespecs.Scrub(describe(err), secrets...))
		}
		cancel(nil)
		q.CloseWithError(err)
	}()
	return &reader{q, cancel}, nil
}

type reader struct {
	*queue
	cancel context.CancelCauseFunc
}

func (r *reader) Close() error {
	r.cancel(nil)
	return r.queue.Close()
}

// unwrapParse keeps pgconn's reason for refusing a URL, not the URL.
func unwrapParse(err error) string {
	var pe *pgconn.ParseConfigError
	if errors.As(err, &pe) && pe.Unwrap() != nil {
		return "not a valid PostgreSQL URL: " + pe.Unwrap().Error()
	}
	return "not a valid PostgreSQL URL: " + err.Error()
}

// describe gives the server's message, with its detail and hint, and
// after how many rows it ended the read.
func describe(err error) string {
	var cut *cutShort
	if errors.As(err, &cut) {
		return fmt.Sprintf("the server ended the read after %d %s of public.live_specs, before the last one: %s; the read is incomplete", cut.rows, words.Plural(cut.rows, "row", "rows"), describe(cut.err))
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		msg := pe.Severity + ": " + pe.Message + " (SQLSTATE " + pe.Code + ")"
		if pe.Detail != "" {
			msg += "; " + pe.Detail
		}
		if pe.Hint != "" {
			msg += "; hint: " + pe.Hint
		}
		if pe.Code == "42P01" && strings.Contains(pe.Message, "live_specs") {
			msg += "; the URL must name the control plane's database, the one holding Flow's public.live_specs"
		}
		if pe.Code == "42501" && strings.Contains(pe.Message, "live_specs") {
			msg += "; the role needs SELECT on public.live_specs (at least its columns catalog_name, spec_type, spec, last_pub_id, connector_image_name, connector_image_tag), or connect as one that has it"
		}
		if pe.Code == "57014" && strings.Contains(pe.Message, "statement timeout") {
			msg += "; the rows are read by one statement: lift the role's statement_timeout for this run by adding options=-c%20statement_timeout%3D0 to the URL"
		}
		return msg
	}
	return err.Error()
}

// Query builds the query and its parameters: the columns of docs/behaviour.md §12, never
// built_spec, materializations only, the selector pushed down. There is
// no ORDER BY, so the server reads the table sequentially (or through the
// catalog_name index when the selector picks few names) and streams the
// rows as it finds them.
func Query(sel selection.Selector) (string, []string) {
	var b strings.Builder
	var args []string
	param := func(v string) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	spec := " spec::text"
	if sel.MaxSpec > 0 {
		// A spec longer than that is not sent (pgx would hold the whole
		// row in memory, however large); its length is, after it.
		n := param(strconv.Itoa(sel.MaxSpec))
		spec = "\n  CASE WHEN octet_length(spec::text) <= " + n + "::int THEN spec::text END, octet_length(spec::text)"
	}
	b.WriteString(`SELECT catalog_name::text, last_pub_id, connector_image_name, connector_image_tag,` + spec + `
FROM public.live_specs
WHERE spec_type = 'materialization' AND spec IS NOT NULL`)
	var alts []string
	for _, n := range sel.Names {
		alts = append(alts, "catalog_name::text = "+param(n))
	}
	for _, p := range sel.Prefixes {
		alts = append(alts, "starts_with(catalog_name::text, "+param(p)+")")
	}
	if len(alts) > 0 {
		b.WriteString("\n  AND (" + strings.Join(alts, " OR ") + ")")
	}
	if len(sel.Images) > 0 {
		var in []string
		for _, img := range sel.Images {
			in = append(in, param(img))
		}
		// A row without the column is kept: the image in its spec
		// decides, as it does for a dump row, when rows are checked
		// again on reading. Flow cuts a pinned image
		// (name:tag@sha256:...) at its '@', so that the column holds
		// name:tag: a tag after the last '/' is cut off here.
		b.WriteString("\n  AND (connector_image_name IS NULL OR regexp_replace(connector_image_name, ':[^/]*$', '') IN (" + strings.Join(in, ", ") + "))")
	}
	return b.String(), args
}

func read(ctx context.Context, cfg *pgconn.Config, sel selection.Selector, w io.Writer, p *progress) error {
	conn, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	p.connected.Store(true)
	defer conn.Close(context.Background())
	// synchronize_seqscans off: a sequential scan starts at the table's
	// first block even while another scan of it is under way, so that two
	// reads of the same table give the same order.
	//
	// idle_in_transaction_session_timeout off: once the server has sent
	// the last row, the transaction looks idle to it while schedtool still
	// takes in the rows buffered between them (a megabyte or so), which a
	// slow consumer (migrate --out DIR syncs a file per task) can take
	// longer than a role's timeout (Supabase sets one) to do. The
	// transaction ends as soon as they are in.
	if err := exec(ctx, conn, "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY; SET LOCAL synchronize_seqscans = off; SET LOCAL idle_in_transaction_session_timeout = 0"); err != nil {
		return err
	}
	p.steps.Add(1)
	// Whether row-level security cuts what this role reads: asked
	// first, in the transaction, so that a read it may have cut says so.
	user, who := rlsRole(ctx, conn)
	p.steps.Add(1)
	bw := bufio.NewWriterSize(w, 256<<10)
	var spare []byte
	sql, args := Query(sel)
	params := make([][]byte, len(args))
	for i, a := range args {
		params[i] = []byte(a)
	}
	rr := conn.ExecParams(ctx, sql, params, nil, nil, resultFormats[:5+min(sel.MaxSpec, 1)])
	total := 0
	for rr.NextRow() {
		v := rr.Values()
		// The row is written in place into the writer's free buffer,
		// so it is copied only once out of pgx's read buffer; a row
		// larger than that buffer goes through spare, reused.
		need := 128 + 6*(len(v[0])+len(v[2])+len(v[3])) + 2*len(v[1]) + len(v[4])
		if bw.Available() < need {
			if err := bw.Flush(); err != nil {
				rr.Close()
				return err
			}
		}
		b := spare[:0]
		if bw.Available() >= need {
			b = bw.AvailableBuffer()
		}
		b = row(b, v)
		if need > bw.Size() && cap(b) <= maxSpare {
			spare = b
		}
		if _, err := bw.Write(b); err != nil {
			rr.Close()
			return err
		}
		total++
		p.rows.Add(1)
		if p.shared != nil {
			p.shared.Add(1)
		}
	}
	if _, err := rr.Close(); err != nil {
		return lost(err, total)
	}
	if total == 0 {
		// Row-level security hides rows silently: no rows at all is
		// the one sign of it a reader gets.
		if why := rlsCause(user, who); why != "" {
			return errors.New(why)
		}
		// No rows at all is no more zero tasks than an empty dump is
		// (docs/behaviour.md §8). A selector that picks nothing is said by the caller,
		// which names it.
		if sel.IsZero() {
			return errors.New("read no rows from public.live_specs: it holds no materialization (spec_type 'materialization' with a spec); no rows is an error, not zero tasks: check that the URL names the control plane's database")
		}
	}
	if total > 0 && who != "" {
		// The rows may be a part passing for the whole: a note row,
		// which the dump reader reports as an unreadable input, so that
		// census's gate fails and every command says why.
		b := append(bw.AvailableBuffer(), `{"`+livespecs.DBNoteKey+`":`...)
		b = jsonstr.Append(b, rlsPartial(user, who))
		if _, err := bw.Write(append(b, '}', '\n')); err != nil {
			return err
		}
	}
	// Every row is in: the end of a read-only transaction changes
	// nothing, so a session the server has ended since (a timeout, a
	// restart) loses nothing either.
	exec(ctx, conn, "COMMIT")
	return bw.Flush()
}

// lost says that a read which failed without the server's word (the
// socket closed or broke: a proxy, a firewall, a restart, an
// administrator's pg_terminate_backend while the server was blocked on
// the socket) lost its connection part way, so that what was read is
// known to be incomplete. One the server ended with its word after some
// rows (a statement timeout, pg_terminate_backend) says how many.
func lost(err error, rows int) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		if rows == 0 {
			return err
		}
		return &cutShort{rows, err}
	}
	return fmt.Errorf("the connection to the server was lost after %d %s of public.live_specs, before the last one: %w; the read is incomplete", rows, words.Plural(rows, "row", "rows"), err)
}

// cutShort is a server error that ended the read after rows rows.
type cutShort struct {
	rows int
	err  error
}

func (c *cutShort) Error() string { return describe(c) }
func (c *cutShort) Unwrap() error { return c.err }

func exec(ctx context.Context, conn *pgconn.PgConn, sql string) error {
	_, err := conn.Exec(ctx, sql).ReadAll()
	return err
}

// row appends one result row (in resultFormats) as a dump line. A
// newline between the spec's tokens (a json column keeps the text as
// written) becomes a space, so that the row stays one line; a json value
// holds no raw newline anywhere else.
func row(b []byte, v [][]byte) []byte {
	b = append(b, `{"catalog_name":`...)
	b = appendString(b, v[0])
	b = append(b, `,"spec_type":"materialization"`...)
	if v[1] != nil {
		b = append(b, `,"last_pub_id":"`...)
		b = hex.AppendEncode(b, v[1])
		b = append(b, '"')
	}
	if v[2] != nil {
		b = append(b, `,"connector_image_name":`...)
		b = appendString(b, v[2])
	}
	if v[3] != nil {
		b = append(b, `,"connector_image_tag":`...)
		b = appendString(b, v[3])
	}
	if v[4] == nil && len(v) > 5 {
		// Longer than the selector's MaxSpec: its length, no spec.
		b = append(b, `,"spec_bytes":`...)
		b = append(b, v[5]...)
		return append(b, '}', '\n')
	}
	b = append(b, `,"spec":`...)
	start := len(b)
	b = append(b, v[4]...)
	for _, nl := range [...]byte{'\n', '\r'} {
		for i := start; ; {
			j := bytes.IndexByte(b[i:], nl)
			if j < 0 {
				break
			}
			b[i+j] = ' '
			i += j + 1
		}
	}
	return append(b, '}', '\n')
}

// appendString appends s as a JSON string, as jsonstr quotes it, with no
// string made of s when it is plain (catalog names and images are).
func appendString(b, s []byte) []byte {
	if !jsonstr.Plain(s) {
		return jsonstr.Append(b, string(s))
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
