package catalog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"schedtool/catalog/tree"
	"schedtool/finding"
)

// RowResult is one line of a live_specs dump, read.
type RowResult struct {
	Line    int
	Mat     *Materialization // set for a readable materialization row
	Problem *finding.Finding // set for a row that cannot be read
	// SpecType is the row's spec_type ("" when unreadable); rows of other
	// types have neither Mat nor Problem.
	SpecType string
}

// DumpOptions tune the streaming reader.
type DumpOptions struct {
	Options
	Workers   int // 0: one per core
	BatchRows int // 0: 256
}

type batch struct {
	seq   int
	first int // line number of the first row
	buf   []byte
	ends  []int // end offset of each row in buf
	skip  []string
}

// ScanDump reads a dump as a stream, decoding rows in parallel. process
// runs on the workers, one call per row (it must not keep the row's
// nodes beyond the call if it wants memory to stay bounded); emit
// receives the results in row order on the calling goroutine.
func ScanDump[T any](r io.Reader, file string, opts DumpOptions, process func(*RowResult) T, emit func(T)) error {
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	per := opts.BatchRows
	if per <= 0 {
		per = 256
	}
	maxRow := opts.MaxRowSize
	if maxRow <= 0 {
		maxRow = 64 << 20
	}
	type result struct {
		seq int
		out []T
	}
	jobs := make(chan *batch, workers)
	results := make(chan result, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range jobs {
				out := make([]T, 0, len(b.ends))
				start := 0
				for i, end := range b.ends {
					rr := readRow(file, b.first+i, b.buf[start:end], b.skip[i], opts.Options)
					out = append(out, process(&rr))
					start = end
				}
				results <- result{b.seq, out}
			}
		}()
	}
	var readErr error
	go func() {
		defer close(jobs)
		br := bufio.NewReaderSize(r, 1<<20)
		line := 0
		seq := 0
		cur := &batch{seq: seq, first: 1}
		for {
			row, tooLong, err := readLine(br, maxRow)
			if len(row) > 0 || tooLong || err == nil {
				line++
				if len(cur.ends) == 0 {
					cur.first = line
				}
				msg := ""
				if tooLong {
					msg = fmt.Sprintf("row is longer than %d bytes (see --max-row-size)", maxRow)
				}
				cur.buf = append(cur.buf, row...)
				cur.ends = append(cur.ends, len(cur.buf))
				cur.skip = append(cur.skip, msg)
				if len(cur.ends) == per {
					jobs <- cur
					seq++
					cur = &batch{seq: seq}
				}
			}
			if err != nil {
				if !errors.Is(err, io.EOF) {
					readErr = err
				}
				break
			}
		}
		if len(cur.ends) > 0 {
			jobs <- cur
		}
	}()
	go func() { wg.Wait(); close(results) }()
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
			next++
		}
	}
	return readErr
}

// readLine reads one line without its line ending. A line longer than max
// is consumed and reported as tooLong, without its content.
func readLine(br *bufio.Reader, max int) ([]byte, bool, error) {
	var acc []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(acc)+len(chunk) > max+2 {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			return nil, true, err
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			acc = append(acc, chunk...)
			continue
		}
		if acc != nil {
			chunk = append(acc, chunk...)
		}
		chunk = bytes.TrimSuffix(chunk, []byte("\n"))
		chunk = bytes.TrimSuffix(chunk, []byte("\r"))
		return chunk, false, err
	}
}

var materializationMark = []byte(`"materialization"`)

// readRow reads one row of a dump.
func readRow(file string, line int, row []byte, skip string, opts Options) RowResult {
	rr := RowResult{Line: line}
	bad := func(col int, ptr, msg string) RowResult {
		rr.Problem = &finding.Finding{Rule: finding.ParseError, Severity: finding.Error,
			Pos: finding.Position{File: file, Line: line, Column: col, Pointer: ptr}, Message: msg}
		return rr
	}
	if skip != "" {
		return bad(1, "", skip)
	}
	if len(bytes.TrimSpace(row)) == 0 {
		return rr // blank lines are not rows
	}
	if !bytes.Contains(row, materializationMark) {
		// Not a materialization: only check that it is a JSON object.
		if !validObject(row) {
			if _, err := tree.ParseJSON(file, row, opts.Limits); err != nil {
				return badSyntax(rr, file, line, err)
			}
			return bad(1, "", "row is not a JSON object")
		}
		rr.SpecType = "other"
		return rr
	}
	src := append([]byte(nil), row...)
	doc, err := tree.ParseJSON(file, src, opts.Limits)
	if err != nil {
		return badSyntax(rr, file, line, err)
	}
	doc.LineBase = line - 1
	root := doc.Root
	if root.Kind != tree.Object {
		return bad(1, "", "row is not a JSON object")
	}
	st := root.Get("spec_type")
	typ, ok := st.Str()
	if !ok {
		return bad(1, "", "row has no spec_type string")
	}
	rr.SpecType = typ
	if typ != "materialization" {
		return rr
	}
	name, ok := root.Get("catalog_name").Str()
	if !ok || name == "" {
		return bad(1, "", "materialization row has no catalog_name")
	}
	spec := root.Get("spec")
	if spec == nil || spec.Kind != tree.Object {
		p := Pos(root)
		if spec != nil {
			p = Pos(spec)
		}
		rr.Problem = &finding.Finding{Rule: finding.ParseError, Severity: finding.Error, Task: name, Pos: p,
			Message: fmt.Sprintf("materialization row %s has no spec object", name)}
		return rr
	}
	m := &Materialization{Name: name, Source: doc, Spec: spec, Row: &Row{Line: line, CatalogRaw: name}}
	m.Row.LastPubID, _ = root.Get("last_pub_id").Str()
	m.Row.ImageName, _ = root.Get("connector_image_name").Str()
	m.Row.ImageTag, _ = root.Get("connector_image_tag").Str()
	probs := Extract(m, opts)
	if m.Config != nil && m.Config.RefNode != nil {
		m.Config.Err = "a stored spec's config must be inline, not a file path"
		probs = append(probs, finding.Finding{Rule: finding.ParseError, Severity: finding.Error, Task: name, Pos: Pos(m.Config.RefNode), Message: m.Config.Err})
	}
	if len(probs) > 0 {
		rr.Problem = &probs[0]
	}
	rr.Mat = m
	return rr
}

func badSyntax(rr RowResult, file string, line int, err error) RowResult {
	var se *tree.SyntaxError
	col, msg := 1, err.Error()
	if errors.As(err, &se) {
		col, msg = se.Col, se.Msg
	}
	rr.Problem = &finding.Finding{Rule: finding.ParseError, Severity: finding.Error,
		Pos: finding.Position{File: file, Line: line, Column: col}, Message: "row does not parse: " + msg}
	return rr
}

// validObject is a cheap check that a row is one JSON object.
func validObject(row []byte) bool {
	t := bytes.TrimSpace(row)
	return len(t) > 0 && t[0] == '{' && jsonValid(t)
}
