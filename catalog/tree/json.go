package tree

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// SyntaxError is a document that does not parse, at a position.
type SyntaxError struct {
	File      string
	Line, Col int
	Msg       string
	// Text is the source line at Line (without its line ending), when
	// the error was given the source (WithLine): text output shows it
	// with a caret under Col.
	Text string
}

// WithLine sets the error's Text from the document's source.
func (e *SyntaxError) WithLine(src []byte) *SyntaxError {
	e.Text = LineText(src, e.Line)
	return e
}

// LineText is line n (1-based) of src without its line ending, or ""
// past the end.
func LineText(src []byte, n int) string {
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(src, '\n')
		if j < 0 {
			return ""
		}
		src = src[j+1:]
	}
	if j := bytes.IndexByte(src, '\n'); j >= 0 {
		src = src[:j]
	}
	return string(bytes.TrimSuffix(src, []byte("\r")))
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// Limits bound what a parser accepts.
type Limits struct {
	MaxDepth int // nesting of objects and arrays
	MaxNodes int // nodes in one document (aliases expanded, for YAML)
	// Expanded, when set, is shared by the documents of one run: it
	// counts the values that YAML alias expansion added, and their sum
	// over every document is held to MaxNodes too. (Per document, 31
	// small files could each expand to MaxNodes values, all in memory.)
	Expanded *int
}

// DefaultLimits are generous for catalogs and refuse pathological input.
var DefaultLimits = Limits{MaxDepth: 200, MaxNodes: 1_000_000}

// ParseJSON parses one JSON document (RFC 8259) into a tree whose nodes
// know their byte offsets. Duplicate keys are refused.
//
// String values without escapes share src's memory: src must not be
// changed while the tree (or a string from it) is in use.
func ParseJSON(file string, src []byte, lim Limits) (*Doc, error) {
	return ParseJSONSkipping(file, src, lim, nil, nil)
}

// Skip says whether the value of key, in the object reached from the root
// by path (its keys), need not be built.
type Skip func(path []string, key string) bool

// ParseJSONSkipping is ParseJSON, but the values that skip names are only
// checked, not built: they become Raw nodes (Null ones for a null). A
// document with a syntax error there still fails. With an arena, nodes
// come from it (see Arena for what that implies).
func ParseJSONSkipping(file string, src []byte, lim Limits, skip Skip, arena *Arena) (*Doc, error) {
	return ParseJSONAt(file, src, 0, lim, skip, arena)
}

// ParseJSONAt is ParseJSONSkipping for text that starts at line
// lineBase+1 of its file (a row of a dump): the document's LineBase, and
// the lines its errors give, messages included.
func ParseJSONAt(file string, src []byte, lineBase int, lim Limits, skip Skip, arena *Arena) (*Doc, error) {
	return ParseJSONLines(file, src, lineBase, nil, lim, skip, arena)
}

// ParseJSONLines is ParseJSONAt for text whose line breaks were turned
// into spaces (a multi-line element of flowctl raw get output, as a dump
// row): starts are the offsets in src where its lines start (ascending;
// starts[0] is 0, or minus the columns of its line before src when src
// starts further right), so that positions are the file's. src holds no '\n'.
// With no starts it is ParseJSONAt. The document keeps starts.
func ParseJSONLines(file string, src []byte, lineBase int, starts []int, lim Limits, skip Skip, arena *Arena) (*Doc, error) {
	d := &Doc{File: file, Src: src, Format: JSON, LineBase: lineBase}
	if arena == nil {
		arena = &Arena{}
	}
	p := jsonParser{doc: d, src: src, lim: lim, line: 1, skip: skip, arena: arena,
		fields: arena.openFields[:0], items: arena.openItems[:0]}
	if len(starts) > 0 {
		d.setLines(starts)
		// Line 0 and column 0 on every node: both are computed from its
		// offset when asked (Node.Line, Node.Col), with the lines given.
		p.line, p.lineStart = 0, -1
	}
	defer func() { arena.openFields, arena.openItems = p.fields[:0], p.items[:0] }()
	p.ws()
	root, err := p.value(nil, "", 0)
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.pos < len(src) {
		return nil, p.errf("unexpected %s after the top-level value", p.what())
	}
	d.Root = root
	return d, nil
}

