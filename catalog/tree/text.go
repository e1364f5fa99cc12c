package tree

import (
	"bytes"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// checkText refuses input that is not text: NUL bytes or invalid UTF-8,
// with where the first one is.
func checkText(b []byte) (line, col int, problem string) {
	at := func(i int) (int, int) {
		start := bytes.LastIndexByte(b[:i], '\n') + 1
		return bytes.Count(b[:i], []byte("\n")) + 1, utf8.RuneCount(b[start:i]) + 1
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		line, col = at(i)
		return line, col, fmt.Sprintf("not a text file (a NUL byte at offset %d)", i)
	}
	if !utf8.Valid(b) {
		i := 0
		for i < len(b) {
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			i += size
		}
		line, col = at(i)
		return line, col, fmt.Sprintf("not UTF-8 text (an invalid byte 0x%02x at offset %d)", b[i], i)
	}
	return 0, 0, ""
}

// TextError is a file whose bytes are not text Flow's reader decodes:
// where the first bad byte is, and why.
type TextError struct {
	Line, Col int
	Msg       string
}

func (e *TextError) Error() string { return e.Msg }

// Encodings that DecodeText names (Encoding "" is UTF-8).
const (
	UTF16LE = "UTF-16LE"
	UTF16BE = "UTF-16BE"
)

// DecodeText is how every catalog source and config file is decoded
// before it is parsed (docs/behaviour.md §2), as Flow's reader decodes
// it: Flow parses YAML and JSON alike with serde_yaml, whose libyaml
// reader takes UTF-8 (a UTF-8 byte order mark skipped) or UTF-16 with a
// byte order mark (little or big endian). UTF-16 is returned as UTF-8
// without its byte order mark, with enc naming it: every character
// keeps its line and column, so positions in findings are the file's
// own. A UTF-8 text is returned as it is (its mark kept, so that edits
// keep every byte), enc "".
//
// Anything else is refused with where: invalid UTF-8, a NUL or another
// byte libyaml refuses as a control character, a UTF-16 text cut in a
// character or with an unpaired surrogate, and UTF-32 (a byte order mark
// that libyaml does not know: it reads FF FE 00 00 as UTF-16 holding a
// NUL, and 00 00 FE FF as UTF-8 starting with one, and refuses both).
func DecodeText(b []byte) (text []byte, enc string, err *TextError) {
	switch {
	case bytes.HasPrefix(b, bomUTF32LE) || bytes.HasPrefix(b, bomUTF32BE):
		return nil, "", &TextError{1, 1, "UTF-32 text (a UTF-32 byte order mark): Flow's reader takes UTF-8 or UTF-16, so flowctl refuses this file; convert it to UTF-8 (iconv -f UTF-32 -t UTF-8)"}
	case bytes.HasPrefix(b, bomUTF16LE):
		return decodeUTF16(b[2:], false)
	case bytes.HasPrefix(b, bomUTF16BE):
		return decodeUTF16(b[2:], true)
	}
	if line, col, problem := checkText(b); problem != "" {
		return nil, "", &TextError{line, col, problem}
	}
	return b, "", nil
}

// The byte order marks of UTF-16 and UTF-32 (UTF-32LE's starts with
// UTF-16LE's).
var (
	bomUTF16LE = []byte{0xFF, 0xFE}
	bomUTF16BE = []byte{0xFE, 0xFF}
	bomUTF32LE = []byte{0xFF, 0xFE, 0, 0}
	bomUTF32BE = []byte{0, 0, 0xFE, 0xFF}
)

// HasBOM reports whether b starts with a UTF-16 or UTF-32 byte order
// mark (the marks DecodeText knows).
func HasBOM(b []byte) bool {
	return bytes.HasPrefix(b, bomUTF16LE) || bytes.HasPrefix(b, bomUTF16BE) || bytes.HasPrefix(b, bomUTF32BE)
}

// decodeUTF16 decodes UTF-16 (after its byte order mark) into UTF-8.
func decodeUTF16(b []byte, big bool) ([]byte, string, *TextError) {
	enc := UTF16LE
	if big {
		enc = UTF16BE
	}
	out := make([]byte, 0, len(b)/2+len(b)/8)
	line, col := 1, 1
	bad := func(what string, off int) *TextError {
		return &TextError{line, col, fmt.Sprintf("not %s text (%s at byte offset %d)", enc, what, off+2)}
	}
	unit := func(i int) uint16 {
		if big {
			return uint16(b[i])<<8 | uint16(b[i+1])
		}
		return uint16(b[i+1])<<8 | uint16(b[i])
	}
	for i := 0; i < len(b); {
		if i+1 >= len(b) {
			return nil, "", bad("an odd byte at the end: a character cut in half", i)
		}
		u := unit(i)
		r := rune(u)
		size := 2
		switch {
		case utf16.IsSurrogate(r) && u < 0xDC00:
			if i+3 >= len(b) {
				return nil, "", bad("a high surrogate at the end, without its low half", i)
			}
			lo := unit(i + 2)
			if lo < 0xDC00 || lo > 0xDFFF {
				return nil, "", bad(fmt.Sprintf("a high surrogate 0x%04X not followed by a low one", u), i)
			}
			r, size = utf16.DecodeRune(r, rune(lo)), 4
		case utf16.IsSurrogate(r):
			return nil, "", bad(fmt.Sprintf("a low surrogate 0x%04X without its high half", u), i)
		case r == 0:
			return nil, "", bad("a NUL character", i)
		}
		out = utf8.AppendRune(out, r)
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		i += size
	}
	return out, enc, nil
}
