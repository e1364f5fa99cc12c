package livespecs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/selection"
	"github.com/estuary/schedtool/catalog/tree"
	"github.com/estuary/schedtool/finding"
	"github.com/estuary/schedtool/internal/paths"
)

// RowResult is one line of a live_specs dump, read.
type RowResult struct {
	Line    int
	Mat     *catalog.Materialization // set for a readable materialization row
	Problem *finding.Finding         // set for a row that cannot be read
	// SpecType is the row's spec_type ("" when unreadable); rows of other
	// types have neither Mat nor Problem.
	SpecType string
}

// DumpOptions tune the streaming reader.
type DumpOptions struct {
	catalog.Options
	// ConfigKeys, if set, are the only config keys (and keys starting with
	// them, for sops suffixes) that are read; the rest are checked only.
	ConfigKeys []string
	// Lean reads only what validate and census look at: catalog_name,
	// spec_type, and the spec's shards, syncSchedule and endpoint.
	Lean    bool
	Workers int // 0: one per core
	// BatchRows is the most rows a batch holds (0: 2048); tests set it.
	BatchRows int
	// inFlight, if set, sees the number of batches sent and not yet
	// emitted each time one is sent (tests check the bound).
	inFlight func(int)
}

type batch struct {
	seq     int
	first   int    // line number of the first row
	buf     []byte // whole lines, each ending in '\n' (but maybe the last at EOF)
	tooLong bool   // buf is empty: one line longer than the limit was dropped
	blk     *block // the block buf is part of (nil: buf is its own)
}

// block is a buffer of the free pool shared by the batches cut from it:
// it goes back to the pool when the last of them is done.
type block struct {
	buf  []byte
	refs atomic.Int32
}

const blockSize = 256 << 10

// batchRows is the most rows a batch holds: a block of tiny rows (131,072
// lines of "x") is cut into batches of at most this many, so that the
// results of a batch stay small whatever the row size.
const batchRows = 2048

// ScanDump reads a dump as a stream, decoding rows in parallel. process
// runs on the workers, one call per row; the row's materialization and its
// nodes are valid only during that call (their memory is reused for the
// next row), but strings taken from them stay valid. emit receives the
// results in row order on the calling goroutine. Memory stays bounded: a
// few blocks of the file are in flight at a time.
func ScanDump[T any](r io.Reader, file string, opts DumpOptions, process func(*RowResult) T, emit func(T)) error {
	return ScanDumpRaw(r, file, opts, func(w *Worker, line int, row []byte) T {
		rr := w.Read(line, row)
		return process(&rr)
	}, emit)
}

// Worker reads the rows of one ScanDumpRaw worker, reusing its memory.
type Worker struct {
	file  string
	opts  DumpOptions
	skip  tree.Skip
	arena *tree.Arena
	// Scratch and Ints are the worker's own, for its caller to reuse row
	// by row.
	Scratch []byte
	Ints    []int
	// Memo is the caller's own state for this worker (a cache, say).
	Memo any
	// lines are where the current row's lines start when it spans
	// several lines of its file (a pretty-printed element of flowctl raw
	// get output), else empty; reused row by row.
	lines []int
}

// MultiLine reports whether the current row spans several lines of its
// file, or starts at a column its bytes do not pad it to (an element of a
// one-line array): positions in it are not its line and a column of the
// row (a caller that makes positions from row offsets must Read it
// instead).
func (w *Worker) MultiLine() bool { return len(w.lines) > 0 }

// LineIn is how many lines below the current row's first line the byte
// at off of the row is in its file (0 for a row on one line).
func (w *Worker) LineIn(off int) int {
	if len(w.lines) == 0 {
		return 0
	}
	return max(sort.SearchInts(w.lines, off+1)-1, 0)
}

