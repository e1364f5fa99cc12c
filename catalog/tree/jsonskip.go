package tree

// The skipping scanner: it checks a JSON value as strictly as the building
// parser (json.go) does, duplicate keys included, without building nodes.

import (
	"bytes"
	"encoding/binary"
	"unicode/utf8"
)

// Valid reports whether b is one JSON document, without building a tree.
func Valid(b []byte, lim Limits) bool {
	p := jsonParser{doc: &Doc{Src: b}, src: b, lim: lim, line: 1}
	p.ws()
	if p.skipValue(0) != nil {
		return false
	}
	p.ws()
	return p.pos == len(b)
}

// skippedKey is a key of an object being skipped: its text between the
// quotes, src[start:end], and, when it has an escape, its value's index
// in skipVals (val), or -1.
type skippedKey struct{ start, end, val int }

// text is the key's value.
func (p *jsonParser) text(k *skippedKey) string {
	if k.val >= 0 {
		return p.skipVals[k.val]
	}
	return string(p.src[k.start:k.end])
}

// skipKey adds the key src[start:end] (quotes included) to the keys of
// the object being skipped, failing on a
// duplicate as object does: Flow (serde) refuses one in any part of a
// spec, skipped or not. Keys are compared by their bytes, one by one up
// to smallObject of them and then through a map, and by value when
// either has an escape.
func (p *jsonParser) skipKey(keys []skippedKey, start, end int, index *map[string]int) ([]skippedKey, error) {
	k := skippedKey{start: start + 1, end: end - 1, val: -1}
	raw := p.src[k.start:k.end]
	if bytes.IndexByte(raw, '\\') >= 0 {
		pos := p.pos
		p.pos = start
		v, err := p.str()
		p.pos = pos
		if err != nil {
			return keys, err // not met: skipString has read the key
		}
		k.val = len(p.skipVals)
		p.skipVals = append(p.skipVals, v)
	}
	if *index == nil && len(keys) > smallObject {
		*index = make(map[string]int, 2*len(keys))
		for i := range keys {
			(*index)[p.text(&keys[i])] = i
		}
	}
	first := -1
	if *index != nil {
		if i, ok := (*index)[p.text(&k)]; ok {
			first = i
		} else {
			(*index)[p.text(&k)] = len(keys)
		}
	} else {
		for i := range keys {
			o := &keys[i]
			if o.val < 0 && k.val < 0 {
				if o.end-o.start == len(raw) && bytes.Equal(p.src[o.start:o.end], raw) {
					first = i
					break
				}
			} else if p.text(o) == p.text(&k) {
				first = i
				break
			}
		}
	}
	if first >= 0 {
		p.pos = start
		return keys, p.dupErr(p.text(&k), keys[first].start-1)
	}
	return append(keys, k), nil
}

// skipValue checks the value at p.pos as strictly as value does, without
// building nodes, duplicate keys included.
func (p *jsonParser) skipValue(depth int) error {
	if p.pos >= len(p.src) {
		return p.errf("unexpected end of input, expected a value")
	}
	switch c := p.src[p.pos]; {
	case c == '{' || c == '[':
		return p.skipComposite(depth, c)
	case c == '"':
		return p.skipString()
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if len(p.src)-p.pos >= len(lit) && string(p.src[p.pos:p.pos+len(lit)]) == lit {
				p.pos += len(lit)
				return nil
			}
		}
		return p.errf("invalid literal, expected true, false or null")
	}
	return p.errf("unexpected %s, expected a value", p.what())
}

