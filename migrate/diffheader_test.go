package migrate

import (
	"bytes"
	"strings"
	"testing"

	"github.com/estuary/schedtool/finding"
)

// An absolute path's diff header reads a/tmp/x as git's, not a//tmp/x.
func TestDiffHeaderAbsolutePath(t *testing.T) {
	for path, want := range map[string]string{
		"/tmp/c/flow.yaml": "--- a/tmp/c/flow.yaml\n+++ b/tmp/c/flow.yaml\n",
		"c/flow.yaml":      "--- a/c/flow.yaml\n+++ b/c/flow.yaml\n",
	} {
		var b bytes.Buffer
		old := []byte("a: 1\n")
		if err := Diff(&b, path, old, []finding.TextEdit{{File: path, Start: 3, End: 4, NewText: []byte("2")}}, 3); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(b.String(), want) {
			t.Errorf("%s: %q", path, b.String())
		}
	}
}
