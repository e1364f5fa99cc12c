package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// A failed run's document: {"error": msg} for json, a SARIF log whose
// invocation failed for sarif, nothing for the formats meant for people.
func TestFailure(t *testing.T) {
	const msg = "<stdin>: standard input is empty \x1b[31m\"quoted\""
	for _, tc := range []struct {
		format string
		ok     bool
		want   string // a part of the document
	}{
		{"json", true, `{"error":"<stdin>: standard input is empty \u001b[31m\"quoted\""}` + "\n"},
		{"sarif", true, `"executionSuccessful": false`},
		{"text", false, ""},
		{"github", false, ""},
		{"csv", false, ""},
		{"", false, ""},
	} {
		t.Run(tc.format, func(t *testing.T) {
			var b bytes.Buffer
			ok, err := Failure(&b, tc.format, "v1.2.3", msg)
			if err != nil || ok != tc.ok {
				t.Fatalf("ok %v, err %v; want ok %v", ok, err, tc.ok)
			}
			if !tc.ok {
				if b.Len() != 0 {
					t.Errorf("wrote %q", b.String())
				}
				return
			}
			if !json.Valid(b.Bytes()) || !strings.Contains(b.String(), tc.want) {
				t.Errorf("document lacks %q or is not JSON:\n%s", tc.want, b.String())
			}
			if strings.ContainsRune(b.String(), 0x1b) {
				t.Errorf("a control character reached the output: %q", b.String())
			}
		})
	}
	var b bytes.Buffer
	if _, err := Failure(&b, "sarif", "v1.2.3", msg); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name, Version string
					Rules         []struct{ ID string }
				}
			}
			Results     []any
			Invocations []struct {
				ExecutionSuccessful        bool
				ToolExecutionNotifications []struct {
					Level   string
					Message struct{ Text string }
				}
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("%+v", log)
	}
	r := log.Runs[0]
	if r.Tool.Driver.Name != "schedtool" || r.Tool.Driver.Version != "v1.2.3" || len(r.Tool.Driver.Rules) == 0 || r.Results == nil || len(r.Results) != 0 {
		t.Errorf("tool or results: %+v", r)
	}
	if len(r.Invocations) != 1 || r.Invocations[0].ExecutionSuccessful || len(r.Invocations[0].ToolExecutionNotifications) != 1 ||
		r.Invocations[0].ToolExecutionNotifications[0].Level != "error" || r.Invocations[0].ToolExecutionNotifications[0].Message.Text != msg {
		t.Errorf("invocations: %+v", r.Invocations)
	}
}