type jsonParser struct {
	doc       *Doc
	src       []byte
	pos       int
	lim       Limits
	nodes     int
	line      int
	lineStart int
	arena     *Arena
	fields    []Field  // fields of the objects being read, innermost last
	skipVals  []string // the values of escaped keys in skipped objects (skipKey)
	items     []*Node  // items of the arrays being read, innermost last
	skip      Skip     // values not to build
	path      []string // keys from the root to the current object (with skip)
	compares  int      // keys compared one by one (for the tests: bounded by smallObject per key)
	high      int      // 1 + the offset of the first non-ASCII byte skipString met, 0 if none
}

// smallObject is the number of keys up to which an object's keys are
// compared one by one for duplicates; a larger object uses a map.
const smallObject = 16

// fieldIndex finds a key among the fields of an object being built (JSON
// or YAML): one by one while it is small, with a map past smallObject
// keys, so that an object of 200,000 keys costs linear time, not
// quadratic.
type fieldIndex struct{ index map[string]int }

// find is the index in fields of key, or -1; compares counts the keys
// compared one by one.
func (x *fieldIndex) find(fields []Field, key string, compares *int) int {
	if x.index != nil {
		if i, ok := x.index[key]; ok {
			return i
		}
		return -1
	}
	for i := range fields {
		*compares++
		if fields[i].Key == key {
			return i
		}
	}
	return -1
}

// added notes the last of fields, just appended.
func (x *fieldIndex) added(fields []Field) {
	if x.index != nil {
		x.index[fields[len(fields)-1].Key] = len(fields) - 1
	} else if len(fields) > smallObject {
		x.index = make(map[string]int, 2*len(fields))
		for i := range fields {
			x.index[fields[i].Key] = i
		}
	}
}

// Valid reports whether b is one JSON document, without building a tree.
func Valid(b []byte, lim Limits) bool {
	p := jsonParser{doc: &Doc{Src: b}, src: b, lim: lim, line: 1}
	p.ws()
	if p.skipValue(0) != nil {
		return false
	}
	p.ws()
	return p.pos == len(b)
}

// dupErr is the error for a duplicate key at p.pos, whose first
// occurrence is at offset first.
func (p *jsonParser) dupErr(key string, first int) error {
	if p.doc == &scanDoc {
		return errScan // no line table for the scanner's shared Doc
	}
	line, _ := p.doc.LineCol(first)
	return p.errf("duplicate key %q (first at line %d)", key, line+p.doc.LineBase)
}

func (p *jsonParser) errf(format string, args ...any) error {
	if p.doc == &scanDoc {
		// ScanRow's errors only mean "the slow path", and its Doc is
		// shared by every goroutine: LineCol would build its line table.
		return errScan
	}
	line, col := p.doc.LineCol(p.pos)
	return &SyntaxError{File: p.doc.File, Line: line + p.doc.LineBase, Col: col, Msg: sprintf(format, args...)}
}

// sprintf is fmt.Sprintf, without its cost for the messages of most
// errors (no verb, or one %s of a string): a dump of garbage lines has
// one per row.
func sprintf(format string, args ...any) string {
	i := strings.IndexByte(format, '%')
	switch {
	case i < 0 && len(args) == 0:
		return format
	case i >= 0 && len(args) == 1 && strings.HasPrefix(format[i:], "%s") && strings.IndexByte(format[i+2:], '%') < 0:
		if s, ok := args[0].(string); ok {
			return format[:i] + s + format[i+2:]
		}
	}
	return fmt.Sprintf(format, args...)
}

