package migrate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/catalog/tree"
	"github.com/estuary/schedtool/finding"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/schedule/connector"
	"github.com/estuary/schedtool/validate"
)

// gen writes random catalogs: YAML (2 or 4 spaces, wide or compact
// sequences, LF or CRLF, comments everywhere, flow-style parts, key order
// shuffled, quoting varied) or JSON (tabs, 2 or 4 spaces, one line), over
// every schedule shape. Comments are numbered so that each can be found.
type gen struct {
	r        *rand.Rand
	comments int
	inSched  map[string]bool // comments written inside a schedule (may go)
}

func (g *gen) comment() string {
	g.comments++
	return fmt.Sprintf("# c%d", g.comments)
}

func (g *gen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

// value is an ordered value for JSON output.
type kv struct {
	k string
	v any
}
type obj []kv

func (g *gen) schedule() (image string, cfg obj, model obj, v2 bool) {
	v2 = g.r.IntN(10) < 8
	freq := g.pick("0s", "30s", "5m", "15m", "1h", "2h", "45m", "1h30m")
	switch g.r.IntN(9) {
	case 0: // absent
		image, cfg = "ghcr.io/estuary/materialize-snowflake:v4", obj{{"host", "h"}}
	case 1: // empty
		image, cfg = "ghcr.io/estuary/materialize-bigquery:v3", obj{{"project_id", "p"}, {"syncSchedule", obj{}}}
	case 2, 3: // fixed
		image, cfg = "ghcr.io/estuary/materialize-redshift:v2", obj{{"address", "db:5439"}, {"syncSchedule", obj{{"syncFrequency", freq}}}}
	case 4: // alternating
		s := obj{{"syncFrequency", freq}, {"timezone", g.pick("UTC", "America/New_York", "Europe/Berlin", "+05:30")},
			{"fastSyncStartTime", g.pick("08:00", "22:00")}, {"fastSyncStopTime", g.pick("18:00", "02:00")}}
		if g.r.IntN(2) == 0 {
			s = append(s, kv{"fastSyncEnabledDays", g.pick("M-F", "Su,T-Th", "S")})
		}
		g.r.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
		image, cfg = "ghcr.io/estuary/materialize-databricks:v3", obj{{"http_path", "/sql/x"}, {"syncSchedule", s}}
	case 5: // legacy update delay
		image, cfg = "ghcr.io/estuary/materialize-snowflake:v3", obj{{"host", "h"}, {"advanced", obj{{"updateDelay", g.pick("15m", "1h")}, {"other", "x"}}}}
	case 6: // file sink
		image, cfg = "ghcr.io/estuary/materialize-s3-parquet:v1", obj{{"bucket", "b"}, {"uploadInterval", g.pick("5m", "15m", "1h")}}
	case 7: // zero
		image, cfg = "ghcr.io/estuary/materialize-clickhouse:v1", obj{{"address", "ch"}, {"syncSchedule", obj{{"syncFrequency", "0s"}}}}
	default: // not a scheduling image
		image, cfg = "ghcr.io/estuary/materialize-postgres:v4", obj{{"address", "pg"}}
	}
	if v2 && g.r.IntN(5) == 0 {
		model = obj{{"baseInterval", g.pick("1h", "30m")}}
	}
	return
}

func (g *gen) materialization(i int) obj {
	image, cfg, model, v2 := g.schedule()
	var m obj
	if v2 {
		m = append(m, kv{"shards", obj{{"flags", obj{{"enable-runtime-v2", "true"}}}}})
	}
	if model != nil {
		m = append(m, kv{"syncSchedule", model})
	}
	m = append(m, kv{"endpoint", obj{{"connector", obj{{"image", image}, {"config", cfg}}}}})
	m = append(m, kv{"bindings", []any{obj{{"resource", obj{{"table", fmt.Sprintf("t%d", i)}}}, {"source", "acmeCo/c"}}}})
	g.r.Shuffle(len(m), func(a, b int) { m[a], m[b] = m[b], m[a] })
	return m
}

type yamlStyle struct {
	unit    string
	compact bool
	eol     string
}

var schedKeys = regexp.MustCompile(`^(syncSchedule|syncFrequency|timezone|fastSync\w+|updateDelay|uploadInterval|baseInterval|windows|- \{interval)\b`)

func (g *gen) yamlValue(b *strings.Builder, st yamlStyle, v any, ind string, sched bool) {
	switch x := v.(type) {
	case obj:
		if len(x) == 0 || g.r.IntN(6) == 0 {
			b.WriteString(" " + flowYAML(x) + g.lineComment(sched) + st.eol)
			return
		}
		b.WriteString(g.lineComment(sched) + st.eol)
		for _, f := range x {
			if g.r.IntN(6) == 0 {
				c := g.comment()
				if sched {
					g.inSched[c] = true
				}
				b.WriteString(ind + c + st.eol)
			}
			if g.r.IntN(10) == 0 {
				b.WriteString(st.eol)
			}
			b.WriteString(ind + f.k + ":")
			g.yamlValue(b, st, f.v, ind+st.unit, sched || schedKeys.MatchString(f.k) || f.k == "advanced")
		}
	case []any:
		b.WriteString(g.lineComment(sched) + st.eol)
		item := ind
		if st.compact {
			item = ind[:len(ind)-len(st.unit)]
		}
		for _, it := range x {
			o := it.(obj)
			for j, f := range o {
				if j == 0 {
					b.WriteString(item + "- " + f.k + ": " + flowYAML(f.v) + st.eol)
				} else {
					b.WriteString(item + "  " + f.k + ": " + flowYAML(f.v) + st.eol)
				}
			}
		}
	case string:
		b.WriteString(" " + g.quote(x) + g.lineComment(sched) + st.eol)
	}
}

func (g *gen) lineComment(sched bool) string {
	if g.r.IntN(4) != 0 {
		return ""
	}
	c := g.comment()
	if sched {
		g.inSched[c] = true
	}
	return "  " + c
}

func (g *gen) quote(s string) string {
	if s == "true" || strings.Contains(s, ":") || s == "" {
		return g.pick(`"`+s+`"`, `'`+s+`'`)
	}
	return g.pick(s, `"`+s+`"`, `'`+s+`'`)
}

func flowYAML(v any) string {
	switch x := v.(type) {
	case obj:
		parts := make([]string, len(x))
		for i, f := range x {
			parts[i] = f.k + ": " + flowYAML(f.v)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any:
		parts := make([]string, len(x))
		for i, it := range x {
			parts[i] = flowYAML(it)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case string:
		if s := x; s == "true" || strings.ContainsAny(s, ":,{}[]") || s == "" {
			return `"` + s + `"`
		}
		return x
	}
	return fmt.Sprint(v)
}

func jsonOut(b *strings.Builder, v any, ind, unit string) {
	nl := "\n"
	if unit == "" {
		nl = ""
	}
	switch x := v.(type) {
	case obj:
		if len(x) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{")
		for i, f := range x {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(nl + ind + unit)
			k, _ := json.Marshal(f.k)
			b.Write(k)
			b.WriteString(": ")
			jsonOut(b, f.v, ind+unit, unit)
		}
		b.WriteString(nl + ind + "}")
	case []any:
		b.WriteString("[")
		for i, it := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			jsonOut(b, it, ind+unit, "")
		}
		b.WriteString("]")
	default:
		s, _ := json.Marshal(x)
		b.Write(s)
	}
}

// catalog writes one random source file; it returns its name and text.
func (g *gen) catalog(n int) (string, string) {
	mats := make(obj, n)
	for i := range mats {
		mats[i] = kv{fmt.Sprintf("acmeCo/m%d", i), g.materialization(i)}
	}
	return g.source(mats)
}

// source writes the materializations mats as one random source file.
func (g *gen) source(mats obj) (string, string) {
	if g.r.IntN(3) == 0 {
		var b strings.Builder
		unit := g.pick("\t", "  ", "    ", "")
		jsonOut(&b, obj{{"materializations", mats}}, "", unit)
		b.WriteString("\n")
		return "flow.json", b.String()
	}
	st := yamlStyle{unit: g.pick("  ", "    "), compact: g.r.IntN(2) == 0, eol: g.pick("\n", "\n", "\r\n")}
	var b strings.Builder
	b.WriteString(g.comment() + st.eol)
	if g.r.IntN(3) == 0 {
		b.WriteString("---" + st.eol)
	}
	b.WriteString("materializations:" + st.eol)
	for _, m := range mats {
		if g.r.IntN(3) == 0 {
			b.WriteString(st.unit + g.comment() + st.eol)
		}
		b.WriteString(st.unit + m.k + ":")
		if g.r.IntN(8) == 0 {
			b.WriteString(" " + flowYAML(m.v) + st.eol)
			continue
		}
		g.yamlValue(&b, st, m.v, st.unit+st.unit, false)
	}
	b.WriteString(g.comment() + st.eol)
	return "flow.yaml", b.String()
}

// withoutSchedules removes every place a migration may change.
func withoutSchedules(v any) any {
	root, _ := v.(map[string]any)
	mats, _ := root["materializations"].(map[string]any)
	for _, m := range mats {
		spec, _ := m.(map[string]any)
		delete(spec, "syncSchedule")
		ep, _ := spec["endpoint"].(map[string]any)
		conn, _ := ep["connector"].(map[string]any)
		cfg, _ := conn["config"].(map[string]any)
		for _, k := range []string{"syncSchedule", "uploadInterval", "upload_interval"} {
			delete(cfg, k)
		}
		if adv, ok := cfg["advanced"].(map[string]any); ok {
			delete(adv, "updateDelay")
		}
	}
	return v
}

var commentRe = regexp.MustCompile(`# c\d+`)

func TestPropertyMigration(t *testing.T) {
	reg := connector.Builtin()
	hasPatch := exec.Command("patch", "--version").Run() == nil
	runs := 150
	if testing.Short() {
		runs = 30
	}
	for seed := 0; seed < runs; seed++ {
		g := &gen{r: rand.New(rand.NewPCG(uint64(seed), 7)), inSched: map[string]bool{}}
		name, text := g.catalog(1 + g.r.IntN(6))
		dir := t.TempDir()
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(text), 0o644)
		inputs, err := input.Resolve([]string{dir}, catalog.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		cat := catalog.Load(inputs, catalog.DefaultOptions())
		if len(cat.Problems) > 0 {
			t.Fatalf("seed %d: generated catalog does not load: %v\n%s", seed, cat.Problems[0].Message, text)
		}
		mg := &Migrator{Planner: &plan.Planner{Registry: reg}, Registry: reg}
		res := mg.Catalog(cat)
		for _, f := range res.Files {
			if f.Err != "" {
				t.Fatalf("seed %d: refused: %s\n%s", seed, f.Err, text)
			}
		}
		migrated := map[string]bool{}
		for _, task := range res.Tasks {
			if task.Action == "migrate" {
				migrated[task.Task] = true
			}
		}
		if len(res.Files) == 0 {
			if len(migrated) > 0 {
				t.Fatalf("seed %d: tasks to migrate but no file changes", seed)
			}
			continue
		}
		f := res.Files[0]
		newText := string(f.New)

		// 1. The result re-parses, and differs only at the schedules.
		before, _ := tree.Parse(name, []byte(text), tree.DefaultLimits)
		after, err := tree.Parse(name, f.New, tree.DefaultLimits)
		if err != nil {
			t.Fatalf("seed %d: result does not parse: %v\n%s", seed, err, newText)
		}
		if a, b := withoutSchedules(before.Root.Interface(nil)), withoutSchedules(after.Root.Interface(nil)); !reflect.DeepEqual(a, b) {
			t.Fatalf("seed %d: trees differ outside the schedules:\n%s\n---\n%s", seed, text, newText)
		}
		// 2. Bytes outside the edits are identical: the edits, applied to
		// the original, give the result, and the removed text is only
		// schedule lines.
		var diff bytes.Buffer
		Diff(&diff, name, []byte(text), f.Edits, 3)
		lines := strings.Split(diff.String(), "\n")
		added := map[string]int{}
		for _, line := range lines {
			if strings.HasPrefix(line, "+") && !strings.HasPrefix(line, "+++") {
				added[strings.TrimSpace(line[1:])]++
			}
		}
		for _, line := range lines {
			if !strings.HasPrefix(line, "-") || strings.HasPrefix(line, "---") {
				continue
			}
			if k := strings.TrimSpace(line[1:]); added[k] > 0 {
				added[k]-- // the same line, moved by an edit next to it
				continue
			} else if added[k+","] > 0 {
				added[k+","]-- // a JSON line that gained a comma
				continue
			}
			body := strings.TrimSpace(strings.TrimPrefix(line, "-"))
			body = strings.TrimSpace(commentRe.ReplaceAllString(body, ""))
			if body == "" || schedKeys.MatchString(body) || strings.HasPrefix(body, `"`) && schedKeys.MatchString(strings.Trim(strings.SplitN(body, ":", 2)[0], `"`)) ||
				strings.Contains(body, "{") || strings.HasPrefix(body, "}") || body == "]" {
				continue
			}
			t.Fatalf("seed %d: a line outside the schedules was removed: %q\n%s", seed, line, diff.String())
		}
		// Every comment outside a schedule survives.
		for _, c := range commentRe.FindAllString(text, -1) {
			if !g.inSched[c] && !strings.Contains(newText, c+"\n") && !strings.Contains(newText, c+"\r\n") && !strings.Contains(newText, c+" ") {
				if !regexp.MustCompile(regexp.QuoteMeta(c) + `\b`).MatchString(newText) {
					t.Fatalf("seed %d: comment %s lost\n%s\n---\n%s", seed, c, text, newText)
				}
			}
		}
		// 3. The diff is a real unified diff: patch turns old into new.
		if hasPatch {
			cmd := exec.Command("patch", "-s", "-p1", "--no-backup-if-mismatch", "-d", dir)
			// The diff names a/<path>, b/<path> with path as displayed.
			rel := strings.ReplaceAll(diff.String(), "a/"+path, "a/"+name)
			rel = strings.ReplaceAll(rel, "b/"+path, "b/"+name)
			cmd.Stdin = strings.NewReader(rel)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("seed %d: patch: %v\n%s\n%s", seed, err, out, rel)
			}
			got, _ := os.ReadFile(path)
			if string(got) != newText {
				t.Fatalf("seed %d: patch gives another text", seed)
			}
		} else {
			os.WriteFile(path, f.New, 0o644)
		}
		// 4. A second run finds nothing to do, and validate reports no
		// error on a migrated task.
		cat2 := catalog.Load(inputs, catalog.DefaultOptions())
		if res2 := mg.Catalog(cat2); len(res2.Files) != 0 {
			t.Fatalf("seed %d: second run changes again:\n%s\n---\n%s", seed, newText, res2.Files[0].New)
		}
		fs, _, _ := (&validate.Checker{Registry: reg}).Collect(inputs, catalog.DefaultOptions())
		for _, fd := range fs {
			if fd.Severity == finding.Error && migrated[fd.Task] {
				t.Fatalf("seed %d: validate: %s: %s\n%s", seed, fd.Task, fd.Message, newText)
			}
		}
	}
}

var _ = sort.Strings
