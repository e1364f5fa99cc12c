package project

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

const good = `# a project file
root: ..
connectors: registry.json
paths: [catalogs]
exclude:
  - "*/testdata"
  - legacy/old.flow.yaml
decisions:
  enableRuntimeV2: [acmeCo/prod/]
  zeroFileSinks: [acmeCo/lake/sink]
  absent: drop
  resolve:
    - {task: acmeCo/prod/, resolve: model}
exceptions:
  - task: acmeCo/legacy/
    rule: connector-schedule-in-use
    reason: waits for the vendor's V2 support
    owner: data-platform@acme.co
    expires: 2027-01-31
  - task: acmeCo/legacy/pg
    status: blocked-v1
    reason: moves with the Postgres upgrade
    owner: dba@acme.co
    expires: "2026-06-30"
`

func TestParse(t *testing.T) {
	c, err := Parse("p/.schedtool.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if c.Path(c.Root) != "." || c.Path(c.Connectors) != "p/registry.json" || len(c.Exclude) != 2 || c.Decisions.Absent != "drop" ||
		len(c.Decisions.Resolve) != 1 || c.Decisions.Resolve[0].Resolve != "model" || len(c.Exceptions) != 2 {
		t.Errorf("parsed %+v %+v", c, c.Decisions)
	}
	if e := c.Exceptions[0]; e.Expires != "2027-01-31" || e.Until.Format("2006-01-02T15:04") != "2027-01-31T23:59" || e.Pos.String() != "p/.schedtool.yaml:15:5" {
		t.Errorf("exception %+v at %s", e, e.Pos)
	}
	if !MatchesAny(c.Decisions.EnableRuntimeV2, "acmeCo/prod/x") || MatchesAny(c.Decisions.EnableRuntimeV2, "acmeCo/production") ||
		!Matches("acmeCo/lake/sink", "acmeCo/lake/sink") || Matches("acmeCo/lake/sink", "acmeCo/lake/sink2") {
		t.Error("names and prefixes")
	}
}

// Strict: every unknown key, wrong type and bad value is an error at
// file:line:col; each case just misses the good file.
func TestParseRefuses(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"rot: ..\n", "f.yaml:1:1: unknown key \"rot\" in the project file (closest: root; known: connectors, decisions, exceptions, exclude, paths, root)"},
		{"xyzzy: ..\n", "f.yaml:1:1: unknown key \"xyzzy\" in the project file (known: connectors, decisions, exceptions, exclude, paths, root)"},
		{"root: [a]\n", "f.yaml:1:7: root must be a string, not a list"},
		{"root: 3\n", "f.yaml:1:7: root must be a string, not a number"},
		{"paths: a\n", "f.yaml:1:8: paths must be a list of strings, not a string"},
		{"paths: [a, 1]\n", "f.yaml:1:12: paths entry must be a string, not a number"},
		{"exclude: [/etc]\n", "f.yaml:1:11: exclude: give a path or glob under this file's directory"},
		{"exclude: ['a/[b]']\n", "f.yaml:1:11: exclude: \"a/[b]\": character classes are not supported"},
		{"decisions: {absent: keep}\n", "f.yaml:1:21: decisions.absent: \"keep\" is not one of preserve, drop"},
		{"decisions: {enableRuntimeV2: true}\n", "f.yaml:1:30: decisions.enableRuntimeV2 must be a list of strings, not a boolean"},
		{"decisions: {zeroFileSink: [a/]}\n", "f.yaml:1:13: unknown key \"zeroFileSink\" in decisions (closest: zeroFileSinks; known: "},
		{"decisions: {resolve: [{task: a/, resolve: both}]}\n", "f.yaml:1:43: resolve: \"both\" is not one of model, connector"},
		{"decisions: {resolve: [{task: a/}]}\n", "f.yaml:1:23: a decisions.resolve entry needs task and resolve"},
		{"exceptions: [{task: a, rule: r, reason: x, owner: o}]\n", "f.yaml:1:14: an exception needs expires"},
		{"exceptions: [{task: a, rule: r, status: s, reason: x, owner: o, expires: 2027-01-01}]\n", "f.yaml:1:14: an exception names a rule"},
		{"exceptions: [{task: a, reason: x, owner: o, expires: 2027-01-01}]\n", "f.yaml:1:14: an exception names a rule"},
		{"exceptions: [{task: a, rule: r, reason: x, owner: o, expires: 2027-13-01}]\n", "f.yaml:1:63: expires \"2027-13-01\" is not a date"},
		{"exceptions: [{task: a, rule: r, reason: x, owner: o, expires: soon}]\n", "f.yaml:1:63: expires \"soon\" is not a date"},
		{"exceptions: [{task: a, rule: r, reason: x, owner: o, expires: 2027-01-01, until: 2028-01-01}]\n", "f.yaml:1:75: unknown key \"until\" in an exception"},
		{"root: a\nroot: b\n", "f.yaml:2:1: "},
		{"- a\n", "f.yaml:1:1: the project file must be an object, not a list"},
		{"root: [\n", "f.yaml:"},
	} {
		_, err := Parse("f.yaml", []byte(tc.text))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %s...", tc.text, err, tc.want)
		}
		// The schema refuses it too (but for the values only the code
		// checks: globs, dates, YAML syntax and duplicate keys).
		if !strings.Contains(tc.want, "exclude") && !strings.Contains(tc.want, "expires") && !strings.HasPrefix(tc.text, "root: a\n") && tc.text != "root: [\n" {
			if schemaValid(t, tc.text) {
				t.Errorf("%q: the schema takes what Parse refuses", tc.text)
			}
		}
	}
	if !schemaValid(t, good) {
		t.Error("the schema refuses the good file")
	}
}

