// Package sniff tells, from a stream over a document's bytes, whether its
// top level is a mapping with one of some keys: what makes a YAML or JSON
// file a Flow catalog source whatever its name. It reads through one
// buffer and builds no tree, so memory stays bounded whatever the file's
// size, and it runs near the speed of reading the file (docs/speed.md).
// It errs towards yes: a YAML line at column 0 naming a key is taken for
// one (the loader then reads the file, and knows), so is a key spelt
// with escapes (mat\u0065rializations, as Flow's readers decode them),
// explicitly (? key), with a tag or an anchor, or in a merge key's
// mapping (<<: {key: ...}).
package sniff

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"unicode/utf8"
)

// Buffer is the size of the buffer a stream goes through.
const Buffer = 256 << 10

// minBuffer is the smallest buffer: a document start (---) is looked at
// whole.
const minBuffer = 8

// Source reports whether the document r holds has a top level that is a
// mapping with one of keys: a document that starts with { is scanned as
// JSON (or a YAML flow mapping), its keys at depth 1; any other, as a
// YAML block document, its keys at column 0. A list is never one.
func Source(r io.Reader, keys []string) bool { return SourceBuffer(r, keys, Buffer) }

// Mentions reports whether the bytes r holds contain one of keys
// anywhere, or an escape that may spell one (MayEscape): a document that
// does neither cannot have one at its top level. It runs at the speed of
// a substring search.
func Mentions(r io.Reader, keys []string) bool {
	long := 0
	for _, k := range keys {
		long = max(long, len(k))
	}
	buf := make([]byte, Buffer+long)
	kept := 0 // the end of the last read, kept for a key cut by a read
	for {
		n, err := io.ReadFull(r, buf[kept:])
		data := buf[:kept+n]
		// Window by window, so that each key's search finds the bytes
		// in the processor's cache.
		for w := 0; w < len(data); w += mentionWindow {
			win := data[w:min(len(data), w+mentionWindow+long-1)]
			for _, k := range keys {
				if bytes.Contains(win, []byte(k)) {
					return true
				}
			}
		}
		// An escape cut by a read is whole in the next: the last byte
		// is kept (long-1 >= 1 for every key of ours).
		if MayEscape(data) {
			return true
		}
		if err != nil {
			return false // the end (or a read that failed: nothing more)
		}
		kept = copy(buf, data[len(data)-min(len(data), long-1):])
	}
}

// mentionWindow is how many bytes Mentions searches for every key before
// it goes on.
const mentionWindow = 16 << 10

// SourceBuffer is Source through a buffer of size bytes.
func SourceBuffer(r io.Reader, keys []string, size int) bool {
	s := &sniffer{keys: keys, r: r, buf: make([]byte, max(size, minBuffer))}
	first, ok := s.firstByte()
	switch {
	case !ok:
		return false
	case first == '[':
		return false // a list: a dump or data, never a source
	case first == '{':
		return s.jsonKeys()
	}
	return s.yamlKeys()
}

// sniffer streams a file through buf.
type sniffer struct {
	keys []string
	r    io.Reader
	buf  []byte
	data []byte // the unread part of buf
	eof  bool
}

// fill reads more when data is empty; false at the end of the file.
func (s *sniffer) fill() bool {
	for len(s.data) == 0 {
		if s.eof {
			return false
		}
		n, err := s.r.Read(s.buf)
		s.data = s.buf[:n]
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return false
			}
			s.eof = true
		}
	}
	return true
}

// firstByte skips a byte-order mark, whitespace, comments, YAML
// directives (%YAML) and document starts (---), and returns the first
// byte of the content (not consumed).
func (s *sniffer) firstByte() (byte, bool) {
	atLine := true
	for s.fill() {
		c := s.data[0]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			s.data = s.data[1:]
		case c == '\n':
			s.data, atLine = s.data[1:], true
		case c == 0xEF || c == 0xBB || c == 0xBF || c == 0xFE || c == 0xFF: // a byte-order mark (UTF-8; UTF-16 or 32 with its NULs dropped)
			s.data = s.data[1:]
		case atLine && (c == '#' || c == '%'):
			s.skipLine()
		case atLine && c == '-' && s.docStart():
			s.data = s.data[3:]
			atLine = false
		default:
			return c, true
		}
	}
	return 0, false
}

// peek returns the next n bytes unread (fewer at the end of the file),
// reading more behind them as needed; n is at most minBuffer.
func (s *sniffer) peek(n int) []byte {
	for len(s.data) < n && !s.eof {
		m := copy(s.buf, s.data)
		k, err := s.r.Read(s.buf[m:])
		s.data = s.buf[:m+k]
		if err != nil {
			s.eof = true // the end, or a read that failed: no more
		}
	}
	return s.data[:min(n, len(s.data))]
}

