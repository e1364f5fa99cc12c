package paths

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestUnder(t *testing.T) {
	for _, c := range []struct {
		dir, p, rel string
		ok          bool
	}{
		{"/a", "/a", ".", true},
		{"/a", "/a/b/c", filepath.Join("b", "c"), true},
		{"/a", "/a/../b", "", false},
		{"/a", "/ab", "", false},
		{"/a", "/a/..b", "..b", true},
		{"a", "/a", "", false},
	} {
		if rel, ok := Under(c.dir, c.p); rel != c.rel || ok != c.ok {
			t.Errorf("Under(%q, %q) = %q, %v; want %q, %v", c.dir, c.p, rel, ok, c.rel, c.ok)
		}
	}
}

func TestIsTemp(t *testing.T) {
	for name, want := range map[string]bool{
		"dir/.a.yaml.schedtool-123": true,
		".x.schedtool-":             true,
		"a.yaml.schedtool-1":        false,
		".a.yaml":                   false,
	} {
		if IsTemp(name) != want {
			t.Errorf("IsTemp(%q) = %v", name, !want)
		}
	}
}

func TestIdentify(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")
	os.WriteFile(a, nil, 0o644)
	os.WriteFile(c, nil, 0o644)
	if err := os.Link(a, b); err != nil {
		t.Skip(err)
	}
	ia, ok := Identify(a)
	ib, _ := Identify(b)
	ic, _ := Identify(c)
	if !ok || ia != ib || ia == ic {
		t.Errorf("a %v, b (a hard link) %v, c %v", ia, ib, ic)
	}
	if _, ok := Identify(filepath.Join(dir, "none")); ok {
		t.Error("a missing file has an identity")
	}
}

func TestOpenRegular(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a")
	os.WriteFile(a, []byte("x"), 0o644)
	if f, st, err := OpenRegular(a); err != nil || st.Size() != 1 {
		t.Errorf("a regular file: %v", err)
	} else {
		f.Close()
	}
	_, _, err := OpenRegular(dir)
	var nr *NotRegularError
	if !errors.As(err, &nr) || err.Error() != "not a regular file (a directory); only regular files are read" {
		t.Errorf("a directory: %v", err)
	}
}