var compiled *jsonschema.Schema

func schemaValid(t *testing.T, text string) bool {
	t.Helper()
	if compiled == nil {
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(Schema())))
		if err != nil {
			t.Fatal(err)
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource(SchemaID, doc); err != nil {
			t.Fatal(err)
		}
		if compiled, err = c.Compile(SchemaID); err != nil {
			t.Fatal(err)
		}
	}
	var v any
	if err := yaml.Unmarshal([]byte(text), &v); err != nil {
		return false
	}
	b, _ := json.Marshal(fixTimes(v))
	inst, _ := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
	return compiled.Validate(inst) == nil
}

// fixTimes turns the YAML timestamps an unquoted date decodes to back
// into their text, as Parse reads them.
func fixTimes(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = fixTimes(e)
		}
	case []any:
		for i, e := range x {
			x[i] = fixTimes(e)
		}
	case interface{ Format(string) string }:
		return x.Format("2006-01-02")
	}
	return v
}

// Find looks from the PATH's directory up, and stops at the git work
// tree's top.
func TestFind(t *testing.T) {
	dir := t.TempDir()
	mk := func(p, text string) {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), []byte(text), 0o644)
	}
	mk("repo/.git/HEAD", "x")
	mk("repo/.schedtool.yml", "{}")
	mk("repo/a/b/flow.yaml", "")
	mk(".schedtool.yaml", "{}") // above the work tree: never found from inside
	mk("repo/c/.schedtool.json", "{}")
	for _, tc := range []struct{ from, want string }{
		{"repo/a/b", "repo/.schedtool.yml"},
		{"repo", "repo/.schedtool.yml"},
		{"repo/c", "repo/c/.schedtool.json"},
		{".", ".schedtool.yaml"},
	} {
		got := Find(filepath.Join(dir, tc.from))
		if want := filepath.Join(dir, tc.want); got != want {
			t.Errorf("Find(%s) = %s, want %s", tc.from, got, want)
		}
	}
	os.Remove(filepath.Join(dir, "repo/.schedtool.yml"))
	if got := Find(filepath.Join(dir, "repo/a/b")); got != "" {
		t.Errorf("Find climbed out of the work tree: %s", got)
	}
}

func TestExcluder(t *testing.T) {
	dir := t.TempDir()
	c := &Config{Dir: dir, Exclude: []string{"*/testdata", "legacy/old.flow.yaml", "**/*.test.flow.yaml", "staging"}}
	ex := c.Excluder()
	for p, want := range map[string]bool{
		"materialize-x/testdata/apply.flow.yaml": true,
		"materialize-x/testdata/sub/a.yaml":      true,
		"a/b/testdata/apply.flow.yaml":           false, // * is one directory
		"legacy/old.flow.yaml":                   true,
		"legacy/new.flow.yaml":                   false,
		"x/y/z.test.flow.yaml":                   true,
		"z.test.flow.yaml":                       true,
		"staging/flow.yaml":                      true,
		"stagingx/flow.yaml":                     false,
		"flow.yaml":                              false,
	} {
		if got := ex(filepath.Join(dir, p)); got != want {
			t.Errorf("exclude %s: %v, want %v", p, got, want)
		}
	}
	if ex(filepath.Join(filepath.Dir(dir), "materialize-x/testdata/a.yaml")) {
		t.Error("a file outside the project's directory is excluded")
	}
}

// FuzzParse: no input panics, and what Parse takes re-parses the same.
func FuzzParse(f *testing.F) {
	f.Add([]byte(good))
	f.Add([]byte("exceptions: [{task: a, rule: r, reason: x, owner: o, expires: 2027-01-01}]\n"))
	f.Add([]byte("exclude: ['**/x/**']\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := Parse("f.yaml", b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.yaml:") {
				t.Errorf("an error without its place: %v", err)
			}
			return
		}
		_ = c.Excluder()
	})
}