// docStart reports whether the unread data begins with a YAML document
// start: --- then a blank or the end.
func (s *sniffer) docStart() bool {
	p := s.peek(4)
	return len(p) >= 3 && string(p[:3]) == "---" && (len(p) == 3 || p[3] == ' ' || p[3] == '\t' || p[3] == '\n' || p[3] == '\r')
}

// skipLine consumes up to and including the next newline.
func (s *sniffer) skipLine() {
	for s.fill() {
		if i := bytes.IndexByte(s.data, '\n'); i >= 0 {
			s.data = s.data[i+1:]
			return
		}
		s.data = nil
	}
}

// isKey reports whether a top-level key is one of the keys looked for,
// or a YAML merge key (<<), whose mapping may hold one: the loader
// applies merge keys, as Flow does.
func (s *sniffer) isKey(k []byte) bool {
	if string(k) == "<<" {
		return true
	}
	for _, u := range s.keys {
		if string(k) == u {
			return true
		}
	}
	return false
}

// maxKey bounds the top-level key kept (longer ones are none of ours),
// as spelt: a key of ours with every letter escaped (\U0000006d) is 10
// bytes a letter.
const maxKey = 256

// MayEscape reports whether b holds a backslash escape that can spell a
// letter of a key, as a JSON or YAML double-quoted string decodes it
// (\u0061, \x61, \U00000061), or a YAML line continuation in one (a
// backslash before a line end): where one is, a key's letters need not
// be in the bytes.
func MayEscape(b []byte) bool {
	for {
		i := bytes.IndexByte(b, '\\')
		if i < 0 || i+1 >= len(b) {
			return false
		}
		switch b[i+1] {
		case 'u', 'x', 'U', '\n', '\r':
			return true
		case '\\':
			i++ // an escaped backslash escapes nothing after it
		}
		b = b[i+1:]
	}
}

// HexEscape decodes the hex escape e starts with (e is what follows a
// backslash): \xXX, \uXXXX or \UXXXXXXXX, as a JSON or YAML double-quoted
// string spells a character. n is how many bytes of e it takes, 0 when e
// starts no such escape (or one that is not a character).
func HexEscape(e []byte) (r rune, n int) {
	w := 0
	if len(e) > 0 {
		switch e[0] {
		case 'x':
			w = 2
		case 'u':
			w = 4
		case 'U':
			w = 8
		}
	}
	if w == 0 || len(e) < 1+w {
		return 0, 0
	}
	v, err := strconv.ParseUint(string(e[1:1+w]), 16, 32)
	if err != nil || !utf8.ValidRune(rune(v)) {
		return 0, 0
	}
	return rune(v), 1 + w
}

// unescape decodes the escapes of a double-quoted key as spelt (JSON's,
// and YAML's \x, \U and line continuations); an escape that cannot be a
// letter of a key becomes a NUL, which none of ours holds.
func unescape(k []byte) []byte {
	if bytes.IndexByte(k, '\\') < 0 {
		return k
	}
	out := make([]byte, 0, len(k))
	for i := 0; i < len(k); i++ {
		if k[i] != '\\' {
			out = append(out, k[i])
			continue
		}
		i++
		if i >= len(k) {
			return append(out, 0)
		}
		switch {
		case k[i] == 'x' || k[i] == 'u' || k[i] == 'U':
			r, n := HexEscape(k[i:])
			if n == 0 {
				return append(out, 0)
			}
			out = utf8.AppendRune(out, r)
			i += n - 1
		case k[i] == '\n' || k[i] == '\r':
			// A line continuation: the line end and the next line's
			// leading blanks go.
			for i+1 < len(k) && blank(k[i+1]) {
				i++
			}
		case k[i] == '"' || k[i] == '\\' || k[i] == '/':
			out = append(out, k[i])
		default:
			out = append(out, 0)
		}
	}
	return out
}

// special are the bytes jsonKeys stops at outside a string.
var special = func() (t [256]bool) {
	for _, c := range []byte("\"'{}[],:") {
		t[c] = true
	}
	return
}()

