package edit

import (
	"bytes"
	"strings"

	"github.com/estuary/schedtool/catalog/tree"
)

// detectYAML finds the indentation unit and the sequence style: the first
// block mapping nested in a block mapping gives the unit, the first block
// sequence under a key says whether items sit at the key's column.
func (e *editor) detectYAML() {
	unitFound, seqFound := false, false
	e.doc.Root.Walk(func(n *tree.Node) bool {
		if unitFound && seqFound {
			return false
		}
		p := n.Parent
		if p == nil || p.Kind != tree.Object || p.Style == 'f' || n.Style == 'f' {
			return true
		}
		f := p.Field(n.Key)
		if f == nil || f.KeyOffset >= n.Offset || e.lineStart(f.KeyOffset) == e.lineStart(n.Offset) {
			return true
		}
		kc := f.KeyOffset - e.lineStart(f.KeyOffset)
		switch n.Kind {
		case tree.Object:
			if !unitFound {
				if d := n.Offset - e.lineStart(n.Offset) - kc; d > 0 && d <= 8 {
					e.unit, unitFound = strings.Repeat(" ", d), true
				}
			}
		case tree.Array:
			if !seqFound {
				dash := n.Offset - e.lineStart(n.Offset) // a sequence is positioned at its first dash
				e.compact, seqFound = dash == kc, true
			}
		}
		return true
	})
}

// keyCol is the byte column (0-based) of a field's key.
func (e *editor) keyCol(f *tree.Field) int { return f.KeyOffset - e.lineStart(f.KeyOffset) }

// lineInfo classifies the line starting at off: blank or comment only,
// and its indentation and whether it is a sequence entry ("- ").
func (e *editor) lineInfo(off int) (blank bool, ind int, dash bool) {
	end := e.lineEnd(off)
	i := off
	for i < end && e.src[i] == ' ' {
		i++
	}
	rest := bytes.TrimRight(e.src[i:end], " \t\r")
	if len(rest) == 0 || rest[0] == '#' {
		return true, i - off, false
	}
	dash = rest[0] == '-' && (len(rest) == 1 || rest[1] == ' ' || rest[1] == '\t')
	return false, i - off, dash
}

// region is the end of a block-mapping field: after the last line that
// belongs to its value (lines indented deeper than the key, or sequence
// entries at its column), trailing blank and comment lines excluded. It
// is a line start, or the end of src.
func (e *editor) region(f *tree.Field) int {
	kc := e.keyCol(f)
	seq := f.Value.Kind == tree.Array && f.Value.Style != 'f'
	end := e.nextLine(f.KeyOffset)
	for off := end; off < len(e.src); {
		next := e.nextLine(off)
		blank, ind, dash := e.lineInfo(off)
		switch {
		case blank:
		case ind > kc || (ind == kc && dash && seq):
			end = next
		default:
			return end
		}
		off = next
	}
	return end
}

// inFlow reports whether n is inside a flow collection.
func inFlow(n *tree.Node) bool {
	for p := n; p != nil; p = p.Parent {
		if p.Style == 'f' {
			return true
		}
	}
	return false
}

