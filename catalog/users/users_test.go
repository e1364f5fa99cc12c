package users

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/catalog/selection"
)

const usersTask = "  %s:\n    endpoint:\n      connector:\n        image: ghcr.io/estuary/materialize-snowflake:v4\n        config: %s\n    bindings: []\n"

// want is a holder as Users gives it: a cause of 0 is not checked, and
// detail is a part of its Detail.
type want struct {
	name, where string
	cause       Cause
	detail      string
}

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
		sel     selection.Selector
		holders []want // one per holder, in order
		note    string
	}{
		{"whole root", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), "b/flow.yaml": usersSource("acmeCo/b", "../s.yaml")},
			[2]string{}, []string{"."}, selection.Selector{}, nil, ""},
		{"another PATH", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), "b/flow.yaml": usersSource("acmeCo/b", "../s.yaml")},
			[2]string{}, []string{"a"}, selection.Selector{}, []want{{"acmeCo/b", "b/flow.yaml:6", CauseNotUnderPaths, ""}}, ""},
		{"selector", map[string]string{"flow.yaml": usersSource("acmeCo/a", "s.yaml", "acmeCo/b", "./s.yaml")},
			[2]string{}, []string{"."}, selection.Selector{Names: []string{"acmeCo/a"}}, []want{{"acmeCo/b", "flow.yaml:12", CauseNotSelected, ""}}, ""},
		{"import, escape and symlink", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), "b/flow.yaml": "import: [t/x.yaml]\n",
			"b/t/x.yaml": usersSource("acmeCo/b", `"../../s\u002eyaml"`, "acmeCo/c", "../../l.yaml")},
			[2]string{"l.yaml", "s.yaml"}, []string{"a"}, selection.Selector{}, []want{{"acmeCo/b", "b/t/x.yaml:6", CauseNotUnderPaths, ""}, {"acmeCo/c", "b/t/x.yaml:12", CauseNotUnderPaths, ""}}, ""},
		{"unparseable source naming it", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), "b/flow.yaml": usersSource("acmeCo/b", `"../s\x2eyaml"`) + "materializations: {}\n"},
			[2]string{}, []string{"a"}, selection.Selector{}, []want{{"", "b/flow.yaml", CauseUnparsed, "does not parse: 8:1: duplicate key"}}, "b/flow.yaml does not parse"},
		{"unparseable source naming another file", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), "b/flow.yaml": usersSource("acmeCo/b", "../t.yaml") + "materializations: {}\n"},
			[2]string{}, []string{"a"}, selection.Selector{}, nil, ""},
		{"capture", map[string]string{"flow.yaml": "captures:\n  acmeCo/c:\n    endpoint: {connector: {image: x, config: s.yaml}}\n" + usersSource("acmeCo/a", "s.yaml")},
			[2]string{}, []string{"."}, selection.Selector{}, []want{{"acmeCo/c", "flow.yaml:3", CauseOtherKind, "capture"}}, ""},
		{"derivation", map[string]string{"flow.yaml": "collections:\n  acmeCo/d:\n    derive: {using: {connector: {image: x, config: s.yaml}}}\n  acmeCo/e: {}\n" + usersSource("acmeCo/a", "s.yaml")},
			[2]string{}, []string{"."}, selection.Selector{}, []want{{"acmeCo/d", "flow.yaml:3", CauseOtherKind, "derivation"}}, ""},
		// References spelled as Flow's loader reads them (Url::join).
		{"percent escape", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), "b/flow.yaml": usersSource("acmeCo/b", "../s%2Eyaml")},
			[2]string{}, []string{"a"}, selection.Selector{}, []want{{"acmeCo/b", "b/flow.yaml:6", CauseNotUnderPaths, ""}}, ""},
		{"backslash, query, fragment", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), "b/flow.yaml": usersSource("acmeCo/b", `'..\s.yaml'`, "acmeCo/c", "../s.yaml?v=1", "acmeCo/d", "'../s.yaml#x'")},
			[2]string{}, []string{"a"}, selection.Selector{}, []want{{"acmeCo/b", "b/flow.yaml:6", CauseNotUnderPaths, ""}, {"acmeCo/c", "b/flow.yaml:12", CauseNotUnderPaths, ""}, {"acmeCo/d", "b/flow.yaml:18", CauseNotUnderPaths, ""}}, ""},
		{"file URL", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), "b/flow.yaml": usersSource("acmeCo/b", "file:../s.yaml")},
			[2]string{}, []string{"a"}, selection.Selector{}, []want{{"acmeCo/b", "b/flow.yaml:6", CauseNotUnderPaths, ""}}, ""},
		{"import spelled with escapes", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), "b/flow.yaml": "import: ['t\\x%2Eyaml?q']\n",
			"b/t/x.yaml": usersSource("acmeCo/b", "../../s.yaml")},
			[2]string{}, []string{"a"}, selection.Selector{}, []want{{"acmeCo/b", "b/t/x.yaml:6", CauseNotUnderPaths, ""}}, ""},
		{"no file there, names it", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), "b/flow.yaml": usersSource("acmeCo/b", "https://x/s.yaml")},
			[2]string{}, []string{"a"}, selection.Selector{}, []want{{"acmeCo/b", "b/flow.yaml:6", CauseNamedOnly, "https://x/s.yaml"}}, ""},
		{"no file there, names another", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), "b/flow.yaml": usersSource("acmeCo/b", "../u.yaml")},
			[2]string{}, []string{"a"}, selection.Selector{}, nil, ""},
		// Sources discovery does not see (hidden directories) count as
		// users all the same.
		{"hidden directory", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), ".private/flow.yaml": usersSource("acmeCo/p", "../s.yaml")},
			[2]string{}, []string{"."}, selection.Selector{}, []want{{"acmeCo/p", ".private/flow.yaml:6", CauseHidden, ""}}, ""},
		// Discovery is the users walk (walkSources): a source by another
		// name, or under a symlinked directory, is read by the run (its
		// task is migrated with the others), not a holder.
		{"hidden directory, linked", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), ".private/flow.yaml": usersSource("acmeCo/p", "../s.yaml")},
			[2]string{"b", ".private"}, []string{"."}, selection.Selector{}, nil, ""},
		{"a source by another name, and its import", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), "b/main.yaml": "import: [tasks.yaml]\n",
			"b/tasks.yaml": usersSource("acmeCo/b", "../s.yaml"), "c/other.json": `{"materializations": {"acmeCo/c": {"endpoint": {"connector": {"image": "x", "config": "../s.yaml"}}, "bindings": []}}}`},
			[2]string{}, []string{"."}, selection.Selector{}, nil, ""},
		{"a source by another name, not selected", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), "b/main.yaml": "import: [tasks.yaml]\n",
			"b/tasks.yaml": usersSource("acmeCo/b", "../s.yaml"), "c/other.json": `{"materializations": {"acmeCo/c": {"endpoint": {"connector": {"image": "x", "config": "../s.yaml"}}, "bindings": []}}}`},
			[2]string{}, []string{"."}, selection.Selector{Names: []string{"acmeCo/a"}}, []want{{"acmeCo/b", "b/tasks.yaml:6", CauseNotSelected, ""}, {"acmeCo/c", "c/other.json:1", CauseNotSelected, ""}}, ""},
		{"not a source: .git, no catalog key, not a mapping", map[string]string{"a/flow.yaml": usersSource("acmeCo/a", "../s.yaml"), ".git/flow.yaml": usersSource("acmeCo/g", "../s.yaml"),
			"b/notes.yaml": "config: ../s.yaml\nimport_: x\n", "b/list.yaml": "- import: [../a/flow.yaml]\n", "b/broken.yaml": "import: [\n"},
			[2]string{}, []string{"."}, selection.Selector{}, nil, ""},
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
			opts.Select = selection.New(tc.sel)
			inputs, err := input.Resolve(tc.args, opts)
			if err != nil {
				t.Fatal(err)
			}
			cat := catalog.Load(inputs, opts)
			holders, unread := Users(inputs, cat, opts)
			got := holders["s.yaml"]
			if len(got) != len(tc.holders) {
				t.Fatalf("holders %v, want %d like %+v", got, len(tc.holders), tc.holders)
			}
			for i, w := range tc.holders {
				h := got[i]
				if h.Name != w.name || h.Where != w.where || w.cause != 0 && h.Cause != w.cause || !strings.Contains(h.Detail, w.detail) {
					t.Errorf("holder %d: %+v, want %+v", i, h, w)
				}
			}
			if tc.note == "" && len(unread) > 0 || tc.note != "" && (len(unread) != 1 || !strings.Contains(unread[0].File+" "+unread[0].Why, tc.note) || len(unread[0].Holds) != 1 || unread[0].Holds[0] != "s.yaml") {
				t.Errorf("unread %+v, want %q holding s.yaml", unread, tc.note)
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
