package catalog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"strings"
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
	h := bytes.TrimLeft(bytes.TrimPrefix(head, bom), " \t\r\n")
	if len(h) == 0 || h[0] != '{' {
		return false // not JSON: a YAML source is not read twice
	}
	f, _, err := OpenRegular(path)
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

var bom = []byte("\xef\xbb\xbf")

// skipBOM drops a UTF-8 byte order mark at the start of a dump.
func skipBOM(r io.Reader) io.Reader { return dropBOM(bufio.NewReader(r)) }

// dropBOM discards a UTF-8 byte order mark at the start of br.
func dropBOM(br *bufio.Reader) *bufio.Reader {
	if b, _ := br.Peek(len(bom)); bytes.Equal(b, bom) {
		br.Discard(len(bom))
	}
	return br
}

// looksLikeDump reports whether b begins with a stored-spec row: a line
// holding one JSON object with a catalog_name or spec_type key. The row
// need not be one the dump reader takes (a duplicate key, a bad value),
// nor even complete (a row cut short): that is said of it, as a row, and
// the rows after it are still read.
func looksLikeDump(b []byte) bool {
	b = bytes.TrimPrefix(b, bom)
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
