package catalog

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
)

// The users of a config file are found by reading every file under the
// root (users.go): a file not named as a source is one when its top level
// is a mapping with a catalog key. A root holds much else (fixtures, data,
// generated JSON of hundreds of MB), so a large file is judged by a
// stream over its bytes, in a buffer of sniffBuffer, never read whole nor
// parsed into a tree: memory stays bounded whatever the file sizes, and
// the scan runs near the speed of reading the file (docs/speed.md).

// sniffWhole is the size up to which a file is read whole and parsed, as
// the loader would read it (exact); larger ones are streamed.
const sniffWhole = 1 << 20

// sniffBuffer is the stream's buffer.
const sniffBuffer = 256 << 10

// sniffSource reports whether the file at p, larger than sniffWhole,
// has a top level that is a mapping with one of userSourceKeys. It errs
// towards yes: a YAML line at column 0 naming a key is taken for one
// (a source that is not one is read by the loader, which then knows).
func sniffSource(p string) bool {
	f, _, err := OpenRegular(p)
	if err != nil {
		return false
	}
	defer f.Close()
	return sniff(f, sniffBuffer)
}

// sniff is sniffSource over a reader, with a buffer of size bytes.
func sniff(r io.Reader, size int) bool {
	s := &sniffer{r: r, buf: make([]byte, size)}
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
		case c == 0xEF || c == 0xBB || c == 0xBF: // UTF-8 byte-order mark
			s.data = s.data[1:]
		case atLine && (c == '#' || c == '%'):
			s.skipLine()
		case atLine && c == '-' && s.hasPrefix("---"):
			s.data = s.data[3:]
			atLine = false
		default:
			return c, true
		}
	}
	return 0, false
}

// hasPrefix reports whether the unread data begins with p (within the
// buffer: a prefix split across reads is not seen, which only makes the
// caller take the line as content).
func (s *sniffer) hasPrefix(p string) bool { return bytes.HasPrefix(s.data, []byte(p)) }

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

// isUserKey reports whether a top-level key is one of userSourceKeys.
func isUserKey(k []byte) bool {
	for _, u := range userSourceKeys {
		if string(k) == u {
			return true
		}
	}
	return false
}

// maxKey bounds the top-level key kept (longer ones are none of ours).
const maxKey = 64

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
						// An escape in a key: none of ours as spelt.
						collect([]byte{0})
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
					if isUserKey(bytes.TrimSpace(key)) {
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
		q := l[0]
		if q == '"' || q == '\'' {
			if end := bytes.IndexByte(l[1:], q); end >= 0 {
				k := l[1 : 1+end]
				rest := bytes.TrimLeft(l[2+end:], " \t")
				return len(rest) > 0 && rest[0] == ':' && isUserKey(k)
			}
			return false
		}
		colon := bytes.IndexByte(l, ':')
		return colon > 0 && isUserKey(bytes.TrimRight(l[:colon], " \t"))
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

// fileSize is the size of a regular file, -1 when it cannot be stat'ed.
func fileSize(p string) int64 {
	st, err := os.Stat(p)
	if err != nil || !st.Mode().IsRegular() {
		return -1
	}
	return st.Size()
}

// judgeSources returns those of files that are catalog sources by their
// content (looksLikeSource), cleaned, judged by as many workers as there
// are processors: the scan of a large file is bound by memory bandwidth
// and the processor, and a root holds many.
func judgeSources(files []string, opts Options) []string {
	// Each file is judged alone: the run's shared count of expanded
	// aliases is no one's to write from several goroutines.
	opts.Limits.Expanded = nil
	is := make([]bool, len(files))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(files)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(files) {
					return
				}
				is[i] = looksLikeSource(files[i], opts)
			}
		}()
	}
	wg.Wait()
	var out []string
	for i, p := range files {
		if is[i] {
			out = append(out, filepath.Clean(p))
		}
	}
	return out
}