func (p *jsonParser) what() string {
	if p.pos >= len(p.src) {
		return "end of input"
	}
	r, _ := utf8.DecodeRune(p.src[p.pos:])
	if r == utf8.RuneError {
		return "invalid UTF-8"
	}
	return strconv.QuoteRune(r)
}

func (p *jsonParser) ws() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case '\n':
			p.line++
			p.lineStart = p.pos + 1
		case ' ', '\t', '\r':
		default:
			return
		}
		p.pos++
	}
}

func (p *jsonParser) node(kind Kind, parent *Node, key string) (*Node, error) {
	p.nodes++
	if p.lim.MaxNodes > 0 && p.nodes > p.lim.MaxNodes {
		return nil, p.errf("document has more than %d values", p.lim.MaxNodes)
	}
	n := p.arena.node()
	// The column is counted when asked for: col < 0 keeps the line's
	// start offset (as -start-1) until then.
	*n = Node{Kind: kind, Doc: p.doc, Parent: parent, Key: key, Offset: p.pos, End: -1, line: int32(p.line), col: int32(-p.lineStart - 1)}
	return n, nil
}

func (p *jsonParser) value(parent *Node, key string, depth int) (*Node, error) {
	if p.pos >= len(p.src) {
		return nil, p.errf("unexpected end of input, expected a value")
	}
	switch c := p.src[p.pos]; {
	case c == '{':
		return p.object(parent, key, depth+1)
	case c == '[':
		return p.array(parent, key, depth+1)
	case c == '"':
		n, err := p.node(String, parent, key)
		if err != nil {
			return nil, err
		}
		if n.Value, err = p.str(); err != nil {
			return nil, err
		}
		n.End = p.pos
		return n, nil
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if len(p.src)-p.pos >= len(lit) && string(p.src[p.pos:p.pos+len(lit)]) == lit {
				kind := Bool
				if lit == "null" {
					kind = Null
				}
				n, err := p.node(kind, parent, key)
				if err != nil {
					return nil, err
				}
				n.Value = lit
				p.pos += len(lit)
				n.End = p.pos
				return n, nil
			}
		}
		return nil, p.errf("invalid literal, expected true, false or null")
	case c == '-' || (c >= '0' && c <= '9'):
		n, err := p.node(Number, parent, key)
		if err != nil {
			return nil, err
		}
		if err := p.number(); err != nil {
			return nil, err
		}
		n.Value = string(p.src[n.Offset:p.pos])
		n.End = p.pos
		return n, nil
	default:
		return nil, p.errf("unexpected %s, expected a value", p.what())
	}
}

func (p *jsonParser) object(parent *Node, key string, depth int) (*Node, error) {
	if p.lim.MaxDepth > 0 && depth > p.lim.MaxDepth {
		return nil, p.errf("nesting deeper than %d levels", p.lim.MaxDepth)
	}
	n, err := p.node(Object, parent, key)
	if err != nil {
		return nil, err
	}
	p.pos++
	p.ws()
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		n.End = p.pos
		return n, nil
	}
	mark := len(p.fields)
	defer func() { p.fields = p.fields[:mark] }()
	var keys fieldIndex
	for {
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return nil, p.errf("unexpected %s, expected a string key", p.what())
		}
		keyOff := p.pos
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		first := keys.find(p.fields[mark:], key, &p.compares)
		if first >= 0 {
			p.pos = keyOff
			return nil, p.dupErr(key, p.fields[mark+first].KeyOffset)
		}
		p.ws()
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return nil, p.errf("unexpected %s, expected ':' after key %q", p.what(), key)
		}
		p.pos++
		p.ws()
		var v *Node
		if p.skip != nil && p.skip(p.path, key) {
			if v, err = p.node(Raw, n, key); err == nil {
				err = p.skipValue(depth)
				v.End = p.pos
				if v.End-v.Offset == 4 && string(p.src[v.Offset:v.End]) == "null" {
					v.Kind, v.Value = Null, "null"
				}
			}
		} else {
			if p.skip != nil {
				p.path = append(p.path, key)
			}
			v, err = p.value(n, key, depth)
			if p.skip != nil {
				p.path = p.path[:len(p.path)-1]
			}
		}
		if err != nil {
			return nil, err
		}
		p.fields = append(p.fields, Field{Key: key, KeyOffset: keyOff, Value: v})
		keys.added(p.fields[mark:])
		p.ws()
		if p.pos >= len(p.src) {
			return nil, p.errf("unexpected end of input, expected ',' or '}'")
		}
		if p.src[p.pos] == ',' {
			p.pos++
			p.ws()
			continue
		}
		if p.src[p.pos] == '}' {
			p.pos++
			n.End = p.pos
			n.Fields = p.arena.keepFields(p.fields[mark:])
			return n, nil
		}
		return nil, p.errf("unexpected %s, expected ',' or '}'", p.what())
	}
}

