package input

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/estuary/schedtool/catalog/livespecs"
	"github.com/estuary/schedtool/catalog/tree"
	"github.com/estuary/schedtool/internal/paths"
)

// IsDumpPath reports whether a file name is a stored-spec dump.
func IsDumpPath(p string) bool {
	ext := strings.ToLower(filepath.Ext(p))
	return ext == ".ndjson" || ext == ".jsonl"
}

// firstLineIsRow reports whether a file not named as a dump holds one
// anyway: its first line is a live_specs row (a one-row dump saved as
// .json, a dump under another name). Read as a catalog source, such a
// file is a catalog with no materializations: a false zero.
func firstLineIsRow(path string, head []byte, maxRow int) bool {
	h := bytes.TrimLeft(bytes.TrimPrefix(head, livespecs.Bom), " \t\r\n")
	if len(h) == 0 || h[0] != '{' {
		return false // not JSON: a YAML source is not read twice
	}
	f, _, err := paths.OpenRegular(path)
	if err != nil {
		return false // said when the file is read as a source
	}
	defer f.Close()
	if maxRow <= 0 {
		maxRow = 64 << 20
	}
	line, err := bufio.NewReader(io.LimitReader(f, int64(maxRow)+1)).ReadSlice('\n')
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return false
	}
	if errors.Is(err, bufio.ErrBufferFull) {
		// A first line longer than the buffer: read it whole, up to the
		// row limit.
		f.Seek(0, io.SeekStart)
		b, _ := io.ReadAll(io.LimitReader(f, int64(maxRow)+1))
		line, _, _ = bytes.Cut(b, []byte("\n"))
	}
	return looksLikeDump(line)
}

// looksLikeDump reports whether b begins with a stored-spec row: a line
// holding one JSON object with a catalog_name or spec_type key. The row
// need not be one the dump reader takes (a duplicate key, a bad value),
// nor even complete (a row cut short): that is said of it, as a row, and
// the rows after it are still read.
func looksLikeDump(b []byte) bool {
	b = bytes.TrimPrefix(b, livespecs.Bom)
	line, _, _ := bytes.Cut(bytes.TrimLeft(b, " \t\r\n"), []byte("\n"))
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return false
	}
	// encoding/json takes duplicate keys (the last wins).
	var row map[string]json.RawMessage
	if json.Unmarshal(line, &row) == nil {
		// A row without spec_type is still a row (an unreadable one).
		_, name := row["catalog_name"]
		_, typ := row["spec_type"]
		return name || typ
	}
	// Not JSON: a row if it begins as one does.
	rest := bytes.TrimLeft(line[1:], " \t")
	for _, key := range []string{`"catalog_name"`, `"spec_type"`} {
		if k, ok := bytes.CutPrefix(rest, []byte(key)); ok {
			return bytes.HasPrefix(bytes.TrimLeft(k, " \t"), []byte(":"))
		}
	}
	return false
}

// sourceKeys are the top-level keys of a Flow catalog source (Flow's
// models::Catalog, which also takes a "$schema").
var sourceKeys = []string{"import", "collections", "captures", "materializations", "tests", "storageMappings", "$schema"}

// notInputText ends the message for a PATH that is nothing schedtool
// reads.
const notInputText = "a PATH is a catalog source, a stored-spec dump (one live_specs row a line) or a flowctl raw get array (docs/inputs.md)"

// notASource says what a file named as a PATH (or standard input) looks
// like when it is not a catalog source, once it is neither a dump nor a
// raw array: "" when it is a source, or when it does not parse (the
// loader then says why, at the place). Files found by walking a
// directory are sources by their names or content (walkSources) and
// are not asked.
func notASource(name string, b []byte, lim tree.Limits) string {
	b, _, terr := tree.DecodeText(b)
	if terr != nil {
		return ""
	}
	lim.Expanded = nil
	doc, err := tree.ParseSource(name, b, lim)
	if err != nil {
		return ""
	}
	root := doc.Root
	switch root.Kind {
	case tree.Null:
		if emptyYAML(b) {
			return "" // an empty document: a source with nothing in it
		}
		return "it holds null, not a catalog source"
	case tree.Object:
		return notSourceKeys(root)
	case tree.Array:
		return "it is a YAML list, not a catalog source (a mapping), and not a flowctl raw get array (JSON, which starts with '[')"
	}
	return "it holds " + tree.Article(root.Kind) + ", not a catalog source"
}

// notSourceKeys says what a mapping with none of a source's keys looks
// like; "" when it has one (or none at all: {} is a source with nothing).
func notSourceKeys(root *tree.Node) string {
	if len(root.Fields) == 0 {
		return ""
	}
	var keys []string
	for _, f := range root.Fields {
		for _, k := range sourceKeys {
			if f.Key == k {
				return ""
			}
		}
		keys = append(keys, f.Key)
	}
	if isRowObject(root) {
		return "it is one stored-spec row written over several lines (pretty-printed); a dump holds one row a line (jq -c), flowctl raw get prints an array of rows"
	}
	for _, f := range root.Fields {
		if f.Value.Kind == tree.Array && len(f.Value.Items) > 0 && isRowObject(f.Value.Items[0]) {
			return fmt.Sprintf("it is a mapping whose %q holds stored-spec rows; give the array itself (jq '.%s')", f.Key, f.Key)
		}
	}
	more := ""
	if len(keys) > 5 {
		more = fmt.Sprintf(" and %d more", len(keys)-5)
		keys = keys[:5]
	}
	return fmt.Sprintf("it is a mapping whose keys (%s%s) are none of a catalog source's", strings.Join(keys, ", "), more)
}

// isRowObject reports whether n looks like a live_specs row: an object
// with a catalog_name or spec_type.
func isRowObject(n *tree.Node) bool {
	return n.Kind == tree.Object && (n.Get("catalog_name") != nil || n.Get("spec_type") != nil)
}

// emptyYAML reports whether a YAML text that parsed to null holds no
// value at all: only blank lines, comments, directives and document
// markers, as opposed to a written null (null, ~).
func emptyYAML(b []byte) bool {
	for _, line := range bytes.Split(bytes.TrimPrefix(b, livespecs.Bom), []byte("\n")) {
		t := bytes.TrimSpace(line)
		switch {
		case len(t) == 0, t[0] == '#', t[0] == '%':
		case bytes.HasPrefix(t, []byte("---")) || bytes.HasPrefix(t, []byte("...")):
			rest := bytes.TrimSpace(t[3:])
			if len(rest) > 0 && rest[0] != '#' {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// notRows says what a flowctl raw get array looks like when its first
// element, in head, is not a row object: "" when it is one, when the
// array is empty (the dump reader says it has no rows), or when head
// ends before it.
func notRows(head []byte) string {
	h := bytes.TrimLeft(bytes.TrimPrefix(head, livespecs.Bom), " \t\r\n")
	if len(h) == 0 || h[0] != '[' {
		return ""
	}
	h = bytes.TrimLeft(h[1:], " \t\r\n")
	if len(h) == 0 || h[0] == '{' || h[0] == ']' {
		return ""
	}
	what := "a value"
	switch {
	case h[0] == '[':
		what = "a list"
	case h[0] == '"':
		what = "a string"
	case h[0] == '-' || h[0] >= '0' && h[0] <= '9':
		what = "a number"
	case bytes.HasPrefix(h, []byte("null")):
		what = "null"
	case bytes.HasPrefix(h, []byte("true")) || bytes.HasPrefix(h, []byte("false")):
		what = "a boolean"
	}
	return "it is a JSON array whose first element is " + what + ", not a stored-spec row object"
}
