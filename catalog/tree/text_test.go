package tree

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// encode16 is s in UTF-16 with a byte order mark.
func encode16(s string, big bool) []byte {
	b := []byte{0xFF, 0xFE}
	if big {
		b = []byte{0xFE, 0xFF}
	}
	for _, u := range utf16.Encode([]rune(s)) {
		if big {
			b = append(b, byte(u>>8), byte(u))
		} else {
			b = append(b, byte(u), byte(u>>8))
		}
	}
	return b
}

// DecodeText reads what Flow's libyaml reader reads (UTF-8, UTF-16 with
// a byte order mark) and refuses the rest with where.
func TestDecodeText(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []byte
		text string // "" with err set
		enc  string
		err  string
	}{
		{"UTF-8", []byte("a: é\n"), "a: é\n", "", ""},
		{"UTF-8 with a mark, kept", []byte("\xef\xbb\xbfa: 1\n"), "\xef\xbb\xbfa: 1\n", "", ""},
		{"UTF-16LE", encode16("a: é\nb: 😀\n", false), "a: é\nb: 😀\n", UTF16LE, ""},
		{"UTF-16BE", encode16("a: 1\n", true), "a: 1\n", UTF16BE, ""},
		{"UTF-16, only a mark", []byte{0xFF, 0xFE}, "", UTF16LE, ""},
		{"UTF-16 cut", append(encode16("a: 1\nb", false), 'x'), "", "", "2:2: not UTF-16LE text (an odd byte at the end"},
		{"UTF-16 low surrogate alone", append(encode16("a\n", false), 0x00, 0xDC), "", "", "2:1: not UTF-16LE text (a low surrogate 0xDC00"},
		{"UTF-16 high surrogate at the end", append(encode16("a", true), 0xD8, 0x00), "", "", "1:2: not UTF-16BE text (a high surrogate at the end"},
		{"UTF-16 high surrogate, then no low", append(encode16("a", false), 0x00, 0xD8, 'b', 0), "", "", "not UTF-16LE text (a high surrogate 0xD800 not followed"},
		{"UTF-16 NUL", append(encode16("a", false), 0, 0), "", "", "1:2: not UTF-16LE text (a NUL character"},
		{"UTF-32LE", []byte{0xFF, 0xFE, 0, 0, 'a', 0, 0, 0}, "", "", "1:1: UTF-32 text"},
		{"UTF-32BE", []byte{0, 0, 0xFE, 0xFF, 0, 0, 0, 'a'}, "", "", "1:1: UTF-32 text"},
		{"UTF-16 without a mark", []byte("a\x00:\x00"), "", "", "1:2: not a text file (a NUL byte"},
		{"invalid UTF-8", []byte("a: 1\nb: \xff\n"), "", "", "2:4: not UTF-8 text (an invalid byte 0xff"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, enc, err := DecodeText(tc.in)
			if tc.err != "" {
				if err == nil {
					t.Fatalf("no error, text %q", text)
				}
				if got := strings.Join([]string{strconv.Itoa(err.Line) + ":" + strconv.Itoa(err.Col), err.Msg}, ": "); !strings.Contains(got, tc.err) {
					t.Errorf("error %q, want %q", got, tc.err)
				}
				return
			}
			if err != nil || string(text) != tc.text || enc != tc.enc {
				t.Errorf("got %q %q %v, want %q %q", text, enc, err, tc.text, tc.enc)
			}
		})
	}
}

// A UTF-16 source reads as its UTF-8 copy: the same tree, every node at
// the same line and column.
func TestUTF16SourcePositions(t *testing.T) {
	src := "materializations:\n  acmeCo/é:\n    endpoint: {connector: {image: x, config: {syncSchedule: {syncFrequency: \"2h\"}}}}\n"
	d8, err := ParseSource("f", []byte(src), DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	text, enc, terr := DecodeText(encode16(src, true))
	if terr != nil || enc != UTF16BE {
		t.Fatal(terr, enc)
	}
	d16, err := ParseSource("f", text, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	n8 := d8.Root.Path("materializations", "acmeCo/é", "endpoint", "connector", "config", "syncSchedule", "syncFrequency")
	n16 := d16.Root.Path("materializations", "acmeCo/é", "endpoint", "connector", "config", "syncSchedule", "syncFrequency")
	if n16 == nil || n16.Value != "2h" || n16.Line() != n8.Line() || n16.Col() != n8.Col() || n8.Line() != 3 {
		t.Errorf("UTF-16 node at %d:%d, UTF-8 at %d:%d", n16.Line(), n16.Col(), n8.Line(), n8.Col())
	}
}

// FuzzDecodeText: never a panic; what is decoded is UTF-8 with no NUL;
// UTF-16 of any text decodes back to it; an error's line and column lie
// within the text before it.
func FuzzDecodeText(f *testing.F) {
	f.Add([]byte("a: 1\n"))
	f.Add(encode16("a: é\n😀\n", false))
	f.Add(encode16("x", true))
	f.Add([]byte{0xFF, 0xFE, 0x00, 0xD8})
	f.Add([]byte{0xFF, 0xFE, 0, 0})
	f.Add([]byte("\xef\xbb\xbf\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		text, enc, err := DecodeText(b)
		if err != nil {
			if err.Line < 1 || err.Col < 1 || err.Msg == "" || err.Line > bytes.Count(b, []byte{'\n'})+bytes.Count(b, []byte{0, '\n'})+2 {
				t.Fatalf("error %+v", err)
			}
			return
		}
		if !utf8.Valid(text) || bytes.IndexByte(text, 0) >= 0 {
			t.Fatalf("decoded text %q is not UTF-8 without NUL", text)
		}
		if enc == "" && !bytes.Equal(text, b) {
			t.Fatalf("UTF-8 changed: %q -> %q", b, text)
		}
		if enc != "" || !utf8.Valid(b) || bytes.HasPrefix(b, []byte{0xFF, 0xFE}) || bytes.HasPrefix(b, []byte{0xFE, 0xFF}) {
			return
		}
		// A UTF-8 text without NUL, saved as UTF-16, reads back as itself.
		for _, big := range []bool{false, true} {
			back, enc, err := DecodeText(encode16(string(text), big))
			if err != nil || string(back) != string(text) || enc == "" {
				t.Fatalf("round trip of %q (big %v): %q %q %v", text, big, back, enc, err)
			}
		}
	})
}
