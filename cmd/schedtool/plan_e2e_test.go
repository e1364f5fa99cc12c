package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/estuary/schedtool/bench/gen"
	"github.com/estuary/schedtool/savedplan"
)

// treeFiles are the regular files under dir, by path relative to it.
func treeFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTrees(t *testing.T, what string, a, b map[string]string) {
	t.Helper()
	for p, x := range a {
		if y, ok := b[p]; !ok || x != y {
			t.Errorf("%s: %s differs:\n%s\n---\n%s", what, p, x, y)
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			t.Errorf("%s: %s only in the second tree", what, p)
		}
	}
}

// Plan then apply writes what --write writes; a second apply changes
// nothing and says so (exit 0); the plan file is its owner's only, and
// holds no sealed value and no whole file.
func TestPlanApplyEqualsWrite(t *testing.T) {
	a, b := copyFixtures(t), copyFixtures(t)
	r := schedtoolIn(t, a, "migrate", "--plan", "wave.plan", "fixtures/catalog")
	if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "plan written: wave.plan (sha256:") {
		t.Fatalf("migrate --plan: exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	st, err := os.Stat(filepath.Join(a, "wave.plan"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("the plan file: %v, mode %v, want 0600", err, st.Mode())
	}
	planText := string(mustRead(t, filepath.Join(a, "wave.plan")))
	if strings.Contains(planText, "ENC[") {
		t.Errorf("the plan holds a sealed value:\n%s", planText)
	}
	before := treeFiles(t, filepath.Join(a, "fixtures"))
	for p, text := range before {
		if len(text) > 200 && strings.Contains(planText, strings.TrimSpace(text)) {
			t.Errorf("the plan holds the whole of %s", p)
		}
	}

	if r := schedtoolIn(t, a, "migrate", "--plan", "fixtures/catalog/acmeCo/warehouse/flow.yaml", "fixtures/catalog"); r.code != 1 || !strings.Contains(r.stderr, "is the input") {
		t.Errorf("--plan over an input: exit %d\n%s", r.code, r.stderr)
	}
	if r := schedtoolIn(t, a, "migrate", "--plan", "x.plan", "--write", "fixtures/catalog"); r.code != 1 || !strings.Contains(r.stderr, "--write and --out exclude it") {
		t.Errorf("--plan with --write: exit %d\n%s", r.code, r.stderr)
	}
	sameTrees(t, "a refused --plan wrote", before, treeFiles(t, filepath.Join(a, "fixtures")))

	r = schedtoolIn(t, a, "apply", "--check", "wave.plan")
	if r.code != 0 || !strings.Contains(r.stderr, "would write: fixtures/catalog/acmeCo/warehouse/flow.yaml") {
		t.Errorf("apply --check: exit %d\n%s", r.code, r.stderr)
	}
	sameTrees(t, "apply --check wrote", before, treeFiles(t, filepath.Join(a, "fixtures")))

	r = schedtoolIn(t, a, "apply", "wave.plan")
	if r.code != 0 || !strings.Contains(r.stderr, "written: fixtures/catalog/acmeCo/warehouse/flow.yaml\n") {
		t.Fatalf("apply: exit %d\n%s", r.code, r.stderr)
	}
	w := schedtoolIn(t, b, "migrate", "--write", "fixtures/catalog")
	if w.code != 2 {
		t.Fatalf("migrate --write: exit %d\n%s", w.code, w.stderr)
	}
	applied := treeFiles(t, filepath.Join(a, "fixtures"))
	sameTrees(t, "apply against --write", applied, treeFiles(t, filepath.Join(b, "fixtures")))

	r = schedtoolIn(t, a, "apply", "wave.plan")
	if r.code != 0 || strings.Contains(r.stderr, "written:") || !strings.Contains(r.stderr, "already applied: fixtures/catalog/acmeCo/warehouse/flow.yaml") || !strings.Contains(r.stderr, "0 written, 2 already applied") {
		t.Errorf("a second apply: exit %d\n%s", r.code, r.stderr)
	}
	sameTrees(t, "a second apply changed", applied, treeFiles(t, filepath.Join(a, "fixtures")))
}

