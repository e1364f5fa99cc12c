package tree

import (
	"bytes"
	"errors"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
	yaml4 "go.yaml.in/yaml/v4"
)

// ParseYAML parses one YAML document into a tree. Duplicate keys, several
// documents, non-scalar keys, and alias expansion or nesting past the
// limits are refused with a position.
func ParseYAML(file string, src []byte, lim Limits) (*Doc, error) {
	d, _, err := parseYAML(file, src, lim)
	return d, err
}

func parseYAML(file string, src []byte, lim Limits) (*Doc, *yamlConv, error) {
	d := &Doc{File: file, Src: src, Format: YAML}
	dec := yaml.NewDecoder(bytes.NewReader(neutralDirective(src)))
	var root yaml.Node
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			d.Root = &Node{Kind: Null, Doc: d, Offset: 0, End: -1, line: 1, col: 1}
			return d, nil, nil
		}
		return nil, nil, yamlHint(yamlError(file, src, err), src)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, nil, &SyntaxError{File: file, Line: extra.Line, Col: max(extra.Column, 1), Msg: "several YAML documents in one file; a catalog source or config is a single document"}
	} else if !errors.Is(err, io.EOF) {
		return nil, nil, yamlError(file, src, err)
	}
	c := yamlConv{doc: d, lim: lim}
	n, err := c.conv(&root, nil, "", 0)
	if err != nil {
		return nil, &c, err
	}
	d.Root = n
	return d, &c, nil
}

// neutralDirective turns a leading `%YAML 1.x` directive into a comment of
// the same length (`#YAML 1.x`): Flow's reader accepts `%YAML 1.2`, which
// go-yaml refuses, and every byte offset stays where it was, so the tree
// still points into src (which keeps the directive) and edits keep it.
// Only the lines before the document's content are looked at, where a
// directive may stand; src itself is never changed.
func neutralDirective(src []byte) []byte {
	if !bytes.Contains(src, []byte("%YAML")) {
		return src
	}
	var out []byte
	for i := 0; i < len(src); {
		end := bytes.IndexByte(src[i:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += i
		}
		line := bytes.TrimRight(src[i:end], "\r")
		switch {
		case yaml1.Match(line):
			if out == nil {
				out = bytes.Clone(src)
			}
			out[bytes.IndexByte(src[i:end], '%')+i] = '#'
		case len(bytes.TrimSpace(line)) == 0 || line[0] == '#' || line[0] == '%':
		default:
			if out == nil {
				return src
			}
			return out
		}
		i = end + 1
	}
	if out == nil {
		return src
	}
	return out
}

// yaml1 is a %YAML 1.x directive line (a byte order mark before it).
var yaml1 = regexp.MustCompile(`^(?:\x{feff})?%YAML[ \t]+1\.[0-9]+[ \t]*(?:#.*)?$`)

var yamlLineRe = regexp.MustCompile(`^yaml: (?:line (\d+): )?(.*)$`)

// yamlHint adds what is likely wrong to a bare scanner error: a tab
// where YAML wants spaces.
func yamlHint(err error, src []byte) error {
	se, ok := err.(*SyntaxError)
	if !ok || se.Line < 1 {
		return err
	}
	lines := bytes.Split(src, []byte("\n"))
	if se.Line <= len(lines) && bytes.HasPrefix(bytes.TrimLeft(lines[se.Line-1], " "), []byte("\t")) {
		se.Msg += " (a tab in the indentation: YAML indents with spaces)"
	}
	return se
}

// yamlError positions a scanner or parser error at the offending
// character. v3's message names the line of the enclosing block (its
// context mark) and no column, so the source is read again by v4, whose
// error carries the problem's own mark; v3 stays the parser (its trees
// are what every other step was built and fuzzed on). When v4 finds no
// error, v3's line is kept.
func yamlError(file string, src []byte, err error) error {
	if se := yamlMark(file, src); se != nil {
		return se
	}
	msg := err.Error()
	line := 1
	if m := yamlLineRe.FindStringSubmatch(msg); m != nil {
		if m[1] != "" {
			line, _ = strconv.Atoi(m[1])
		}
		msg = m[2]
	}
	return &SyntaxError{File: file, Line: line, Col: 1, Msg: msg}
}

// yamlMark is the first error v4 finds in src at its mark, the
// construct it was in named when that started elsewhere (an unclosed
// quote is found at the end of the file, and started at the quote).
func yamlMark(file string, src []byte) *SyntaxError {
	dec := yaml4.NewDecoder(bytes.NewReader(src))
	for {
		var n yaml4.Node
		err := dec.Decode(&n)
		if err == nil {
			continue
		}
		var le *yaml4.LoadError
		if !errors.As(err, &le) || le.Mark.Line < 1 {
			return nil
		}
		msg := le.Message
		if cm := le.ContextMark; le.ContextMsg != "" && cm.Line > 0 && (cm.Line != le.Mark.Line || cm.Column != le.Mark.Column) {
			msg += " (" + le.ContextMsg + " started at line " + strconv.Itoa(cm.Line) + " column " + strconv.Itoa(cm.Column) + ")"
		}
		line, col := le.Mark.Line, max(le.Mark.Column, 1)
		if last := bytes.Count(src, []byte("\n")) + 1; line > last {
			// The end of a file without a final newline: just past its
			// last character.
			line, col = last, utf8.RuneCount(src[bytes.LastIndexByte(src, '\n')+1:])+1
		}
		return &SyntaxError{File: file, Line: line, Col: col, Msg: msg}
	}
}

type yamlConv struct {
	doc      *Doc
	lim      Limits
	nodes    int
	compares int // keys compared one by one (for the tests)
	aliases  int // aliases being expanded (nested)
}

func (c *yamlConv) errAt(y *yaml.Node, msg string) error {
	return &SyntaxError{File: c.doc.File, Line: y.Line, Col: max(y.Column, 1), Msg: msg}
}

func (c *yamlConv) conv(y *yaml.Node, parent *Node, key string, depth int) (*Node, error) {
	if y.Kind == yaml.DocumentNode {
		if len(y.Content) == 0 {
			return &Node{Kind: Null, Doc: c.doc, End: -1, line: 1, col: 1}, nil
		}
		return c.conv(y.Content[0], parent, key, depth)
	}
	c.nodes++
	if c.lim.MaxNodes > 0 && c.nodes > c.lim.MaxNodes {
		return nil, c.errAt(y, "YAML aliases expand to more than "+strconv.Itoa(c.lim.MaxNodes)+" values (an alias bomb?)")
	}
	if c.aliases > 0 && c.lim.Expanded != nil {
		*c.lim.Expanded++
		if c.lim.MaxNodes > 0 && *c.lim.Expanded > c.lim.MaxNodes {
			return nil, c.errAt(y, "YAML aliases expand to more than "+strconv.Itoa(c.lim.MaxNodes)+" values over all the files read (an alias bomb spread over files?)")
		}
	}
	if c.lim.MaxDepth > 0 && depth > c.lim.MaxDepth {
		return nil, c.errAt(y, "nesting deeper than "+strconv.Itoa(c.lim.MaxDepth)+" levels")
	}
	if y.Kind == yaml.AliasNode {
		if y.Alias == nil {
			return nil, c.errAt(y, "unknown anchor")
		}
		// The value is the anchored one; it keeps the anchor's position.
		c.aliases++
		defer func() { c.aliases-- }()
		return c.conv(y.Alias, parent, key, depth+1)
	}
	n := &Node{Doc: c.doc, Parent: parent, Key: key, End: -1, line: int32(y.Line), col: int32(max(y.Column, 1))}
	n.Offset = c.doc.OffsetOf(y.Line, y.Column)
	switch y.Style {
	case yaml.DoubleQuotedStyle:
		n.Style = '"'
	case yaml.SingleQuotedStyle:
		n.Style = '\''
	case yaml.LiteralStyle:
		n.Style = '|'
	case yaml.FoldedStyle:
		n.Style = '>'
	case yaml.FlowStyle:
		n.Style = 'f'
	}
	switch y.Kind {
	case yaml.MappingNode:
		n.Kind = Object
		if err := c.mapping(n, y, depth); err != nil {
			return nil, err
		}
	case yaml.SequenceNode:
		n.Kind = Array
		for i, item := range y.Content {
			v, err := c.conv(item, n, strconv.Itoa(i), depth+1)
			if err != nil {
				return nil, err
			}
			n.Items = append(n.Items, v)
		}
	case yaml.ScalarNode:
		c.scalar(n, y)
	default:
		return nil, c.errAt(y, "unsupported YAML node")
	}
	return n, nil
}

func (c *yamlConv) scalar(n *Node, y *yaml.Node) {
	n.Value = y.Value
	switch y.ShortTag() {
	case "!!null":
		n.Kind = Null
	case "!!bool":
		n.Kind = Bool
		var b bool
		if y.Decode(&b) == nil {
			n.Value = strconv.FormatBool(b)
		}
	case "!!int":
		n.Kind = Number
		if v, err := strconv.ParseInt(strings.ReplaceAll(y.Value, "_", ""), 0, 64); err == nil {
			n.Value = strconv.FormatInt(v, 10)
		} else {
			var f float64
			if y.Decode(&f) == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
				n.Value = strconv.FormatFloat(f, 'g', -1, 64)
			} else {
				n.Kind = String
			}
		}
	case "!!float":
		n.Kind = Number
		var f float64
		if y.Decode(&f) == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			n.Value = strconv.FormatFloat(f, 'g', -1, 64)
		} else {
			n.Kind = String // .inf and .nan have no JSON form
		}
	default:
		n.Kind = String
	}
}

