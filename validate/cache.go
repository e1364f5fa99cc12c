package validate

import (
	"bytes"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/tree"
	"github.com/estuary/schedtool/finding"
)

// A dump repeats a few shapes of schedule over and over. A row's findings
// depend only on what tree.ScanRow puts in a shape's key (the image, the
// runtime flag, the endpoint kind, the config's schedule keys with their
// values) and the model schedule's bytes, apart from the task's name and
// where the values sit in the row. So the first row of a shape is read
// and checked the slow way, and its findings become a template: each
// finding's rule, severity and pointer, its message cut where the name
// goes, and its place as a distance from one of the shape's values. The
// other rows of the shape are scanned, not built, and their findings are
// the template filled in. A template is only kept when filling it in for
// its own row gives exactly the findings of the slow way.

// taskMark stands for the task's name while a template is made.
const taskMark = "\x00\x00schedtool-task\x00\x00"

// anchors of a template finding: the values of tree.RowOffsets.
const (
	anchorSpec = iota
	anchorFlag
	anchorModel
	anchorImage
	anchorConfig
	anchorKeys // anchorKeys+i: the value of config key i
)

type tplFinding struct {
	rule    string
	sev     finding.Severity
	anchor  int
	runes   int // characters from the anchor to the finding
	pointer string
	parts   []string // the message, cut where the name goes
	pre     []piece  // the finding rendered, but for the row's own values
	size    int      // the length of pre's texts
	slots   [4]int   // how many file, task, line and column slots pre has
}

// piece is rendered text followed by one of a row's values: 't' the
// task's name, 'f' the file, 'l' the line, 'c' the column, or 0 none.
type piece struct {
	text []byte
	slot byte
}

// template is a shape's findings; bad marks a shape that is always read
// the slow way. With pre, its findings are also rendered ahead.
type template struct {
	findings []tplFinding
	bad      bool
	pre      bool
	paced    bool // a V1 task paced by its connector (plan.State.PacedV1)
}

// Renderer renders findings for a writer (see report.Renderer).
type Renderer interface {
	Render(dst []byte, f *finding.Finding) []byte
	Escape(dst []byte, s string) []byte
}

// Stand-ins for a row's values in a rendered template.
const (
	markTask = "@@schedtool-task-9d41@@"
	markFile = "@@schedtool-file-9d41@@"
	markLine = 1987654321
	markCol  = 1876543219
)

// anchorStart is where an anchor's value starts in a row, -1 if absent.
func anchorStart(at *tree.RowOffsets, a int) int {
	switch a {
	case anchorSpec:
		return at.Spec
	case anchorFlag:
		return at.Flag
	case anchorModel:
		return at.Model
	case anchorImage:
		return at.Image
	case anchorConfig:
		return at.Config
	}
	if i := 2 * (a - anchorKeys); i < len(at.Keys) {
		return at.Keys[i]
	}
	return -1
}

// runesBefore counts the characters of a row before an offset.
func runesBefore(row []byte, at *tree.RowOffsets, off int) int {
	if off <= at.ASCII {
		return off
	}
	return utf8.RuneCount(row[:off])
}

// fill makes a row's findings from a template.
func (t *template) fill(name, file string, line int, row []byte, at *tree.RowOffsets) []finding.Finding {
	if len(t.findings) == 0 {
		return nil
	}
	out := make([]finding.Finding, len(t.findings))
	for i := range t.findings {
		tf := &t.findings[i]
		start := anchorStart(at, tf.anchor)
		out[i] = finding.Finding{Rule: tf.rule, Severity: tf.sev, Task: name, Message: strings.Join(tf.parts, name),
			Pos: finding.Position{File: file, Line: line, Column: runesBefore(row, at, start) + tf.runes + 1, Pointer: tf.pointer}}
	}
	finding.Sort(out)
	return out
}

// columns are the columns of a row's findings, and the order they are
// written in; ok is false when two would tie on column and rule (their
// messages then decide, the slow way).
func (t *template) columns(row []byte, at *tree.RowOffsets, cols, order []int) ([]int, []int, bool) {
	for i := range t.findings {
		tf := &t.findings[i]
		cols = append(cols, runesBefore(row, at, anchorStart(at, tf.anchor))+tf.runes+1)
		order = append(order, i)
	}
	for i := 1; i < len(order); i++ { // insertion sort: a row has few findings
		for j := i; j > 0; j-- {
			a, b := &t.findings[order[j-1]], &t.findings[order[j]]
			ca, cb := cols[order[j-1]], cols[order[j]]
			if ca == cb && a.rule == b.rule {
				return cols, order, false
			}
			if ca < cb || (ca == cb && a.rule < b.rule) {
				break
			}
			order[j-1], order[j] = order[j], order[j-1]
		}
	}
	return cols, order, true
}

