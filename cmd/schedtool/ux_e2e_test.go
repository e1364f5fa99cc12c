package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/estuary/schedtool/bench/gen"
)

// brokenCatalog writes a flow.yaml whose syntax error is on line 9,
// column 12, inside a block that starts on line 6.
func brokenCatalog(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := "materializations:\n  acme/x:\n    endpoint:\n      connector:\n        image: ghcr.io/estuary/materialize-snowflake:v3\n        config:\n          a: 1\n          b: [1, 2\n          c: 3\n"
	if err := os.WriteFile(filepath.Join(dir, "flow.yaml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A syntax error is reported at the offending character, with the line
// and a caret under it, by every command.
func TestSyntaxErrorCaret(t *testing.T) {
	dir := brokenCatalog(t)
	at := "flow.yaml:9:12: "
	for _, c := range []struct {
		args   []string
		stdout bool // the message is on standard output (validate's report)
	}{
		{[]string{"validate", "flow.yaml"}, true},
		{[]string{"migrate", "flow.yaml"}, false},
		{[]string{"explain", "acme/x", "flow.yaml"}, false},
		{[]string{"census", "-o", "csv", "flow.yaml"}, false},
	} {
		r := schedtoolStdin(t, dir, "", c.args...)
		out := r.stderr
		if c.stdout {
			out = r.stdout
		}
		if !strings.Contains(out, at) {
			t.Errorf("%v: no %q in\n%s", c.args, at, out)
		}
		if !caretUnder(out, "c: 3", 1) {
			t.Errorf("%v: no caret under 9:12 in\n%s", c.args, out)
		}
	}
	// Machine formats carry the position, never the caret.
	r := schedtoolStdin(t, dir, "", "validate", "-o", "json", "flow.yaml")
	if strings.Contains(r.stdout, "^") || !strings.Contains(r.stdout, `"line":9`) && !strings.Contains(r.stdout, `"line": 9`) {
		t.Errorf("validate -o json:\n%s", r.stdout)
	}
}

// caretUnder reports whether the line of out holding text is followed by
// a line whose caret is under text's byte at index i.
func caretUnder(out, text string, i int) bool {
	lines := strings.Split(out, "\n")
	for k := 0; k+1 < len(lines); k++ {
		if j := strings.Index(lines[k], text); j >= 0 && !strings.Contains(lines[k], "flow.yaml") {
			return lines[k+1] == strings.Repeat(" ", j+i)+"^"
		}
	}
	return false
}

// explain with a mistyped name on a generated dump names the task meant,
// answering in about the time a hit takes (the search was quadratic: 98 s
// on 500k rows); so do --name and --prefix.
func TestSuggestionsOnADump(t *testing.T) {
	dir := t.TempDir()
	dump := filepath.Join(dir, "live.ndjson")
	f, err := os.Create(dump)
	if err != nil {
		t.Fatal(err)
	}
	if err := gen.Write(f, 50_000, 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	const name = "materialize-hooli/team7/entity1"
	timed := func(args ...string) (run, time.Duration) {
		start := time.Now()
		r := schedtoolStdin(t, dir, "", args...)
		return r, time.Since(start)
	}
	hit, hitTook := timed("explain", name, "live.ndjson")
	if hit.code != 0 {
		t.Fatalf("hit: exit %d: %s", hit.code, hit.stderr)
	}
	miss, missTook := timed("explain", "materialize-hooli/team7/entiyt1", "live.ndjson")
	if miss.code != 1 || !strings.Contains(miss.stderr, "closest: "+name) {
		t.Errorf("miss: exit %d: %s", miss.code, miss.stderr)
	}
	if missTook > 3*hitTook+time.Second {
		t.Errorf("a miss took %v, a hit %v", missTook, hitTook)
	}
	far, _ := timed("explain", "someone/else/entirely", "live.ndjson")
	if far.code != 1 || strings.Contains(far.stderr, "closest") {
		t.Errorf("unrelated name: exit %d: %s", far.code, far.stderr)
	}
	r, _ := timed("census", "--name", "materialize-hooli/team7/entity1x", "--prefix", "materialize-hoolli/", "live.ndjson")
	if r.code != 1 || !strings.Contains(r.stderr, "--name materialize-hooli/team7/entity1x (closest: "+name) ||
		!strings.Contains(r.stderr, "--prefix materialize-hoolli/ (closest: materialize-hooli/)") {
		t.Errorf("census --name/--prefix typos: exit %d: %s", r.code, r.stderr)
	}
}

// Colour only when asked or on a terminal (the tests' pipes are not),
// -v is not --version, and a bad --color is a usage error.
func TestColorAndVersionFlags(t *testing.T) {
	dir := brokenCatalog(t)
	if r := schedtoolStdin(t, dir, "", "validate", "flow.yaml"); strings.Contains(r.stdout, "\033[") {
		t.Errorf("colour on a pipe: %q", r.stdout)
	}
	if r := schedtoolStdin(t, dir, "", "validate", "--color", "always", "flow.yaml"); !strings.Contains(r.stdout, "\033[1;31merror\033[0m") {
		t.Errorf("--color always: %q", r.stdout)
	}
	if r := schedtoolStdin(t, dir, "", "validate", "--color", "sometimes", "flow.yaml"); r.code != 1 || !strings.Contains(r.stderr, "--color") {
		t.Errorf("--color sometimes: exit %d %s", r.code, r.stderr)
	}
	if r := schedtool(t, "", "-v"); r.code != 1 || !strings.Contains(r.stderr, "unknown shorthand flag: 'v'") {
		t.Errorf("-v: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	if r := schedtool(t, "", "--version"); r.code != 0 || !strings.Contains(r.stdout, "schedtool") {
		t.Errorf("--version: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	// migrate's diff in colour.
	cat := copyFixtures(t)
	if r := schedtoolIn(t, cat, "migrate", "--color", "always", "fixtures/catalog"); !strings.Contains(r.stdout, "\033[32m+") || !strings.Contains(r.stdout, "\033[31m-") {
		t.Errorf("migrate --color always: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

var sarifVersionRe = regexp.MustCompile(`("name": "schedtool",\n\s+"version": )"[^"]*"`)

// scopeVersion*Re find the schedtool version in a census's scope (JSON,
// then the sentence of the Markdown and HTML censuses).
var (
	scopeVersionJSONRe = regexp.MustCompile(`("scope":\{[^}]*"schedtool":)"[^"]*"`)
	scopeVersionTextRe = regexp.MustCompile(`(; schedtool )[^\n<]*?(\.?(?:\n|<|$))`)
)

// SARIF and GitHub annotations carry --path-prefix before every path,
// SARIF its base and the build's version (not "dev").
func TestPathPrefixAndSARIF(t *testing.T) {
	r := schedtool(t, "", "validate", "-o", "sarif", "--path-prefix", "ops/flow/", "fixtures/catalog")
	var doc struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Version string
					Rules   []struct {
						ID              string
						FullDescription struct{ Text string }
						Help            struct{ Text, Markdown string }
					}
				}
			}
			OriginalURIBaseIDs map[string]struct{ Description struct{ Text string } } `json:"originalUriBaseIds"`
			Results            []struct {
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI, URIBaseID string }
					}
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Runs) != 1 {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	run := doc.Runs[0]
	if v := run.Tool.Driver.Version; v == "" || v == "dev" {
		t.Errorf("driver version %q", v)
	}
	for _, rule := range run.Tool.Driver.Rules {
		if rule.FullDescription.Text == "" || !strings.Contains(rule.Help.Text, "How to fix: ") || rule.Help.Markdown == "" {
			t.Errorf("rule %s: %+v", rule.ID, rule)
		}
	}
	if !strings.Contains(run.OriginalURIBaseIDs["%SRCROOT%"].Description.Text, "--path-prefix ops/flow/") {
		t.Errorf("originalUriBaseIds %+v", run.OriginalURIBaseIDs)
	}
	if len(run.Results) == 0 {
		t.Fatal("no results")
	}
	for _, res := range run.Results {
		loc := res.Locations[0].PhysicalLocation.ArtifactLocation
		if !strings.HasPrefix(loc.URI, "ops/flow/fixtures/catalog/") || loc.URIBaseID != "%SRCROOT%" {
			t.Errorf("location %+v", loc)
		}
	}
	r = schedtool(t, "", "validate", "-o", "github", "--path-prefix", "ops/flow", "fixtures/catalog")
	if !strings.Contains(r.stdout, "file=ops/flow/fixtures/catalog/") || strings.Contains(r.stdout, "file=fixtures") {
		t.Errorf("github:\n%s", r.stdout)
	}
	if r := schedtool(t, "", "validate", "--path-prefix", "x", "fixtures/catalog"); r.code != 1 || !strings.Contains(r.stderr, "--path-prefix applies to -o github and -o sarif only") {
		t.Errorf("--path-prefix with text: exit %d %s", r.code, r.stderr)
	}
}
