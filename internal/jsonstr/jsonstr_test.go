package jsonstr

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

func TestAppend(t *testing.T) {
	for in, want := range map[string]string{
		"plain":        `"plain"`,
		"a\"b\\c":      `"a\"b\\c"`,
		"l\nr\rt\t":    `"l\nr\rt\t"`,
		"\x1b[31m\x7f": `"\u001b[31m\u007f"`,
		"<&>":          `"<&>"`,
		"é\xff":        `"é\ufffd"`,
	} {
		got := string(Append(nil, in))
		if got != want {
			t.Errorf("Append(%q) = %s, want %s", in, got, want)
		}
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil {
			t.Errorf("%s is not a JSON string: %v", got, err)
		}
	}
}

// appendByRune is Append written rune by rune, the plain way: the fast
// Append must write exactly what it writes.
func appendByRune(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == 0x7f:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

func FuzzAppend(f *testing.F) {
	for _, s := range []string{"", "plain", "a\"b\\c\n\r\t\x00\x1f\x7f", "é\xff名\xe2\x82", "\xed\xa0\x80", "\U0001F600 <&>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Append([]byte("x"), s), appendByRune([]byte("x"), s); !bytes.Equal(got, want) {
			t.Fatalf("Append(%q) = %s, want %s", s, got, want)
		}
	})
}

// Plain is true exactly for the ASCII that Append writes as it is.
func TestPlain(t *testing.T) {
	for _, s := range []string{"", "acmeCo/a-b_c.d:v1", "a\"b", "a\\b", "l\n", "\x7f", "é", "\xff", " ~"} {
		ascii := true
		for i := 0; i < len(s); i++ {
			ascii = ascii && s[i] < utf8.RuneSelf
		}
		want := ascii && string(Append(nil, s)) == `"`+s+`"`
		if Plain(s) != want || Plain([]byte(s)) != want {
			t.Errorf("Plain(%q) = %v, want %v", s, Plain(s), want)
		}
	}
}
