// Package tree is the document model shared by the catalog reader, the
// rules and the editor: YAML and JSON documents as one tree of nodes that
// know where they are (line, column, byte offset, JSON pointer).
package tree

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kind is a node's JSON type.
type Kind uint8

const (
	Null Kind = iota
	Bool
	Number
	String
	Object
	Array
	Raw // a value left unparsed (ParseOptions.Skip); its bytes are Src[Offset:End]
)

func (k Kind) String() string {
	return [...]string{"null", "boolean", "number", "string", "object", "array", "value"}[k]
}

// Format is a document's syntax.
type Format uint8

const (
	JSON Format = iota
	YAML
)

// Doc is one parsed document.
type Doc struct {
	File string // the path it was read by ("<stdin>", or a dump's name as given)
	// Shown is how outputs show File (paths.Display: relative to the
	// working directory when the file is under it), set by the loader;
	// "" shows File. Name gives it.
	Shown  string
	Src    []byte
	Format Format
	Root   *Node
	// Encoding names the file's encoding when it is not UTF-8 (UTF-16
	// with a byte order mark): Src is then its text decoded into UTF-8
	// and Orig the file's own bytes. Such a document is read, never
	// edited (package edit refuses it).
	Encoding string
	Orig     []byte
	// Merges says that Flow's merge keys were applied to the tree (a
	// catalog source): a re-read of the document applies them too.
	Merges bool
	// LineBase is added to line numbers (a row of a dump starts at its
	// line in the file).
	LineBase int
	lines    []int // byte offset of each line start, built on demand
	// wide marks the lines holding a non-ASCII byte (a nil slice: none);
	// on the other lines a column is a byte count.
	wide []bool
	// last is the previous OffsetOf answer on a wide line, to go on
	// from: a parser asks in document order, so a long line is walked
	// once, not once per node.
	lastLine, lastCol, lastOff int
	// steps counts the characters OffsetOf walked (for the tests).
	steps int
}

// Name is how outputs show the document's file: Shown, else File.
func (d *Doc) Name() string {
	if d.Shown != "" {
		return d.Shown
	}
	return d.File
}

// Bytes are the file's own bytes: Orig for a decoded file, else Src.
func (d *Doc) Bytes() []byte {
	if d.Orig != nil {
		return d.Orig
	}
	return d.Src
}

// Node is one value. Positions are 1-based; columns count characters.
type Node struct {
	Kind   Kind
	Value  string  // a scalar's value: decoded string, or the number/bool literal
	Fields []Field // Object, in document order
	Items  []*Node // Array

	Doc    *Doc
	Parent *Node
	Key    string // key in the parent object, or index in the parent array

	// Offset and End are the byte range of the value in Doc.Src (End is -1
	// when unknown). Line and Col are set directly for YAML; for JSON, Col
	// is computed from Offset on demand.
	Offset, End int
	line, col   int32

	// Style is a YAML scalar's style (0 plain, '"', '\'', '|', '>') or 'f'
	// for a flow collection.
	Style byte
}

// Field is one key of an object. KeyOffset is the byte offset of the key
// in its document (on the opening quote of a JSON key).
type Field struct {
	Key       string
	KeyOffset int
	Value     *Node
	// Merged marks a key that a merge key (<<) brought (MergeKeys): its
	// value is written elsewhere in the file, so it is read, never edited.
	Merged bool
}

// Get returns the value of key in an object, or nil.
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != Object {
		return nil
	}
	for i := range n.Fields {
		if n.Fields[i].Key == key {
			return n.Fields[i].Value
		}
	}
	return nil
}

// Field returns the field of key in an object, or nil.
func (n *Node) Field(key string) *Field {
	if n == nil || n.Kind != Object {
		return nil
	}
	for i := range n.Fields {
		if n.Fields[i].Key == key {
			return &n.Fields[i]
		}
	}
	return nil
}

// Path follows keys and array indices from n; nil when absent.
func (n *Node) Path(tokens ...string) *Node {
	for _, t := range tokens {
		if n == nil {
			return nil
		}
		switch n.Kind {
		case Object:
			n = n.Get(t)
		case Array:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(n.Items) {
				return nil
			}
			n = n.Items[i]
		default:
			return nil
		}
	}
	return n
}

