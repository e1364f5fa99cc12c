package migrate

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/catalog/tree"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/schedule/connector"
	"github.com/estuary/schedtool/schedule/model"
	"github.com/estuary/schedtool/schemas"
)

// want is what a migrated model schedule must decode to.
type want struct {
	base     time.Duration
	tz       string
	fast     time.Duration
	start    int
	end      int
	days     []time.Weekday // nil: every day
	windowed bool
}

// randomDuration spells a random whole-second duration (with, sometimes,
// milliseconds the runtime drops) the ways a connector config can: Go's
// String(), minutes, seconds, hours with a fraction.
func randomDuration(r *rand.Rand) (string, time.Duration) {
	var d time.Duration
	switch r.IntN(4) {
	case 0:
		d = time.Duration(1+r.IntN(48)) * time.Hour
	case 1:
		d = time.Duration(1+r.IntN(600)) * time.Minute
	default:
		d = time.Duration(1+r.IntN(200_000)) * time.Second
	}
	whole := d
	switch r.IntN(5) {
	case 0:
		return fmt.Sprintf("%dm", d/time.Minute) + fmt.Sprintf("%ds", (d%time.Minute)/time.Second), whole
	case 1:
		return fmt.Sprintf("%ds", d/time.Second), whole
	case 2:
		ms := time.Duration(1+r.IntN(999)) * time.Millisecond
		return (d + ms).String(), whole
	}
	return d.String(), whole
}

// randomDays is a valid connector day spec and its days, or "" (every day).
func randomDays(r *rand.Rand) (string, []time.Weekday) {
	if r.IntN(3) == 0 {
		return "", nil
	}
	tokens := []string{"Su", "M", "T", "W", "Th", "F", "S"}
	var parts []string
	var days []time.Weekday
	for d := 0; d < 7; {
		if r.IntN(2) == 0 {
			d++
			continue
		}
		end := d + r.IntN(7-d)
		if end == d {
			parts = append(parts, tokens[d])
		} else {
			parts = append(parts, tokens[d]+"-"+tokens[end])
		}
		for x := d; x <= end; x++ {
			days = append(days, time.Weekday(x))
		}
		d = end + 2
	}
	if len(parts) == 0 {
		return "M", []time.Weekday{time.Monday}
	}
	return strings.Join(parts, ","), days
}

