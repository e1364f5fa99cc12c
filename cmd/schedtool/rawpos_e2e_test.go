package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// rawPretty is flowctl raw get output as flowctl and jq print it: one
// field a line. Its 2nd element has a finding deep in its config, its
// last one a syntax error deep inside.
const rawPretty = "cmd/schedtool/testdata/inputs/raw-pretty/live_specs.json"

// lineCol is the line and column (in characters, from 1) where needle
// first starts in text, after a BOM.
func lineCol(t *testing.T, text []byte, needle string) (int, int) {
	t.Helper()
	text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf"))
	i := bytes.Index(text, []byte(needle))
	if i < 0 || bytes.Count(text, []byte(needle)) != 1 {
		t.Fatalf("%q is not once in the file", needle)
	}
	start := bytes.LastIndexByte(text[:i], '\n') + 1
	return bytes.Count(text[:i], []byte("\n")) + 1, utf8.RuneCount(text[start:i]) + 1
}

type rawFinding struct {
	Rule    string `json:"rule"`
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Pointer string `json:"pointer"`
}

// Findings, census rows, unreadable inputs and migrate's tasks inside a pretty-printed element of flowctl raw get output are at the
// file's line and column, with LF or CRLF line endings and a BOM.
func TestFlowctlRawPrettyPositions(t *testing.T) {
	src := mustRead(t, filepath.Join("..", "..", rawPretty))
	if bytes.Count(src, []byte("\n")) < 100 || !bytes.Contains(src, []byte("\n    \"spec\": {\n")) {
		t.Fatal("the fixture is not pretty-printed")
	}
	golden(t, "raw-pretty-validate", schedtool(t, "", "validate", rawPretty))
	golden(t, "raw-pretty-census-json", schedtool(t, "", "census", "-o", "json", rawPretty))
	golden(t, "raw-pretty-migrate-json", schedtool(t, "", "migrate", "-o", "json", rawPretty))

	dir := t.TempDir()
	crlf := filepath.Join(dir, "crlf-bom.json")
	if err := os.WriteFile(crlf, append([]byte("\xef\xbb\xbf"), bytes.ReplaceAll(src, []byte("\n"), []byte("\r\n"))...), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, v := range []struct {
		name string
		text []byte
	}{{rawPretty, src}, {crlf, mustRead(t, crlf)}} {
		// validate: every finding at its node, the deep one exactly.
		r := schedtool(t, "", "validate", "-o", "json", v.name)
		var out struct{ Findings []rawFinding }
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 2 {
			t.Fatalf("%s: exit %d, %v\n%s%s", v.name, r.code, err, r.stdout, r.stderr)
		}
		lines := strings.Split(strings.ReplaceAll(strings.TrimPrefix(string(v.text), "\xef\xbb\xbf"), "\r\n", "\n"), "\n")
		got := map[string][2]int{}
		for _, f := range out.Findings {
			got[f.Rule] = [2]int{f.Line, f.Column}
			if f.Pointer == "" {
				continue
			}
			// The node's key ends its line's text before the column.
			key := f.Pointer[strings.LastIndexByte(f.Pointer, '/')+1:]
			if f.Line < 1 || f.Line > len(lines) || f.Column < 1 || f.Column > utf8.RuneCountInString(lines[f.Line-1]) {
				t.Errorf("%s: %s at %d:%d, outside the file", v.name, f.Rule, f.Line, f.Column)
				continue
			}
			before := string([]rune(lines[f.Line-1])[:f.Column-1])
			if !strings.HasSuffix(before, `"`+key+`": `) {
				t.Errorf("%s: %s at %d:%d (%s) follows %q, not its key", v.name, f.Rule, f.Line, f.Column, f.Pointer, before)
			}
		}
		l, c := lineCol(t, v.text, `"45m"`)
		if l != 57 || got["off-enum-schedule-value"] != [2]int{l, c} {
			t.Errorf("%s: off-enum-schedule-value at %v, want %d:%d (line 57)", v.name, got["off-enum-schedule-value"], l, c)
		}
		l, c = lineCol(t, v.text, `"timezone"`)
		if got["parse-error"] != [2]int{l, c} {
			t.Errorf("%s: parse-error at %v, want %d:%d", v.name, got["parse-error"], l, c)
		}

		// census: tasks at their spec's line, the unreadable row at its error.
		r = schedtool(t, "", "census", "-o", "json", v.name)
		var cs struct {
			Tasks []struct {
				Task string
				Line int
			}
			Unreadable []struct{ Line, Column int }
		}
		if err := json.Unmarshal([]byte(r.stdout), &cs); err != nil || len(cs.Tasks) != 2 || len(cs.Unreadable) != 1 {
			t.Fatalf("%s: census %v\n%s%s", v.name, err, r.stdout, r.stderr)
		}
		// The snowflake element's "spec" key, past its catalog_name.
		at := bytes.Index(v.text, []byte("\"acmeCo/stored/materialize-snowflake\""))
		at += bytes.Index(v.text[at:], []byte("\"spec\": {"))
		l = bytes.Count(v.text[:at], []byte("\n")) + 1
		if cs.Tasks[1].Line != l || cs.Unreadable[0].Line != got["parse-error"][0] || cs.Unreadable[0].Column != got["parse-error"][1] {
			t.Errorf("%s: census at %+v, want the snowflake task at line %d (its spec) and the unreadable row at %v", v.name, cs, l, got["parse-error"])
		}

		// explain (which gives no line) finds the task; migrate names it
		// at its spec's line.
		r = schedtool(t, "", "explain", "-o", "json", "acmeCo/stored/materialize-snowflake", v.name)
		var ex struct{ Task, File string }
		if err := json.Unmarshal([]byte(r.stdout), &ex); err != nil || r.code != 0 || ex.Task != "acmeCo/stored/materialize-snowflake" || ex.File != v.name {
			t.Fatalf("%s: explain exit %d %v\n%s%s", v.name, r.code, err, r.stdout, r.stderr)
		}
		r = schedtool(t, "", "migrate", "-o", "json", v.name)
		var mg struct {
			Tasks []struct {
				Task string
				Line int
			}
		}
		if err := json.Unmarshal([]byte(r.stdout), &mg); err != nil || len(mg.Tasks) != 2 {
			t.Fatalf("%s: migrate %v\n%s%s", v.name, err, r.stdout, r.stderr)
		}
		if mg.Tasks[1].Line != l || l != 44 {
			t.Errorf("%s: migrate gives the snowflake task line %d, want %d (44)", v.name, mg.Tasks[1].Line, l)
		}

		// The CRLF file with a BOM reads as the LF one.
		if v.name == crlf {
			for _, args := range [][]string{{"validate"}, {"census", "-o", "json"}, {"migrate", "-o", "json"}} {
				want := schedtool(t, "", append(args, rawPretty)...)
				got := schedtool(t, "", append(args, crlf)...)
				if diff := cmp.Diff(strings.ReplaceAll(want.stdout, rawPretty, "SRC"), strings.ReplaceAll(got.stdout, crlf, "SRC")); diff != "" || want.code != got.code {
					t.Errorf("%v: the CRLF file with a BOM reads otherwise (-LF +CRLF):\n%s", args, diff)
				}
			}
		}
	}
}