// The experiment of issue 26: someone adds a model schedule to a task of
// the plan before it is applied. A patch would apply and duplicate the
// key; apply refuses the group, names the file, leaves it as it is, and
// exits 2.
func TestApplyRefusesChangedInput(t *testing.T) {
	dir := copyFixtures(t)
	if r := schedtoolIn(t, dir, "migrate", "--plan", "wave.plan", "fixtures/catalog"); r.code != 2 {
		t.Fatalf("migrate --plan: exit %d\n%s", r.code, r.stderr)
	}
	src := filepath.Join(dir, "fixtures/catalog/acmeCo/warehouse/flow.yaml")
	old := string(mustRead(t, src))
	edited := strings.Replace(old, "  acmeCo/warehouse/materialize-snowflake:\n", "  acmeCo/warehouse/materialize-snowflake:\n    syncSchedule:\n      baseInterval: 2h\n", 1)
	if edited == old {
		t.Fatal("the fixture moved: no materialize-snowflake")
	}
	if err := os.WriteFile(src, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, "fixtures/catalog/acmeCo/warehouse/materialize-bigquery-reports.config.json")
	oldConfig := string(mustRead(t, config))

	r := schedtoolIn(t, dir, "apply", "wave.plan")
	if r.code != 2 {
		t.Errorf("apply: exit %d, want 2\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "schedtool: fixtures/catalog/acmeCo/warehouse/flow.yaml: not written: changed since the plan: ") ||
		!strings.Contains(r.stderr, "materialize-bigquery-reports.config.json: not written: written together with fixtures/catalog/acmeCo/warehouse/flow.yaml, which is refused") {
		t.Errorf("apply does not name the changed file and its group:\n%s", r.stderr)
	}
	if got := string(mustRead(t, src)); got != edited {
		t.Errorf("the changed file was written:\n%s", got)
	}
	if got := string(mustRead(t, config)); got != oldConfig {
		t.Errorf("its group was written:\n%s", got)
	}
	if r := schedtoolIn(t, dir, "apply", "--check", "wave.plan"); r.code != 2 || !strings.Contains(r.stderr, "fixtures/catalog/acmeCo/warehouse/flow.yaml: would not be written: changed since the plan") {
		t.Errorf("apply --check: exit %d\n%s", r.code, r.stderr)
	}
	// show names it too, and does not show its diff.
	if r := schedtoolIn(t, dir, "show", "wave.plan"); r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "fixtures/catalog/acmeCo/warehouse/flow.yaml: would not be written: changed since the plan") {
		t.Errorf("show: exit %d\n%s", r.code, r.stderr)
	}
}

// A plan edited by hand, or one a newer schedtool made, is refused
// before anything is written (exit 1).
func TestApplyRefusesTamperedPlan(t *testing.T) {
	dir := copyFixtures(t)
	if r := schedtoolIn(t, dir, "migrate", "--plan", "wave.plan", "fixtures/catalog"); r.code != 2 {
		t.Fatalf("migrate --plan: exit %d\n%s", r.code, r.stderr)
	}
	before := treeFiles(t, filepath.Join(dir, "fixtures"))
	text := string(mustRead(t, filepath.Join(dir, "wave.plan")))
	for _, tc := range []struct{ name, from, to, want string }{
		{"edit", `baseInterval: 1h`, `baseInterval: 9h`, "does not match its digest"},
		{"whitespace", "\n  \"records\"", "\n   \"records\"", "does not match its digest"},
		{"version", `"version": 2,`, `"version": 3,`, "layout version 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			edited := strings.Replace(text, tc.from, tc.to, 1)
			if edited == text {
				t.Fatalf("the plan has no %q", tc.from)
			}
			os.WriteFile(filepath.Join(dir, "edited.plan"), []byte(edited), 0o600)
			for _, args := range [][]string{{"apply", "edited.plan"}, {"apply", "--check", "edited.plan"}, {"show", "edited.plan"}} {
				r := schedtoolIn(t, dir, args...)
				if r.code != 1 || !strings.Contains(r.stderr, tc.want) || r.stdout != "" {
					t.Errorf("%v: exit %d, want 1 and %q\n%s%s", args, r.code, tc.want, r.stdout, r.stderr)
				}
			}
		})
	}
	sameTrees(t, "a refused plan wrote", before, treeFiles(t, filepath.Join(dir, "fixtures")))
}