// unmark turns the line marks of a row of rawRows back into spaces,
// keeping where each line of the file starts in w.lines, and takes off
// its upMark prefix: it returns the row and how many lines above its
// line in the dump it starts. A row the prefix puts at a column past 1
// has its first line start before the row: w.lines[0] is minus the
// columns before it (tree.JSONOptions.LineStarts).
func (w *Worker) unmark(row []byte) ([]byte, int) {
	w.lines = w.lines[:0]
	up, first := 0, 0
	if len(row) > 0 && row[0] == upMark {
		if end := bytes.IndexByte(row[1:], upMark) + 1; end > 0 {
			if n, col, ok := upAndCol(row[1:end]); ok {
				row, up, first = row[end+1:], n, 1-col
			}
		}
	}
	i := bytes.IndexByte(row, lineMark)
	if i < 0 && first == 0 {
		return row, up
	}
	w.lines = append(w.lines, first)
	if i < 0 {
		return row, up
	}
	for i >= 0 {
		row[i] = ' '
		w.lines = append(w.lines, i+1)
		j := bytes.IndexByte(row[i+1:], lineMark)
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return row, up
}

// upAndCol reads the "UP:COL" of an upMark prefix.
func upAndCol(b []byte) (up, col int, ok bool) {
	u, c, found := bytes.Cut(b, []byte(":"))
	if !found {
		return 0, 0, false
	}
	up, err1 := strconv.Atoi(string(u))
	col, err2 := strconv.Atoi(string(c))
	return up, col, err1 == nil && err2 == nil && up >= 0 && col >= 1
}

// Read reads one row as ScanDump does. Its nodes are valid until the
// next row of this worker.
func (w *Worker) Read(line int, row []byte) RowResult {
	w.arena.Reset()
	return readRow(w.file, line, row, w.lines, w.opts.Options, w.skip, w.arena)
}

// ScanDumpRaw is ScanDump for callers that look at a row's bytes before
// (or instead of) reading it: process gets the row, without its line
// ending, and the worker that can Read it. A row of flowctl raw get output
// (NewRawRows) comes with its line marks made spaces (see
// Worker.MultiLine).
func ScanDumpRaw[T any](r io.Reader, file string, opts DumpOptions, process func(w *Worker, line int, row []byte) T, emit func(T)) error {
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	maxRow := opts.MaxRowSize
	if maxRow <= 0 {
		maxRow = 64 << 20
	}
	rowsPer := opts.BatchRows
	if rowsPer <= 0 {
		rowsPer = batchRows
	}
	marked := marksLines(r)
	pool := newBlockPool(2*workers + 2)
	// A token per batch sent and not yet emitted: the results waiting in
	// the reorder buffer for a slow earlier batch are bounded by it.
	tokens := make(chan struct{}, maxInFlight(workers))
	jobs := make(chan *batch, workers)
	results := make(chan scanResult[T], workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wk := &Worker{file: file, opts: opts, skip: rowSkip(opts.ConfigKeys, opts.Lean), arena: tree.NewArena()}
			wk.opts.MaxRowSize = maxRow
			work(wk, jobs, results, pool, marked, process)
		}()
	}
	var readErr error
	cut := &batcher{pool: pool, tokens: tokens, jobs: jobs, opts: &opts, rowsPer: rowsPer, line: 1}
	go func() {
		defer close(jobs)
		readErr = cut.read(r, maxRow)
	}()
	go func() { wg.Wait(); close(results) }()
	emitInOrder(results, tokens, emit)
	return readErr
}

// scanResult is what process made of one batch's rows.
type scanResult[T any] struct {
	seq int
	out []T
}

// blockPool is ScanDumpRaw's pool of blocks: each is in free, read into
// by the reader, or shared by batches in flight. A buffer grown past
// blockSize for a long line is not the pool's (its block goes back when
// it grows).
type blockPool struct{ free chan []byte }

func newBlockPool(n int) *blockPool {
	p := &blockPool{free: make(chan []byte, n)}
	for i := 0; i < n; i++ {
		p.free <- make([]byte, 0, blockSize)
	}
	return p
}

// release gives a block back to the pool once no batch shares it.
func (p *blockPool) release(bl *block) {
	if bl != nil && bl.refs.Add(-1) == 0 {
		p.free <- bl.buf[:0]
	}
}

// take copies data into a block of the pool, or into a buffer of its
// own when it does not fit.
func (p *blockPool) take(data []byte) []byte {
	b := <-p.free
	if len(data) > cap(b) {
		p.free <- b
		return append([]byte(nil), data...)
	}
	return append(b[:0], data...)
}

