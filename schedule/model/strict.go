package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// StrictJSON reports what serde_json refuses and encoding/json lets
// through: a key repeated in one object, and a \u escape of a UTF-16
// surrogate that is not half of a pair (encoding/json reads it as U+FFFD).
// It checks only these; the syntax is left to the decoder.
func StrictJSON(b []byte) error {
	if err := surrogates(b); err != nil {
		return err
	}
	return duplicateKeys(b)
}

// surrogates scans the strings of b for \u escapes of lone surrogates.
func surrogates(b []byte) error {
	line, col := 1, 1
	in := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '\n':
			line, col = line+1, 0
		case !in && c == '"':
			in = true
		case in && c == '"':
			in = false
		case in && c == '\\' && i+1 < len(b):
			if b[i+1] != 'u' {
				i++
				col++
				break
			}
			r, ok := hexEscape(b, i)
			if !ok {
				break
			}
			switch {
			case r >= 0xDC00 && r <= 0xDFFF:
				return fmt.Errorf("lone trailing surrogate in hex escape \\u%04X at line %d column %d (Flow's JSON reader refuses it)", r, line, col)
			case r >= 0xD800 && r <= 0xDBFF:
				if r2, ok := hexEscape(b, i+6); ok && r2 >= 0xDC00 && r2 <= 0xDFFF {
					i += 11
					col += 11
					break
				}
				return fmt.Errorf("lone leading surrogate in hex escape \\u%04X at line %d column %d (Flow's JSON reader refuses it)", r, line, col)
			}
		}
		col++
	}
	return nil
}

// hexEscape reads the \uXXXX escape at b[i:].
func hexEscape(b []byte, i int) (rune, bool) {
	if i+6 > len(b) || b[i] != '\\' || b[i+1] != 'u' {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b[i+2:i+6]), 16, 32)
	return rune(v), err == nil
}

// duplicateKeys walks the tokens of b for a key repeated in one object.
func duplicateKeys(b []byte) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	type frame struct {
		object bool
		keys   map[string]bool
		key    bool // the next string token is a key
	}
	var stack []*frame
	for {
		t, err := d.Token()
		if err != nil {
			return nil // syntax is the decoder's to report
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.key {
			if k, ok := t.(string); ok {
				if top.keys[k] {
					return fmt.Errorf("duplicate field `%s` (Flow's JSON reader refuses a repeated key)", k)
				}
				top.keys[k] = true
				top.key = false
				continue
			}
		}
		switch t {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, keys: map[string]bool{}, key: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
		// A value ended: the parent object expects a key next.
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].key = true
		}
	}
}

// RustQuote is a string as Rust's Debug writes it ({:?}), which Flow's
// messages use: double quotes, with \", \\, \t, \r, \n, \0 escaped and
// other unprintable characters as \u{hex}.
func RustQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		case '\n':
			b.WriteString(`\n`)
		case 0:
			b.WriteString(`\0`)
		default:
			if unicode.IsGraphic(r) && !unicode.Is(unicode.Mn, r) && !unicode.Is(unicode.Me, r) || r == ' ' {
				b.WriteRune(r)
			} else {
				fmt.Fprintf(&b, `\u{%x}`, r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
