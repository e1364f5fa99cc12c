package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// relpathsTree is the fixtures' catalog in a git work tree whose project
// file gives the PATHs (paths: ["."]), with one source that does not
// parse (so that the unreadable lists and the problems on standard error
// name a file:line:col). It returns the tree's directory.
func relpathsTree(t *testing.T) string {
	t.Helper()
	dir := copyFixtures(t)
	if _, err := exec.LookPath("git"); err == nil {
		gitIn(t, dir, "init", "-q")
	} else if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{
		".schedtool.yaml":                          "paths: [\".\"]\n",
		"fixtures/catalog/acmeCo/broken.flow.yaml": "materializations:\n  a: [\n",
	})
	return dir
}

// TestPathsInOutput (issue 30, docs/behaviour.md §2 "Paths in output"):
// with the PATHs from the project file and none typed, every output names
// a file relative to the working directory when the file is under it, run
// from the tree's top and from a subdirectory; a file outside the
// working directory (the sibling estuary/flow.yaml, from the
// subdirectory) keeps its absolute path. Before, every path came out
// absolute: diff headers git apply could not take, annotations and SARIF
// uris that missed the pull request's files.
func TestPathsInOutput(t *testing.T) {
	dir := relpathsTree(t)
	sub := filepath.Join(dir, "fixtures/catalog/acmeCo")
	outside := filepath.Join(dir, "fixtures/catalog/estuary/flow.yaml")
	const snowflake = "acmeCo/warehouse/materialize-snowflake"
	type output struct {
		args         []string
		code         int
		stdout       []string // each with %s for the directory prefix
		stderr       []string
		outsideLines []string // from the subdirectory only: the outside file named absolute
	}
	outputs := []output{
		{args: []string{"validate"}, code: 2,
			stdout:       []string{"\n%slake/flow.yaml:43:11: error invalid-connector-schedule: ", "%sbroken.flow.yaml:3:1: error parse-error: "},
			outsideLines: []string{"%s:12:11: error invalid-sync-schedule: "}},
		{args: []string{"validate", "-o", "json"}, code: 2,
			stdout: []string{`"file":"%slake/flow.yaml","line":43,"column":11,`}},
		{args: []string{"validate", "-o", "github"}, code: 2,
			stdout:       []string{"::error file=%slake/flow.yaml,line=43,col=11,title=invalid-connector-schedule::"},
			outsideLines: []string{"::error file=%s,line=12,col=11,title=invalid-sync-schedule::"}},
		{args: []string{"validate", "-o", "sarif"}, code: 2,
			stdout: []string{"\"uri\": \"%slake/flow.yaml\",\n                  \"uriBaseId\": \"%%SRCROOT%%\"", `"originalUriBaseIds": {`}},
		{args: []string{"census"},
			stdout: []string{"\n  %sbroken.flow.yaml:3:1: did not find expected node content\n"}},
		{args: []string{"census", "-o", "csv"},
			stdout:       []string{",%swarehouse/flow.yaml,4,\n"},
			outsideLines: []string{",%s,4,\n"}},
		{args: []string{"census", "-o", "json"},
			stdout: []string{`"file":"%swarehouse/flow.yaml","line":4}`, `"file":"%sbroken.flow.yaml","line":3,"column":1,`}},
		{args: []string{"census", "-o", "markdown"},
			stdout: []string{"\n- %sbroken.flow.yaml:3:1\n"}},
		{args: []string{"census", "-o", "html"},
			stdout: []string{"<li>%sbroken.flow.yaml:3:1</li>"}},
		{args: []string{"explain", snowflake},
			stdout: []string{"materialization " + snowflake + " (%swarehouse/flow.yaml)\n"},
			stderr: []string{}},
		{args: []string{"explain", snowflake, "-o", "json"},
			stdout: []string{`"file": "%swarehouse/flow.yaml",`}},
		{args: []string{"migrate"}, code: 1,
			stdout: []string{"--- a/%swarehouse/flow.yaml\n+++ b/%swarehouse/flow.yaml\n@@ ",
				"--- a/%swarehouse/materialize-bigquery-reports.config.json\n+++ b/%swarehouse/materialize-bigquery-reports.config.json\n@@ "},
			stderr: []string{"schedtool: %sbroken.flow.yaml:3:1: did not find expected node content\n",
				"    acmeCo/warehouse/materialize-databricks (%swarehouse/flow.yaml:46)\n"},
			outsideLines: []string{"    estuary/reporting/materialize-dremio (%s:4)\n"}},
		{args: []string{"migrate", "-o", "json"}, code: 1,
			stdout: []string{`"files": [{"file":"%swarehouse/flow.yaml","status":"pending"},{"file":"%swarehouse/materialize-bigquery-reports.config.json","status":"pending"}]`,
				`"file":"%swarehouse/flow.yaml","line":4,`},
			outsideLines: []string{`"file":"%s","line":4,`}},
	}
	for _, wd := range []struct {
		name, dir, prefix string
	}{{"top", dir, "fixtures/catalog/acmeCo/"}, {"subdirectory", sub, ""}} {
		for _, o := range outputs {
			t.Run(wd.name+"/"+strings.Join(o.args, " "), func(t *testing.T) {
				r := schedtoolIn(t, wd.dir, o.args...)
				if r.code != o.code {
					t.Fatalf("exit %d, want %d\n%s", r.code, o.code, r.stderr)
				}
				fill := func(s string) string { return strings.ReplaceAll(s, "%s", wd.prefix) }
				for _, w := range o.stdout {
					if w = strings.ReplaceAll(fill(w), "%%SRCROOT%%", "%SRCROOT%"); !strings.Contains(r.stdout, w) {
						t.Errorf("standard output lacks %q:\n%s", w, r.stdout)
					}
				}
				for _, w := range o.stderr {
					if w = fill(w); !strings.Contains(r.stderr, w) {
						t.Errorf("standard error lacks %q:\n%s", w, r.stderr)
					}
				}
				both := r.stdout + r.stderr
				if wd.dir == sub {
					for _, w := range o.outsideLines {
						if w = strings.ReplaceAll(w, "%s", outside); !strings.Contains(both, w) {
							t.Errorf("the file outside the working directory is not named absolute: no %q in\n%s", w, both)
						}
					}
					both = strings.ReplaceAll(both, outside, "")
					// The project file's PATH "." is the tree's top, above
					// the working directory: census's scope names it
					// absolute, and no file under it.
					both = regexp.MustCompile(regexp.QuoteMeta(dir)+`([^/]|$)`).ReplaceAllString(both, "$1")
				}
				if strings.Contains(both, dir) {
					t.Errorf("a file under the working directory is named absolute:\n%s", both)
				}
			})
		}
	}
}

