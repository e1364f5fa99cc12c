package savedplan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/estuary/schedtool/finding"
	"github.com/estuary/schedtool/migrate"
	"github.com/estuary/schedtool/plan"
)

// testPlan writes a small plan document and returns its bytes.
func testPlan(t testing.TB) []byte {
	path := filepath.Join(t.TempDir(), "p.plan")
	w, err := NewWriter(path, &Plan{Schedtool: "v1.2.0", Args: []string{"cat"}, Options: Options{Flags: map[string][]string{"limit": {"3"}}, Root: "."}})
	if err != nil {
		t.Fatal(err)
	}
	r := NewRecorder(w, ".")
	r.Task(&migrate.Task{Task: "acmeCo/t", File: "cat/flow.yaml", Action: "migrate", Changes: []string{"jitter"}})
	r.Task(&migrate.Task{Task: "acmeCo/u", File: "cat/flow.yaml", Action: "review", Reason: "why"})
	r.Group([]*migrate.File{{Path: "cat/flow.yaml", Old: []byte("abc"), New: []byte("aXc"), Edits: []finding.TextEdit{{Start: 1, End: 2, NewText: []byte("X")}}, Tasks: []string{"acmeCo/t"}}}, "")
	if err := w.Close(&migrate.Summary{Actions: map[plan.Action]int{plan.Migrate: 1, plan.Review: 1}, Definitions: 2}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A plan reads back as written; one made by a newer schedtool release, or
// of another layout, or edited anywhere (a byte of its content, its
// digest, bytes after it), is refused.
func TestReadRefuses(t *testing.T) {
	b := testPlan(t)
	p, err := Parse("p", b, "v1.2.0")
	if err != nil || p.Groups[0].Files[0].Edits[0].New != "X" || p.Options.Flags["limit"][0] != "3" || len(p.TaskSet) != 1 || p.TaskSet[0] != "acmeCo/t" {
		t.Fatalf("read back: %v %+v", err, p)
	}
	if cs := p.Account.Changes(); len(cs) != 1 || cs[0].Change != "jitter" || len(p.Account.reasonGroups()) != 1 {
		t.Errorf("the account: %+v", p.Account)
	}
	path := filepath.Join(t.TempDir(), "q.plan")
	os.WriteFile(path, b, 0o600)
	if q, err := Open(path, "v1.2.0", 1<<20); err != nil || q.Digest != p.Digest {
		t.Errorf("Open: %v", err)
	}
	if _, err := Open(path, "v1.2.0", 100); err == nil || !strings.Contains(err.Error(), "--max-file-size") {
		t.Errorf("Open over the size limit: %v", err)
	}
	if _, err := Parse("p", b, "(devel)+abc"); err != nil {
		t.Errorf("a development build reads a release's plan: %v", err)
	}
	for _, tc := range []struct{ self, from, to, want string }{
		{"v1.1.9", "", "", "newer than this one"},
		{"v1.2.0", `"version": 2`, `"version": 3`, "layout version 3"},
		{"v1.2.0", `"version": 2`, `"version": 1`, "plan again"},
		{"v1.2.0", `"new":"X"`, `"new":"Y"`, "does not match its digest"},
		{"v1.2.0", `"digest": "sha256:`, `"digest": "sha256:0`, "no digest"},
		{"v1.2.0", `"format": "schedtool-plan"`, `"format": "other"`, "not a schedtool plan"},
		{"v1.2.0", `"digest"`, `"digets"`, "no digest"},
		{"v1.2.0", "\n}\n", "\n}\n\n", "no digest"},
	} {
		text := strings.Replace(string(b), tc.from, tc.to, 1)
		if _, err := Parse("p", []byte(text), tc.self); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s -> %s (self %s): %v, want %q", tc.from, tc.to, tc.self, err, tc.want)
		}
	}
}

// The Markdown's parts are each under the limit, marked, each block
// closed; a line longer than a part is cut with a note.
func TestMarkdownPack(t *testing.T) {
	p, err := Parse("p", testPlan(t), "v1.2.0")
	if err != nil {
		t.Fatal(err)
	}
	var diff strings.Builder
	diff.WriteString("--- a/x\n+++ b/x\n")
	for i := range 3000 {
		diff.WriteString("+" + strings.Repeat("`", i%5) + strings.Repeat("é", 20) + "\n")
	}
	diff.WriteString("+" + strings.Repeat("y", 5000) + "\n")
	parts := Markdown(p, []byte(diff.String()), 4096)
	if len(parts) < 10 {
		t.Fatalf("%d parts", len(parts))
	}
	for i, part := range parts {
		if len(part) >= 4096 {
			t.Errorf("part %d: %d bytes", i+1, len(part))
		}
		if !strings.HasPrefix(part, PartMarker(i+1, len(parts))+"\n") {
			t.Errorf("part %d begins %q", i+1, part[:40])
		}
		if strings.Count(part, "<details>") != 1 && i > 0 || strings.Count(part, "<details>") != strings.Count(part, "</details>") {
			t.Errorf("part %d: blocks not closed:\n%s", i+1, part)
		}
		if !strings.Contains(part, "\n`````diff\n") && strings.Contains(part, "<details>") {
			t.Errorf("part %d: the fence is not longer than the diff's backtick runs", i+1)
		}
	}
	if all := strings.Join(parts, ""); !strings.Contains(all, "bytes more; schedtool show PLAN -o diff has the whole line") {
		t.Error("the long line is not cut")
	}
	one := Markdown(p, []byte("--- a/x\n+++ b/x\n+a\n"), CommentLimit)
	if len(one) != 1 || strings.Contains(one[0], "<!--") || !strings.Contains(one[0], "**2 materializations**: 1 to migrate, 1 needs review") || !strings.Contains(one[0], "`acmeCo/u` (cat/flow.yaml:0)") {
		t.Errorf("a short body: %q", one)
	}
}
