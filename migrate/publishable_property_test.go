package migrate

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/schedule/connector"
)

// Every connector schedule value migrate writes is publishable where it
// writes it (issue 24 §1): over random catalogs of every registry image,
// tag, family value, plaintext or sealed config, model schedule or none,
// with and without --zero-file-sinks, each value the migrated catalog
// holds at the family's schedule leaf that the input did not is in the
// image tag's published enum when the config is plaintext (Flow's config
// encryption refuses any other), whatever the mapping computed.
func TestPropertyMigrateWritesOnlyPublishableValues(t *testing.T) {
	reg := connector.Builtin()
	runs := 120
	if testing.Short() {
		runs = 30
	}
	tags := []string{"v1", "v2", "v3", "v4", "v5", "dev", ""}
	wrote, refused := 0, 0
	for seed := 0; seed < runs; seed++ {
		r := rand.New(rand.NewPCG(uint64(seed), 24))
		pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
		var b strings.Builder
		b.WriteString("materializations:\n")
		n := 1 + r.IntN(5)
		for i := 0; i < n; i++ {
			e := reg.Images[r.IntN(len(reg.Images))]
			image := e.Image
			if tag := pick(tags...); tag != "" {
				image += ":" + tag
			}
			var cfg string
			switch e.Family {
			case connector.FamilySyncSchedule:
				switch r.IntN(4) {
				case 0:
					cfg = "{}"
				case 1:
					cfg = `{syncSchedule: {syncFrequency: "` + pick("0s", "30s", "1m", "2m30s", "5m", "20m", "45m", "1h30m", "4h", "0") + `"}}`
				case 2:
					cfg = `{syncSchedule: {syncFrequency: "` + pick("15m", "1m", "45m") + `", timezone: UTC, fastSyncStartTime: "08:00", fastSyncStopTime: "18:00"}}`
				default:
					cfg = `{advanced: {updateDelay: "` + pick("15m", "1h", "45m") + `"}}`
				}
			case connector.FamilyUploadInterval:
				cfg = `{uploadInterval: "` + pick("1s", "5m", "15m", "7m", "0s", "1h") + `"}`
			default:
				cfg = `{upload_interval: "` + pick("PT5M", "PT1H", "PT0S") + `"}`
			}
			if r.IntN(2) == 0 {
				cfg = strings.TrimSuffix(cfg, "}")
				if cfg != "{" {
					cfg += ", "
				}
				cfg += `sops: {mac: "ENC[AES256_GCM,data:x,type:str]"}}`
			}
			fmt.Fprintf(&b, "  acmeCo/t/m%d:\n", i)
			if r.IntN(5) != 0 {
				b.WriteString("    shards: {flags: {enable-runtime-v2: \"true\"}}\n")
			}
			if r.IntN(3) == 0 {
				b.WriteString("    syncSchedule: {baseInterval: 1h}\n")
			}
			fmt.Fprintf(&b, "    endpoint:\n      connector:\n        image: %s\n        config: %s\n    bindings: []\n", image, cfg)
		}
		dir := t.TempDir()
		path := filepath.Join(dir, "flow.yaml")
		os.WriteFile(path, []byte(b.String()), 0o644)
		inputs, err := input.Resolve([]string{dir}, catalog.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		before := catalog.Load(inputs, catalog.DefaultOptions())
		opts := plan.Options{ZeroFileSinks: r.IntN(2) == 0}
		mg := &Migrator{Planner: &plan.Planner{Registry: reg, Options: opts}, Registry: reg}
		res := mg.Catalog(before)
		if len(res.Files) == 0 {
			continue
		}
		for _, f := range res.Files {
			if f.Err != "" {
				t.Fatalf("seed %d: refused: %s\n%s", seed, f.Err, b.String())
			}
			os.WriteFile(f.Path, f.New, 0o644)
		}
		after := catalog.Load(inputs, catalog.DefaultOptions())
		old := map[string]*catalog.Materialization{}
		for _, m := range before.Materializations {
			old[m.Name] = m
		}
		for _, m := range after.Materializations {
			e, tag, ok := reg.Lookup(m.Image)
			if !ok || m.Config == nil || m.Config.Effective == nil {
				continue
			}
			ptr := reg.Family(e.Family).Pointer
			if e.Family == connector.FamilySyncSchedule {
				ptr += "/syncFrequency"
			}
			now, _ := m.Config.Effective.Lookup(ptr).Str()
			was := ""
			if o := old[m.Name]; o != nil && o.Config != nil && o.Config.Effective != nil {
				was, _ = o.Config.Effective.Lookup(ptr).Str()
			}
			if now == was {
				continue
			}
			wrote++
			if !reg.Publishable(e, tag, m.Where(), now) {
				t.Fatalf("seed %d: %s: migrate wrote %s %q, which the control plane refuses in a %s config\n%s\n---\n%s",
					seed, m.Name, ptr, now, map[connector.Where]string{0: "plaintext", 1: "sealed", 2: "stored"}[m.Where()], b.String(), res.Files[0].New)
			}
		}
		for _, task := range res.Tasks {
			if strings.Contains(task.Reason, "is not in the values this image's schema publishes") {
				refused++
			}
		}
	}
	if wrote == 0 {
		t.Fatal("no run wrote a connector value: the generator misses the property")
	}
	t.Logf("%d values written, %d tasks left by the guard", wrote, refused)
}
