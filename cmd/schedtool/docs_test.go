package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/estuary/schedtool/bench/gen"
	"github.com/estuary/schedtool/finding"
	"github.com/estuary/schedtool/plan"
)

// The documents show commands; these tests run them, so that a command
// shown is a command that works.

// section is the part of a Markdown document from the heading that
// starts with heading to the next heading of the same or a higher level.
func section(t *testing.T, doc, heading string) string {
	t.Helper()
	i := strings.Index(doc, "\n"+heading)
	if i < 0 {
		t.Fatalf("no heading %q", heading)
	}
	rest := doc[i+1:]
	level := strings.Index(rest, " ")
	end := regexp.MustCompile(`\n#{1,` + string(rune('0'+level)) + `} `).FindStringIndex(rest[1:])
	if end == nil {
		return rest
	}
	return rest[:end[0]+1]
}

// fenced is the text of every fenced code block of md whose info string
// is lang, in order.
func fenced(md, lang string) []string {
	var blocks []string
	for _, m := range regexp.MustCompile("(?ms)^```"+lang+"\n(.*?)^```").FindAllStringSubmatch(md, -1) {
		blocks = append(blocks, m[1])
	}
	return blocks
}

// shellCommands splits shell text into simple commands, each as its
// words: comments dropped, backslash continuations joined, `&&` and `;`
// separating commands, single and double quotes grouping words. It knows
// no more shell than the documents use; a pipe or redirection stays a
// word, which the caller refuses.
func shellCommands(text string) [][]string {
	text = strings.ReplaceAll(text, "\\\n", " ")
	var cmds [][]string
	for _, line := range strings.Split(text, "\n") {
		var words []string
		var word strings.Builder
		inWord := false
		var quote rune
		flush := func() {
			if inWord {
				words = append(words, word.String())
			}
			word.Reset()
			inWord = false
		}
		end := func() {
			flush()
			if len(words) > 0 {
				cmds = append(cmds, words)
			}
			words = nil
		}
		rs := []rune(line)
	scan:
		for i := 0; i < len(rs); i++ {
			r := rs[i]
			switch {
			case quote != 0:
				if r == quote {
					quote = 0
				} else {
					word.WriteRune(r)
				}
			case r == '\'' || r == '"':
				quote, inWord = r, true
			case r == '#' && !inWord:
				break scan
			case r == ' ' || r == '\t':
				flush()
			case r == ';':
				end()
			case r == '&' && i+1 < len(rs) && rs[i+1] == '&':
				end()
				i++
			default:
				word.WriteRune(r)
				inWord = true
			}
		}
		end()
	}
	return cmds
}

func TestShellCommands(t *testing.T) {
	got := shellCommands("mkdir a && cd a   # comment\nschedtool migrate \\\n  --write 'x y' \"#z\" # c\n\ngit commit -m 'a b'; echo ok\n")
	want := [][]string{{"mkdir", "a"}, {"cd", "a"}, {"schedtool", "migrate", "--write", "x y", "#z"}, {"git", "commit", "-m", "a b"}, {"echo", "ok"}}
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range want {
		if strings.Join(got[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("command %d: got %q, want %q", i, got[i], want[i])
		}
	}
}

// commandTreeError says why args do not name a schedtool command and
// flags that its cobra tree has, with values it takes; nil when they do.
func commandTreeError(args []string) error {
	root := newRoot(Streams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}})
	root.InitDefaultCompletionCmd()
	root.InitDefaultVersionFlag()
	cmd, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	cmd.InitDefaultHelpFlag() // as cobra adds them when it runs
	return cmd.ParseFlags(rest)
}

func TestCommandTreeError(t *testing.T) {
	for _, c := range []struct {
		args []string
		ok   bool
	}{
		{[]string{"census", "--fail-if-remaining", "."}, true},
		{[]string{"migrate", "--write", "--limit", "10", "."}, true},
		{[]string{"validate", "-o", "github", "."}, true},
		{[]string{"completion", "bash"}, true},
		{[]string{"--version"}, true},
		{[]string{"migrate", "--help"}, true},
		{[]string{"census", "--no-such-flag", "."}, false},
		{[]string{"migrate", "--limit", "ten", "."}, false},
	} {
		if err := commandTreeError(c.args); (err == nil) != c.ok {
			t.Errorf("schedtool %s: error %v, want ok %v", strings.Join(c.args, " "), err, c.ok)
		}
	}
}