// A property: for random connector schedules of every family, the model
// schedule migrate writes validates against the schema `schedtool schema
// model` prints (Flow's published schema: durations ^\d+(s|m|h|d)$, its
// clock pattern, days Mon..Sun), and decodes back to the same schedule.
func TestMigratedSchedulesFitFlowsSchema(t *testing.T) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemas.Model()))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(schemas.ModelID, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(schemas.ModelID)
	if err != nil {
		t.Fatal(err)
	}
	reg := connector.Builtin()
	zones := []string{"UTC", "America/New_York", "Europe/London", "Asia/Kolkata", "Australia/Lord_Howe", "US/Eastern", "Local", "+05:30", "-03:00"}
	runs := 60
	if testing.Short() {
		runs = 10
	}
	checked := 0
	for seed := range runs {
		r := rand.New(rand.NewPCG(uint64(seed), 11))
		var b strings.Builder
		b.WriteString("materializations:\n")
		wants := map[string]want{}
		for i := range 8 {
			name := fmt.Sprintf("acmeCo/p%d/materialize-%d", seed, i)
			text, d := randomDuration(r)
			var image, cfg string
			var w want
			switch r.IntN(5) {
			case 0: // fixed
				image, cfg = "ghcr.io/estuary/materialize-snowflake:v4", fmt.Sprintf("{host: h, syncSchedule: {syncFrequency: %q}}", text)
				w = want{base: d}
			case 1: // the 30m default
				image, cfg, w = "ghcr.io/estuary/materialize-bigquery:v3", "{project_id: p}", want{base: 30 * time.Minute}
			case 2: // a file sink, sealed: a plaintext config cannot take the zero
				image, cfg = "ghcr.io/estuary/materialize-s3-parquet:v1", fmt.Sprintf(`{bucket: "ENC[AES256_GCM,data:x]", uploadInterval: %q, sops: {mac: x}}`, text)
				w = want{base: d}
			default: // alternating
				tz := zones[r.IntN(len(zones))]
				start, end := r.IntN(24*60), r.IntN(24*60)
				for end == start {
					end = r.IntN(24 * 60)
				}
				clock := func(m int) string {
					if r.IntN(3) == 0 {
						return fmt.Sprintf("%d:%02d", m/60, m%60)
					}
					return fmt.Sprintf("%02d:%02d", m/60, m%60)
				}
				days, set := randomDays(r)
				image = "ghcr.io/estuary/materialize-databricks:v3"
				cfg = fmt.Sprintf("{http_path: /sql/x, syncSchedule: {syncFrequency: %q, timezone: %q, fastSyncStartTime: %q, fastSyncStopTime: %q, fastSyncEnabledDays: %q}}", text, tz, clock(start), clock(end), days)
				wtz := tz
				if tz == "Local" {
					wtz = "UTC"
				}
				w = want{base: 4 * time.Hour, tz: wtz, fast: d, start: start, end: end, days: set, windowed: true}
			}
			wants[name] = w
			fmt.Fprintf(&b, "  %s:\n    shards:\n      flags:\n        enable-runtime-v2: \"true\"\n    endpoint:\n      connector:\n        image: %s\n        config: %s\n    bindings: []\n", name, image, cfg)
		}
		dir := t.TempDir()
		path := filepath.Join(dir, "flow.yaml")
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		inputs, err := input.Resolve([]string{path}, catalog.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		cat := catalog.Load(inputs, catalog.DefaultOptions())
		if len(cat.Problems) > 0 {
			t.Fatalf("seed %d: %s\n%s", seed, cat.Problems[0].Message, b.String())
		}
		mg := &Migrator{Planner: &plan.Planner{Registry: reg, Options: plan.Options{ZeroFileSinks: true}}, Registry: reg}
		res := mg.Catalog(cat)
		if len(res.Files) != 1 || res.Files[0].Err != "" {
			t.Fatalf("seed %d: files %+v", seed, res.Files)
		}
		for _, task := range res.Tasks {
			if task.Action != "migrate" {
				t.Fatalf("seed %d: %s not migrated: %+v", seed, task.Task, task)
			}
		}
		after, err := tree.Parse("flow.yaml", res.Files[0].New, tree.DefaultLimits)
		if err != nil {
			t.Fatal(err)
		}
		for name, w := range wants {
			n := after.Root.Path("materializations", name, "syncSchedule")
			if n == nil {
				t.Fatalf("seed %d: %s has no syncSchedule", seed, name)
			}
			v := n.Interface(nil)
			if err := sch.Validate(v); err != nil {
				t.Errorf("seed %d: %s: %v does not fit Flow's schema: %v", seed, name, v, err)
				continue
			}
			s, err := model.Decode(v)
			if err == nil {
				err = s.Validate()
			}
			if err != nil {
				t.Errorf("seed %d: %s: %v: %v", seed, name, v, err)
				continue
			}
			got := want{base: s.BaseInterval, tz: s.Timezone}
			if len(s.Windows) == 1 {
				ww := s.Windows[0]
				got.windowed, got.fast, got.start, got.end, got.days = true, ww.Interval, int(ww.Start), int(ww.End), ww.Days
			}
			if got.base != w.base || got.tz != w.tz || got.windowed != w.windowed || got.fast != w.fast || got.start != w.start || got.end != w.end || !slices.Equal(got.days, w.days) || len(s.Windows) > 1 {
				t.Errorf("seed %d: %s: decodes to %+v, want %+v (%v)", seed, name, got, w, v)
			}
			checked++
		}
	}
	if checked < runs*8 {
		t.Errorf("checked %d schedules", checked)
	}
}
