// A stored-spec row shown by field (SPEC 7 "Dry run is the default"):
// never whole, a block per task, a line per changed JSON pointer.

package migrate

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/estuary/schedtool/catalog/tree"
	"github.com/estuary/schedtool/report"
)

// maxFieldLine bounds a line of the field diff; a longer value is cut
// (its size said), so that no line is a wall of text.
const maxFieldLine = 400

// RowsHeader begins the rows of one dump in a diff. It is no unified
// diff header (no "---"/"+++" or "@@ -" line), so git apply, given a
// diff that also holds catalog files, passes over the rows as text.
func RowsHeader(w io.Writer, dump string) error {
	_, err := fmt.Fprintf(w, "=== %s: stored specs, by field (--out FILE writes the rows)\n", report.Escape(strings.TrimPrefix(dump, "/")))
	return err
}

// RowDiff writes one migrated row by field: a line naming the task, its
// row and last_pub_id, then a line per changed JSON pointer of its spec:
// "+ ptr: value" (added), "- ptr: value" (removed), "~ ptr: old -> new".
// It is computed from the row as read and the row its edits made (every
// edit is inside the spec, [specStart, specEnd) of old), so it shows
// exactly what migrate writes. Values are short YAML flow; what Shown
// refuses is written as Hidden.
func RowDiff(w io.Writer, line int, task, pubID string, old, new []byte, specStart, specEnd int) error {
	if task == "" {
		task = "(no catalog_name)"
	}
	head := fmt.Sprintf("@@ %s (line %d, last_pub_id %s) @@\n", report.Escape(task), line, report.Escape(pubID))
	if specStart < 0 || specEnd > len(old) || specStart > specEnd || specEnd+len(new)-len(old) < specStart || specEnd+len(new)-len(old) > len(new) {
		_, err := io.WriteString(w, head+"! the row's spec could not be found; -o json has the task's report\n")
		return err
	}
	a, errA := tree.ParseJSON("old", old[specStart:specEnd], tree.DefaultLimits)
	b, errB := tree.ParseJSON("new", new[specStart:specEnd+len(new)-len(old)], tree.DefaultLimits)
	if errA != nil || errB != nil {
		_, err := io.WriteString(w, head+"! the row's spec could not be read again; -o json has the task's report\n")
		return err
	}
	var lines []string
	fieldDiff(a.Root, b.Root, nil, &lines)
	var sb strings.Builder
	sb.WriteString(head)
	for _, l := range lines {
		sb.WriteString(l)
		sb.WriteByte('\n')
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// fieldDiff adds a line per difference of a and b, at toks.
func fieldDiff(a, b *tree.Node, toks []string, out *[]string) {
	if same(a, b) {
		return
	}
	ptr := pointer(toks)
	if a.Kind != tree.Object || b.Kind != tree.Object {
		*out = append(*out, fieldLine("~ "+ptr+": ", Flow(a, toks)+" -> "+Flow(b, toks)))
		return
	}
	for _, f := range b.Fields {
		sub := append(toks[:len(toks):len(toks)], f.Key)
		if o := a.Get(f.Key); o != nil {
			fieldDiff(o, f.Value, sub, out)
		} else {
			*out = append(*out, fieldLine("+ "+pointer(sub)+": ", Flow(f.Value, sub)))
		}
	}
	for _, f := range a.Fields {
		if b.Get(f.Key) == nil {
			sub := append(toks[:len(toks):len(toks)], f.Key)
			*out = append(*out, fieldLine("- "+pointer(sub)+": ", Flow(f.Value, sub)))
		}
	}
}

// fieldLine is a line of the field diff, its value cut to the bound.
func fieldLine(head, value string) string {
	head = report.Escape(head)
	value = report.Escape(value)
	if len(head)+len(value) <= maxFieldLine {
		return head + value
	}
	note := fmt.Sprintf(" … (%d bytes)", len(value))
	room := max(maxFieldLine-len(head)-len(note), 0)
	for room > 0 && room < len(value) && value[room]&0xC0 == 0x80 {
		room--
	}
	if room > len(value) {
		room = len(value)
	}
	return head + value[:room] + note
}

// same reports whether two values are equal as JSON (key order aside).
func same(a, b *tree.Node) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case tree.Object:
		if len(a.Fields) != len(b.Fields) {
			return false
		}
		for _, f := range a.Fields {
			o := b.Get(f.Key)
			if o == nil || !same(f.Value, o) {
				return false
			}
		}
		return true
	case tree.Array:
		if len(a.Items) != len(b.Items) {
			return false
		}
		for i := range a.Items {
			if !same(a.Items[i], b.Items[i]) {
				return false
			}
		}
		return true
	}
	return a.Value == b.Value
}

func pointer(toks []string) string {
	if len(toks) == 0 {
		return "/"
	}
	var b strings.Builder
	for _, t := range toks {
		b.WriteString("/" + tree.EscapeToken(t))
	}
	return b.String()
}

// Flow writes a value, at toks from the spec's root, as short YAML
// flow: each scalar as Shown allows, else Hidden.
func Flow(n *tree.Node, toks []string) string {
	var b strings.Builder
	flow(&b, n, toks)
	return b.String()
}

func flow(b *strings.Builder, n *tree.Node, toks []string) {
	switch n.Kind {
	case tree.Object:
		b.WriteByte('{')
		for i, f := range n.Fields {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(flowString(f.Key) + ": ")
			flow(b, f.Value, append(toks[:len(toks):len(toks)], f.Key))
		}
		b.WriteByte('}')
		return
	case tree.Array:
		b.WriteByte('[')
		for i, it := range n.Items {
			if i > 0 {
				b.WriteString(", ")
			}
			flow(b, it, append(toks[:len(toks):len(toks)], strconv.Itoa(i)))
		}
		b.WriteByte(']')
		return
	}
	if !Shown(toks, n.Value) {
		b.WriteString(Hidden)
		return
	}
	switch n.Kind {
	case tree.String:
		b.WriteString(flowString(n.Value))
	case tree.Null:
		b.WriteString("null")
	default:
		b.WriteString(n.Value)
	}
}

// flowString writes a string plain when every YAML reader takes it back
// as that string, else double-quoted. A string beginning with a digit is
// plain only as a duration that does not begin with 0 (2h, 30m): "0s",
// "0700" and "1a2b" are quoted, as YAML 1.1 reads some such as numbers.
func flowString(s string) string {
	if s == "" {
		return `""`
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '/' || c == '_' || c == '-' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
			return strconv.Quote(s)
		}
	}
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "on", "off", "y", "n", "null", ".inf", ".nan":
		return strconv.Quote(s)
	}
	if c := s[0]; c == '-' || c == '.' || c == '0' || (c >= '1' && c <= '9' && !durationLike(s)) {
		return strconv.Quote(s)
	}
	return s
}

// durationLike: Flow's published duration pattern without a leading
// zero (2h, 30m, 90s).
func durationLike(s string) bool {
	n := len(s) - 1
	if n < 1 || !strings.ContainsRune("smhd", rune(s[n])) {
		return false
	}
	for i := 0; i < n; i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
