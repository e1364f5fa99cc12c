package boilerplate

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// inputs is what a connector passes to RuntimePaces for a case, read as
// the connector reads the Open request: nil-guarded.
func inputs(c Case) (syncScheduleJSON []byte, label string) {
	if c.NilMaterialization {
		return nil, ""
	}
	if c.SyncScheduleJSON != nil {
		syncScheduleJSON = []byte(*c.SyncScheduleJSON)
	}
	if !c.NilShardTemplate && c.Label != nil {
		label = *c.Label
	}
	return syncScheduleJSON, label
}

func TestDecisionTable(t *testing.T) {
	cases := DecisionTable()
	names := map[string]bool{}
	for _, c := range cases {
		if c.Name == "" || names[c.Name] {
			t.Errorf("case %q: every case needs a name of its own", c.Name)
		}
		names[c.Name] = true
		if c.NilMaterialization && (c.NilShardTemplate || c.SyncScheduleJSON != nil || c.Label != nil) {
			t.Errorf("case %q: a nil spec has nothing else set", c.Name)
		}
		if c.NilShardTemplate && c.Label != nil {
			t.Errorf("case %q: a nil shard template has no label", c.Name)
		}
		sched, label := inputs(c)
		if got := RuntimePaces(sched, label); got != c.RuntimePaces {
			t.Errorf("case %q: RuntimePaces(%q, %q) = %v, the table says %v", c.Name, sched, label, got, c.RuntimePaces)
		}
	}

	// The table covers every schedule beside every label, a nil spec and a
	// nil shard template (docs/behaviour.md §6).
	kind := func(c Case) string {
		switch {
		case c.SyncScheduleJSON == nil:
			return "absent"
		case *c.SyncScheduleJSON == "":
			return "empty"
		case strings.TrimSpace(*c.SyncScheduleJSON) == "":
			return "whitespace"
		case strings.TrimSpace(*c.SyncScheduleJSON) == "null":
			return "null"
		}
		return "present"
	}
	label := func(c Case) string {
		if c.Label == nil {
			return "absent"
		}
		return *c.Label
	}
	seen := map[string]bool{}
	for _, c := range cases {
		switch {
		case c.NilMaterialization:
			seen["nil spec"] = true
		case c.NilShardTemplate:
			seen["nil shard template, schedule "+kind(c)] = true
		default:
			seen[kind(c)+", label "+label(c)] = true
		}
	}
	want := []string{"nil spec", "nil shard template, schedule present"}
	for _, k := range []string{"absent", "empty", "whitespace", "null", "present"} {
		for _, l := range []string{"absent", "true", "TRUE", "false"} {
			want = append(want, k+", label "+l)
		}
	}
	for _, w := range want {
		if !seen[w] {
			t.Errorf("the decision table has no case of %s", w)
		}
	}
	cases[0].Name = "changed by a caller"
	if DecisionTable()[0].Name == cases[0].Name {
		t.Error("DecisionTable must return a fresh copy")
	}
}

// The definition, written apart from RuntimePaces: a schedule that is
// not empty after trimming space and not null, and the label exactly
// "true".
func paces(syncScheduleJSON []byte, label string) bool {
	s := strings.TrimSpace(string(syncScheduleJSON))
	return s != "" && s != "null" && label == "true"
}

func TestRuntimePaces(t *testing.T) {
	for _, c := range []struct {
		sched, label string
		want         bool
	}{
		{`{"baseInterval":"4h"}`, "true", true},
		{`{}`, "true", true},
		{`{"baseInterval":"0s"}`, "true", true},
		{"not JSON", "true", true}, // Flow's build never sends it: present all the same
		{"\u00a0null\u2003", "true", false},
		{"nul", "true", true},
		{"NULL", "true", true},
		{`{"baseInterval":"4h"}`, " true", false},
		{`{"baseInterval":"4h"}`, "True", false},
		{`{"baseInterval":"4h"}`, "", false},
	} {
		if got := RuntimePaces([]byte(c.sched), c.label); got != c.want || got != paces([]byte(c.sched), c.label) {
			t.Errorf("RuntimePaces(%q, %q) = %v, want %v", c.sched, c.label, got, c.want)
		}
	}
	if RuntimePaces(nil, "true") || RuntimePaces(nil, "") {
		t.Error("RuntimePaces(nil, ...) = true")
	}
	if RuntimePacesReason == "" || strings.ContainsAny(RuntimePacesReason, "\n\t") {
		t.Errorf("RuntimePacesReason %q is not one log line", RuntimePacesReason)
	}
}

// RuntimePaces never panics, and says what the definition says, over
// random bytes and labels.
func FuzzRuntimePaces(f *testing.F) {
	for _, c := range DecisionTable() {
		sched, label := inputs(c)
		f.Add(sched, label)
	}
	f.Add([]byte("\xff\xfe null"), "true\x00")
	f.Fuzz(func(t *testing.T, sched []byte, label string) {
		if got, want := RuntimePaces(sched, label), paces(sched, label); got != want {
			t.Errorf("RuntimePaces(%q, %q) = %v, the definition says %v", sched, label, got, want)
		}
	})
}

// go.mod: the module path, go 1.25.0 (the connectors build with Go 1.25)
// and nothing else: no require, so a connector's build list gains only
// this module; no toolchain, replace or exclude.
func TestGoMod(t *testing.T) {
	b, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "//") {
			lines = append(lines, line)
		}
	}
	want := []string{"module github.com/estuary/schedtool/boilerplate", "go 1.25.0"}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("go.mod is\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// The package imports the standard library only: every connector image
// imports it, and its module requires nothing.
func TestStandardLibraryOnly(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if pkg != "github.com/estuary/schedtool/boilerplate" {
			t.Errorf("boilerplate depends on %s", pkg)
		}
	}
}
