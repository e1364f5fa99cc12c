package census

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/estuary/schedtool/report"
)

// FuzzCensusWriters writes a row and an unreadable input of arbitrary
// text in every format: no panic; json is valid JSON; csv reads back as
// one header and one row of the same width, no cell starting a formula;
// table, wide and markdown hold no raw control or bidi character, and in
// markdown no live link, image, autolink or @mention, and every table
// row has its columns; html holds input text only escaped.
func FuzzCensusWriters(f *testing.F) {
	f.Add("acmeCo/m", "ghcr.io/estuary/materialize-snowflake", "v4", "reason", "flow.yaml", "bad row")
	f.Add("a|b\n@octocat [x](https://e.vil) ![i](www.e.vil/p.png)", "=HYPERLINK(\"x\")", "\x1b[2J", "\u202eevil\u009b", "dir #1/é.yaml", "\r\n::error::x")
	f.Add("w]ww.", "0", "0", "0", "0", "0") // the fuzzer's: escaped as w\]ww., no link
	f.Fuzz(func(t *testing.T, task, image, tag, reason, file, msg string) {
		row := Row{Task: task, Image: image, Tag: tag, Family: "syncSchedule", Runtime: "v2", Kind: "fixed", Delay: "1h",
			Status: "needs-review", Reason: reason, File: file, Line: 3}
		for _, format := range Formats {
			var out bytes.Buffer
			w, err := NewWriter(format, &out, io.Discard, Options{})
			if err != nil {
				t.Fatal(err)
			}
			tot := newTotals()
			tot.add(&row)
			tot.Unreadable = 1
			w.Row(&row)
			w.Unreadable(&Unreadable{File: file, Line: 1, Column: 1, Message: msg})
			if err := w.End(tot); err != nil {
				t.Fatalf("%s: %v", format, err)
			}
			s := out.String()
			switch format {
			case "json":
				var doc any
				if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
					t.Fatalf("json: %v\n%s", err, s)
				}
			case "csv":
				recs, err := csv.NewReader(&out).ReadAll()
				if err != nil || len(recs) != 2 || len(recs[1]) != len(recs[0]) {
					t.Fatalf("csv does not read back as a header and one row (%v):\n%q", err, s)
				}
				for _, cell := range recs[1] {
					if cell != "" && strings.ContainsRune("=+-@", rune(cell[0])) && !strings.HasPrefix(cell, "-") {
						t.Errorf("csv cell starts a formula: %q", cell)
					}
				}
			default:
				for _, r := range s {
					if r != '\n' && r != '\t' && report.Unsafe(r) {
						t.Fatalf("%s wrote a raw %U:\n%q", format, r, s)
					}
				}
				if format == "html" {
					// Input text reaches the page only escaped: it makes
					// no element of its own.
					for _, m := range htmlTag.FindAllStringSubmatch(s, -1) {
						if !pageTags[strings.ToLower(m[1])] {
							t.Fatalf("html holds a <%s> element:\n%s", m[1], s)
						}
					}
				}
				if format != "markdown" {
					continue
				}
				// Escaped characters (\\, \], \[) are not markup. They
				// become a NUL, not nothing, which would join what is
				// around them ("w\]ww." is not "www.").
				plain := strings.NewReplacer(`\\`, "\x00", `\]`, "\x00", `\[`, "\x00").Replace(s)
				for _, live := range []string{"](", "://", "www.", "@" + firstWord(task)} {
					if live != "@" && strings.Contains(plain, live) {
						t.Errorf("markdown keeps %q live:\n%s", live, s)
					}
				}
				for _, line := range strings.Split(s, "\n") {
					if strings.HasPrefix(line, "| ") && strings.Count(strings.ReplaceAll(line, `\|`, ""), "|") == 0 {
						t.Errorf("markdown table row without columns: %q", line)
					}
				}
			}
		}
	})
}

var htmlTag = regexp.MustCompile(`<([a-zA-Z][a-zA-Z0-9]*)`)

// pageTags are the elements census -o html writes.
var pageTags = map[string]bool{}

func init() {
	for _, t := range strings.Fields("html head meta title style body svg defs pattern rect path circle div b span h1 h2 h3 ul li p table thead tbody tr th td g line text desc code") {
		pageTags[t] = true
	}
}

// firstWord is what follows an @ in s that could be a mention, or "".
func firstWord(s string) string {
	i := strings.IndexByte(s, '@')
	if i < 0 || i+1 >= len(s) {
		return ""
	}
	j := i + 1
	for j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
		j++
	}
	return s[i+1 : j]
}