// skipComposite is skipValue for an object or an array (c, its opening).
// An object's keys are kept in an array on this frame, so that skipping
// does not allocate for an object of up to eight keys; most skipped
// objects have one ({"table": ...}, {"recommended": true}), which has
// nothing to be compared with, so the keys are noted from the second on.
func (p *jsonParser) skipComposite(depth int, c byte) error {
	close := byte('}')
	if c == '[' {
		close = ']'
	}
	if p.lim.MaxDepth > 0 && depth+1 > p.lim.MaxDepth {
		return p.errf("nesting deeper than %d levels", p.lim.MaxDepth)
	}
	p.pos++
	p.ws()
	if p.pos < len(p.src) && p.src[p.pos] == close {
		p.pos++
		return nil
	}
	var buf [8]skippedKey
	keys := buf[:0]
	var index map[string]int
	firstStart, firstEnd := -1, -1
	for {
		if c == '{' {
			if p.pos >= len(p.src) || p.src[p.pos] != '"' {
				return p.errf("unexpected %s, expected a string key", p.what())
			}
			start := p.pos
			if err := p.skipString(); err != nil {
				return err
			}
			if firstStart < 0 {
				firstStart, firstEnd = start, p.pos
			} else {
				if len(keys) == 0 {
					keys, _ = p.skipKey(keys, firstStart, firstEnd, &index) // the first: no duplicate
				}
				var err error
				if keys, err = p.skipKey(keys, start, p.pos, &index); err != nil {
					return err
				}
			}
			p.ws()
			if p.pos >= len(p.src) || p.src[p.pos] != ':' {
				return p.errf("unexpected %s, expected ':'", p.what())
			}
			p.pos++
			p.ws()
		}
		if err := p.skipValue(depth + 1); err != nil {
			return err
		}
		p.ws()
		if p.pos >= len(p.src) {
			return p.errf("unexpected end of input, expected ',' or '%c'", close)
		}
		if p.src[p.pos] == ',' {
			p.pos++
			p.ws()
			continue
		}
		if p.src[p.pos] == close {
			p.pos++
			return nil
		}
		return p.errf("unexpected %s, expected ',' or '%c'", p.what(), close)
	}
}

// plainByte marks the bytes a JSON string holds as they are: printable
// ASCII but the quote and the backslash.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// plainWord reports whether the eight bytes of x are all plainByte: none
// below 0x20, at or above 0x80, a quote or a backslash. (The tests are
// the "has a byte less than n" and "has a zero byte" bit tricks, exact
// as yes-or-no answers.)
func plainWord(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	less := (x - ones*0x20) & ^x
	quote := x ^ (ones * '"')
	slash := x ^ (ones * '\\')
	zero := (quote-ones)&^quote | (slash-ones)&^slash
	return (less|zero|x)&highs == 0
}

// skipString checks the string at p.pos without decoding it.
func (p *jsonParser) skipString() error {
	s := p.src
	i := p.pos + 1
	ascii := true
	for i < len(s) {
		// Runs of plain bytes, eight at a time, then four.
		for i+8 <= len(s) && plainWord(binary.LittleEndian.Uint64(s[i:])) {
			i += 8
		}
		for i+4 <= len(s) && plainByte[s[i]] && plainByte[s[i+1]] && plainByte[s[i+2]] && plainByte[s[i+3]] {
			i += 4
		}
		for i < len(s) && plainByte[s[i]] {
			i++
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		switch {
		case c == '"':
			if !ascii && !utf8.Valid(s[p.pos+1:i]) {
				p.pos++
				return p.errf("invalid UTF-8 in string")
			}
			p.pos = i + 1
			return nil
		case c < 0x20:
			p.pos = i
			return p.errf("control character %U in a string", rune(c))
		case c == '\\':
			if i+1 >= len(s) {
				p.pos = i
				return p.errf("unexpected end of input in a string")
			}
			switch s[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if _, ok := hex4(s, i+2); !ok {
					p.pos = i
					return p.errf("invalid \\u escape")
				}
				i += 6
			default:
				p.pos = i
				return p.errf("invalid escape '\\%c'", s[i+1])
			}
		default:
			if c >= utf8.RuneSelf && ascii {
				ascii = false
				if p.high == 0 {
					p.high = i + 1
				}
			}
			i++
		}
	}
	p.pos = i
	return p.errf("unexpected end of input in a string")
}
