// Package edit changes YAML and JSON documents the way a careful person
// would by hand: it computes byte-range edits over the original bytes
// from the parser's positions, so every byte outside the edited nodes
// stays as it was (comments, blank lines, key order, quoting, flow style,
// indentation, CRLF line endings, anchors), then re-parses the result and
// refuses it unless it decodes to exactly the intended tree.
package edit

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
	"strconv"

	"github.com/estuary/schedtool/catalog/tree"
	"github.com/estuary/schedtool/finding"
)

// Map is an ordered object merged into an object of the document: keys
// that are objects on both sides are merged, the rest are set.
type Map []KV

// KV is one key of a Map. Before names a sibling key that a newly
// inserted key goes in front of (when present), instead of the end.
type KV struct {
	Key    string
	Value  any // string, Quoted, nil, bool, json.Number, Map, []any, Replace, Remove
	Before string
}

// Replace sets a value wholesale, even an object over an object.
type Replace struct{ Value any }

// Quoted is a string that YAML output always quotes ("0s", "09:00").
type Quoted string

type remove struct{}

// Remove deletes a key.
var Remove = remove{}

// Patch is a change to one object node of a document.
type Patch struct {
	Target  *tree.Node
	Changes Map
}

// Error is an edit that cannot be made safely.
type Error struct {
	File string
	Msg  string
}

func (e *Error) Error() string { return e.File + ": " + e.Msg }

// Result is a document edited.
type Result struct {
	Edits []finding.TextEdit // sorted, non-overlapping
	New   []byte
}

// Parser re-reads an edited document.
type Parser func(file string, src []byte) (*tree.Doc, error)

// Do computes the edits of patches over doc, applies them, re-parses the
// result with parse and checks that it decodes to exactly the intended
// tree. Nothing is changed when there is nothing to change (Edits empty).
func Do(doc *tree.Doc, patches []Patch, parse Parser) (*Result, error) {
	e := &editor{doc: doc, src: doc.Src}
	e.detect()
	for _, p := range patches {
		if p.Target == nil || p.Target.Doc != doc || p.Target.Kind != tree.Object {
			return nil, &Error{doc.File, "internal: a patch target is not an object of this document"}
		}
		if tree.ThroughMerge(p.Target) {
			return nil, mergedError(doc, p.Target)
		}
		if err := e.patch(p.Target, p.Changes, 0); err != nil {
			return nil, err
		}
	}
	edits, err := e.sorted()
	if err != nil {
		return nil, err
	}
	res := &Result{Edits: edits}
	if len(edits) == 0 {
		res.New = doc.Src
		return res, nil
	}
	if doc.Encoding != "" {
		// Written back, the file would be UTF-8 (or a splice of two
		// encodings): a file is never changed into another encoding.
		return nil, &Error{doc.File, "the file is " + doc.Encoding + " text (a byte order mark); schedtool writes UTF-8 only, so it is left unchanged: convert it to UTF-8 (iconv -f " + doc.Encoding + " -t UTF-8) and run again, or edit it by hand"}
	}
	res.New = Apply(doc.Src, edits)
	want := doc.Root.Interface(nil)
	for _, p := range patches {
		want = Intended(want, tree.SplitPointer(p.Target.Pointer()), p.Changes)
	}
	got, err := parse(doc.File, res.New)
	if err == nil && doc.Merges {
		// Read again as it was read: with Flow's merge keys applied.
		err = tree.MergeKeys(got)
	}
	if err != nil {
		return nil, &Error{doc.File, "the edited document does not parse (" + err.Error() + "); left unchanged"}
	}
	if !reflect.DeepEqual(normalize(got.Root.Interface(nil)), normalize(want)) {
		return nil, &Error{doc.File, "the edited document does not decode to the intended tree (an anchor, alias, merge key or unusual layout at the edited place?); left unchanged"}
	}
	return res, nil
}

// Apply applies sorted, non-overlapping edits to src, returning new bytes.
func Apply(src []byte, edits []finding.TextEdit) []byte {
	size := len(src)
	for _, e := range edits {
		size += len(e.NewText) - (e.End - e.Start)
	}
	out := make([]byte, 0, size)
	at := 0
	for _, e := range edits {
		out = append(out, src[at:e.Start]...)
		out = append(out, e.NewText...)
		at = e.End
	}
	return append(out, src[at:]...)
}

