package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/estuary/schedtool/internal/testreq"
)

// storedLine is a dump row of a V2 snowflake task migrating from 1h, its
// spec as given (which must hold %s for the config).
func storedLine(name, config string) string {
	if config == "" {
		config = `{"host":"h.example","warehouse":"WH","syncSchedule":{"syncFrequency":"1h"}}`
	}
	return fmt.Sprintf(`{"catalog_name":%q,"spec_type":"materialization","last_pub_id":"1234ff4b568003a5","spec":{"shards":{"flags":{"enable-runtime-v2":"true"}},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":%s}},"bindings":[{"resource":{"table":"t"},"source":"acmeCo/c"}]}}`, name, config)
}

// The written sources read as the migrated specs (the ones --out FILE
// writes) with go-yaml, and with PyYAML (strict YAML 1.1) when python3
// has it: tabs between tokens, exponents and a long key in the stored
// spec included.
func TestOutTreeStrictYAMLEndToEnd(t *testing.T) {
	long := strings.Repeat("k", 1100)
	dump := strings.Join([]string{
		storedLine("acmeCo/tabs", "{\t\"host\":\t\"h\\tx\",\t\"warehouse\":\"WH\",\"syncSchedule\":{\"syncFrequency\":\t\"1h\"}}"),
		storedLine("acmeCo/exp", `{"host":"h","port":1e3,"ratio":2.5E-1,"syncSchedule":{"syncFrequency":"1h"}}`),
		storedLine("acmeCo/long", `{"host":"h","`+long+`":{"x":1},"syncSchedule":{"syncFrequency":"1h"}}`),
		storedLine("acmeCo/breaks", `{"host":"a\u2028b\u0085c\ufeffd\u0001","syncSchedule":{"syncFrequency":"1h"}}`),
	}, "\n") + "\n"
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"live.ndjson": dump})
	if r := schedtoolIn(t, dir, "migrate", "--out", "rows.ndjson", "live.ndjson"); r.code != 0 {
		t.Fatalf("--out FILE: exit %d\n%s", r.code, r.stderr)
	}
	r := schedtoolIn(t, dir, "migrate", "--out", "tree", "live.ndjson")
	if r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "4 written\n") {
		t.Fatalf("--out DIR: exit %d\nstdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	f, _ := os.Open(filepath.Join(dir, "rows.ndjson"))
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var row struct {
			Name string `json:"catalog_name"`
			Spec any    `json:"spec"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatal(err)
		}
		n++
		src := mustRead(t, filepath.Join(dir, "tree", row.Name, "flow.yaml"))
		if strings.ContainsAny(string(src), "\t\u2028\u0085\ufeff\x01") {
			t.Errorf("%s: a character YAML 1.1 refuses raw:\n%q", row.Name, src)
		}
		var doc map[string]map[string]any
		if err := yaml.Unmarshal(src, &doc); err != nil {
			t.Errorf("%s: go-yaml: %v", row.Name, err)
			continue
		}
		got, _ := json.Marshal(doc["materializations"][row.Name])
		want, _ := json.Marshal(row.Spec)
		var g, w any
		json.Unmarshal(got, &g)
		json.Unmarshal(want, &w)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s reads as\n%s\nwant\n%s", row.Name, got, want)
		}
		pyYAMLReads(t, filepath.Join(dir, "tree", row.Name, "flow.yaml"), row.Name, want)
	}
	if n != 4 {
		t.Errorf("%d migrated rows, want 4", n)
	}
}

// pyYAMLReads checks that PyYAML reads the source as materializations.
// <name> = want (JSON). Without python3 and yaml it does nothing, unless
// SCHEDTOOL_REQUIRE_PYYAML is set, which makes that a failure.
func pyYAMLReads(t *testing.T, path, name string, want []byte) {
	t.Helper()
	if err := exec.Command("python3", "-c", "import yaml").Run(); err != nil {
		if testreq.Requested(testreq.PyYAML) {
			t.Fatalf("python3 with PyYAML is missing (apt-get install python3-yaml), and %s is set: %v", testreq.PyYAML, err)
		}
		return
	}
	script := `import json, sys, yaml
got = yaml.safe_load(open(sys.argv[1], encoding="utf-8"))["materializations"][sys.argv[2]]
if got != json.loads(sys.argv[3]):
    sys.exit("reads as %r" % (got,))`
	if out, err := exec.Command("python3", "-c", script, path, name, string(want)).CombinedOutput(); err != nil {
		t.Errorf("%s: PyYAML: %v\n%s", name, err, out)
	}
}

// Names that differ only in case are one file on macOS and Windows:
// neither is written, each needs review naming the other (exit 2), and
// the other tasks are written.
func TestOutTreeCaseClashEndToEnd(t *testing.T) {
	dump := strings.Join([]string{
		storedLine("acmeCo/Foo", ""),
		storedLine("acmeCo/bar", ""),
		storedLine("acmeCo/foo", ""),
	}, "\n") + "\n"
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"live.ndjson": dump})
	r := schedtoolIn(t, dir, "migrate", "--out", "tree", "live.ndjson")
	if r.code != 2 || r.stdout != "" {
		t.Fatalf("exit %d, want 2\nstdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	expect(t, r, 2, nil, []string{
		"migrate: 3 materializations: 1 to migrate, 2 need review; 1 written\n",
		"  1 task: its catalog name differs only in case from acmeCo/foo: Flow holds one task for both (catalog names are unique regardless of case), and their sources would be one file on a case-insensitive filesystem (macOS, Windows); neither is written",
		"\n    acmeCo/Foo (live.ndjson:1)\n",
		"  1 task: its catalog name differs only in case from acmeCo/Foo:",
		"\n    acmeCo/foo (live.ndjson:3)\n",
		"schedtool: 2 tasks need review\n",
	})
	state := treeState(t, filepath.Join(dir, "tree"))
	var files []string
	for k := range state {
		files = append(files, k)
	}
	if len(state) != 2 || state["flow.yaml"] == "" || state[filepath.Join("acmeCo", "bar", "flow.yaml")] == "" {
		t.Errorf("tree holds %v, want acmeCo/bar/flow.yaml and flow.yaml", files)
	}
	// The report says so too, as a document.
	j := schedtoolIn(t, dir, "migrate", "-o", "json", "--out", "tree2", "live.ndjson")
	var doc struct {
		Tasks []struct{ Task, Action, Reason string }
	}
	if err := json.Unmarshal([]byte(j.stdout), &doc); err != nil || j.code != 2 {
		t.Fatalf("exit %d: %v\n%s", j.code, err, j.stdout)
	}
	for _, tk := range doc.Tasks {
		if clash := strings.EqualFold(tk.Task, "acmeCo/foo"); clash != (tk.Action == "review") || clash != strings.Contains(tk.Reason, "differs only in case") {
			t.Errorf("%+v", tk)
		}
	}
}

// listAll is every path under dir, directories included.
func listAll(t *testing.T, dir string) []string {
	t.Helper()
	var all []string
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil {
			rel, _ := filepath.Rel(dir, p)
			all = append(all, rel)
		}
		return nil
	})
	return all
}

// --out DIR beside catalog inputs that cannot go into a tree is refused
// before anything is written: no directory, no file, and with -o json a
// standard output that is one document, {"error": ...}, not the start of
// a report.
func TestOutDirRefusedBeforeAnything(t *testing.T) {
	src := "materializations:\n  acmeCo/a:\n    endpoint:\n      connector:\n        image: ghcr.io/estuary/materialize-snowflake:v4\n        config: {host: h, syncSchedule: {syncFrequency: 1h}}\n    shards: {flags: {enable-runtime-v2: \"true\"}}\n    bindings: []\n"
	for _, tc := range []struct {
		name, stdin string
		args        []string
		msg         string
	}{
		{"a rows-file name for a catalog file", "", []string{"--out", "m.ndjson", "a/flow.yaml"}, "--out m.ndjson: a .ndjson name is the file of a dump's migrated rows, but the inputs are catalog sources"},
		{"a .json name for a catalog directory", "", []string{"--out", "m.json", "a"}, "name a directory (m.json/ if that is its name)"},
		{"the catalog on standard input", src, []string{"--out", "m", "-"}, "--out DIR -: standard input has no place in an output tree"},
		{"standard input beside a file", src, []string{"--out", "m", "a/flow.yaml", "-"}, "--out DIR -: standard input"},
		{"two files onto one path", "", []string{"--out", "m", "a/flow.yaml", "b/flow.yaml"}, "would both be written to m/flow.yaml"},
		{"a file outside the root", "", []string{"--out", "m", "--root", "a", "a/flow.yaml", "b/flow.yaml"}, "outside"},
	} {
		for _, format := range []string{"diff", "json"} {
			t.Run(tc.name+" "+format, func(t *testing.T) {
				dir := t.TempDir()
				writeFiles(t, dir, map[string]string{"a/flow.yaml": src, "b/flow.yaml": src})
				before := listAll(t, dir)
				r := schedtoolStdin(t, dir, tc.stdin, append([]string{"migrate", "-o", format}, tc.args...)...)
				if r.code != 1 || !strings.Contains(r.stderr, tc.msg) {
					t.Errorf("exit %d, want 1 and %q\n%s", r.code, tc.msg, r.stderr)
				}
				switch format {
				case "diff":
					if r.stdout != "" {
						t.Errorf("stdout %q", r.stdout)
					}
				case "json":
					var doc map[string]any
					if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc) != 1 || !strings.Contains(fmt.Sprint(doc["error"]), tc.msg) {
						t.Errorf("stdout is not one error document: %v\n%s", err, r.stdout)
					}
				}
				if after := listAll(t, dir); !reflect.DeepEqual(after, before) {
					t.Errorf("the run left %v, was %v", after, before)
				}
			})
		}
	}
	// A directory named like a rows file is still one with a trailing /.
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a/flow.yaml": src})
	if r := schedtoolIn(t, dir, "migrate", "--out", "m.ndjson/", "a/flow.yaml"); r.code != 0 || !strings.Contains(string(mustRead(t, filepath.Join(dir, "m.ndjson/flow.yaml"))), "baseInterval") {
		t.Errorf("--out m.ndjson/: exit %d\n%s", r.code, r.stderr)
	}
}