// show -o diff is byte for byte the dry run's diff, for catalog files and
// for dump rows; show -o json is the plan.
func TestShowDiffEqualsDryRun(t *testing.T) {
	dir := copyFixtures(t)
	for _, args := range [][]string{
		{"fixtures/catalog"},
		{"fixtures/live_specs.ndjson"},
		{"--zero-file-sinks", "--enable-runtime-v2", "--resolve", "model", "--verify", "fixtures/catalog"},
		{"--limit", "2", "fixtures/catalog"},
	} {
		dry := schedtoolIn(t, dir, append([]string{"migrate"}, args...)...)
		p := schedtoolIn(t, dir, append([]string{"migrate", "--plan", "p.plan"}, args...)...)
		if p.code != dry.code || dry.stdout == "" || p.stdout != "" {
			t.Errorf("%v: --plan exit %d, dry run %d\n%s", args, p.code, dry.code, p.stderr)
		}
		show := schedtoolIn(t, dir, "show", "-o", "diff", "p.plan")
		if show.code != 0 || show.stdout != dry.stdout {
			t.Errorf("%v: show -o diff (exit %d) is not the dry run:\n%s\n---\n%s\n%s", args, show.code, show.stdout, dry.stdout, show.stderr)
		}
		js := schedtoolIn(t, dir, "show", "-o", "json", "p.plan")
		if js.stdout != string(mustRead(t, filepath.Join(dir, "p.plan"))) {
			t.Errorf("%v: show -o json is not the plan", args)
		}
		doc, err := savedplan.Open(filepath.Join(dir, "p.plan"), "(devel)", 1<<30)
		if err != nil || doc.Summary == nil || doc.Summary.Tasks == 0 {
			t.Errorf("%v: the plan: %v", args, err)
		}
		if args[0] == "--zero-file-sinks" {
			if f := doc.Options.Flags; f["zero-file-sinks"][0] != "true" || f["resolve"][0] != "model" || f["verify"][0] != "true" {
				t.Errorf("the plan's flags: %v", f)
			}
		}
	}
}

