package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
