package report

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/estuary/schedtool/finding"
)

// FuzzWriters writes a finding of arbitrary text in every format: no
// panic; json and sarif are valid JSON that give the message back; text
// and github hold no raw control or bidi character, one line per finding;
// SARIF's uri parses as a URI reference.
func FuzzWriters(f *testing.F) {
	f.Add("acmeCo/m", "flow.yaml", "/endpoint", "invalid duration \"x\"", 3, 7, 0)
	f.Add("a\nFAKE: b", "dir #1/é.yaml", "/a~1b", "\x1b[2J\u009b\u202e%0A::error::x", 1, 1, 1)
	f.Add("", "<stdin>", "", "bad\xffutf8 \r\n", 0, -1, 2)
	f.Fuzz(func(t *testing.T, task, file, ptr, msg string, line, col, sev int) {
		fd := finding.Finding{Rule: finding.ParseError, Severity: []finding.Severity{finding.Error, finding.Warning, finding.Info}[(sev%3+3)%3],
			Task: task, Pos: finding.Position{File: file, Line: line, Column: col, Pointer: ptr}, Message: msg}
		for _, format := range Formats {
			var out bytes.Buffer
			w, err := New(format, &out, "test")
			if err != nil {
				t.Fatal(err)
			}
			w.Finding(&fd)
			if err := w.End(finding.Summary{Errors: 1, Tasks: 1, Files: 1}); err != nil {
				t.Fatalf("%s: %v", format, err)
			}
			s := out.String()
			switch format {
			case "json", "sarif":
				var doc any
				if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
					t.Fatalf("%s is not JSON: %v\n%s", format, err, s)
				}
				var doc2 struct {
					Findings []struct{ Message string } `json:"findings"`
					Runs     []struct {
						Results []struct{ Message struct{ Text string } } `json:"results"`
					} `json:"runs"`
				}
				json.Unmarshal(out.Bytes(), &doc2)
				got := ""
				if format == "json" && len(doc2.Findings) == 1 {
					got = doc2.Findings[0].Message
				} else if format == "sarif" && len(doc2.Runs) == 1 && len(doc2.Runs[0].Results) == 1 {
					got = doc2.Runs[0].Results[0].Message.Text
				}
				if utf8.ValidString(msg) && got != msg {
					t.Errorf("%s gives the message %q back as %q", format, msg, got)
				}
				if format == "sarif" {
					var sarif struct {
						Runs []struct {
							Results []struct {
								Locations []struct {
									PhysicalLocation struct {
										ArtifactLocation struct{ URI string } `json:"artifactLocation"`
									} `json:"physicalLocation"`
								} `json:"locations"`
							} `json:"results"`
						} `json:"runs"`
					}
					json.Unmarshal(out.Bytes(), &sarif)
					uri := sarif.Runs[0].Results[0].Locations[0].PhysicalLocation.ArtifactLocation.URI
					if u, err := url.Parse(uri); err != nil || u.Scheme != "" || u.Opaque != "" || u.Host != "" || u.User != nil {
						t.Errorf("sarif uri %q of %q is not a relative reference (%v)", uri, file, err)
					}
				}
			case "text", "github":
				for _, r := range s {
					if r != '\n' && Unsafe(r) {
						t.Fatalf("%s wrote a raw %U:\n%q", format, r, s)
					}
				}
				if n := strings.Count(s, "\n"); format == "github" && n != 2 {
					t.Errorf("github: %d lines for one finding and the summary:\n%s", n, s)
				}
			}
		}
	})
}