func (p *jsonParser) array(parent *Node, key string, depth int) (*Node, error) {
	if p.lim.MaxDepth > 0 && depth > p.lim.MaxDepth {
		return nil, p.errf("nesting deeper than %d levels", p.lim.MaxDepth)
	}
	n, err := p.node(Array, parent, key)
	if err != nil {
		return nil, err
	}
	p.pos++
	p.ws()
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		n.End = p.pos
		return n, nil
	}
	mark := len(p.items)
	defer func() { p.items = p.items[:mark] }()
	for {
		v, err := p.value(n, strconv.Itoa(len(p.items)-mark), depth)
		if err != nil {
			return nil, err
		}
		p.items = append(p.items, v)
		p.ws()
		if p.pos >= len(p.src) {
			return nil, p.errf("unexpected end of input, expected ',' or ']'")
		}
		if p.src[p.pos] == ',' {
			p.pos++
			p.ws()
			continue
		}
		if p.src[p.pos] == ']' {
			p.pos++
			n.End = p.pos
			n.Items = append([]*Node(nil), p.items[mark:]...)
			return n, nil
		}
		return nil, p.errf("unexpected %s, expected ',' or ']'", p.what())
	}
}

func (p *jsonParser) number() error {
	s := p.src
	i := p.pos
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		p.pos = i
		return p.errf("invalid number")
	}
	if i < len(s) && s[i] == '.' {
		i++
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == j {
			p.pos = i
			return p.errf("invalid number: digits expected after '.'")
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == j {
			p.pos = i
			return p.errf("invalid number: digits expected in the exponent")
		}
	}
	p.pos = i
	return nil
}

// str reads a string at p.pos (on the opening quote) and returns its value.
func (p *jsonParser) str() (string, error) {
	start := p.pos + 1
	i := start
	s := p.src
	// Fast path: no escapes, ASCII or valid UTF-8.
	ascii := true
	for i < len(s) {
		c := s[i]
		if c == '"' {
			if !ascii && !utf8.Valid(s[start:i]) {
				p.pos = start
				return "", p.errf("invalid UTF-8 in string")
			}
			p.pos = i + 1
			if i == start {
				return "", nil
			}
			if p.arena.reuse { // strings must not share src's memory
				return p.arena.str(s[start:i]), nil
			}
			return unsafe.String(&s[start], i-start), nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
		i++
	}
	buf := append([]byte(nil), s[start:i]...)
	for {
		if i >= len(s) {
			p.pos = i
			return "", p.errf("unexpected end of input in a string")
		}
		c := s[i]
		switch {
		case c == '"':
			if !utf8.Valid(buf) {
				p.pos = start
				return "", p.errf("invalid UTF-8 in string")
			}
			p.pos = i + 1
			return string(buf), nil
		case c < 0x20:
			p.pos = i
			return "", p.errf("control character %U in a string", rune(c))
		case c == '\\':
			if i+1 >= len(s) {
				p.pos = i
				return "", p.errf("unexpected end of input in a string")
			}
			e := s[i+1]
			i += 2
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, ok := hex4(s, i)
				if !ok {
					p.pos = i - 2
					return "", p.errf("invalid \\u escape")
				}
				i += 4
				if utf16.IsSurrogate(r) {
					if r2, ok := hex4(s, i+2); ok && i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
						if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
							r = d
							i += 6
						}
					}
				}
				buf = utf8.AppendRune(buf, r)
			default:
				p.pos = i - 2
				return "", p.errf("invalid escape '\\%c'", e)
			}
		default:
			buf = append(buf, c)
			i++
		}
	}
}

