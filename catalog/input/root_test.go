package input

import (
	"os"
	"path/filepath"
	"testing"
)

// gitRoot climbs past every .git to the outermost work tree: a
// submodule's, a nested one's, a linked work tree's, a clone nested
// without being a submodule, and a .git file whose gitdir leads nowhere
// (a copied tree) or that names no gitdir at all; inner is the closest.
func TestGitRootOutermost(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"outer/.git/HEAD":                           "ref: refs/heads/main\n",
		"outer/.git/modules/sub/HEAD":               "x\n",
		"outer/.git/modules/sub/modules/n/HEAD":     "x\n",
		"outer/sub/.git":                            "gitdir: ../.git/modules/sub\n",
		"outer/sub/n/.git":                          "gitdir: ../../.git/modules/sub/modules/n\n",
		"outer/modules/main/.git/worktrees/wt/HEAD": "x\n",
		"outer/wt/.git":                             "gitdir: " + filepath.Join(dir, "outer/modules/main/.git/worktrees/wt") + "\n",
		"outer/vendored/.git/HEAD":                  "x\n",
		"outer/old/.git/HEAD":                       "x\n",
		"outer/.gitmodules":                         "[submodule \"old\"]\n\tpath = old\n\turl = x\n",
		"outer/broken/.git":                         "gitdir: ../.git/modules/gone\n",
		"outer/junk/.git":                           "not a gitdir line\n",
		"lone/broken/.git":                          "gitdir: /nowhere\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ at, top, sub string }{
		{"outer/sub/a", "outer/sub/a/../..", "outer/sub/a/.."},
		{"outer/sub/n", "outer/sub/n/../..", "outer/sub/n"},
		{"outer/wt", "outer/wt/..", "outer/wt"},
		{"outer/vendored", "outer/vendored/..", "outer/vendored"},
		{"outer/old", "outer/old/..", "outer/old"},
		{"outer/broken/x", "outer/broken/x/../..", "outer/broken/x/.."},
		{"outer/junk", "outer/junk/..", "outer/junk"},
		{"lone/broken", "lone/broken", ""},
		{"outer", "outer", ""},
	} {
		os.MkdirAll(filepath.Join(dir, tc.at), 0o755)
		top, sub := gitRoot(filepath.Join(dir, tc.at))
		if top != filepath.Join(dir, tc.top) || (sub == "") != (tc.sub == "") || tc.sub != "" && sub != filepath.Join(dir, tc.sub) {
			t.Errorf("%s: top %s sub %s, want %s %s", tc.at, top, sub, tc.top, tc.sub)
		}
	}
}