// TestPathsInOutputApply: migrate's diff, with the PATHs from the project
// file, is taken by git apply in the working directory (the top or a
// subdirectory), and --write names what it wrote relative to it; a PATH
// typed absolute is shown relative too.
func TestPathsInOutputApply(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("skipped: git is not on PATH")
	}
	dir := relpathsTree(t)
	os.Remove(filepath.Join(dir, "fixtures/catalog/acmeCo/broken.flow.yaml"))
	sub := filepath.Join(dir, "fixtures/catalog/acmeCo")
	for _, wd := range []string{dir, sub} {
		r := schedtoolIn(t, wd, "migrate")
		// Exit 2: tasks need review.
		if r.code != 2 || !strings.HasPrefix(r.stdout, "--- a/") {
			t.Fatalf("migrate in %s: exit %d\n%s%s", wd, r.code, r.stdout, r.stderr)
		}
		check := exec.Command("git", "apply", "--check", "-")
		check.Dir, check.Stdin = wd, strings.NewReader(r.stdout)
		if out, err := check.CombinedOutput(); err != nil {
			t.Errorf("git apply --check in %s: %v\n%s\n%s", wd, err, out, r.stdout)
		}
	}
	// A PATH typed absolute, under the working directory.
	r := schedtoolIn(t, dir, "validate", "-o", "github", filepath.Join(dir, "fixtures"))
	if r.code != 2 || !strings.Contains(r.stdout, "::error file=fixtures/catalog/acmeCo/lake/flow.yaml,line=43,") || strings.Contains(r.stdout, dir) {
		t.Errorf("an absolute PATH under the working directory: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = schedtoolIn(t, sub, "migrate", "--write")
	want := "written: warehouse/flow.yaml\nwritten: warehouse/materialize-bigquery-reports.config.json\nmigrate: "
	outside := filepath.Join(dir, "fixtures/catalog/estuary/flow.yaml") // above the subdirectory: absolute
	if r.code != 2 || !strings.Contains(r.stderr, want) || strings.Contains(strings.ReplaceAll(r.stderr, outside, ""), dir) {
		t.Errorf("migrate --write: exit %d, want %q in\n%s", r.code, want, r.stderr)
	}
}
