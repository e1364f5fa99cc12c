package pgsource_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/catalog/pgsource"
	"github.com/estuary/schedtool/catalog/pgsource/pgtest"
	"github.com/estuary/schedtool/migrate"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/schedule/connector"
)

// Migrating from PostgreSQL into --out DIR writes a source per migrated
// task that the catalog reader loads back: the task, its model schedule,
// its connector zeroed, and expectPubId, the row's flowid as 16 hex
// digits; DIR/flow.yaml loads them all.
func TestMigrateIntoATree(t *testing.T) {
	db, dump := load(t, 400)
	dir, sum, out, errb, err := migrateTree(t, db.BypassURL, "json")
	if err != nil || sum.Failed > 0 || sum.Refused > 0 {
		t.Fatalf("%v %+v\n%s", err, sum, errb.String())
	}
	var rep struct {
		Tasks []struct {
			Task, Action string
			Files        []string
		}
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	// The ids as the table holds them (flowid prints as 12:34:...).
	ids := map[string]string{}
	for _, r := range materializations(t, dump) {
		ids[r.Name], _ = migrate.PubID(r.Pub)
	}
	written := map[string]bool{}
	for _, task := range rep.Tasks {
		if task.Action != "migrate" {
			continue
		}
		want := filepath.Join(dir, filepath.FromSlash(task.Task), "flow.yaml")
		if len(task.Files) != 1 || task.Files[0] != want {
			t.Errorf("%s: files %v, want %s", task.Task, task.Files, want)
			continue
		}
		cat := loadSource(t, want)
		if len(cat.Materializations) != 1 || cat.Materializations[0].Name != task.Task {
			t.Errorf("%s: %d materializations in its source", task.Task, len(cat.Materializations))
			continue
		}
		checkTask(t, cat.Materializations[0], ids[task.Task])
		written[task.Task] = true
	}
	if len(written) < 50 || sum.Written != len(written) {
		t.Fatalf("%d tasks written (summary %d); the generated rows should migrate more", len(written), sum.Written)
	}
	cat := loadSource(t, filepath.Join(dir, "flow.yaml"))
	if len(cat.Materializations) != len(written) {
		t.Errorf("flow.yaml loads %d materializations, want %d", len(cat.Materializations), len(written))
	}
	for _, m := range cat.Materializations {
		if !written[m.Name] {
			t.Errorf("flow.yaml loads %s, which was not written", m.Name)
		}
		checkTask(t, m, ids[m.Name])
	}
}

func loadSource(t *testing.T, path string) *catalog.Catalog {
	t.Helper()
	inputs, err := input.Resolve([]string{path}, catalog.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	cat := catalog.Load(inputs, catalog.DefaultOptions())
	for _, p := range cat.Problems {
		t.Errorf("%s:%d: %s", p.Pos.File, p.Pos.Line, p.Message)
	}
	return cat
}

func checkTask(t *testing.T, m *catalog.Materialization, id string) {
	t.Helper()
	if got, _ := m.Spec.Get("expectPubId").Str(); got != id || len(id) != 16 {
		t.Errorf("%s: expectPubId %q, want %q", m.Name, got, id)
	}
	if ms := m.ModelSchedule(); ms == nil || ms.Get("baseInterval") == nil {
		t.Errorf("%s: no model schedule", m.Name)
	}
	if m.Config == nil || m.Config.Effective == nil {
		t.Errorf("%s: no config", m.Name)
		return
	}
	reg := connector.Builtin()
	entry, _, res := m.ConnectorSchedule(reg)
	if entry == nil {
		t.Errorf("%s: not a scheduling image", m.Name)
		return
	}
	// Zeroed: the off state of its family (file sinks keep their interval
	// unless --zero-file-sinks, and say so with a model schedule beside it).
	if entry.Family == connector.FamilySyncSchedule {
		got, _ := json.Marshal(m.Config.Effective.Get("syncSchedule").Interface(nil))
		if string(got) != `{"syncFrequency":"0s"}` {
			t.Errorf("%s: connector syncSchedule %s", m.Name, got)
		}
	} else if res.Delay == 0 && !res.Known {
		t.Errorf("%s: connector schedule unknown: %+v", m.Name, res)
	}
}

// From PostgreSQL too (the first pass over the names is a second query):
// names that differ only in case are not written and need review, the
// others are; a spec stored with tabs between its tokens and exponents
// is written so that a strict YAML 1.1 reader takes it (no tab, 1.0e+3)
// and loads back as the task.
func TestMigrateIntoATreeCaseClashAndStrictYAML(t *testing.T) {
	db := pgtest.Require(t)
	spec := func(config string) string {
		return `{"shards":{"flags":{"enable-runtime-v2":"true"}},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":` + config + `}},"bindings":[]}`
	}
	plain := `{"host":"h","warehouse":"WH","syncSchedule":{"syncFrequency":"1h"}}`
	var dump bytes.Buffer
	for _, r := range []struct{ name, spec string }{
		{"acmeCo/Clash", spec(plain)},
		{"acmeCo/clash", spec(plain)},
		{"acmeCo/tabs", spec("{\t\"host\":\t\"h\",\t\"port\":\t1e3,\t\"syncSchedule\":\t{\"syncFrequency\":\t\"1h\"}}")},
	} {
		fmt.Fprintf(&dump, `{"catalog_name":%q,"spec_type":"materialization","last_pub_id":"0102030405060708","connector_image_name":"ghcr.io/estuary/materialize-snowflake","connector_image_tag":":v4","spec":%s}`+"\n", r.name, r.spec)
	}
	if _, err := db.Load(context.Background(), &dump); err != nil {
		t.Fatal(err)
	}
	dir, sum, _, errb, err := migrateTree(t, db.BypassURL, "diff")
	if err != nil || sum.Written != 1 || sum.Review() != 2 {
		t.Fatalf("%v %+v, want 1 written and 2 to review\n%s", err, sum, errb.String())
	}
	for _, want := range []string{"acmeCo/Clash (", "differs only in case from acmeCo/clash", "acmeCo/clash (", "differs only in case from acmeCo/Clash"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("notes lack %q:\n%s", want, errb.String())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "acmeCo/Clash")); err == nil {
		t.Error("acmeCo/Clash was written")
	}
	path := filepath.Join(dir, "acmeCo/tabs/flow.yaml")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.ContainsRune(src, '\t') || !bytes.Contains(src, []byte(`"port": 1.0e+3`)) {
		t.Errorf("not as a YAML 1.1 reader takes it:\n%q", src)
	}
	cat := loadSource(t, path)
	if len(cat.Materializations) != 1 {
		t.Fatalf("%d materializations", len(cat.Materializations))
	}
	checkTask(t, cat.Materializations[0], "0102030405060708")
	if port := fmt.Sprint(cat.Materializations[0].Spec.Path("endpoint", "connector", "config", "port").Interface(nil)); port != "1000" {
		t.Errorf("port = %v", cat.Materializations[0].Spec.Path("endpoint", "connector", "config", "port").Interface(nil))
	}
}

// migrateTree runs migrate --out DIR over a database URL, in the format
// given, and returns the tree's directory, the summary, the output,
// the notes and the error.
func migrateTree(t *testing.T, url, format string) (string, *migrate.Summary, *bytes.Buffer, *bytes.Buffer, error) {
	t.Helper()
	inputs, err := input.Resolve([]string{url}, openOptions())
	if err != nil {
		t.Fatal(err)
	}
	reg := connector.Builtin()
	mg := &migrate.Migrator{Planner: &plan.Planner{Registry: reg}, Registry: reg}
	dir := filepath.Join(t.TempDir(), "out")
	var out, errb bytes.Buffer
	sum, err := mg.Run(inputs, migrate.RunOptions{Load: catalog.DefaultOptions(), Mode: migrate.OutTree, Out: dir, Format: format}, &out, &errb)
	return dir, sum, &out, &errb, err
}

// openOptions are the default options with a database PATH read by Open,
// as cmd/schedtool wires them.
func openOptions() catalog.Options {
	opts := catalog.DefaultOptions()
	opts.OpenDB = pgsource.Open
	return opts
}
