package paths

import (
	"os"
	"path/filepath"
	"testing"
)

// Under is the lexical "p is dir or below it" of within, the migrate
// writers and --out's checks; within also relates a relative path to an
// absolute one through the working directory.
func TestWithin(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		dir, p string
		rel    string
		ok     bool
		inRoot bool
	}{
		{"/a/b", "/a/b", ".", true, true},
		{"/a/b", "/a/b/c/d", "c/d", true, true},
		{"/a/b", "/a/bc", "", false, false},
		{"/a/b", "/a", "", false, false},
		{"/a/b", "/a/b/../c", "", false, false},
		{"/a/b", "/a/b/..x", "..x", true, true},
		{"a", "a/b", "b", true, true},
		{"a", "../a/b", "", false, false},
		{"/", "/etc/passwd", "etc/passwd", true, true},
		{wd, "x/y", "", false, true}, // one absolute, one not: Rel cannot relate them, within can
		{"x", filepath.Join(wd, "x", "y"), "", false, true},
		{"x", "/elsewhere", "", false, false},
	} {
		rel, ok := Under(tc.dir, tc.p)
		if rel != tc.rel || ok != tc.ok {
			t.Errorf("Under(%q, %q) = %q, %v; want %q, %v", tc.dir, tc.p, rel, ok, tc.rel, tc.ok)
		}
		if got := Within(tc.dir, tc.p); got != tc.inRoot {
			t.Errorf("within(%q, %q) = %v, want %v", tc.dir, tc.p, got, tc.inRoot)
		}
	}
}