// render renders a row's findings into o, with where each ends and its
// severity; ok is false when the row must be filled in and rendered the
// plain way.
func (t *template) render(o *rowOut, r Renderer, name string, escFile []byte, line int, row []byte, at *tree.RowOffsets) bool {
	var colBuf, orderBuf [4]int
	cols, order, ok := t.columns(row, at, colBuf[:0], orderBuf[:0])
	if !ok {
		return false
	}
	var escName []byte
	size := 0
	for _, i := range order {
		tf := &t.findings[i]
		size += tf.size + tf.slots[0]*len(escFile) + 20*(tf.slots[2]+tf.slots[3])
		if tf.slots[1] > 0 && escName == nil {
			escName = r.Escape(nil, name)
		}
		size += tf.slots[1] * len(escName)
	}
	dst := make([]byte, 0, size)
	o.marks = make([]mark, 0, len(order))
	for _, i := range order {
		tf := &t.findings[i]
		for _, p := range tf.pre {
			dst = append(dst, p.text...)
			switch p.slot {
			case 't':
				dst = append(dst, escName...)
			case 'f':
				dst = append(dst, escFile...)
			case 'l':
				dst = strconv.AppendInt(dst, int64(line), 10)
			case 'c':
				dst = strconv.AppendInt(dst, int64(cols[i]), 10)
			}
		}
		o.marks = append(o.marks, mark{end: len(dst), sev: tf.sev})
	}
	o.rendered = dst
	return true
}

// prerender renders each finding of a template once, with stand-ins for
// the row's values, and cuts the text at them. It reports false when a
// stand-in is not found exactly where the row's value goes.
func (t *template) prerender(r Renderer) bool {
	escTask := r.Escape(nil, markTask)
	escFile := r.Escape(nil, markFile)
	line := strconv.AppendInt(nil, markLine, 10)
	col := strconv.AppendInt(nil, markCol, 10)
	marks := []struct {
		text []byte
		slot byte
	}{{escTask, 't'}, {escFile, 'f'}, {line, 'l'}, {col, 'c'}}
	for i := range t.findings {
		tf := &t.findings[i]
		f := finding.Finding{Rule: tf.rule, Severity: tf.sev, Task: markTask, Message: strings.Join(tf.parts, markTask),
			Pos: finding.Position{File: markFile, Line: markLine, Column: markCol, Pointer: tf.pointer}}
		b := r.Render(nil, &f)
		tf.pre, tf.size, tf.slots = nil, 0, [4]int{}
		for len(b) > 0 {
			at, which := len(b), -1
			for k, m := range marks {
				if j := bytes.Index(b, m.text); j >= 0 && j < at {
					at, which = j, k
				}
			}
			if which < 0 {
				tf.pre = append(tf.pre, piece{text: b})
				tf.size += len(b)
				break
			}
			tf.pre = append(tf.pre, piece{text: b[:at], slot: marks[which].slot})
			tf.size += at
			tf.slots[strings.IndexByte("ftlc", marks[which].slot)]++
			b = b[at+len(marks[which].text):]
		}
	}
	return true
}

// makeTemplate turns the findings of a row read the slow way into its
// shape's template. want are the row's findings, sorted; the template
// is bad unless filling it in for this row gives exactly them.
func (c *Checker) makeTemplate(m *catalog.Materialization, shape *tree.RowShape, file string, line int, row []byte, want []finding.Finding, r Renderer, escFile []byte) *template {
	bad := &template{bad: true}
	name := m.Name
	m.Name = taskMark
	fs := c.Check(m)
	m.Name = name
	at := &shape.At
	// The values whose bytes are in the shape's key: a finding inside one
	// sits at the same distance from its start in every row of the shape.
	type span struct{ anchor, start, end int }
	var spans []span
	if at.Flag >= 0 {
		spans = append(spans, span{anchorFlag, at.Flag, -1})
	}
	if at.Model >= 0 {
		spans = append(spans, span{anchorModel, at.Model, at.Model + len(shape.Model)})
	}
	if at.Image >= 0 {
		spans = append(spans, span{anchorImage, at.Image, at.Image + len(shape.Image) + 2})
	}
	for i := 0; i+1 < len(at.Keys); i += 2 {
		spans = append(spans, span{anchorKeys + i/2, at.Keys[i], at.Keys[i+1]})
	}
	t := &template{}
	for _, f := range fs {
		if f.Pos.File != file || f.Pos.Line != line || f.Task != taskMark || f.Pos.Column < 1 {
			return bad
		}
		// The finding's byte offset in the row, from its column.
		off := 0
		for n := 1; n < f.Pos.Column; n++ {
			if off >= len(row) {
				return bad
			}
			_, size := utf8.DecodeRune(row[off:])
			off += size
		}
		anchor := -1
		for _, s := range spans {
			end := s.end
			if end < 0 { // the flag: only its start
				end = s.start + 1
			}
			if off >= s.start && off < end {
				anchor = s.anchor
				break
			}
		}
		if anchor < 0 {
			switch off {
			case at.Config:
				anchor = anchorConfig
			case at.Spec:
				anchor = anchorSpec
			default:
				return bad // somewhere a shape does not fix
			}
		}
		start := anchorStart(at, anchor)
		t.findings = append(t.findings, tplFinding{rule: f.Rule, sev: f.Severity, anchor: anchor,
			runes: utf8.RuneCount(row[start:off]), pointer: strings.Clone(f.Pos.Pointer),
			parts: cloneAll(strings.Split(f.Message, taskMark))})
	}
	got := t.fill(name, file, line, row, at)
	if len(got) != len(want) || (len(got) > 0 && !reflect.DeepEqual(got, want)) {
		return bad
	}
	if r != nil && t.prerender(r) {
		// Kept only when it renders this row exactly as the writer would.
		var o rowOut
		var plain []byte
		for i := range want {
			plain = r.Render(plain, &want[i])
		}
		t.pre = t.render(&o, r, name, escFile, line, row, at) && bytes.Equal(o.rendered, plain)
	}
	return t
}

func cloneAll(ss []string) []string {
	for i, s := range ss {
		ss[i] = strings.Clone(s)
	}
	return ss
}
