package report

import (
	"encoding/json"
	"testing"
)

func TestJSONString(t *testing.T) {
	for _, s := range []string{"", "plain", "<stdin>", "quote\" back\\slash", "nl\ncr\rtab\t", "\x1b[31mred\x1b[0m", "\x7f", "é ✓ 😀", "bad\xffutf8", "\u2028"} {
		b := jsonString(nil, s)
		var back string
		if err := json.Unmarshal(b, &back); err != nil {
			t.Errorf("jsonString(%q) = %s: %v", s, b, err)
			continue
		}
		want := s
		if s == "bad\xffutf8" {
			want = "bad\ufffdutf8"
		}
		if back != want {
			t.Errorf("round trip of %q gave %q", s, back)
		}
	}
	if got := string(jsonString(nil, "<a>&")); got != `"<a>&"` {
		t.Errorf("HTML escaped: %s", got)
	}
}