func hex4(s []byte, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(s[i:i+4]), 16, 32)
	return rune(v), err == nil
}

// skippedKey is a key of an object being skipped: its text between the
// quotes, src[start:end], and, when it has an escape, its value's index
// in skipVals (val), or -1.
type skippedKey struct{ start, end, val int }

// text is the key's value.
func (p *jsonParser) text(k *skippedKey) string {
	if k.val >= 0 {
		return p.skipVals[k.val]
	}
	return string(p.src[k.start:k.end])
}

// skipKey adds the key src[start:end] (quotes included) to the keys of
// the object being skipped, failing on a
// duplicate as object does: Flow (serde) refuses one in any part of a
// spec, skipped or not. Keys are compared by their bytes, one by one up
// to smallObject of them and then through a map, and by value when
// either has an escape.
func (p *jsonParser) skipKey(keys []skippedKey, start, end int, index *map[string]int) ([]skippedKey, error) {
	k := skippedKey{start: start + 1, end: end - 1, val: -1}
	raw := p.src[k.start:k.end]
	if bytes.IndexByte(raw, '\\') >= 0 {
		pos := p.pos
		p.pos = start
		v, err := p.str()
		p.pos = pos
		if err != nil {
			return keys, err // not met: skipString has read the key
		}
		k.val = len(p.skipVals)
		p.skipVals = append(p.skipVals, v)
	}
	if *index == nil && len(keys) > smallObject {
		*index = make(map[string]int, 2*len(keys))
		for i := range keys {
			(*index)[p.text(&keys[i])] = i
		}
	}
	first := -1
	if *index != nil {
		if i, ok := (*index)[p.text(&k)]; ok {
			first = i
		} else {
			(*index)[p.text(&k)] = len(keys)
		}
	} else {
		for i := range keys {
			o := &keys[i]
			if o.val < 0 && k.val < 0 {
				if o.end-o.start == len(raw) && bytes.Equal(p.src[o.start:o.end], raw) {
					first = i
					break
				}
			} else if p.text(o) == p.text(&k) {
				first = i
				break
			}
		}
	}
	if first >= 0 {
		p.pos = start
		return keys, p.dupErr(p.text(&k), keys[first].start-1)
	}
	return append(keys, k), nil
}

// skipValue checks the value at p.pos as strictly as value does, without
// building nodes, duplicate keys included.
func (p *jsonParser) skipValue(depth int) error {
	if p.pos >= len(p.src) {
		return p.errf("unexpected end of input, expected a value")
	}
	switch c := p.src[p.pos]; {
	case c == '{' || c == '[':
		return p.skipComposite(depth, c)
	case c == '"':
		return p.skipString()
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if len(p.src)-p.pos >= len(lit) && string(p.src[p.pos:p.pos+len(lit)]) == lit {
				p.pos += len(lit)
				return nil
			}
		}
		return p.errf("invalid literal, expected true, false or null")
	}
	return p.errf("unexpected %s, expected a value", p.what())
}

