package users

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
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
		sel     catalog.Selector
		holders []string // substrings, one per holder, in order
		note    string
	}{
		{"whole root", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), "b/flow.yaml": usersSource("acmeCo/b", "../s.yaml")},
			[2]string{}, []string{"."}, catalog.Selector{}, nil, ""},
		{"another PATH", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), "b/flow.yaml": usersSource("acmeCo/b", "../s.yaml")},
			[2]string{}, []string{"a"}, catalog.Selector{}, []string{"acmeCo/b (b/flow.yaml:6: not under the PATHs given)"}, ""},
		{"selector", map[string]string{"flow.yaml": usersSource("acmeCo/a", "s.yaml", "acmeCo/b", "./s.yaml")},
			[2]string{}, []string{"."}, catalog.Selector{Names: []string{"acmeCo/a"}}, []string{"acmeCo/b (flow.yaml:12: not selected by --name/--prefix/--image)"}, ""},
		{"import, escape and symlink", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), "b/flow.yaml": "import: [t/x.yaml]\n",
			"b/t/x.yaml": usersSource("acmeCo/b", `"../../s\u002eyaml"`, "acmeCo/c", "../../l.yaml")},
			[2]string{"l.yaml", "s.yaml"}, []string{"a"}, catalog.Selector{}, []string{"acmeCo/b (b/t/x.yaml:6", "acmeCo/c (b/t/x.yaml:12"}, ""},
		{"unparseable source naming it", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), "b/flow.yaml": usersSource("acmeCo/b", `"../s\x2eyaml"`) + "materializations: {}\n"},
			[2]string{}, []string{"a"}, catalog.Selector{}, []string{"b/flow.yaml (a catalog source that does not parse: 8:1: duplicate key"}, "b/flow.yaml does not parse"},
		{"unparseable source naming another file", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), "b/flow.yaml": usersSource("acmeCo/b", "../t.yaml") + "materializations: {}\n"},
			[2]string{}, []string{"a"}, catalog.Selector{}, nil, ""},
		{"capture", map[string]string{"flow.yaml": "captures:\n  acmeCo/c:\n    endpoint: {connector: {image: x, config: s.yaml}}\n" + usersSource("acmeCo/a", "s.yaml")},
			[2]string{}, []string{"."}, catalog.Selector{}, []string{"acmeCo/c (flow.yaml:3: a capture, which schedtool does not migrate)"}, ""},
		{"derivation", map[string]string{"flow.yaml": "collections:\n  acmeCo/d:\n    derive: {using: {connector: {image: x, config: s.yaml}}}\n  acmeCo/e: {}\n" + usersSource("acmeCo/a", "s.yaml")},
			[2]string{}, []string{"."}, catalog.Selector{}, []string{"acmeCo/d (flow.yaml:3: a derivation, which schedtool does not migrate)"}, ""},
		// References spelled as Flow's loader reads them (Url::join).
		{"percent escape", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), "b/flow.yaml": usersSource("acmeCo/b", "../s%2Eyaml")},
			[2]string{}, []string{"a"}, catalog.Selector{}, []string{"acmeCo/b (b/flow.yaml:6: not under the PATHs given)"}, ""},
		{"backslash, query, fragment", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), "b/flow.yaml": usersSource("acmeCo/b", `'..\s.yaml'`, "acmeCo/c", "../s.yaml?v=1", "acmeCo/d", "'../s.yaml#x'")},
			[2]string{}, []string{"a"}, catalog.Selector{}, []string{"acmeCo/b (b/flow.yaml:6", "acmeCo/c (b/flow.yaml:12", "acmeCo/d (b/flow.yaml:18"}, ""},
		{"file URL", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), "b/flow.yaml": usersSource("acmeCo/b", "file:../s.yaml")},
			[2]string{}, []string{"a"}, catalog.Selector{}, []string{"acmeCo/b (b/flow.yaml:6: not under the PATHs given)"}, ""},
		{"import spelled with escapes", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), "b/flow.yaml": "import: ['t\\x%2Eyaml?q']\n",
			"b/t/x.yaml": usersSource("acmeCo/b", "../../s.yaml")},
			[2]string{}, []string{"a"}, catalog.Selector{}, []string{"acmeCo/b (b/t/x.yaml:6"}, ""},
		{"no file there, names it", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), "b/flow.yaml": usersSource("acmeCo/b", "https://x/s.yaml")},
			[2]string{}, []string{"a"}, catalog.Selector{}, []string{"acmeCo/b (b/flow.yaml:6: its reference (read as https://x/s.yaml) names no file there, but it names s.yaml)"}, ""},
		{"no file there, names another", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), "b/flow.yaml": usersSource("acmeCo/b", "../u.yaml")},
			[2]string{}, []string{"a"}, catalog.Selector{}, nil, ""},
		// Sources discovery does not see (hidden directories) count as
		// users all the same.
		{"hidden directory", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), ".private/flow.yaml": usersSource("acmeCo/p", "../s.yaml")},
			[2]string{}, []string{"."}, catalog.Selector{}, []string{"acmeCo/p (.private/flow.yaml:6: under the PATHs given, in a source they do not read"}, ""},
		// Discovery is the users walk (walkSources): a source by another
		// name, or under a symlinked directory, is read by the run (its
		// task is migrated with the others), not a holder.
		{"hidden directory, linked", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), ".private/flow.yaml": usersSource("acmeCo/p", "../s.yaml")},
			[2]string{"b", ".private"}, []string{"."}, catalog.Selector{}, nil, ""},
		{"a source by another name, and its import", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), "b/main.yaml": "import: [tasks.yaml]\n",
			"b/tasks.yaml": usersSource("acmeCo/b", "../s.yaml"), "c/other.json": `{"materializations": {"acmeCo/c": {"endpoint": {"connector": {"image": "x", "config": "../s.yaml"}}, "bindings": []}}}`},
			[2]string{}, []string{"."}, catalog.Selector{}, nil, ""},
		{"a source by another name, not selected", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), "b/main.yaml": "import: [tasks.yaml]\n",
			"b/tasks.yaml": usersSource("acmeCo/b", "../s.yaml"), "c/other.json": `{"materializations": {"acmeCo/c": {"endpoint": {"connector": {"image": "x", "config": "../s.yaml"}}, "bindings": []}}}`},
			[2]string{}, []string{"."}, catalog.Selector{Names: []string{"acmeCo/a"}}, []string{"acmeCo/b (b/tasks.yaml:6: not selected", "acmeCo/c (c/other.json:1: not selected"}, ""},
		{"not a source: .git, no catalog key, not a mapping", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), ".git/flow.yaml": usersSource("acmeCo/g", "../s.yaml"),
			"b/notes.yaml": "config: ../s.yaml\nimport_: x\n", "b/list.yaml": "- import: [../a/flow.yaml]\n", "b/broken.yaml": "import: [\n"},
			[2]string{}, []string{"."}, catalog.Selector{}, nil, ""},
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
			opts := catalog.DefaultOptions()
			opts.Root = "."
			opts.Select = catalog.NewSelection(tc.sel)
			inputs, err := input.Resolve(tc.args, opts)
			if err != nil {
				t.Fatal(err)
			}
			cat := catalog.Load(inputs, opts)
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
		`a\u002eb`:        "a.b",
		`a\x2eb`:          "a.b",
		`a\U0000002eb`:    "a.b",
		`a\.b\/c`:         "a.b/c",
		`a\u00`:           `a\u00`,
		`a\uZZZZ`:         `a\uZZZZ`,
		`a\U0011ffff`:     `a\U0011ffff`, // not a code point
		`plain`:           "plain",
		`trailing\`:       `trailing\`,
		`\\u002e`:         `\.`,
		`a%2Eb`:           "a.b",
		`a\u0025\u0032eb`: "a.b", // an escaped %-escape is one Flow decodes
		`a%2`:             "a%2",
		`a%zzb`:           "a%zzb",
	} {
		if got := string(Unescape([]byte(in))); got != want {
			t.Errorf("Unescape(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzUnescape: never a panic, and text without a backslash or a percent sign unchanged.
func FuzzUnescape(f *testing.F) {
	for _, s := range []string{`a\u002eb`, `\x`, `\U0010ffff`, "plain", `\\\`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got := Unescape(b)
		if !strings.ContainsAny(string(b), `\%`) && string(got) != string(b) {
			t.Fatalf("%q changed to %q", b, got)
		}
		if len(got) > len(b) {
			t.Fatalf("%q grew to %q", b, got)
		}
	})
}