// work is one worker of ScanDumpRaw: each row of a batch, without its
// line ending (and its line marks, when marked), goes to process; the
// batch's results go out under its sequence number.
func work[T any](wk *Worker, jobs <-chan *batch, results chan<- scanResult[T], pool *blockPool, marked bool, process func(w *Worker, line int, row []byte) T) {
	rows := 0 // the last batch's, to size the next one's results
	for b := range jobs {
		out := make([]T, 0, rows+rows/8+1)
		if b.tooLong {
			wk.lines = wk.lines[:0]
			out = append(out, process(wk, b.first, nil))
		}
		line := b.first
		for rest := b.buf; len(rest) > 0; line++ {
			row := rest
			if i := bytes.IndexByte(rest, '\n'); i >= 0 {
				row, rest = rest[:i], rest[i+1:]
			} else {
				rest = nil
			}
			row = bytes.TrimSuffix(row, []byte("\r"))
			at := line
			if marked {
				var up int
				row, up = wk.unmark(row)
				at -= up
			}
			out = append(out, process(wk, at, row))
		}
		rows = len(out)
		pool.release(b.blk)
		results <- scanResult[T]{b.seq, out}
	}
}

// emitInOrder emits the batches' results in the order of their
// sequence numbers, holding those that come early, and gives a batch's
// token back once it is emitted.
func emitInOrder[T any](results <-chan scanResult[T], tokens <-chan struct{}, emit func(T)) {
	pending := map[int][]T{}
	next := 0
	for res := range results {
		pending[res.seq] = res.out
		for {
			out, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			for _, x := range out {
				emit(x)
			}
			<-tokens
			next++
		}
	}
}

// batcher is ScanDumpRaw's reader: it cuts what it reads into batches of
// whole lines, numbered in order, each sent with a token.
type batcher struct {
	pool      *blockPool
	tokens    chan struct{}
	jobs      chan<- *batch
	opts      *DumpOptions
	rowsPer   int
	seq, line int
}

// post sends one batch.
func (c *batcher) post(b *batch) {
	c.tokens <- struct{}{}
	if c.opts.inFlight != nil {
		c.opts.inFlight(len(c.tokens))
	}
	b.seq, b.first = c.seq, c.line
	c.seq++
	if c.opts.Progress != nil {
		c.opts.Progress.Add(int64(len(b.buf)))
	}
	c.jobs <- b
}

// send sends whole lines (or a dropped long line) as batches of at most
// rowsPer rows.
func (c *batcher) send(b *batch) {
	if b.tooLong {
		c.post(b)
		c.line++
		return
	}
	var bl *block
	if cap(b.buf) == blockSize {
		bl = &block{buf: b.buf}
		bl.refs.Store(1) // the reader's, while it cuts
	}
	for rest := b.buf; len(rest) > 0; {
		end, n := 0, 0
		for n < c.rowsPer {
			i := bytes.IndexByte(rest[end:], '\n')
			if i < 0 {
				end = len(rest)
				break
			}
			end += i + 1
			n++
		}
		if bl != nil {
			bl.refs.Add(1)
		}
		c.post(&batch{buf: rest[:end:end], blk: bl})
		c.line += n
		rest = rest[end:]
	}
	c.pool.release(bl)
}

