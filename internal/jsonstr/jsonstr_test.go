package jsonstr

import (
	"encoding/json"
	"testing"
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