// Lookup follows a JSON pointer ("/a/b~1c") from n.
func (n *Node) Lookup(ptr string) *Node {
	if ptr == "" {
		return n
	}
	return n.Path(SplitPointer(ptr)...)
}

// Str returns a string node's value; ok is false for other kinds.
func (n *Node) Str() (string, bool) {
	if n == nil || n.Kind != String {
		return "", false
	}
	return n.Value, true
}

// IsNull reports whether n is absent or null.
func (n *Node) IsNull() bool { return n == nil || n.Kind == Null }

// Pointer is the node's JSON pointer from its document's root.
func (n *Node) Pointer() string {
	size := 0
	for x := n; x != nil && x.Parent != nil; x = x.Parent {
		size += 1 + len(EscapeToken(x.Key))
	}
	b := make([]byte, size)
	at := size
	for x := n; x != nil && x.Parent != nil; x = x.Parent {
		tok := EscapeToken(x.Key)
		at -= len(tok)
		copy(b[at:], tok)
		at--
		b[at] = '/'
	}
	return string(b)
}

// Line is the node's 1-based line in its file.
func (n *Node) Line() int {
	if n.line == 0 && n.Doc != nil {
		n.setLineCol()
	}
	return int(n.line) + n.base()
}

func (n *Node) setLineCol() {
	l, c := n.Doc.LineCol(n.Offset)
	n.line, n.col = int32(l), int32(c)
}

// Col is the node's 1-based column, counted in characters.
func (n *Node) Col() int {
	if n.col < 0 {
		start := int(-n.col - 1)
		n.col = int32(utf8.RuneCount(n.Doc.Src[start:n.Offset]) + 1)
	}
	if n.col == 0 && n.Doc != nil {
		n.setLineCol()
	}
	return int(n.col)
}

func (n *Node) base() int {
	if n.Doc == nil {
		return 0
	}
	return n.Doc.LineBase
}

// LineCol turns a byte offset into a 1-based line and character column
// (without LineBase).
func (d *Doc) LineCol(off int) (int, int) {
	if d.lines == nil {
		d.lines = append(d.lines, 0)
		wide := false
		for i, c := range d.Src {
			switch {
			case c == '\n':
				d.markWide(wide)
				wide = false
				d.lines = append(d.lines, i+1)
			case c >= utf8.RuneSelf:
				wide = true
			}
		}
		d.markWide(wide)
	}
	if off > len(d.Src) {
		off = len(d.Src)
	}
	i := sort.Search(len(d.lines), func(i int) bool { return d.lines[i] > off }) - 1
	start, before := d.lines[i], 0
	if start < 0 { // the first line starts before the text (JSONOptions.LineStarts)
		start, before = 0, -start
	}
	return i + 1, before + utf8.RuneCount(d.Src[start:off]) + 1
}

// OffsetOf turns a 1-based line and character column into a byte offset.
func (d *Doc) OffsetOf(line, col int) int {
	d.LineCol(0)
	if line < 1 {
		return 0
	}
	if line > len(d.lines) {
		return len(d.Src)
	}
	off := d.lines[line-1]
	end := len(d.Src)
	if line < len(d.lines) {
		end = d.lines[line] - 1 // the newline
	}
	if d.wide == nil || !d.wide[line-1] {
		return max(min(off+max(col-1, 0), end), 0)
	}
	c := 1
	if off < 0 { // the first line starts before the text (JSONOptions.LineStarts)
		c, off = 1-off, 0
	}
	if d.lastLine == line && d.lastCol <= col {
		c, off = d.lastCol, d.lastOff
	}
	for ; c < col && off < end; c++ {
		d.steps++
		_, size := utf8.DecodeRune(d.Src[off:])
		off += size
	}
	d.lastLine, d.lastCol, d.lastOff = line, c, off
	return off
}

