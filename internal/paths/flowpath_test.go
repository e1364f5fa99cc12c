package paths

import (
	"strings"
	"testing"
)

// FlowPath reads a reference as Flow's loader does (Url::join, then the
// file URL's path); a URL of another scheme or host names no file.
func TestFlowPath(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		abs, ok  bool
	}{
		{"../s.yaml", "../s.yaml", false, true},
		{"../s%2Eyaml", "../s.yaml", false, true},
		{`..\s.yaml`, "../s.yaml", false, true},
		{"../s.yaml?v=1", "../s.yaml", false, true},
		{"../s.yaml#frag", "../s.yaml", false, true},
		{"file:../s.yaml", "../s.yaml", false, true},
		{"file:///abs/s.yaml", "/abs/s.yaml", true, true},
		{"FILE://localhost/abs/s.yaml", "/abs/s.yaml", true, true},
		{"/abs/s%20x.yaml", "/abs/s x.yaml", true, true},
		{"file://host/abs/s.yaml", "", false, false},
		{"https://x/s.yaml", "", false, false},
		{"a%zz.yaml", "a%zz.yaml", false, true},
		{" s.yaml\n", "s.yaml", false, true},
	} {
		got, abs, ok := FlowPath(tc.in)
		if got != tc.want || abs != tc.abs || ok != tc.ok {
			t.Errorf("FlowPath(%q) = %q, %v, %v; want %q, %v, %v", tc.in, got, abs, ok, tc.want, tc.abs, tc.ok)
		}
	}
}

// FuzzFlowPath: never a panic, and a plain relative path unchanged.
func FuzzFlowPath(f *testing.F) {
	for _, s := range []string{"../s.yaml", `a\b%2e?x#y`, "file:///a", "file:", "%", "x:y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, _, ok := FlowPath(s)
		plain := s != "" && !strings.ContainsAny(s, "\\%?#:") && strings.IndexFunc(s, func(r rune) bool { return r <= ' ' }) < 0
		if ok && plain && got != s {
			t.Fatalf("%q read as %q", s, got)
		}
	})
}