// The stored-spec rows of a plan, applied to --out FILE, are the rows
// migrate --out FILE writes; a row published since the plan (its
// last_pub_id) is refused, the others still written (exit 2).
func TestApplyRows(t *testing.T) {
	dir := copyFixtures(t)
	// A plaintext secret in every config: the plan keeps edited bytes
	// only, never it.
	dumpPath := filepath.Join(dir, "fixtures/live_specs.ndjson")
	os.WriteFile(dumpPath, []byte(strings.ReplaceAll(string(mustRead(t, dumpPath)), `"config":{`, `"config":{"password":"hunter2-plaintext",`)), 0o644)
	// The fixture has a row that does not parse (exit 1): the others are planned.
	if r := schedtoolIn(t, dir, "migrate", "--plan", "rows.plan", "fixtures/live_specs.ndjson"); r.code != 1 {
		t.Fatalf("migrate --plan: exit %d\n%s", r.code, r.stderr)
	}
	if text := string(mustRead(t, filepath.Join(dir, "rows.plan"))); strings.Contains(text, "hunter2") || !strings.Contains(text, `"expectPubId\":`) {
		t.Errorf("the plan holds a config's secret, or no edit:\n%s", text)
	}
	if r := schedtoolIn(t, dir, "migrate", "--out", "want.ndjson", "fixtures/live_specs.ndjson"); r.code > 2 {
		t.Fatalf("migrate --out: exit %d\n%s", r.code, r.stderr)
	}
	if r := schedtoolIn(t, dir, "apply", "rows.plan"); r.code != 1 || !strings.Contains(r.stderr, "--out FILE") {
		t.Errorf("apply without --out: exit %d\n%s", r.code, r.stderr)
	}
	r := schedtoolIn(t, dir, "apply", "--out", "got.ndjson", "rows.plan")
	if r.code != 0 {
		t.Fatalf("apply --out: exit %d\n%s", r.code, r.stderr)
	}
	if got, want := mustRead(t, filepath.Join(dir, "got.ndjson")), mustRead(t, filepath.Join(dir, "want.ndjson")); !bytes.Equal(got, want) {
		t.Errorf("apply --out:\n%s\nmigrate --out:\n%s", got, want)
	}
	if a, b := fileMode(t, filepath.Join(dir, "got.ndjson")), fileMode(t, filepath.Join(dir, "want.ndjson")); a != b {
		t.Errorf("apply --out FILE is %v, migrate --out FILE %v", a, b)
	}
	if r := schedtoolIn(t, dir, "apply", "--out", "got.ndjson", "rows.plan"); r.code != 1 || !strings.Contains(r.stderr, "exists") {
		t.Errorf("apply --out over a file: exit %d\n%s", r.code, r.stderr)
	}
	// A row published since the plan.
	dump := filepath.Join(dir, "fixtures/live_specs.ndjson")
	text := string(mustRead(t, dump))
	m := regexp.MustCompile(`"last_pub_id": ?"([0-9a-f:]+)"`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no last_pub_id in the dump:\n%s", text)
	}
	doc, err := savedplan.Open(filepath.Join(dir, "rows.plan"), "(devel)", 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, row := range doc.Dumps[0].Rows {
		found = found || row.LastPubID == m[1]
	}
	os.WriteFile(dump, []byte(strings.Replace(text, m[1], "1111111111111111", 1)), 0o644)
	r = schedtoolIn(t, dir, "apply", "--out", "again.ndjson", "rows.plan")
	if found && (r.code != 2 || !strings.Contains(r.stderr, "published since the plan: last_pub_id 1111111111111111 now")) {
		t.Errorf("apply of a republished row: exit %d\n%s", r.code, r.stderr)
	}
}

// migrate -o markdown, and show -o markdown of its plan, give a
// pull-request body; a 6,000-row dump's comes in parts, each under
// GitHub's 65,536 characters, each marked.
func TestMarkdownParts(t *testing.T) {
	dir := copyFixtures(t)
	r := schedtoolIn(t, dir, "migrate", "-o", "markdown", "--verify", "fixtures/catalog")
	if r.code != 2 {
		t.Fatalf("migrate -o markdown: exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"## schedtool migrate plan", "### Verify\n\nverify: ", "### Behaviour changes", "backfills: the connector did not delay", "### Needs a person", "materialize-databricks", "<details><summary>Diff: ", "```diff\n--- a/fixtures/catalog/acmeCo/warehouse/flow.yaml"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the Markdown has no %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "<!-- schedtool part") {
		t.Errorf("a short body is cut in parts:\n%s", r.stdout)
	}

	var dump bytes.Buffer
	if err := gen.Write(&dump, 6000, 1); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "big.ndjson"), dump.Bytes(), 0o644)
	r = schedtoolIn(t, dir, "migrate", "--plan", "big.plan", "-o", "markdown", "big.ndjson")
	if r.code != 2 {
		t.Fatalf("migrate -o markdown of 6,000 rows: exit %d\n%s", r.code, r.stderr)
	}
	show := schedtoolIn(t, dir, "show", "-o", "markdown", "big.plan")
	if show.stdout != r.stdout {
		t.Errorf("show -o markdown differs from migrate -o markdown")
	}
	marker := regexp.MustCompile(`(?m)^<!-- schedtool part (\d+) of (\d+) -->$`)
	locs := marker.FindAllStringSubmatchIndex(r.stdout, -1)
	if len(locs) < 2 || locs[0][0] != 0 {
		t.Fatalf("%d bytes in %d parts", len(r.stdout), len(locs))
	}
	m := len(locs)
	diffLines := 0
	for i, loc := range locs {
		end := len(r.stdout)
		if i+1 < m {
			end = locs[i+1][0]
		}
		part := r.stdout[loc[0]:end]
		if n := utf8.RuneCountInString(part); n >= savedplan.CommentLimit {
			t.Errorf("part %d: %d characters", i+1, n)
		}
		if got := r.stdout[loc[2]:loc[3]] + "/" + r.stdout[loc[4]:loc[5]]; got != fmt.Sprintf("%d/%d", i+1, m) {
			t.Errorf("part %d is marked %s", i+1, got)
		}
		if strings.Count(part, "<details>") != strings.Count(part, "</details>") || strings.Count(part, "```")%2 != 0 {
			t.Errorf("part %d leaves a block open", i+1)
		}
		diffLines += strings.Count(part, "\n@@ materialize-") // a row's block
	}
	doc, err := savedplan.Open(filepath.Join(dir, "big.plan"), "(devel)", 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Dumps) != 1 || diffLines != len(doc.Dumps[0].Rows) || diffLines < 500 {
		t.Errorf("the parts hold %d migrated rows, the plan %d", diffLines, len(doc.Dumps[0].Rows))
	}
}

