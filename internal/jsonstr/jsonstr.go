// Package jsonstr quotes strings as JSON, the one way every writer and the
// editor do it. Standard library only.
package jsonstr

import "unicode/utf8"

// Append appends s as a JSON string: quotes, backslashes and control
// characters escaped, invalid UTF-8 replaced, no HTML escaping.
func Append(b []byte, s string) []byte {
	b = append(b, '"')
	b = AppendContent(b, s)
	return append(b, '"')
}

// AppendContent appends s escaped as Append does, without the quotes.
// It escapes rune by rune, so the content of a+b is that of a then b.
func AppendContent(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	run := 0 // start of the bytes not yet appended, all plain
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if plain[c] {
				i++
				continue
			}
			b = append(b, s[run:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default: // other controls and DEL
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			run = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[run:i]...)
			b = append(b, `\ufffd`...)
			i++
			run = i
			continue
		}
		i += size
	}
	return append(b, s[run:]...)
}

// Plain reports whether every byte of s is printable ASCII other than a
// quote or a backslash, so that Append writes s as it is between its
// quotes. It takes bytes too, so that a caller holding them need not make
// a string.
func Plain[S ~string | ~[]byte](s S) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || !plain[c] {
			return false
		}
	}
	return true
}

// plain are the ASCII bytes written as they are.
var plain = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return
}()