// Intended applies changes, at the object reached by path, to a generic
// value (as tree.Node.Interface gives it); it returns the new value.
func Intended(root any, path []string, changes Map) any {
	if len(path) == 0 {
		obj, _ := root.(map[string]any)
		if obj == nil {
			obj = map[string]any{}
		} else {
			obj = copyMap(obj)
		}
		for _, kv := range changes {
			switch v := kv.Value.(type) {
			case remove:
				delete(obj, kv.Key)
			case Map:
				cur, ok := obj[kv.Key].(map[string]any)
				if !ok && !hasInsert(v) {
					continue
				}
				obj[kv.Key] = Intended(cur, nil, v)
			default:
				obj[kv.Key] = Generic(kv.Value)
			}
		}
		return obj
	}
	switch c := root.(type) {
	case map[string]any:
		c = copyMap(c)
		c[path[0]] = Intended(c[path[0]], path[1:], changes)
		return c
	case []any:
		c = append([]any(nil), c...)
		if i, err := strconv.Atoi(path[0]); err == nil && i >= 0 && i < len(c) {
			c[i] = Intended(c[i], path[1:], changes)
		}
		return c
	}
	return root
}

func copyMap(m map[string]any) map[string]any {
	c := make(map[string]any, len(m)+1)
	for k, v := range m {
		c[k] = v
	}
	return c
}

// Generic is a patch value as a generic JSON value.
func Generic(v any) any {
	switch x := v.(type) {
	case Replace:
		return Generic(x.Value)
	case Quoted:
		return string(x)
	case Map:
		m := make(map[string]any, len(x))
		for _, kv := range x {
			if _, ok := kv.Value.(remove); ok {
				continue
			}
			m[kv.Key] = Generic(kv.Value)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = Generic(e)
		}
		return l
	}
	return v
}

// normalize makes numbers comparable across spellings.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalize(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
	case json.Number:
		if f, err := x.Float64(); err == nil {
			return f
		}
	}
	return v
}

// editor collects the edits of one document.
type editor struct {
	doc   *tree.Doc
	src   []byte
	edits []edit

	// Style of the document, detected once.
	eol     string // "\n" or "\r\n"
	unit    string // one level of indentation
	compact bool   // YAML block sequences at their key's column
	keySep  string // JSON ":" or ": " in one-line objects
	itemSep string // JSON "," or ", " in one-line objects
}

type edit struct {
	finding.TextEdit
	depth int // deeper inserts at the same point go first
}

func (e *editor) add(start, end int, text string, depth int) {
	e.edits = append(e.edits, edit{TextEdit: finding.TextEdit{File: e.doc.File, Start: start, End: end, NewText: []byte(text)}, depth: depth})
}

func (e *editor) sorted() ([]finding.TextEdit, error) {
	sort.SliceStable(e.edits, func(i, j int) bool {
		a, b := e.edits[i], e.edits[j]
		if a.Start != b.Start {
			return a.Start < b.Start
		}
		if (a.End == a.Start) != (b.End == b.Start) {
			return a.End == a.Start // an insert before a replacement at the same point
		}
		return a.depth > b.depth // else in the order they were asked (stable)
	})
	out := make([]finding.TextEdit, 0, len(e.edits))
	for i, ed := range e.edits {
		if i > 0 {
			prev := out[len(out)-1]
			if prev.Start == ed.Start && prev.End == ed.End && bytes.Equal(prev.NewText, ed.NewText) {
				continue // the same change asked twice (a shared node, a shared config file)
			}
			if ed.Start < prev.End {
				return nil, &Error{e.doc.File, "two changes overlap in this document; left unchanged"}
			}
		}
		out = append(out, ed.TextEdit)
	}
	return out, nil
}

