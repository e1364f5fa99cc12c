package tree

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// ParseJSON parses one JSON document (RFC 8259) into a tree whose nodes
// know their byte offsets. Duplicate keys are refused. It is ParseJSONWith
// with only limits.
//
// String values without escapes share src's memory: src must not be
// changed while the tree (or a string from it) is in use.
func ParseJSON(file string, src []byte, lim Limits) (*Doc, error) {
	return ParseJSONWith(file, src, JSONOptions{Limits: lim})
}

// Skip says whether the value of key, in the object reached from the root
// by path (its keys), need not be built.
type Skip func(path []string, key string) bool

// JSONOptions say how ParseJSONWith reads a document; the zero value reads
// a whole file with no limits.
type JSONOptions struct {
	Limits Limits
	// Skip names the values that are only checked, not built: they
	// become Raw nodes (Null ones for a null). A document with a syntax
	// error there still fails.
	Skip Skip
	// Arena, when set, is where nodes come from (see Arena for what that
	// implies).
	Arena *Arena
	// LineBase is for text that starts at line LineBase+1 of its file (a
	// row of a dump): the document's LineBase, and the lines its errors
	// give, messages included.
	LineBase int
	// LineStarts is for text whose line breaks were turned into spaces (a
	// multi-line element of flowctl raw get output, as a dump row): the
	// offsets in src where its lines start (ascending; LineStarts[0] is
	// 0, or minus the columns of its line before src when src starts
	// further right), so that positions are the file's; src then holds
	// no '\n'. The document keeps them.
	LineStarts []int
}

// ParseJSONWith is ParseJSON with options.
func ParseJSONWith(file string, src []byte, o JSONOptions) (*Doc, error) {
	d := &Doc{File: file, Src: src, Format: JSON, LineBase: o.LineBase}
	arena := o.Arena
	if arena == nil {
		arena = &Arena{}
	}
	p := jsonParser{doc: d, src: src, lim: o.Limits, line: 1, skip: o.Skip, arena: arena,
		fields: arena.openFields[:0], items: arena.openItems[:0]}
	if len(o.LineStarts) > 0 {
		d.setLines(o.LineStarts)
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
