package edit

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/estuary/schedtool/catalog/tree"
	"github.com/estuary/schedtool/internal/jsonstr"
)

// detectJSON finds the indentation unit of a pretty-printed document and
// the separators of one-line objects.
func (e *editor) detectJSON() {
	unitFound, sepFound := false, false
	e.doc.Root.Walk(func(n *tree.Node) bool {
		if n.Kind != tree.Object || len(n.Fields) == 0 || (unitFound && sepFound) {
			return !(unitFound && sepFound)
		}
		f := n.Fields[0]
		if !unitFound && e.lineStart(f.KeyOffset) != e.lineStart(n.Offset) {
			outer, inner := e.indent(n.Offset), e.indent(f.KeyOffset)
			if strings.HasPrefix(inner, outer) && len(inner) > len(outer) {
				e.unit, unitFound = inner[len(outer):], true
			}
		}
		if !sepFound && len(n.Fields) > 1 && e.lineStart(f.KeyOffset) == e.lineStart(n.Fields[1].KeyOffset) {
			e.keySep, e.itemSep, sepFound = e.seps(n)
		}
		return true
	})
}

// seps reads the separators of a one-line object with two keys or more.
func (e *editor) seps(n *tree.Node) (keySep, itemSep string, ok bool) {
	f0, f1 := n.Fields[0], n.Fields[1]
	keySep = string(e.src[e.jsonStringEnd(f0.KeyOffset):f0.Value.Offset])
	itemSep = string(e.src[f0.Value.End:f1.KeyOffset])
	if strings.TrimSpace(keySep) != ":" || strings.TrimSpace(itemSep) != "," {
		return ": ", ", ", false
	}
	return keySep, itemSep, true
}

// jsonStringEnd is the offset after the JSON string starting at off.
func (e *editor) jsonStringEnd(off int) int {
	for i := off + 1; i < len(e.src); i++ {
		switch e.src[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(e.src)
}

// multiline reports whether an object's keys are on their own lines.
func (e *editor) multiline(obj *tree.Node) bool {
	if len(obj.Fields) == 0 {
		return false
	}
	return e.lineStart(obj.Fields[0].KeyOffset) != e.lineStart(obj.Offset)
}

func (e *editor) jsonReplace(n *tree.Node, v any, depth int) error {
	if n.End < n.Offset {
		return &Error{e.doc.File, "internal: a JSON node without an end"}
	}
	ind := ""
	if p := n.Parent; p != nil && p.Kind == tree.Object && e.multiline(p) {
		ind = e.indent(n.Offset)
	}
	e.add(n.Offset, n.End, e.jsonRender(v, ind, ind != ""), depth)
	return nil
}

func (e *editor) jsonInsert(obj *tree.Node, kvs Map, depth int) error {
	multi := e.multiline(obj)
	ind, sep := "", e.itemSep
	if multi {
		ind = e.indent(obj.Fields[0].KeyOffset)
		sep = "," + e.eol + ind
	}
	entry := func(kv KV) string { return quote(kv.Key) + e.keySepFor(multi) + e.jsonRender(kv.Value, ind, multi) }
	var rest []string
	for _, kv := range kvs {
		f := obj.Field(kv.Before)
		switch {
		case kv.Before == "" || f == nil:
			rest = append(rest, entry(kv))
		case multi && e.indent(f.KeyOffset) == ind && e.lineStart(f.KeyOffset)+len(ind) == f.KeyOffset:
			// The key starts its line: the new one goes on lines of its own.
			at := e.lineStart(f.KeyOffset)
			e.add(at, at, ind+entry(kv)+","+e.eol, depth)
		default:
			e.add(f.KeyOffset, f.KeyOffset, entry(kv)+sep, depth)
		}
	}
	switch {
	case len(rest) == 0:
	case len(obj.Fields) == 0:
		e.add(obj.Offset+1, obj.End-1, strings.Join(rest, e.itemSep), depth) // {} → {"k": v}
	default:
		last := obj.Fields[len(obj.Fields)-1].Value
		e.add(last.End, last.End, sep+strings.Join(rest, sep), depth)
	}
	return nil
}

func (e *editor) keySepFor(multi bool) string {
	if multi {
		return ": "
	}
	return e.keySep
}

func (e *editor) jsonRemove(obj *tree.Node, f *tree.Field, depth int) error {
	switch i := indexOf(obj, f); {
	case len(obj.Fields) == 1: // keys are inserted in its place
		e.add(obj.Offset+1, obj.End-1, "", depth)
	case i > 0:
		e.add(obj.Fields[i-1].Value.End, f.Value.End, "", depth)
	default:
		e.add(f.KeyOffset, obj.Fields[1].KeyOffset, "", depth)
	}
	return nil
}

// jsonRender writes a value; multi-line objects when pretty, each level
// indented by the document's unit from ind.
func (e *editor) jsonRender(v any, ind string, pretty bool) string {
	if !pretty {
		return jsonValue(v, "", e.keySep, e.itemSep)
	}
	return jsonValue(v, ind+"\x00"+e.unit+"\x00"+e.eol, ": ", ",")
}

// jsonValue renders v. layout is "" for one line, or indent NUL unit NUL
// eol for pretty output.
func jsonValue(v any, layout, keySep, itemSep string) string {
	var b strings.Builder
	var ind, unit, eol string
	if layout != "" {
		p := strings.SplitN(layout, "\x00", 3)
		ind, unit, eol = p[0], p[1], p[2]
	}
	writeJSON(&b, v, layout != "", ind, unit, eol, keySep, itemSep)
	return b.String()
}

func writeJSON(b *strings.Builder, v any, pretty bool, ind, unit, eol, keySep, itemSep string) {
	switch x := v.(type) {
	case Replace:
		writeJSON(b, x.Value, pretty, ind, unit, eol, keySep, itemSep)
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case json.Number:
		b.WriteString(string(x))
	case Quoted:
		b.Write(jsonstr.Append(nil, string(x)))
	case string:
		b.Write(jsonstr.Append(nil, x))
	case Map:
		var kvs Map
		for _, kv := range x {
			if _, ok := kv.Value.(remove); !ok {
				kvs = append(kvs, kv)
			}
		}
		if len(kvs) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{")
		for i, kv := range kvs {
			if i > 0 {
				b.WriteString(itemSep)
			}
			if pretty {
				b.WriteString(eol + ind + unit)
			}
			b.Write(jsonstr.Append(nil, kv.Key))
			b.WriteString(keySep)
			writeJSON(b, kv.Value, pretty, ind+unit, unit, eol, keySep, itemSep)
		}
		if pretty {
			b.WriteString(eol + ind)
		}
		b.WriteString("}")
	case []any:
		sep, ks := itemSep, keySep
		if pretty {
			sep, ks = ", ", ": "
		}
		b.WriteString("[")
		for i, it := range x {
			if i > 0 {
				b.WriteString(sep)
			}
			writeJSON(b, it, false, "", "", "", ks, sep)
		}
		b.WriteString("]")
	default:
		out, _ := json.Marshal(x)
		b.Write(out)
	}
}

// quote writes s as a JSON string, which is also a YAML double-quoted one.
func quote(s string) string { return string(jsonstr.Append(nil, s)) }