// apply --out DIR writes the tree migrate --out DIR writes; with an
// input changed since the plan it writes nothing (the tree is whole or
// not at all) and exits 2.
func TestApplyOutDir(t *testing.T) {
	dir := copyFixtures(t)
	if r := schedtoolIn(t, dir, "migrate", "--plan", "wave.plan", "fixtures/catalog"); r.code != 2 {
		t.Fatalf("migrate --plan: exit %d\n%s", r.code, r.stderr)
	}
	before := treeFiles(t, filepath.Join(dir, "fixtures"))
	r := schedtoolIn(t, dir, "apply", "--out", "outA", "wave.plan")
	if r.code != 0 || !strings.Contains(r.stderr, "written: outA/acmeCo/warehouse/flow.yaml\n") {
		t.Fatalf("apply --out DIR: exit %d\n%s", r.code, r.stderr)
	}
	if w := schedtoolIn(t, dir, "migrate", "--out", "outB", "fixtures/catalog"); w.code != 2 {
		t.Fatalf("migrate --out: exit %d\n%s", w.code, w.stderr)
	}
	sameTrees(t, "apply --out against migrate --out", treeFiles(t, filepath.Join(dir, "outA")), treeFiles(t, filepath.Join(dir, "outB")))
	sameTrees(t, "apply --out changed an input", before, treeFiles(t, filepath.Join(dir, "fixtures")))
	if r := schedtoolIn(t, dir, "apply", "--out", "outA", "wave.plan"); r.code != 1 || !strings.Contains(r.stderr, "is not empty") {
		t.Errorf("apply --out into a full directory: exit %d\n%s", r.code, r.stderr)
	}

	src := filepath.Join(dir, "fixtures/catalog/acmeCo/warehouse/flow.yaml")
	os.WriteFile(src, append(mustRead(t, src), "# a comment added since\n"...), 0o644)
	r = schedtoolIn(t, dir, "apply", "--out", "outC", "wave.plan")
	if r.code != 2 || !strings.Contains(r.stderr, "nothing written under outC") {
		t.Errorf("apply --out DIR of a changed input: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "outC")); err == nil {
		t.Errorf("outC was made")
	}
}

// apply --out DIR of a plan of stored specs writes the publishable tree
// migrate --out DIR writes, and says how to publish it.
func TestApplyRowsTree(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "live.ndjson"), mustRead(t, filepath.Join("../..", goodDump)), 0o644)
	if r := schedtoolIn(t, dir, "migrate", "--plan", "rows.plan", "live.ndjson"); r.code != 2 {
		t.Fatalf("migrate --plan: exit %d\n%s", r.code, r.stderr)
	}
	r := schedtoolIn(t, dir, "apply", "--out", "treeA", "rows.plan")
	if r.code != 0 || !strings.Contains(r.stderr, "written: treeA/flow.yaml\n") || !strings.Contains(r.stderr, "or all at once:    flowctl catalog publish --source treeA/flow.yaml") {
		t.Fatalf("apply --out DIR: exit %d\n%s", r.code, r.stderr)
	}
	if w := schedtoolIn(t, dir, "migrate", "--out", "treeB", "live.ndjson"); w.code > 2 {
		t.Fatalf("migrate --out DIR: exit %d\n%s", w.code, w.stderr)
	}
	a, b := treeFiles(t, filepath.Join(dir, "treeA")), treeFiles(t, filepath.Join(dir, "treeB"))
	if len(a) < 2 {
		t.Fatalf("treeA holds %d files", len(a))
	}
	for p, text := range b {
		b[p] = strings.ReplaceAll(text, "treeB", "treeA")
	}
	sameTrees(t, "apply --out DIR against migrate --out DIR", a, b)
}

func fileMode(t *testing.T, p string) fs.FileMode {
	t.Helper()
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode()
}