// setLines gives the document its line starts instead of those of its
// newlines (see JSONOptions.LineStarts).
func (d *Doc) setLines(starts []int) {
	d.lines, d.wide = starts, nil
	for i, start := range starts {
		end := len(d.Src)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		for _, c := range d.Src[max(min(start, end), 0):max(end, 0)] {
			if c >= utf8.RuneSelf {
				if d.wide == nil {
					d.wide = make([]bool, len(starts))
				}
				d.wide[i] = true
				break
			}
		}
	}
}

// markWide records whether the line just ended holds a non-ASCII byte.
func (d *Doc) markWide(wide bool) {
	if wide && d.wide == nil {
		d.wide = make([]bool, len(d.lines)-1, len(d.lines))
	}
	if d.wide != nil {
		d.wide = append(d.wide, wide)
	}
}

// EscapeToken escapes a JSON pointer token.
func EscapeToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// SplitPointer splits a JSON pointer into unescaped tokens.
func SplitPointer(ptr string) []string {
	if ptr == "" {
		return nil
	}
	parts := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	for i, p := range parts {
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
	}
	return parts
}

// Interface converts n to a generic JSON value (map[string]any, []any,
// string, json.Number, bool, nil). leaf, if set, may replace a scalar.
func (n *Node) Interface(leaf func(*Node) (any, bool)) any {
	if n == nil {
		return nil
	}
	switch n.Kind {
	case Object:
		m := make(map[string]any, len(n.Fields))
		for _, f := range n.Fields {
			m[f.Key] = f.Value.Interface(leaf)
		}
		return m
	case Array:
		l := make([]any, len(n.Items))
		for i, x := range n.Items {
			l[i] = x.Interface(leaf)
		}
		return l
	}
	if leaf != nil {
		if v, ok := leaf(n); ok {
			return v
		}
	}
	switch n.Kind {
	case Null:
		return nil
	case Bool:
		return n.Value == "true"
	case Number:
		return json.Number(n.Value)
	case Raw:
		return json.RawMessage(n.Doc.Src[n.Offset:n.End])
	}
	return n.Value
}

// Clone copies n's container structure (leaves are shared), keeping the
// positions and parent of every node.
func (n *Node) shallow() *Node {
	c := *n
	c.Fields = append([]Field(nil), n.Fields...)
	c.Items = append([]*Node(nil), n.Items...)
	return &c
}

// MergePatch applies patch over base as RFC 7396 does, without changing
// either: the result's containers are new nodes that keep base's (or
// patch's) positions, and its leaves are the original nodes, so a finding
// about a merged value points at where it was written.
func MergePatch(base, patch *Node) *Node {
	if patch == nil {
		return base
	}
	if patch.Kind != Object {
		return patch
	}
	var out *Node
	if base == nil || base.Kind != Object {
		out = patch.shallow()
		out.Fields = nil
	} else {
		out = base.shallow()
	}
	for _, pf := range patch.Fields {
		idx := -1
		for i := range out.Fields {
			if out.Fields[i].Key == pf.Key {
				idx = i
			}
		}
		if pf.Value.Kind == Null {
			if idx >= 0 {
				out.Fields = append(out.Fields[:idx], out.Fields[idx+1:]...)
			}
			continue
		}
		var cur *Node
		if idx >= 0 {
			cur = out.Fields[idx].Value
		}
		merged := MergePatch(cur, pf.Value)
		if idx >= 0 {
			out.Fields[idx].Value = merged
		} else {
			out.Fields = append(out.Fields, Field{Key: pf.Key, KeyOffset: pf.KeyOffset, Value: merged})
		}
	}
	return out
}

// Without returns a copy of object n without key (n itself when absent).
func (n *Node) Without(key string) *Node {
	if n.Field(key) == nil {
		return n
	}
	c := n.shallow()
	c.Fields = c.Fields[:0]
	for _, f := range n.Fields {
		if f.Key != key {
			c.Fields = append(c.Fields, f)
		}
	}
	return c
}

// Walk calls fn for n and every node below it, depth first, document order.
func (n *Node) Walk(fn func(*Node) bool) {
	if n == nil || !fn(n) {
		return
	}
	for _, f := range n.Fields {
		f.Value.Walk(fn)
	}
	for _, x := range n.Items {
		x.Walk(fn)
	}
}