// runShown runs one schedtool command shown in a document in dir and
// fails if schedtool could not do its job (exit 1) or panicked: a
// command shown must work. Exit 2 (a person is needed) is what several
// of them are for.
func runShown(t *testing.T, doc, dir string, args []string) {
	t.Helper()
	if err := commandTreeError(args); err != nil {
		t.Errorf("%s: schedtool %s: %v", doc, strings.Join(args, " "), err)
	}
	// "> FILE" sends standard output to FILE in dir, as the shell would.
	var to string
	if i := slices.Index(args, ">"); i >= 0 && i+1 < len(args) {
		args, to = append(args[:i:i], args[i+2:]...), args[i+1]
	}
	r := schedtoolIn(t, dir, args...)
	if r.code != 0 && r.code != 2 || strings.Contains(r.stderr, "panic") {
		t.Errorf("%s: schedtool %s exited %d:\n%s", doc, strings.Join(args, " "), r.code, r.stderr)
	}
	if to != "" {
		if err := os.WriteFile(filepath.Join(dir, to), []byte(r.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestReadmeCommands runs the README's install, set-up commands and its
// quick start, this on a copy of the shipped catalog standing in for the
// user's: every schedtool command shown, in order.
func TestReadmeCommands(t *testing.T) {
	readme := string(mustRead(t, "../../README.md"))

	for _, block := range fenced(section(t, readme, "## Install"), "sh") {
		for _, c := range shellCommands(block) {
			switch {
			case c[0] == "schedtool":
				runShown(t, "README install", "../..", c[1:])
			case len(c) > 2 && c[0] == "go" && c[1] == "install" && c[2] == "./cmd/schedtool":
				// The test built the same package.
			case len(c) > 2 && c[0] == "go" && c[1] == "install" && c[2] == installLatest(t):
				// The same package, once the module is published.
			default:
				t.Errorf("README install: %q is neither go install ./cmd/schedtool, go install %s nor schedtool", c, installLatest(t))
			}
		}
	}

	var ran int
	for _, block := range fenced(section(t, readme, "## Set up"), "sh") {
		for _, c := range shellCommands(block) {
			switch {
			case len(c) > 3 && c[0] == "go" && c[1] == "run" && c[2] == "./cmd/schedtool":
				runShown(t, "README set-up", "../..", c[3:])
				ran++
			case len(c) > 1 && c[0] == "go" && c[1] == "test":
				// The test command: this very run.
			default:
				t.Errorf("README set-up: %q is neither go run ./cmd/schedtool nor go test", c)
			}
		}
	}
	if ran == 0 {
		t.Error("README set-up: no go run ./cmd/schedtool command found")
	}

	dir := filepath.Join(copyFixtures(t), "fixtures", "catalog")
	ran = 0
	for _, block := range fenced(section(t, readme, "## Quick start"), "sh") {
		for _, c := range shellCommands(block) {
			switch c[0] {
			case "schedtool":
				runShown(t, "README quick start", dir, c[1:])
				ran++
			case "flowctl", "git", "mkdir", "cd":
				// The user's side: pulling, publishing, committing.
			default:
				t.Errorf("README quick start: %q runs neither schedtool nor flowctl, git, mkdir or cd", c)
			}
		}
	}
	if ran < 6 {
		t.Errorf("README quick start: %d schedtool commands found, want census, validate, explain, migrate, migrate --write and the gate", ran)
	}
}

// installLatest is what `go install` takes to install the command from
// the module proxy: the module path of go.mod, /cmd/schedtool@latest.
func installLatest(t *testing.T) string {
	t.Helper()
	for _, line := range strings.Split(string(mustRead(t, "../../go.mod")), "\n") {
		if mod, ok := strings.CutPrefix(line, "module "); ok {
			return strings.TrimSpace(mod) + "/cmd/schedtool@latest"
		}
	}
	t.Fatal("go.mod has no module line")
	return ""
}

// elsewhere are the documents other work adds beside this: a link to
// one is not checked for a file until it is there.
var elsewhere = map[string]bool{}

// TestDocLinks checks that every link of the README and of docs/ stays
// inside the repository (a clone has nothing beside it) and names a
// file that is there; and that the README stays short.
func TestDocLinks(t *testing.T) {
	docs, _ := filepath.Glob("../../docs/*.md")
	for _, doc := range append([]string{"../../README.md"}, docs...) {
		text := string(mustRead(t, doc))
		for _, m := range regexp.MustCompile(`\]\(([^)\s]+)\)`).FindAllStringSubmatch(text, -1) {
			link, _, _ := strings.Cut(m[1], "#")
			if link == "" {
				continue
			}
			if strings.Contains(link, "://") {
				continue // the web: GitHub's and Flow's own documentation
			}
			target := filepath.Join(filepath.Dir(doc), link)
			rel, _ := filepath.Rel("../..", target)
			if filepath.IsAbs(link) || strings.HasPrefix(rel, "..") {
				t.Errorf("%s links outside the repository: %s", doc, m[1])
				continue
			}
			if _, err := os.Stat(target); err != nil && !elsewhere[filepath.ToSlash(rel)] {
				t.Errorf("%s links to %s, which is not there", doc, m[1])
			}
		}
	}
	readme := string(mustRead(t, "../../README.md"))
	if n := strings.Count(readme, "\n"); n > 250 {
		t.Errorf("README is %d lines, want at most 250", n)
	}
}

// TestRolloutCommands runs every schedtool command of the rollout guide,
// in order, in a copy of fixtures/: its catalog/ stands in for the
// user's, and a readable dump for their live_specs.ndjson (the fixtures'
// own has an unreadable row on purpose, which fails a migration).
func TestRolloutCommands(t *testing.T) {
	guide := string(mustRead(t, "../../docs/rollout.md"))
	dir := filepath.Join(copyFixtures(t), "fixtures")
	if err := os.WriteFile(filepath.Join(dir, "live_specs.ndjson"), mustRead(t, filepath.Join("../..", goodDump)), 0o644); err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, block := range fenced(guide, "sh") {
		for _, c := range shellCommands(block) {
			switch c[0] {
			case "schedtool":
				runShown(t, "docs/rollout.md", dir, c[1:])
				ran++
			case "flowctl", "git":
			default:
				t.Errorf("docs/rollout.md: %q runs neither schedtool nor flowctl or git", c)
			}
		}
	}
	if ran < 10 {
		t.Errorf("docs/rollout.md: %d schedtool commands found", ran)
	}
}

// TestRulesDoc checks that docs/rules.md has one section per rule of the
// finding package, none for an id it does not know, each with the rule's
// severity and the four parts a user looks for.
func TestRulesDoc(t *testing.T) {
	text := string(mustRead(t, "../../docs/rules.md"))
	known := map[string]finding.RuleInfo{}
	for _, r := range finding.Rules {
		known[r.ID] = r
	}
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^## `([^`]+)`$").FindAllStringSubmatch(text, -1) {
		id := m[1]
		if documented[id] {
			t.Errorf("docs/rules.md: two sections for %s", id)
		}
		documented[id] = true
		r, ok := known[id]
		if !ok {
			t.Errorf("docs/rules.md: a section for %s, which is no rule of the finding package", id)
			continue
		}
		body := section(t, text, "## `"+id+"`")
		if !strings.Contains(body, "**Severity**: "+r.Severity.String()) {
			t.Errorf("docs/rules.md: %s does not say its severity, %s", id, r.Severity)
		}
		for _, part := range []string{"**What**", "**Why**", "**How to fix**", "**Example**"} {
			if !strings.Contains(body, part) {
				t.Errorf("docs/rules.md: %s has no %s", id, part)
			}
		}
		if !strings.Contains(body, " "+id+": ") {
			t.Errorf("docs/rules.md: %s's example shows no finding of it", id)
		}
	}
	for id := range known {
		if !documented[id] {
			t.Errorf("docs/rules.md has no section for rule %s", id)
		}
	}
}

// workflow is the part of a GitHub Actions workflow the test reads.
type workflow struct {
	Jobs map[string]struct {
		Steps []struct {
			Name string `yaml:"name"`
			Uses string `yaml:"uses"`
			Run  string `yaml:"run"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// TestCIWorkflow reads the GitHub Actions workflow of docs/ci.md and runs
// each `run:` command but schedtool's install with bash as GitHub does
// (bash -e -o pipefail, $GITHUB_STEP_SUMMARY a file), the built binary on
// PATH, in a copy of the shipped catalog. The fixtures trigger every
// rule, so validate's step fails, as it should; the reporting steps pass
// and write what GitHub reads: annotations, a SARIF log, the summary.
func TestCIWorkflow(t *testing.T) {
	blocks := fenced(string(mustRead(t, "../../docs/ci.md")), "yaml")
	if len(blocks) == 0 {
		t.Fatal("docs/ci.md has no yaml block")
	}
	var wf workflow
	if err := yaml.Unmarshal([]byte(blocks[0]), &wf); err != nil || len(wf.Jobs) == 0 {
		t.Fatalf("docs/ci.md: the first yaml block is no workflow: %v", err)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not on PATH")
	}
	dir := filepath.Join(copyFixtures(t), "fixtures", "catalog")
	summary := filepath.Join(t.TempDir(), "summary.md")
	env := append(os.Environ(), "PATH="+filepath.Dir(binary)+string(os.PathListSeparator)+os.Getenv("PATH"), "GITHUB_STEP_SUMMARY="+summary)

	// want is each command's exit code on the fixtures, and a check of
	// what it wrote.
	want := map[string]struct {
		code  int
		check func(stdout string) string
	}{
		"schedtool validate -o github -o sarif=schedtool.sarif .": {2, func(out string) string {
			if !strings.Contains(out, "::error file=acmeCo/lake/flow.yaml,line=43,col=11,title=invalid-connector-schedule::") {
				return "no ::error annotation"
			}
			var log struct {
				Version string `json:"version"`
				Runs    []struct {
					Results []any `json:"results"`
				} `json:"runs"`
			}
			b, err := os.ReadFile(filepath.Join(dir, "schedtool.sarif"))
			if err == nil {
				err = json.Unmarshal(b, &log)
			}
			if err != nil || log.Version != "2.1.0" || len(log.Runs) != 1 || len(log.Runs[0].Results) == 0 {
				return fmt.Sprintf("schedtool.sarif is no SARIF 2.1.0 log with results: %v", err)
			}
			return ""
		}},
		`schedtool census -o markdown . >> "$GITHUB_STEP_SUMMARY"`: {0, func(string) string {
			b, _ := os.ReadFile(summary)
			if !strings.Contains(string(b), "| status | tasks |") {
				return "the job summary has no census table:\n" + string(b)
			}
			return ""
		}},
		"schedtool census --fail-if-remaining .": {2, nil},
	}
	ran := map[string]bool{}
	for name, job := range wf.Jobs {
		for _, step := range job.Steps {
			run := strings.TrimSpace(step.Run)
			if run == "" || strings.Contains(run, "go install ./cmd/schedtool") {
				continue // an action, or the install: the test built schedtool
			}
			w, ok := want[run]
			if !ok {
				t.Errorf("docs/ci.md: job %s runs %q, which this test does not know: add it to want", name, run)
				continue
			}
			ran[run] = true
			cmd := exec.Command(bash, "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", run)
			cmd.Dir, cmd.Env = dir, env
			r := execRun(t, cmd)
			if r.code != w.code {
				t.Errorf("docs/ci.md: %q exited %d, want %d\n%s", run, r.code, w.code, r.stderr)
			}
			if w.check != nil {
				if msg := w.check(r.stdout); msg != "" {
					t.Errorf("docs/ci.md: %q: %s", run, msg)
				}
			}
		}
	}
	for run := range want {
		if !ran[run] {
			t.Errorf("docs/ci.md: the workflow no longer runs %q", run)
		}
	}
}

// docs/hostile-input.md counts the hostile inputs: the count is the
// directory's.
func TestHostileInputCount(t *testing.T) {
	doc, err := os.ReadFile("../../docs/hostile-input.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("`testdata/hostile/` holds (\\d+) hostile inputs").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/hostile-input.md does not say how many hostile inputs testdata/hostile holds")
	}
	entries, err := os.ReadDir("../../testdata/hostile")
	if err != nil {
		t.Fatal(err)
	}
	if string(m[1]) != fmt.Sprint(len(entries)) {
		t.Errorf("docs/hostile-input.md says testdata/hostile holds %s hostile inputs; it holds %d", m[1], len(entries))
	}
}

// TestRulesDocFixtures checks docs/rules.md's word that the fixtures
// show every rule but the three whose examples come from elsewhere.
func TestRulesDocFixtures(t *testing.T) {
	doc := string(mustRead(t, "../../docs/rules.md"))
	text := doc
	elsewhere := map[string]bool{finding.ConnectorScheduleCrashes: true, finding.DefinedInSeveralCatalogs: true, finding.SecretSchedule: true}
	if !strings.Contains(text, "every rule but `connector-schedule-crashes`,\n`defined-in-several-catalogs` and `secret-schedule`") {
		t.Fatal("docs/rules.md no longer names the rules the fixtures do not show")
	}
	r := schedtool(t, "", "validate", "-o", "json", "fixtures/catalog", "fixtures/live_specs.ndjson")
	if r.code != 2 {
		t.Fatalf("validate exited %d:\n%s", r.code, r.stderr)
	}
	for _, rule := range finding.Rules {
		shown := strings.Contains(r.stdout, `"`+rule.ID+`"`)
		if shown == elsewhere[rule.ID] {
			t.Errorf("the fixtures show %s: %v; docs/rules.md says %v", rule.ID, shown, !elsewhere[rule.ID])
		}
	}
	// Each example from the fixtures is a line validate writes.
	out := schedtool(t, "", "validate", "fixtures/catalog", "fixtures/live_specs.ndjson")
	lines := strings.Split(out.stdout, "\n")
	n := 0
	for _, block := range plainBlocks(doc) {
		for _, line := range strings.Split(block, "\n") {
			if strings.HasPrefix(line, "fixtures/") {
				n++
				if !slices.Contains(lines, line) {
					t.Errorf("docs/rules.md shows\n%s\nwhich validate does not write", line)
				}
			}
		}
	}
	if n < 10 {
		t.Errorf("docs/rules.md shows %d examples from the fixtures, want one for each rule they show", n)
	}
}

// TestDocDesignPackageTable checks that docs/design.md's table of packages
// names every package of the repository (or a folder above it) and no
// package that is not there.
func TestDocDesignPackageTable(t *testing.T) {
	table := section(t, string(mustRead(t, "../../docs/design.md")), "## How the code is laid out")
	table, _, _ = strings.Cut(table, "### Layers")
	rows := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| ([^|]+) \\|").FindAllStringSubmatch(table, -1) {
		for _, n := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(m[1], -1) {
			rows[n[1]] = true
		}
	}
	pkgs := map[string]bool{}
	err := filepath.WalkDir("../..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != "../.." {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			rel, _ := filepath.Rel("../..", filepath.Dir(path))
			pkgs[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for p := range pkgs {
		covered := false
		for q := p; q != "." && !covered; q = filepath.ToSlash(filepath.Dir(q)) {
			covered = rows[q]
		}
		if !covered {
			t.Errorf("docs/design.md's package table has no row for %s", p)
		}
	}
	for r := range rows {
		there := false
		for p := range pkgs {
			there = there || p == r || strings.HasPrefix(p, r+"/")
		}
		if !there {
			t.Errorf("docs/design.md's package table names %s, which is no package or folder of packages", r)
		}
	}
}

// TestDocProjectFileMessages runs what docs/project-file.md's two messages
// come from (a misspelled key at line 7, an exclude of everything in the
// shipped catalog) and checks that each is what schedtool says, the
// project file's directory standing in for /src/acme-catalog.
func TestDocProjectFileMessages(t *testing.T) {
	doc := string(mustRead(t, "../../docs/project-file.md"))
	var samples []string
	for _, b := range plainBlocks(doc) {
		if strings.HasPrefix(b, "schedtool: ") {
			samples = append(samples, strings.TrimSpace(b))
		}
	}
	if len(samples) != 2 {
		t.Fatalf("docs/project-file.md shows %d messages, want 2", len(samples))
	}
	dir := filepath.Join(copyFixtures(t), "fixtures", "catalog")
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct {
		file string
		args []string
	}{
		{"paths: [.]\nexclude: []\nexceptions: []\n# a comment\n\ndecisions:\n  zeroFileSink: []\n", []string{"validate"}},
		{"exclude: [\"**\"]\n", []string{"census", "--fail-if-remaining", "."}},
	} {
		if err := os.WriteFile(filepath.Join(dir, ".schedtool.yaml"), []byte(c.file), 0o644); err != nil {
			t.Fatal(err)
		}
		r := schedtoolIn(t, dir, c.args...)
		want := strings.ReplaceAll(samples[i], "/src/acme-catalog/", abs+string(filepath.Separator))
		if r.code == 0 || !strings.Contains(r.stderr, want) {
			t.Errorf("docs/project-file.md shows\n%s\nschedtool %s exited %d:\n%s", samples[i], strings.Join(c.args, " "), r.code, r.stderr)
		}
	}
}

// TestDocBehaviourRuleTable checks that docs/behaviour.md §5's table has a
// row for every rule of finding.Rules, in its order (which says it is
// §5's), each with its severity first.
func TestDocBehaviourRuleTable(t *testing.T) {
	table := section(t, string(mustRead(t, "../../docs/behaviour.md")), "## 5. ")
	var got []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z0-9-]+)` \\| ([^|]+) \\|").FindAllStringSubmatch(table, -1) {
		got = append(got, m[1])
		i := slices.IndexFunc(finding.Rules, func(r finding.RuleInfo) bool { return r.ID == m[1] })
		if i < 0 {
			t.Errorf("behaviour §5 has a row for %s, which is no rule", m[1])
		} else if sev := finding.Rules[i].Severity.String(); !strings.Contains(m[2], sev) {
			t.Errorf("behaviour §5 gives %s severity %q, finding.Rules %s", m[1], m[2], sev)
		}
	}
	var want []string
	for _, r := range finding.Rules {
		want = append(want, r.ID)
	}
	if !slices.Equal(got, want) {
		t.Errorf("behaviour §5's rules are\n%q\nfinding.Rules'\n%q", got, want)
	}
}

// TestStatusDocs checks that every census status is explained where the
// documents list them: behaviour §8's decision list (in plan.decide's
// order: a broken model schedule first, blocked-v1, conflict, migrated,
// unaffected, stacked, ready, the rest), the rollout guide's table and
// the README's quick start.
func TestStatusDocs(t *testing.T) {
	all := []plan.Status{plan.StatusNeedsReview, plan.StatusBlockedV1, plan.StatusConflict, plan.StatusStacked, plan.StatusMigrated, plan.StatusUnaffected, plan.StatusReady, plan.StatusReadyNeedsFlag}
	list := section(t, string(mustRead(t, "../../docs/behaviour.md")), "## 8. ")
	var order []string
	for _, m := range regexp.MustCompile("(?m)^[0-9]\\. `([^`]+)`").FindAllStringSubmatch(list, -1) {
		order = append(order, m[1])
	}
	want := []string{"needs-review", "blocked-v1", "conflict", "migrated", "unaffected", "stacked", "ready", "needs-review"}
	if !slices.Equal(order, want) {
		t.Errorf("behaviour §8 decides %q, plan.decide %q", order, want)
	}
	// The order tables list them in: census's table over a generated
	// dump, which has every status.
	var dump bytes.Buffer
	if err := gen.Write(&dump, 3000, 1); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "dump.ndjson")
	if err := os.WriteFile(path, dump.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	r := schedtool(t, "", "census", path)
	var shown []string
	for _, m := range regexp.MustCompile(`(?m)^([a-z0-9-]+(?: \(needs --zero-file-sinks\))?) {2,}[0-9]+$`).FindAllStringSubmatch(r.stdout, -1) {
		if slices.Contains(all, plan.Status(m[1])) {
			shown = append(shown, "`"+m[1]+"`")
		}
	}
	listed := "Tables and summaries list the statuses in an order of their own:\n"
	if i := strings.Index(list, listed); i < 0 {
		t.Error("behaviour §8 no longer says in which order tables list the statuses")
	} else if got, _, _ := strings.Cut(list[i+len(listed):], "."); strings.Join(strings.Fields(got), " ") != strings.Join(shown, ", ") {
		t.Errorf("behaviour §8 lists the statuses as %s; census's table as %s", got, strings.Join(shown, ", "))
	}
	for _, doc := range []string{"docs/behaviour.md", "docs/rollout.md", "README.md"} {
		text := string(mustRead(t, "../../"+doc))
		for _, s := range all {
			if !strings.Contains(text, "`"+string(s)+"`") {
				t.Errorf("%s does not name the status %s", doc, s)
			}
		}
	}
}

// TestDocMigratePrints runs the catalog docs/migrate-exit-codes.md's
// sample of what migrate prints comes from (two tasks to migrate, one of
// them through its own config file; a conflict at cat/flow.yaml:3; a
// sealed file sink at cat/flow.yaml:40) and checks standard error is the
// sample, line for line.
func TestDocMigratePrints(t *testing.T) {
	doc := section(t, string(mustRead(t, "../../docs/migrate-exit-codes.md")), "## What migrate prints")
	blocks := plainBlocks(doc)
	if len(blocks) == 0 {
		t.Fatal("docs/migrate-exit-codes.md shows no output under What migrate prints")
	}
	top := "materializations:\n" + conflicting("acme/c")
	for strings.Count(top, "\n") < 38 {
		top += "# padding\n"
	}
	top += fileSink("acme/f", ` {bucket: "ENC[AES256_GCM,data:x]", uploadInterval: 15m, sops: {mac: x}}`)
	top += "import: [z/flow.yaml, b/flow.yaml]\n"
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".git/HEAD":           "x\n",
		"cat/flow.yaml":       top,
		"cat/z/flow.yaml":     "materializations:\n" + snowflake("acme/z", sfImage),
		"cat/b/flow.yaml":     "materializations:\n" + withConfigFile("acme/b", "b.config.yaml"),
		"cat/b/b.config.yaml": "syncSchedule:\n  syncFrequency: 2h\n",
	})
	r := schedtoolIn(t, dir, "migrate", "--write", "cat")
	if r.code != 2 || r.stderr != blocks[0] {
		t.Errorf("docs/migrate-exit-codes.md shows\n%s\nmigrate --write exited %d with\n%s", blocks[0], r.code, r.stderr)
	}
}

// plainBlocks is the text of every fenced code block of md with no info
// string, found by walking the fences in order (so that the closing fence
// of a ```yaml block never opens one).
func plainBlocks(md string) []string {
	var blocks []string
	var cur []string
	open, plain := false, false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "```") {
			if open && plain {
				blocks = append(blocks, strings.Join(cur, "\n")+"\n")
			}
			if !open {
				plain, cur = strings.TrimSpace(line) == "```", nil
			}
			open = !open
			continue
		}
		if open {
			cur = append(cur, line)
		}
	}
	return blocks
}