// skipComposite is skipValue for an object or an array (c, its opening).
// An object's keys are kept in an array on this frame, so that skipping
// does not allocate for an object of up to eight keys; most skipped
// objects have one ({"table": ...}, {"recommended": true}), which has
// nothing to be compared with, so the keys are noted from the second on.
func (p *jsonParser) skipComposite(depth int, c byte) error {
	close := byte('}')
	if c == '[' {
		close = ']'
	}
	if p.lim.MaxDepth > 0 && depth+1 > p.lim.MaxDepth {
		return p.errf("nesting deeper than %d levels", p.lim.MaxDepth)
	}
	p.pos++
	p.ws()
	if p.pos < len(p.src) && p.src[p.pos] == close {
		p.pos++
		return nil
	}
	var buf [8]skippedKey
	keys := buf[:0]
	var index map[string]int
	firstStart, firstEnd := -1, -1
	for {
		if c == '{' {
			if p.pos >= len(p.src) || p.src[p.pos] != '"' {
				return p.errf("unexpected %s, expected a string key", p.what())
			}
			start := p.pos
			if err := p.skipString(); err != nil {
				return err
			}
			if firstStart < 0 {
				firstStart, firstEnd = start, p.pos
			} else {
				if len(keys) == 0 {
					keys, _ = p.skipKey(keys, firstStart, firstEnd, &index) // the first: no duplicate
				}
				var err error
				if keys, err = p.skipKey(keys, start, p.pos, &index); err != nil {
					return err
				}
			}
			p.ws()
			if p.pos >= len(p.src) || p.src[p.pos] != ':' {
				return p.errf("unexpected %s, expected ':'", p.what())
			}
			p.pos++
			p.ws()
		}
		if err := p.skipValue(depth + 1); err != nil {
			return err
		}
		p.ws()
		if p.pos >= len(p.src) {
			return p.errf("unexpected end of input, expected ',' or '%c'", close)
		}
		if p.src[p.pos] == ',' {
			p.pos++
			p.ws()
			continue
		}
		if p.src[p.pos] == close {
			p.pos++
			return nil
		}
		return p.errf("unexpected %s, expected ',' or '%c'", p.what(), close)
	}
}

// plainByte marks the bytes a JSON string holds as they are: printable
// ASCII but the quote and the backslash.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// plainWord reports whether the eight bytes of x are all plainByte: none
// below 0x20, at or above 0x80, a quote or a backslash. (The tests are
// the "has a byte less than n" and "has a zero byte" bit tricks, exact
// as yes-or-no answers.)
func plainWord(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	less := (x - ones*0x20) & ^x
	quote := x ^ (ones * '"')
	slash := x ^ (ones * '\\')
	zero := (quote-ones)&^quote | (slash-ones)&^slash
	return (less|zero|x)&highs == 0
}

// skipString checks the string at p.pos without decoding it.
func (p *jsonParser) skipString() error {
	s := p.src
	i := p.pos + 1
	ascii := true
	for i < len(s) {
		// Runs of plain bytes, eight at a time, then four.
		for i+8 <= len(s) && plainWord(binary.LittleEndian.Uint64(s[i:])) {
			i += 8
		}
		for i+4 <= len(s) && plainByte[s[i]] && plainByte[s[i+1]] && plainByte[s[i+2]] && plainByte[s[i+3]] {
			i += 4
		}
		for i < len(s) && plainByte[s[i]] {
			i++
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		switch {
		case c == '"':
			if !ascii && !utf8.Valid(s[p.pos+1:i]) {
				p.pos++
				return p.errf("invalid UTF-8 in string")
			}
			p.pos = i + 1
			return nil
		case c < 0x20:
			p.pos = i
			return p.errf("control character %U in a string", rune(c))
		case c == '\\':
			if i+1 >= len(s) {
				p.pos = i
				return p.errf("unexpected end of input in a string")
			}
			switch s[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if _, ok := hex4(s, i+2); !ok {
					p.pos = i
					return p.errf("invalid \\u escape")
				}
				i += 6
			default:
				p.pos = i
				return p.errf("invalid escape '\\%c'", s[i+1])
			}
		default:
			if c >= utf8.RuneSelf && ascii {
				ascii = false
				if p.high == 0 {
					p.high = i + 1
				}
			}
			i++
		}
	}
	p.pos = i
	return p.errf("unexpected end of input in a string")
}