// read reads r to its end into blocks and sends their whole lines; a
// line longer than maxRow is dropped, sent as a batch that says so. It
// returns r's error (its end is none).
func (c *batcher) read(r io.Reader, maxRow int) (readErr error) {
	free := c.pool.free
	pending := <-free
	discarding := false // inside a line longer than the limit
	for eof := false; !eof; {
		if len(pending) == cap(pending) {
			grown := make([]byte, len(pending), 2*cap(pending))
			copy(grown, pending)
			if cap(pending) == blockSize {
				free <- pending[:0]
			}
			pending = grown
		}
		n, err := r.Read(pending[len(pending):cap(pending)])
		pending = pending[:len(pending)+n]
		if err != nil {
			if !errors.Is(err, io.EOF) {
				readErr = err
			}
			eof = true
		}
		if discarding {
			i := bytes.IndexByte(pending, '\n')
			if i < 0 {
				pending = pending[:0]
				continue
			}
			c.send(&batch{tooLong: true})
			discarding = false
			pending = append(pending[:0], pending[i+1:]...)
		}
		last := bytes.LastIndexByte(pending, '\n')
		if last < 0 && !eof {
			if len(pending) > maxRow {
				discarding, pending = true, pending[:0]
			}
			continue
		}
		if eof {
			last = len(pending) - 1
		}
		if last < 0 {
			break
		}
		// A line over the limit inside the block is cut out here.
		if over := longLine(pending[:last+1], maxRow); over >= 0 {
			end := over + bytes.IndexByte(pending[over:], '\n') + 1
			if end <= over {
				end = last + 1
			}
			if over > 0 {
				c.send(&batch{buf: c.pool.take(pending[:over])})
			}
			c.send(&batch{tooLong: true})
			pending = append(pending[:0], pending[end:]...)
			if !eof {
				continue
			}
			last = len(pending) - 1
			if last < 0 {
				break
			}
		}
		next := c.pool.take(pending[last+1:])
		c.send(&batch{buf: pending[:last+1]})
		pending = next
	}
	if cap(pending) == blockSize {
		free <- pending[:0]
	}
	return readErr
}

// maxInFlight is how many batches ScanDumpRaw has sent and not yet
// emitted at most: with batchRows rows a batch, it bounds the results
// held whatever the size of the rows.
func maxInFlight(workers int) int { return 2*workers + 2 }

// longLine returns the offset of the first line in b longer than max, or -1.
func longLine(b []byte, max int) int {
	if len(b) <= max {
		return -1
	}
	for start := 0; start < len(b); {
		i := bytes.IndexByte(b[start:], '\n')
		if i < 0 {
			i = len(b) - start
		}
		if i > max {
			return start
		}
		start += i + 1
	}
	return -1
}

var materializationMark = []byte(`"materialization"`)

// rowSkip leaves unbuilt (but checked) the parts of a row no command
// reads: the bindings, and with ConfigKeys the config keys that are not
// about schedules. That keeps reading a dump cheap.
func rowSkip(configKeys []string, lean bool) tree.Skip {
	return func(path []string, key string) bool {
		switch len(path) {
		case 0:
			return lean && key != "catalog_name" && key != "spec_type" && key != "spec"
		case 1:
			if path[0] != "spec" {
				return false
			}
			if lean {
				// secrets: pointers that may cover the schedule (docs/behaviour.md §4.5).
				return key != "shards" && key != "syncSchedule" && key != "endpoint" && key != "delete" && key != "secrets"
			}
			return key == "bindings"
		case 4:
			if configKeys == nil || path[0] != "spec" || path[1] != "endpoint" || path[2] != "connector" || path[3] != "config" {
				return false
			}
			return !tree.ConfigKeyMatch(key, configKeys)
		}
		return false
	}
}

