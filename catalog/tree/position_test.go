package tree

import (
	"errors"
	"testing"
)

// A syntax error points at the offending character, not at the block
// around it (v3's message names the enclosing block's line, column 1),
// and carries that line's text for the caret.
func TestSyntaxErrorPositions(t *testing.T) {
	deep := "materializations:\n  acme/x:\n    endpoint:\n      connector:\n        image: i\n        config:\n          a: 1\n          b: [1, 2\n          c: 3\n"
	for _, c := range []struct {
		name, file, src string
		line, col       int
		text            string
	}{
		{"tab indentation", "f.yaml", "a:\n\tb: 1\n", 2, 1, "\tb: 1"},
		{"tab after spaces", "f.yaml", "a:\n  b: 1\n  \tc: 2\n", 3, 3, "  \tc: 2"},
		{"unclosed double quote", "f.yaml", "a: \"unclosed\nb: 2\n", 3, 1, ""},
		{"unclosed single quote", "f.yaml", "x: 1\na: 'x\n", 3, 1, ""},
		{"bad indentation", "f.yaml", "a:\n  b: 1\n c: 2\n", 3, 2, " c: 2"},
		{"duplicate key", "f.yaml", "a: 1\nb:\n  c: 1\n  c: 2\n", 4, 3, "  c: 2"},
		{"unclosed flow mapping", "f.yaml", "a: {b: 1\nc: 2\n", 2, 2, "c: 2"},
		{"unclosed flow sequence, deep", "flow.yaml", deep, 9, 12, "          c: 3"},
		{"mapping value in a plain scalar", "f.yaml", "a: b: c\n", 1, 5, "a: b: c"},
		{"character that cannot start a token", "f.yaml", "k: 1\nkey: @foo\n", 2, 6, "key: @foo"},
		{"sequence then mapping", "f.yaml", "- a\nb: 1\n", 2, 1, "b: 1"},
		{"json: trailing comma", "f.json", "{\n  \"a\": 1,\n}", 3, 1, "}"},
		{"json: unclosed object", "f.json", "{\n  \"a\": 1\n", 3, 1, ""},
		{"json: unclosed string", "f.json", "{\"a\": \"x}\n", 1, 10, "{\"a\": \"x}"},
		{"json: duplicate key", "f.json", "{\n  \"a\": 1,\n  \"a\": 2\n}", 3, 3, "  \"a\": 2"},
		{"json: bad literal", "f.json", "{\"a\":\n   tru}", 2, 4, "   tru}"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			if c.file == "f.json" {
				_, err = ParseJSON(c.file, []byte(c.src), DefaultLimits)
			} else {
				_, err = ParseYAML(c.file, []byte(c.src), DefaultLimits)
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want a SyntaxError", err)
			}
			if se.Line != c.line || se.Col != c.col {
				t.Errorf("at %d:%d (%s), want %d:%d", se.Line, se.Col, se.Msg, c.line, c.col)
			}
			if got := se.WithLine([]byte(c.src)).Text; got != c.text {
				t.Errorf("line text %q, want %q", got, c.text)
			}
		})
	}
}

func TestLineText(t *testing.T) {
	src := []byte("a\r\nbc\n\nd")
	for n, want := range map[int]string{1: "a", 2: "bc", 3: "", 4: "d", 5: ""} {
		if got := LineText(src, n); got != want {
			t.Errorf("LineText(%d) = %q, want %q", n, got, want)
		}
	}
}
