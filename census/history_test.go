package census

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/schedule/connector"
)

// A census -o json document reads back as the snapshot of its census.
func TestReadSnapshotRoundTrip(t *testing.T) {
	inputs, err := input.Resolve([]string{"../fixtures/catalog"}, catalog.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)
	var out bytes.Buffer
	w, _ := NewWriter("json", &out, io.Discard, Options{Now: at})
	c := &Census{Planner: &plan.Planner{Registry: connector.Builtin()}}
	tot, err := c.Run(inputs, catalog.DefaultOptions(), w)
	if err != nil {
		t.Fatal(err)
	}
	w.End(tot)
	s, err := ReadSnapshot(&out, "h.json")
	if err != nil {
		t.Fatal(err)
	}
	want := SnapshotOf(tot, at)
	if !s.At.Equal(want.At) || s.Tasks != want.Tasks || s.Remaining != want.Remaining || s.Remaining == 0 {
		t.Errorf("read %+v, want %+v", s, want)
	}
	for _, st := range Statuses {
		if s.ByStatus[st] != want.ByStatus[st] {
			t.Errorf("%s: %d, want %d", st, s.ByStatus[st], want.ByStatus[st])
		}
	}
}

// The lanes of a census's projection read back; a history file whose
// lanes do not add up to its remaining count reads without them, as one
// without lanes (an older schedtool's) reads with none.
func TestReadSnapshotLanes(t *testing.T) {
	tot := laneTotals(t, 3, 2, 1)
	at := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)
	var out bytes.Buffer
	w, _ := NewWriter("json", &out, io.Discard, Options{Now: at, Summary: true})
	w.End(tot)
	s, err := ReadSnapshot(&out, "h.json")
	if err != nil {
		t.Fatal(err)
	}
	if s.Lanes[UnblockMigrate] != 3 || s.Lanes[UnblockRuntimeV2] != 2 || s.Lanes[UnblockPerson] != 1 {
		t.Errorf("lanes read back %v", s.Lanes)
	}
	const head = `{"version":1,"generatedAt":"2026-11-01T00:00:00Z","summary":{"tasks":3,"remaining":2,"byStatus":{"ready":2}`
	if s, err := ReadSnapshot(strings.NewReader(head+`,"projection":{"lanes":[{"lane":"migrate","remaining":1}]}}}`), "h.json"); err != nil || s.Lanes != nil {
		t.Errorf("lanes that do not add up: %v, lanes %v", err, s.Lanes)
	}
	if s, err := ReadSnapshot(strings.NewReader(head+`}}`), "h.json"); err != nil || s.Lanes != nil {
		t.Errorf("an older history file: %v, lanes %v", err, s.Lanes)
	}
}

func TestReadSnapshotRefuses(t *testing.T) {
	const summary = `"summary":{"tasks":3,"remaining":2,"byStatus":{"ready":2}}`
	for _, tc := range []struct{ name, doc, want string }{
		{"ok", `{"version":1,"generatedAt":"2026-11-01T00:00:00Z","tasks":[{"task":"a","x":[1,{}]}],` + summary + `}`, ""},
		{"unknown keys are skipped", `{"version":1,"later":{"a":[[]]},"generatedAt":"2026-11-01T00:00:00Z",` + summary + `}`, ""},
		{"newer", `{"version":2,"generatedAt":"2026-11-01T00:00:00Z",` + summary + `}`, "h.json: census document version 2 is newer than this schedtool reads (up to 1): upgrade schedtool"},
		{"no version", `{"tasks":[],` + summary + `}`, "h.json: not a census document (the output of schedtool census -o json): it has no version"},
		{"version zero", `{"version":0,"generatedAt":"2026-11-01T00:00:00Z",` + summary + `}`, "version 0"},
		{"no generatedAt", `{"version":1,` + summary + `}`, "it has no generatedAt"},
		{"no summary", `{"version":1,"generatedAt":"2026-11-01T00:00:00Z"}`, "it has no summary"},
		{"a validate report", `{"findings":[],"summary":{"errors":0}}`, "it has no version"},
		{"an array", `[1]`, "it is not a JSON object"},
		{"empty", ``, "it ends early"},
		{"cut short", `{"version":1,"tasks":[`, "it ends early"},
		{"syntax", "{\"version\":1,\n  \"tasks\":[}", "h.json:2:12: not a census document: invalid character '}'"},
		{"wrong type", "{\"version\":\"1\"}", "h.json:1:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ReadSnapshot(strings.NewReader(tc.doc), "h.json")
			if tc.want == "" {
				if err != nil || s.Remaining != 2 || s.ByStatus["ready"] != 2 || s.At.Day() != 1 {
					t.Errorf("%+v, %v", s, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// FuzzReadSnapshot reads arbitrary bytes as a history file: no panic,
// and an error or a snapshot with every status, never both or neither.
func FuzzReadSnapshot(f *testing.F) {
	f.Add(`{"version":1,"generatedAt":"2026-11-01T00:00:00Z","tasks":[{"a":[1,{}]}],"summary":{"tasks":3,"remaining":2,"byStatus":{"ready":2}}}`)
	f.Add(`{"version":2}`)
	f.Add("{\"version\":1,\n\"tasks\":[}")
	f.Add(`[`)
	f.Fuzz(func(t *testing.T, doc string) {
		s, err := ReadSnapshot(strings.NewReader(doc), "h.json")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "h.json") {
				t.Errorf("the error does not name the file: %v", err)
			}
			return
		}
		if len(s.ByStatus) != len(Statuses) || s.At.IsZero() && !strings.Contains(doc, "0001-01-01") {
			t.Errorf("snapshot %+v from %q", s, doc)
		}
	})
}

// A history file of many lines is read in memory that does not grow with
// its lines (40 MB of newlines used to keep 1.5 GB of line starts), and a
// defect after them is still placed by line and column (issue 24 §3).
func TestReadSnapshotBoundedMemory(t *testing.T) {
	const lines = 4 << 20
	blank := strings.Repeat("\n", lines)
	var out bytes.Buffer
	w, err := NewWriter("json", &out, io.Discard, Options{Now: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	w.End(&Totals{})
	for _, c := range []struct {
		name, doc, place string
	}{
		{"valid", blank + out.String(), ""},
		{"defect", blank + "  {\"version\": x}", "h.json:4194305:"},
	} {
		r := strings.NewReader(c.doc)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := ReadSnapshot(r, "h.json")
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2<<20 {
			t.Errorf("%s: reading %d blank lines allocated %d bytes", c.name, lines, alloc)
		}
		switch {
		case c.place == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.place != "" && (err == nil || !strings.HasPrefix(err.Error(), c.place)):
			t.Errorf("%s: %v, want it at %s", c.name, err, c.place)
		}
	}
	// A reader that cannot be read again gives the byte.
	_, err = ReadSnapshot(io.MultiReader(strings.NewReader("\n\n{x")), "h.json")
	if err == nil || !strings.HasPrefix(err.Error(), "h.json (byte ") {
		t.Errorf("%v", err)
	}
}