// readRow reads one row of a dump.
// lines are where its lines start when it spans several lines of its
// file (see Worker.MultiLine).
func readRow(file string, line int, row []byte, lines []int, opts catalog.Options, skip tree.Skip, arena *tree.Arena) RowResult {
	rr := RowResult{Line: line}
	bad := func(col int, ptr, msg string) RowResult {
		rr.Problem = &finding.Finding{Rule: finding.ParseError, Severity: finding.Error,
			Pos: finding.Position{File: file, Line: line, Column: col, Pointer: ptr}, Message: msg}
		return rr
	}
	if row == nil {
		return bad(1, "", fmt.Sprintf("row is longer than %s (see --max-row-size)", paths.FormatSize(int64(opts.MaxRowSize))))
	}
	if len(bytes.TrimSpace(row)) == 0 {
		return rr // blank lines are not rows
	}
	jo := tree.JSONOptions{Limits: opts.Limits, Skip: skip, Arena: arena, LineBase: line - 1, LineStarts: lines}
	if !bytes.Contains(row, materializationMark) {
		// Not a materialization: check that it is a JSON object with a
		// spec_type string, building nothing else.
		only := jo
		only.Skip = onlySpecType
		doc, err := tree.ParseJSONWith(file, row, only)
		if err != nil {
			return badSyntax(rr, file, line, err)
		}
		if doc.Root.Kind != tree.Object {
			return bad(doc.Root.Col(), "", "row is not a JSON object")
		}
		if deletedRow(doc.Root) {
			rr.SpecType = "other"
			return rr
		}
		typ, ok := doc.Root.Get("spec_type").Str()
		switch {
		case !ok && doc.Root.Get(DBNoteKey) != nil:
			// A database's note on what it could not read.
			return bad(doc.Root.Col(), "", noteText(doc.Root.Get(DBNoteKey)))
		case !ok:
			return bad(doc.Root.Col(), "", noSpecType(doc.Root.Get("spec_type")))
		case !KnownSpecType(typ):
			return bad(doc.Root.Col(), "", unknownSpecType(typ))
		case typ != "materialization":
			rr.SpecType = "other"
			return rr
		}
		// "materialization" spelled with JSON escapes: read it whole.
	}
	doc, err := tree.ParseJSONWith(file, row, jo)
	if err != nil {
		return badSyntax(rr, file, line, err)
	}
	root := doc.Root
	if root.Kind != tree.Object {
		return bad(root.Col(), "", "row is not a JSON object")
	}
	if deletedRow(root) {
		rr.SpecType = "other"
		return rr // a deleted spec, not a task
	}
	st := root.Get("spec_type")
	typ, ok := st.Str()
	if !ok {
		return bad(root.Col(), "", noSpecType(st))
	}
	if !KnownSpecType(typ) {
		return bad(root.Col(), "", unknownSpecType(typ))
	}
	rr.SpecType = typ
	if typ != "materialization" {
		return rr
	}
	name, ok := root.Get("catalog_name").Str()
	if !ok || name == "" {
		return bad(root.Col(), "", "materialization row has no catalog_name")
	}
	spec := root.Get("spec")
	if n := root.Get("spec_bytes"); spec == nil && n != nil && (n.Kind == tree.Number || n.Kind == tree.Raw) {
		// A database left out a spec longer than --max-row-size.
		size := n.Value
		if n.Kind == tree.Raw && n.End > n.Offset {
			size = string(n.Doc.Src[n.Offset:n.End])
		}
		rr.Problem = &finding.Finding{Rule: finding.ParseError, Severity: finding.Error, Task: name, Pos: catalog.Pos(root),
			Message: fmt.Sprintf("materialization row %s: its spec is %s bytes, longer than --max-row-size (%s); it was not read", name, size, paths.FormatSize(int64(opts.MaxRowSize)))}
		return rr
	}
	if spec == nil || spec.Kind != tree.Object {
		p := catalog.Pos(root)
		if spec != nil {
			p = catalog.Pos(spec)
		}
		rr.Problem = &finding.Finding{Rule: finding.ParseError, Severity: finding.Error, Task: name, Pos: p,
			Message: fmt.Sprintf("materialization row %s has no spec object", name)}
		return rr
	}
	m := &catalog.Materialization{Name: name, Source: doc, Spec: spec, Row: &catalog.Row{Line: line}}
	if m.Deleted() {
		return rr // a deletion, not a task
	}
	if opts.Select != nil && !opts.Select.MatchName(name) {
		return rr // not picked (the image is looked at below)
	}
	m.Row.LastPubID, _ = root.Get("last_pub_id").Str()
	m.Row.LastPubID = NormalizePubID(m.Row.LastPubID) // flowctl raw get prints a flowid as macaddr8
	m.Row.ImageName, _ = root.Get("connector_image_name").Str()
	m.Row.ImageTag, _ = root.Get("connector_image_tag").Str()
	probs := catalog.Extract(m, opts)
	if !opts.Select.Take(name, m.Image) {
		return rr
	}
	if m.Config != nil && m.Config.RefNode != nil {
		m.Config.Err = "a stored spec's config must be inline, not a file path"
		probs = append(probs, finding.Finding{Rule: finding.ParseError, Severity: finding.Error, Task: name, Pos: catalog.Pos(m.Config.RefNode), Message: m.Config.Err})
	}
	if len(probs) > 0 {
		rr.Problem = &probs[0]
	}
	rr.Mat = m
	return rr
}

