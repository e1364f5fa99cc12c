package catalog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const usersTask = "  %s:\n    endpoint:\n      connector:\n        image: ghcr.io/estuary/materialize-snowflake:v4\n        config: %s\n    bindings: []\n"

func usersSource(pairs ...string) string {
	s := "materializations:\n"
	for i := 0; i+1 < len(pairs); i += 2 {
		s += strings.Replace(strings.Replace(usersTask, "%s", pairs[i], 1), "%s", pairs[i+1], 1)
	}
	return s
}

// Users finds the users of a config file under the root that the run did
// not read, by file identity, whatever the spelling; the users the run
// read are none of them (a near miss: the whole root, nothing held).
func TestUsers(t *testing.T) {
	for _, tc := range []struct {
		name    string
		files   map[string]string
		link    [2]string
		args    []string
		sel     Selector
		holders []string // substrings, one per holder, in order
		note    string
	}{
		{"whole root", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), "b/flow.yaml": usersSource("acmeCo/b", "../s.yaml")},
			[2]string{}, []string{"."}, Selector{}, nil, ""},
		{"another PATH", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), "b/flow.yaml": usersSource("acmeCo/b", "../s.yaml")},
			[2]string{}, []string{"a"}, Selector{}, []string{"acmeCo/b (b/flow.yaml:6: not under the PATHs given)"}, ""},
		{"selector", map[string]string{"flow.yaml": usersSource("acmeCo/a", "s.yaml", "acmeCo/b", "./s.yaml")},
			[2]string{}, []string{"."}, Selector{Names: []string{"acmeCo/a"}}, []string{"acmeCo/b (flow.yaml:12: not selected by --name/--prefix/--image)"}, ""},
		{"import, escape and symlink", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), "b/flow.yaml": "import: [t/x.yaml]\n",
			"b/t/x.yaml": usersSource("acmeCo/b", `"../../s\u002eyaml"`, "acmeCo/c", "../../l.yaml")},
			[2]string{"l.yaml", "s.yaml"}, []string{"a"}, Selector{}, []string{"acmeCo/b (b/t/x.yaml:6", "acmeCo/c (b/t/x.yaml:12"}, ""},
		{"unparseable source naming it", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), "b/flow.yaml": usersSource("acmeCo/b", `"../s\x2eyaml"`) + "materializations: {}\n"},
			[2]string{}, []string{"a"}, Selector{}, []string{"b/flow.yaml (a catalog source that does not parse: 8:1: duplicate key"}, "b/flow.yaml does not parse"},
		{"unparseable source naming another file", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), "b/flow.yaml": usersSource("acmeCo/b", "../t.yaml") + "materializations: {}\n"},
			[2]string{}, []string{"a"}, Selector{}, nil, ""},
		{"capture", map[string]string{"flow.yaml": "captures:\n  acmeCo/c:\n    endpoint: {connector: {image: x, config: s.yaml}}\n" + usersSource("acmeCo/a", "s.yaml")},
			[2]string{}, []string{"."}, Selector{}, []string{"acmeCo/c (flow.yaml:3: a capture, which schedtool does not migrate)"}, ""},
		{"derivation", map[string]string{"flow.yaml": "collections:\n  acmeCo/d:\n    derive: {using: {connector: {image: x, config: s.yaml}}}\n  acmeCo/e: {}\n" + usersSource("acmeCo/a", "s.yaml")},
			[2]string{}, []string{"."}, Selector{}, []string{"acmeCo/d (flow.yaml:3: a derivation, which schedtool does not migrate)"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.files["s.yaml"] = "host: h\n"
			tc.files["t.yaml"] = "host: t\n"
			for name, text := range tc.files {
				p := filepath.Join(dir, name)
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tc.link[0] != "" {
				os.Symlink(tc.link[1], filepath.Join(dir, tc.link[0]))
			}
			t.Chdir(dir)
			opts := DefaultOptions()
			opts.Root = "."
			opts.Select = NewSelection(tc.sel)
			inputs, err := Resolve(tc.args, opts)
			if err != nil {
				t.Fatal(err)
			}
			cat := Load(inputs, opts)
			holders, notes := Users(inputs, cat, opts)
			got := holders["s.yaml"]
			if len(got) != len(tc.holders) {
				t.Fatalf("holders %v, want %d like %q", got, len(tc.holders), tc.holders)
			}
			for i, h := range tc.holders {
				if !strings.Contains(got[i].String(), h) {
					t.Errorf("holder %d: %q, want %q", i, got[i], h)
				}
			}
			if tc.note == "" && len(notes) > 0 || tc.note != "" && (len(notes) != 1 || !strings.Contains(notes[0], tc.note)) {
				t.Errorf("notes %q, want %q", notes, tc.note)
			}
		})
	}
}

func TestUnescape(t *testing.T) {
	for in, want := range map[string]string{
		`a\u002eb`:     "a.b",
		`a\x2eb`:       "a.b",
		`a\U0000002eb`: "a.b",
		`a\.b\/c`:      "a.b/c",
		`a\u00`:        `a\u00`,
		`a\uZZZZ`:      `a\uZZZZ`,
		`a\U0011ffff`:  `a\U0011ffff`, // not a code point
		`plain`:        "plain",
		`trailing\`:    `trailing\`,
		`\\u002e`:      `\.`,
	} {
		if got := string(Unescape([]byte(in))); got != want {
			t.Errorf("Unescape(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzUnescape: never a panic, and text without a backslash unchanged.
func FuzzUnescape(f *testing.F) {
	for _, s := range []string{`a\u002eb`, `\x`, `\U0010ffff`, "plain", `\\\`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got := Unescape(b)
		if !strings.Contains(string(b), `\`) && string(got) != string(b) {
			t.Fatalf("%q changed to %q", b, got)
		}
		if len(got) > len(b) {
			t.Fatalf("%q grew to %q", b, got)
		}
	})
}