func (c *yamlConv) mapping(n *Node, y *yaml.Node, depth int) error {
	// A merge key (<<, quoted or not) is a key like any other here, as
	// serde_yaml reads it: Flow applies merge keys after parsing, and to
	// catalog sources only (MergeKeys).
	ks := keys{n: n}
	for i := 0; i+1 < len(y.Content); i += 2 {
		k, v := y.Content[i], y.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return c.errAt(k, "a mapping key must be a scalar")
		}
		if err := c.addField(&ks, k, v, depth); err != nil {
			return err
		}
	}
	return nil
}

// keys are the fields of a mapping being built, indexed.
type keys struct {
	n   *Node
	idx fieldIndex
}

func (ks *keys) find(c *yamlConv, key string) int {
	return ks.idx.find(ks.n.Fields, key, &c.compares)
}

func (ks *keys) add(f Field) {
	ks.n.Fields = append(ks.n.Fields, f)
	ks.idx.added(ks.n.Fields)
}

func (c *yamlConv) addField(ks *keys, k, v *yaml.Node, depth int) error {
	n := ks.n
	if i := ks.find(c, k.Value); i >= 0 {
		line, _ := c.doc.LineCol(n.Fields[i].KeyOffset)
		return c.errAt(k, "duplicate key \""+k.Value+"\" (first at line "+strconv.Itoa(line)+")")
	}
	keyOff := c.doc.OffsetOf(k.Line, k.Column) // before the value's: offsets are asked in order
	val, err := c.conv(v, n, k.Value, depth+1)
	if err != nil {
		return err
	}
	ks.add(Field{Key: k.Value, KeyOffset: keyOff, Value: val})
	return nil
}