// deletedRow reports whether a row is a deleted spec as live_specs keeps
// one (docs/behaviour.md §2, §12): spec null, and spec_type null (Flow's table constraint
// nulls both) or one of the known types. A null spec_type with a spec, or
// a missing spec_type, stays unreadable.
func deletedRow(root *tree.Node) bool {
	sp := root.Get("spec")
	st := root.Get("spec_type")
	if sp == nil || sp.Kind != tree.Null || st == nil {
		return false
	}
	if st.Kind == tree.Null {
		return true
	}
	typ, ok := st.Str()
	return ok && KnownSpecType(typ)
}

// PlainTask sorts a dump row whose shape tree.ScanRow found plain, for a
// caller that decides rows by shape: skip when the row yields nothing (a
// known spec type other than materialization, or a task sel does not
// pick), byShape when it is a picked materialization, whose shape's
// decision holds for it. Neither is an unknown spec type: the row must be
// read, which reports it (the shape's key does not hold the spec type).
func PlainTask(shape *tree.RowShape, sel *selection.Selection) (skip, byShape bool) {
	switch typ := string(shape.SpecType); {
	case !KnownSpecType(typ):
		return false, false
	case typ != "materialization":
		return true, false
	}
	if !sel.Take(string(shape.Name), string(shape.Image)) {
		return true, false
	}
	return false, true
}

// KnownSpecType reports whether typ is one of the values of Flow's
// catalog_spec_type: an unknown value is no proof that the row is not a
// materialization.
func KnownSpecType(typ string) bool {
	switch typ {
	case "materialization", "capture", "collection", "test":
		return true
	}
	return false
}

func unknownSpecType(typ string) string {
	return fmt.Sprintf("row's spec_type %s is not materialization, capture, collection or test: unreadable (it may be a materialization)", strconv.Quote(typ))
}

// DBNoteKey is the key of a row a database source adds after its rows
// to say that they may not be the whole table (row-level security): the
// row is an unreadable input with the note as its message.
const DBNoteKey = "schedtool_note"

// noteText is a note row's message: its string value (left unparsed, a
// raw JSON string, by onlySpecType).
func noteText(n *tree.Node) string {
	if n.Kind == tree.String {
		return n.Value
	}
	var s string
	if n.Kind == tree.Raw && n.End > n.Offset && json.Unmarshal(n.Doc.Src[n.Offset:n.End], &s) == nil {
		return s
	}
	return "a note from the database that could not be read"
}

// onlySpecType builds nothing of a row but its spec_type.
func onlySpecType(path []string, key string) bool { return len(path) > 0 || key != "spec_type" }

// noSpecType says what is wrong with a row's spec_type: an unknown type
// is unreadable, never a row of another type.
func noSpecType(st *tree.Node) string {
	if st == nil {
		return "row has no spec_type: unreadable (it may be a materialization)"
	}
	return "row's spec_type is " + tree.Article(st.Kind) + ", not a string: unreadable (it may be a materialization)"
}

// RowParser parses a row as ScanDump does with opts (the same values
// left unbuilt), to re-read a row after an edit.
func RowParser(opts DumpOptions) func(file string, src []byte) (*tree.Doc, error) {
	skip := rowSkip(opts.ConfigKeys, opts.Lean)
	return func(file string, src []byte) (*tree.Doc, error) {
		return tree.ParseJSONWith(file, src, tree.JSONOptions{Limits: opts.Limits, Skip: skip})
	}
}

func badSyntax(rr RowResult, file string, line int, err error) RowResult {
	// Not err.Error() first: it formats the whole message, once per row
	// of a garbage dump.
	col, msg := 1, ""
	se, ok := err.(*tree.SyntaxError)
	if !ok {
		ok = errors.As(err, &se)
	}
	if ok {
		line, col, msg = se.Line, se.Col, se.Msg // se.Line: the row may span lines
	} else {
		msg = err.Error()
	}
	rr.Problem = &finding.Finding{Rule: finding.ParseError, Severity: finding.Error,
		Pos: finding.Position{File: file, Line: line, Column: col}, Message: "row does not parse: " + msg}
	return rr
}