// skipProps skips an anchor or tag before a value.
func (e *editor) skipProps(off int) int {
	for off < len(e.src) && (e.src[off] == '&' || e.src[off] == '!') {
		for off < len(e.src) && !isSpace(e.src[off]) {
			off++
		}
		for off < len(e.src) && (e.src[off] == ' ' || e.src[off] == '\t') {
			off++
		}
	}
	return off
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// tokenEnd is the end of the flow token (scalar or flow collection) at off,
// or -1 when it cannot be found (a block scalar, unbalanced brackets).
func (e *editor) tokenEnd(off int, flow bool) int {
	src := e.src
	if off >= len(src) {
		return off
	}
	switch src[off] {
	case '"':
		for i := off + 1; i < len(src); i++ {
			switch src[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
		return -1
	case '\'':
		for i := off + 1; i < len(src); i++ {
			if src[i] == '\'' {
				if i+1 < len(src) && src[i+1] == '\'' {
					i++
					continue
				}
				return i + 1
			}
		}
		return -1
	case '{', '[':
		depth := 0
		for i := off; i < len(src); i++ {
			switch c := src[i]; c {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			case '"', '\'':
				j := e.tokenEnd(i, true)
				if j < 0 {
					return -1
				}
				i = j - 1
			case '#':
				if i > 0 && isSpace(src[i-1]) {
					i = e.lineEnd(i) - 1
				}
			}
		}
		return -1
	case '|', '>':
		return -1
	}
	// A plain scalar (or an alias): to the end of the line, a comment, or
	// in flow context a flow indicator.
	i := off
	for i < len(src) && src[i] != '\n' {
		c := src[i]
		if c == '#' && i > off && isSpace(src[i-1]) {
			break
		}
		if flow && (c == ',' || c == ']' || c == '}') {
			break
		}
		if c == ':' && flow && (i+1 >= len(src) || isSpace(src[i+1])) {
			break
		}
		i++
	}
	for i > off && (src[i-1] == ' ' || src[i-1] == '\t' || src[i-1] == '\r') {
		i--
	}
	return i
}

// fieldOf is the field holding n in its parent object.
func fieldOf(n *tree.Node) *tree.Field {
	if n.Parent == nil || n.Parent.Kind != tree.Object {
		return nil
	}
	return n.Parent.Field(n.Key)
}

func (e *editor) yamlReplace(n *tree.Node, v any, depth int) error {
	f := fieldOf(n)
	flow := inFlow(n)
	if f == nil {
		return &Error{e.doc.File, "internal: cannot replace a value that is not a key's"}
	}
	if n.Offset < f.KeyOffset {
		return &Error{e.doc.File, "the value of " + n.Pointer() + " is an alias of an earlier node; left unchanged"}
	}
	keyLine := e.lineStart(f.KeyOffset)
	if !flow && (n.Kind == tree.Object || n.Kind == tree.Array) && n.Style != 'f' && e.lineStart(n.Offset) != keyLine {
		// A block collection: replace its lines from its first one,
		// keeping the key's line and the comments and blank lines
		// between the key and the first child.
		start := e.lineStart(n.Offset)
		end := e.region(f)
		ind := e.indent(n.Offset)
		if n.Kind != tree.Object {
			ind = e.indent(f.KeyOffset) + e.unit
		}
		if m, ok := v.(Map); ok && len(m) > 0 {
			e.add(start, end, e.yamlBlock(m, ind), depth)
			return nil
		}
		// A scalar or empty value goes after the key.
		at := e.afterColon(f)
		if at < 0 {
			return &Error{e.doc.File, "cannot find the ':' after key " + f.Key}
		}
		e.add(at, end, " "+e.yamlFlow(v)+e.eol, depth)
		return nil
	}
	off := e.skipProps(n.Offset)
	if n.Kind == tree.Null && n.Value == "" {
		// An empty value: write after the ':'.
		e.add(n.Offset, n.Offset, " "+e.yamlFlow(v), depth)
		return nil
	}
	end := e.tokenEnd(off, flow)
	if end < 0 {
		return &Error{e.doc.File, "cannot find where the value of " + n.Pointer() + " ends (a block scalar?); left unchanged"}
	}
	if !flow && n.Kind != tree.Object && n.Kind != tree.Array && n.Style == 0 {
		// A plain scalar may continue on the following lines.
		if r := e.region(f); r > e.nextLine(off) {
			end = r
			for end > off && isSpace(e.src[end-1]) {
				end--
			}
		}
	}
	e.add(off, end, e.yamlFlow(v), depth)
	return nil
}

// afterColon is the offset just after the ':' that follows a key.
func (e *editor) afterColon(f *tree.Field) int {
	i := e.tokenEnd(f.KeyOffset, true)
	if i < 0 {
		return -1
	}
	for i < len(e.src) && (e.src[i] == ' ' || e.src[i] == '\t') {
		i++
	}
	if i < len(e.src) && e.src[i] == ':' {
		return i + 1
	}
	return -1
}

func (e *editor) yamlInsert(obj *tree.Node, kvs Map, depth int) error {
	if obj.Style == 'f' || inFlow(obj) {
		return e.yamlFlowInsert(obj, kvs, depth)
	}
	if len(obj.Fields) == 0 {
		return &Error{e.doc.File, "internal: an empty block mapping"}
	}
	first := &obj.Fields[0]
	ind := strings.Repeat(" ", e.keyCol(first))
	for _, f := range obj.Fields {
		if f.KeyOffset < obj.Offset && obj.Parent != nil {
			return &Error{e.doc.File, "the mapping at " + obj.Pointer() + " takes keys from a merge (<<); left unchanged"}
		}
	}
	// Before a named sibling, above its comment lines, when that key
	// starts its line; else after the last key's value.
	var before, rest Map
	for _, kv := range kvs {
		if kv.Before != "" && e.startsLine(obj.Field(kv.Before)) {
			before = append(before, kv)
		} else {
			rest = append(rest, kv)
		}
	}
	for _, kv := range before {
		at := e.lineStart(obj.Field(kv.Before).KeyOffset)
		for at > 0 {
			prev := e.lineStart(at - 1)
			t := bytes.TrimLeft(e.src[prev:at], " ")
			if at-prev-len(t) != len(ind) || len(t) == 0 || t[0] != '#' {
				break
			}
			at = prev
		}
		e.add(at, at, e.yamlBlock(Map{kv}, ind), depth)
	}
	if len(rest) > 0 {
		last := &obj.Fields[len(obj.Fields)-1]
		for i := range obj.Fields {
			if obj.Fields[i].KeyOffset > last.KeyOffset {
				last = &obj.Fields[i]
			}
		}
		at := e.region(last)
		text := e.yamlBlock(rest, ind)
		if at == len(e.src) && at > 0 && e.src[at-1] != '\n' {
			text = e.eol + text
		}
		e.add(at, at, text, depth)
	}
	return nil
}

func (e *editor) startsLine(f *tree.Field) bool {
	if f == nil {
		return false
	}
	s := e.lineStart(f.KeyOffset)
	return len(bytes.TrimLeft(e.src[s:f.KeyOffset], " ")) == 0
}

func (e *editor) yamlFlowInsert(obj *tree.Node, kvs Map, depth int) error {
	if obj.Style != 'f' {
		return &Error{e.doc.File, "internal: a block mapping inside a flow collection"}
	}
	end := e.tokenEnd(e.skipProps(obj.Offset), true)
	if end < 0 || e.src[end-1] != '}' {
		return &Error{e.doc.File, "cannot find the end of the mapping at " + obj.Pointer()}
	}
	var parts []string
	for _, kv := range kvs {
		entry := yamlKey(kv.Key) + ": " + e.yamlFlow(kv.Value)
		if f := obj.Field(kv.Before); kv.Before != "" && f != nil {
			if e.startsLine(f) {
				at := e.lineStart(f.KeyOffset)
				e.add(at, at, e.indent(f.KeyOffset)+entry+","+e.eol, depth)
			} else {
				e.add(f.KeyOffset, f.KeyOffset, entry+", ", depth)
			}
			continue
		}
		parts = append(parts, entry)
	}
	if len(parts) == 0 {
		return nil
	}
	text := strings.Join(parts, ", ")
	at := end - 1
	for at > obj.Offset && isSpace(e.src[at-1]) {
		at--
	}
	if len(obj.Fields) > 0 {
		if e.src[at-1] != ',' {
			text = ", " + text
		} else {
			text = " " + text
		}
	} else if e.src[at-1] == '{' && at < end-1 && e.src[at] == ' ' {
		text = " " + text
		at = end - 1
		for at > obj.Offset && e.src[at-1] == ' ' {
			at--
		}
		e.add(at, end-1, text+" ", depth)
		return nil
	}
	e.add(at, at, text, depth)
	return nil
}

func (e *editor) yamlRemove(obj *tree.Node, f *tree.Field, depth int) error {
	if obj.Style == 'f' || inFlow(obj) {
		i := indexOf(obj, f)
		var start, end int
		switch {
		case i > 0:
			prev := obj.Fields[i-1].Value
			start = e.tokenEnd(e.skipProps(prev.Offset), true)
			end = e.tokenEnd(e.skipProps(f.Value.Offset), true)
		case len(obj.Fields) > 1:
			start, end = f.KeyOffset, obj.Fields[1].KeyOffset
		}
		if start < 0 || end < 0 || end <= start {
			return &Error{e.doc.File, "cannot delete " + f.Value.Pointer()}
		}
		e.add(start, end, "", depth)
		return nil
	}
	if !e.startsLine(f) {
		return &Error{e.doc.File, "key " + f.Key + " does not start its line; left unchanged"}
	}
	e.add(e.lineStart(f.KeyOffset), e.region(f), "", depth)
	return nil
}

func indexOf(obj *tree.Node, f *tree.Field) int {
	for i := range obj.Fields {
		if &obj.Fields[i] == f || obj.Fields[i].Key == f.Key {
			return i
		}
	}
	return -1
}

// yamlBlock renders keys as block mapping lines at indentation ind.
func (e *editor) yamlBlock(m Map, ind string) string {
	var b strings.Builder
	for _, kv := range m {
		if _, ok := kv.Value.(remove); ok {
			continue
		}
		v := kv.Value
		if r, ok := v.(Replace); ok {
			v = r.Value
		}
		b.WriteString(ind + yamlKey(kv.Key) + ":")
		switch x := v.(type) {
		case Map:
			if len(x) == 0 {
				b.WriteString(" {}" + e.eol)
				continue
			}
			b.WriteString(e.eol + e.yamlBlock(x, ind+e.unit))
		case []any:
			if len(x) == 0 || !hasMap(x) {
				b.WriteString(" " + e.yamlFlow(x) + e.eol)
				continue
			}
			b.WriteString(e.eol)
			item := ind + e.unit
			if e.compact {
				item = ind
			}
			for _, it := range x {
				b.WriteString(item + "- " + e.yamlFlow(it) + e.eol)
			}
		default:
			b.WriteString(" " + e.yamlFlow(v) + e.eol)
		}
	}
	return b.String()
}

func hasMap(l []any) bool {
	for _, x := range l {
		if _, ok := x.(Map); ok {
			return true
		}
	}
	return false
}

// yamlFlow renders a value in YAML flow style.
func (e *editor) yamlFlow(v any) string {
	switch x := v.(type) {
	case Replace:
		return e.yamlFlow(x.Value)
	case nil:
		return "null"
	case bool:
		if x {
			return "true"
		}
		return "false"
	case Quoted:
		return quote(string(x))
	case string:
		return yamlScalar(x)
	case Map:
		parts := make([]string, 0, len(x))
		for _, kv := range x {
			if _, ok := kv.Value.(remove); ok {
				continue
			}
			parts = append(parts, yamlKey(kv.Key)+": "+e.yamlFlow(kv.Value))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any:
		parts := make([]string, len(x))
		for i, it := range x {
			parts[i] = e.yamlFlow(it)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return jsonValue(v, "", "", "")
}

func yamlKey(k string) string { return yamlScalar(k) }

// yamlScalar writes a string plain when YAML reads it back as that string
// in any context, else double-quoted.
func yamlScalar(s string) string {
	if s == "" {
		return `""`
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '/' || c == '_' || c == '-' || c == '.' || c == '+' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || (c == ' ' && i > 0 && i < len(s)-1 && s[i-1] != ' ')) {
			return quote(s)
		}
	}
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "on", "off", "y", "n", "null", "~", ".inf", ".nan", "-.inf", "+.inf":
		return quote(s)
	}
	if c := s[0]; c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9' && !isDuration(s)) {
		return quote(s)
	}
	return s
}

// isDuration: digits followed by letters, in groups ("30m", "1h 30m").
func isDuration(s string) bool {
	for _, part := range strings.Split(s, " ") {
		i := 0
		for i < len(part) && part[i] >= '0' && part[i] <= '9' {
			i++
		}
		if i == 0 || i == len(part) {
			return false
		}
		for ; i < len(part); i++ {
			if !(part[i] >= 'a' && part[i] <= 'z') {
				return false
			}
		}
	}
	return true
}
