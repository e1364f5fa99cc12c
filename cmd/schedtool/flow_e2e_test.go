package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

const (
	flowFixture  = "cmd/schedtool/testdata/inputs/flow"
	flowStrict   = "cmd/schedtool/testdata/inputs/flow/strict.ndjson"
	flowWriteDir = "cmd/schedtool/testdata/inputs/flow-write"
)

// Issue 11, end to end: each of Flow's answers where a user meets it.
// Items 1-3 (durations, timezones, overlap pairs) through validate, item 5
// (strict JSON) through validate on a dump, item 4 (DST windows) through
// explain --at, item 6 (written durations) through migrate, item 7 through
// schema model.
func TestFlowExactnessEndToEnd(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"flow-validate", []string{"validate", "-o", "json", flowFixture}, 2},
		{"flow-validate-strict", []string{"validate", flowStrict}, 2},
		{"flow-migrate-durations", []string{"migrate", flowWriteDir}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := schedtool(t, "", tc.args...)
			if r.code != tc.code {
				t.Errorf("exit code %d, want %d\nstderr: %s", r.code, tc.code, r.stderr)
			}
			golden(t, tc.name, r)
		})
	}

	// Items 1-3: the verdict per task is Flow's.
	r := schedtool(t, "", "validate", "-o", "json", flowFixture)
	var rep struct {
		Findings []struct {
			Rule, Task, Message string
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	got := map[string]string{}
	for _, f := range rep.Findings {
		got[strings.TrimPrefix(f.Task, "acmeCo/flow/")] = f.Message
	}
	want := map[string]string{ // "" : valid
		"dur-fraction": "", "dur-zero": "", "dur-week": "", "dur-years": "", "dur-micro": "", "dur-spans": "",
		"dur-bad-point":       `invalid sync schedule: baseInterval: invalid duration ".5h"`,
		"dur-too-long":        "about 292 years",
		"tz-empty-no-windows": "invalid sync schedule: 'timezone' applies only to windows; remove it or configure a window",
		"tz-empty-windows":    `invalid sync schedule: invalid timezone "" (expected an IANA name like America/New_York, or a +HH:MM offset)`,
		"tz-unsigned-offset":  `invalid sync schedule: invalid timezone "05:30" (expected`,
		"tz-localtime":        `invalid sync schedule: invalid timezone "localtime" (expected`,
		"tz-posix":            `invalid sync schedule: invalid timezone "posix/Europe/Paris" (expected`,
		"tz-signed-offset":    "", "tz-backward-link": "",
		"overlap-pair":  "invalid sync schedule: windows 1 and 0 overlap on Sun at 10:00",
		"overlap-three": "invalid sync schedule: windows 0 and 2 overlap on Sun at 10:00",
		"dst-fold":      "", "dst-london": "", "dst-gap-overnight": "",
	}
	for task, w := range want {
		g, ok := got[task]
		switch {
		case w == "" && ok:
			t.Errorf("%s: Flow accepts it, validate says %s", task, g)
		case w != "" && !strings.Contains(g, w):
			t.Errorf("%s: %q, want %q", task, g, w)
		}
	}

	// Item 5: the lone surrogate is refused as serde refuses it.
	r = schedtool(t, "", "validate", flowStrict)
	if !strings.Contains(r.stdout, `lone leading surrogate in hex escape \uD800`) || !strings.Contains(r.stdout, `duplicate key "baseInterval"`) {
		t.Errorf("strict JSON:\n%s", r.stdout)
	}

	// Item 4: window membership compares instants (docs/behaviour.md §10's vectors; the
	// runtime's jitter moves the grid, not whether the window holds).
	next := func(task, at string) time.Duration {
		t.Helper()
		r := schedtool(t, "", "explain", "-o", "json", "--at", at, "acmeCo/flow/"+task, flowFixture)
		var e struct {
			Next []struct{ UTC string } `json:"next"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &e); err != nil || len(e.Next) == 0 {
			t.Fatalf("explain %s: %v\n%s%s", task, err, r.stdout, r.stderr)
		}
		n, _ := time.Parse(time.RFC3339, e.Next[0].UTC)
		a, _ := time.Parse(time.RFC3339, at)
		return n.Sub(a)
	}
	// New York 01:00-01:30 ends at 01:30 EDT: the second 01:10 (EST) is
	// outside the 5m window, on the 4h grid.
	if d := next("dst-fold", "2026-11-01T06:10:00Z"); d <= 5*time.Minute {
		t.Errorf("the repeated 01:10 is treated as inside the window: next commit in %s", d)
	}
	// ...and the first 01:10 (EDT) is inside it.
	if d := next("dst-fold", "2026-11-01T05:10:00Z"); d > 5*time.Minute {
		t.Errorf("the first 01:10 is outside the window: next commit in %s", d)
	}
	// London 01:30-03:00 on the autumn day: 01:05Z is 01:05 GMT, after
	// the fold; the window began at the first 01:30 (BST, 00:30Z) and ends
	// at 03:00Z, so the 1m window holds.
	if d := next("dst-london", "2026-10-25T01:05:00Z"); d > time.Minute {
		t.Errorf("London: next commit in %s, want within the 1m window", d)
	}
	// An overnight window whose ends both fall in the spring gap is
	// inactive that whole local day: the 1h base, not the 5m window.
	if d := next("dst-gap-overnight", "2026-03-08T16:00:00Z"); d <= 5*time.Minute {
		t.Errorf("spring gap: next commit in %s, want the 1h base", d)
	}

	// Item 6: every duration migrate wrote fits ^\d+(s|m|h|d)$.
	r = schedtool(t, "", "migrate", flowWriteDir)
	for _, line := range strings.Split(r.stdout, "\n") {
		if i := strings.Index(line, "baseInterval: "); i >= 0 && strings.HasPrefix(line, "+") {
			v := strings.TrimSpace(line[i+len("baseInterval: "):])
			if !durationRe(v) {
				t.Errorf("migrate wrote baseInterval %q", v)
			}
		}
		if i := strings.Index(line, "interval: "); i >= 0 && strings.HasPrefix(line, "+") && strings.Contains(line, "{interval") {
			v := strings.TrimSuffix(strings.Fields(line[i+len("interval: "):])[0], ",")
			if !durationRe(v) {
				t.Errorf("migrate wrote window interval %q", v)
			}
		}
	}

	// Item 7: the schema schema model prints is Flow's.
	r = schedtool(t, "", "schema", "model")
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(r.stdout)))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("model.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("model.json")
	if err != nil {
		t.Fatal(err)
	}
	for doc, ok := range map[string]bool{
		`{"baseInterval": "90m"}`:    true,
		`{"baseInterval": "1h 30m"}`: false,
		`{"baseInterval": "banana"}`: false,
		`{"baseInterval": "4h", "timezone": "UTC", "windows": [{"interval": "15m", "start": "09:00", "end": "17:00", "days": ["Funday"]}]}`: false,
		`{"baseInterval": "4h", "timezone": "UTC", "windows": [{"interval": "15m", "start": "9:5", "end": "17:00"}]}`:                       false,
	} {
		v, _ := jsonschema.UnmarshalJSON(strings.NewReader(doc))
		if err := sch.Validate(v); (err == nil) != ok {
			t.Errorf("schema model on %s: valid %v, want %v", doc, err == nil, ok)
		}
	}
}

// durationRe is Flow's published duration pattern ^\d+(s|m|h|d)$.
func durationRe(v string) bool {
	if len(v) < 2 || !strings.ContainsRune("smhd", rune(v[len(v)-1])) {
		return false
	}
	for _, c := range v[:len(v)-1] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
