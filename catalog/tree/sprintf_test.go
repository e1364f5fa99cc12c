package tree

import (
	"fmt"
	"testing"
)

// sprintf gives what fmt.Sprintf gives, on its fast paths and off them.
func TestSprintfAsFmt(t *testing.T) {
	for _, tc := range []struct {
		format string
		args   []any
	}{
		{"invalid number", nil},
		{"unexpected %s, expected a value", []any{"'x'"}},
		{"unexpected %s after the top-level value", []any{"end of input"}},
		{"%s", []any{""}},
		{"unexpected %s, expected ',' or '%c'", []any{"'x'", '}'}},
		{"duplicate key %q (first at line %d)", []any{"a", 3}},
		{"nesting deeper than %d levels", []any{64}},
		{"100%% %s", []any{"x"}},
		{"%s", []any{42}},
		{"no verb", []any{"extra"}},
		{"%s and %s", []any{"a", "b"}},
	} {
		if got, want := sprintf(tc.format, tc.args...), fmt.Sprintf(tc.format, tc.args...); got != want {
			t.Errorf("sprintf(%q, %v) = %q, want %q", tc.format, tc.args, got, want)
		}
	}
}