func blank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// jsonKeys scans a document that starts with { (JSON, or a YAML flow
// mapping): its keys at depth 1, every value skipped, strings (with
// their escapes) stepped over whole. The state lives across reads.
func (s *sniffer) jsonKeys() bool {
	var (
		depth     int
		expectKey bool
		key       []byte
		quote     byte       // the open string's quote, 0 outside one
		escape    bool       // the byte after a backslash in a "string"
		lastSig   byte = '{' // the last byte before this read outside strings and blanks
	)
	collect := func(b []byte) {
		if room := maxKey + 1 - len(key); room > 0 {
			key = append(key, b[:min(room, len(b))]...)
		}
	}
	// prevSig is the last byte before d[i] that is not blank (a quote
	// closing a string reads as one): a YAML single quote starts a
	// string only where a token starts.
	prevSig := func(d []byte, i int) byte {
		for i--; i >= 0; i-- {
			if !blank(d[i]) {
				return d[i]
			}
		}
		return lastSig
	}
	for s.fill() {
		d := s.data
		i := 0
		for i < len(d) {
			if escape {
				escape = false
				if depth == 1 && expectKey {
					collect(d[i : i+1]) // decoded with the key (unescape)
				}
				i++
				continue
			}
			if quote != 0 {
				keep := depth == 1 && expectKey
				start := i
				for i < len(d) && d[i] != quote && (d[i] != '\\' || quote != '"') {
					i++
				}
				if keep {
					collect(d[start:i])
				}
				if i == len(d) {
					break
				}
				if d[i] == '\\' {
					if keep {
						collect(d[i : i+1]) // decoded with the key (unescape)
					}
					escape = true
				} else {
					quote = 0
				}
				i++
				continue
			}
			if depth != 1 || !expectKey {
				for i < len(d) && !special[d[i]] {
					i++
				}
				if i == len(d) {
					break
				}
			}
			c := d[i]
			switch c {
			case '"':
				quote = c
			case '\'':
				// A YAML single-quoted string starts a token; inside a
				// plain scalar (don't) it is a letter.
				switch prevSig(d, i) {
				case '{', '[', ',', ':':
					quote = c
				default:
					if depth == 1 && expectKey {
						collect(d[i : i+1])
					}
				}
			case '{', '[':
				depth++
				expectKey = c == '{' && depth == 1
			case '}', ']':
				depth--
				if depth <= 0 {
					return false // the top level ends: no key of ours
				}
			case ',':
				if depth == 1 {
					expectKey, key = true, key[:0]
				}
			case ':':
				if depth == 1 && expectKey {
					if s.isKey(unescape(bytes.TrimSpace(key))) {
						return true
					}
					expectKey = false
				}
			default:
				if !blank(c) {
					collect(d[i : i+1]) // an unquoted key (a YAML flow mapping)
				}
			}
			i++
		}
		if p := prevSig(d, len(d)); quote == 0 {
			lastSig = p
		} else {
			lastSig = '"'
		}
		s.data = nil
	}
	return false
}

// yamlKeys scans a YAML block document for a key at column 0 among
// userSourceKeys (plain or quoted), a line at a time.
func (s *sniffer) yamlKeys() bool {
	line := make([]byte, 0, maxKey+8)
	full := false // line holds only its start
	atStart := true
	check := func() bool {
		l := line
		if len(l) == 0 || l[0] == ' ' || l[0] == '\t' || l[0] == '#' || l[0] == '-' {
			return false
		}
		// An explicit key (? key, its value on a line of its own: no
		// colon after it), then a tag or an anchor before the key.
		explicit := l[0] == '?' && (len(l) == 1 || blank(l[1]))
		if explicit {
			l = bytes.TrimLeft(l[1:], " \t")
		}
		props := false
		for len(l) > 0 && (l[0] == '!' || l[0] == '&') {
			sp := bytes.IndexAny(l, " \t")
			if sp < 0 {
				return false
			}
			l, props = bytes.TrimLeft(l[sp:], " \t"), true
		}
		if len(l) == 0 {
			return false
		}
		if (explicit || props) && l[0] == '{' {
			return true // a flow mapping under a tag: the loader knows
		}
		q := l[0]
		if q == '"' || q == '\'' {
			end := 1
			for end < len(l) && l[end] != q {
				if q == '"' && l[end] == '\\' {
					end++
				}
				end++
			}
			if end >= len(l) {
				return false
			}
			k := l[1:end]
			if q == '"' {
				k = unescape(k)
			}
			rest := bytes.TrimLeft(l[end+1:], " \t")
			return (explicit || len(rest) > 0 && rest[0] == ':') && s.isKey(k)
		}
		if explicit {
			return s.isKey(bytes.TrimRight(l, " \t\r"))
		}
		colon := bytes.IndexByte(l, ':')
		return colon > 0 && s.isKey(bytes.TrimRight(l[:colon], " \t"))
	}
	for s.fill() {
		d := s.data
		for len(d) > 0 {
			nl := bytes.IndexByte(d, '\n')
			chunk := d
			if nl >= 0 {
				chunk = d[:nl]
			}
			if atStart || !full {
				room := maxKey + 8 - len(line)
				if room > len(chunk) {
					room = len(chunk)
				} else {
					full = true
				}
				line = append(line, chunk[:room]...)
			}
			atStart = false
			if nl < 0 {
				d = nil
				break
			}
			if check() {
				return true
			}
			line, full, atStart = line[:0], false, true
			d = d[nl+1:]
		}
		s.data = nil
	}
	return check()
}
