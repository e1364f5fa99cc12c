package savedplan

import (
	"strings"
	"testing"

	"github.com/estuary/schedtool/migrate"
)

func testPlan() *Plan {
	p := NewRecorder("v1.2.0", []string{"cat"}, map[string]string{"limit": "3"}, []string{"."}).Plan
	p.Groups = []Group{{Files: []File{{Path: "cat/flow.yaml", Size: 3, SHA256: Hash([]byte("abc")), Edits: []Edit{{Start: 1, End: 2, New: "X"}}, Result: Hash([]byte("aXc"))}}}}
	p.Tasks = []migrate.Task{{Task: "acmeCo/t", Action: "migrate"}}
	return p
}

// A plan reads back as written; one made by a newer schedtool release, or
// of a newer layout, or edited anywhere (a byte of its content, its
// digest), is refused.
func TestReadRefuses(t *testing.T) {
	b, err := testPlan().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if p, err := Parse("p", b, "v1.2.0"); err != nil || p.Groups[0].Files[0].Edits[0].New != "X" || p.Flags["limit"] != "3" {
		t.Fatalf("read back: %v %+v", err, p)
	}
	if _, err := Parse("p", b, "(devel)+abc"); err != nil {
		t.Errorf("a development build reads a release's plan: %v", err)
	}
	for _, tc := range []struct{ self, from, to, want string }{
		{"v1.1.9", "", "", "newer than this one"},
		{"v1.2.0", `"version": 1`, `"version": 3`, "layout version 3"},
		{"v1.2.0", `"new": "X"`, `"new": "Y"`, "does not match its digest"},
		{"v1.2.0", `"digest": "sha256:`, `"digest": "sha256:0`, "does not match its digest"},
		{"v1.2.0", `"format": "schedtool-plan"`, `"format": "other"`, "not a schedtool plan"},
		{"v1.2.0", `"digest"`, `"digets"`, "no digest"},
	} {
		text := strings.Replace(string(b), tc.from, tc.to, 1)
		if _, err := Parse("p", []byte(text), tc.self); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s -> %s (self %s): %v, want %q", tc.from, tc.to, tc.self, err, tc.want)
		}
	}
}

func TestPatch(t *testing.T) {
	got, err := Patch([]byte("abcdef"), []Edit{{Start: 0, End: 0, New: ">"}, {Start: 2, End: 4, New: "XY"}, {Start: 6, End: 6, NewBase64: []byte{0xff}}})
	if err != nil || string(got) != ">abXYef\xff" {
		t.Errorf("%q %v", got, err)
	}
	for _, es := range [][]Edit{{{Start: 3, End: 9}}, {{Start: 3, End: 4}, {Start: 2, End: 3}}, {{Start: 4, End: 3}}} {
		if _, err := Patch([]byte("abcdef"), es); err == nil {
			t.Errorf("%v fits", es)
		}
	}
}

// The Markdown's parts are each under the limit, marked, each block
// closed; a line longer than a part is cut with a note.
func TestMarkdownPack(t *testing.T) {
	p := testPlan()
	p.Marshal()
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
	if one := Markdown(p, []byte("--- a/x\n+++ b/x\n+a\n"), CommentLimit); len(one) != 1 || strings.Contains(one[0], "<!--") {
		t.Errorf("a short body: %q", one)
	}
}