// patch computes the edits of changes over obj.
func (e *editor) patch(obj *tree.Node, changes Map, depth int) error {
	if removesAll(obj, changes) {
		// Removing every key leaves an empty object, not null.
		return e.replace(obj, Map{}, depth-1)
	}
	var inserts Map
	for _, kv := range changes {
		f := obj.Field(kv.Key)
		if f != nil && f.Merged {
			return mergedError(e.doc, f.Value)
		}
		var err error
		switch v := kv.Value.(type) {
		case remove:
			if f != nil {
				err = e.remove(obj, f, depth)
			}
		case Map:
			switch {
			case f != nil && f.Value.Kind == tree.Object:
				err = e.patch(f.Value, v, depth+1)
			case f != nil:
				err = e.replace(f.Value, v, depth)
			case hasInsert(v):
				inserts = append(inserts, kv)
			}
		default:
			if f != nil {
				err = e.replace(f.Value, kv.Value, depth)
			} else {
				inserts = append(inserts, kv)
			}
		}
		if err != nil {
			return err
		}
	}
	if len(inserts) > 0 {
		return e.insert(obj, inserts, depth)
	}
	return nil
}

// mergedError refuses an edit of a value that a merge key (<<) brought:
// it is written in the merged mapping, which other mappings may merge too.
func mergedError(doc *tree.Doc, n *tree.Node) error {
	return &Error{doc.File, "the value of " + n.Pointer() + " comes from a merge key (<<; written at line " + strconv.Itoa(n.Line()) + "), which other mappings may merge too; left unchanged: edit it by hand, or give the task the value as its own key"}
}

// removesAll reports whether changes remove every key of obj and set none.
func removesAll(obj *tree.Node, changes Map) bool {
	if len(obj.Fields) == 0 || hasInsert(changes) {
		return false
	}
	n := 0
	for _, kv := range changes {
		if _, ok := kv.Value.(remove); ok && obj.Field(kv.Key) != nil {
			n++
		}
	}
	return n == len(obj.Fields)
}

// hasInsert reports whether changes set anything (not only removals).
func hasInsert(changes Map) bool {
	for _, kv := range changes {
		switch v := kv.Value.(type) {
		case remove:
		case Map:
			if hasInsert(v) {
				return true
			}
		default:
			return true
		}
	}
	return false
}

func (e *editor) replace(n *tree.Node, v any, depth int) error {
	if r, ok := v.(Replace); ok {
		v = r.Value
	}
	if e.doc.Format == tree.JSON {
		return e.jsonReplace(n, v, depth)
	}
	return e.yamlReplace(n, v, depth)
}

func (e *editor) insert(obj *tree.Node, kvs Map, depth int) error {
	if e.doc.Format == tree.JSON {
		return e.jsonInsert(obj, kvs, depth)
	}
	return e.yamlInsert(obj, kvs, depth)
}

func (e *editor) remove(obj *tree.Node, f *tree.Field, depth int) error {
	if e.doc.Format == tree.JSON {
		return e.jsonRemove(obj, f, depth)
	}
	return e.yamlRemove(obj, f, depth)
}

// detect reads the document's style: line endings, indentation.
func (e *editor) detect() {
	e.eol = "\n"
	if i := bytes.IndexByte(e.src, '\n'); i > 0 && e.src[i-1] == '\r' {
		e.eol = "\r\n"
	}
	e.unit, e.keySep, e.itemSep = "  ", ": ", ", "
	if e.doc.Format == tree.JSON {
		e.detectJSON()
	} else {
		e.detectYAML()
	}
}

// line helpers over src.

func (e *editor) lineStart(off int) int {
	return bytes.LastIndexByte(e.src[:off], '\n') + 1
}

// lineEnd is the offset of the line's '\n' (or the end of src); a '\r'
// before it is part of the line ending, not the content.
func (e *editor) lineEnd(off int) int {
	if i := bytes.IndexByte(e.src[off:], '\n'); i >= 0 {
		return off + i
	}
	return len(e.src)
}

func (e *editor) nextLine(off int) int {
	end := e.lineEnd(off)
	if end < len(e.src) {
		return end + 1
	}
	return end
}

// indent is the leading whitespace of the line holding off.
func (e *editor) indent(off int) string {
	s := e.lineStart(off)
	i := s
	for i < len(e.src) && (e.src[i] == ' ' || e.src[i] == '\t') {
		i++
	}
	return string(e.src[s:i])
}
