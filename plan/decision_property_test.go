package plan_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/census"
	"github.com/estuary/schedtool/explain"
	"github.com/estuary/schedtool/migrate"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/schedule/connector"
	"github.com/estuary/schedtool/validate"
)

// One decision, every command (issue 23 §4, docs/behaviour.md §8): over
// random tasks (runtime; model schedule absent, working or broken; every
// kind of connector schedule, sealed or plaintext, file sinks, a secret
// over it or elsewhere) and random
// registries (the deferral from some tag, or none), validate's findings,
// census's status, explain's holder and migrate's action on each task all
// follow from plan.Planner.Decide, and a migration never leaves a paced
// task unpaced.
func TestOneDecisionEveryCommand(t *testing.T) {
	runs := 60
	if testing.Short() {
		runs = 15
	}
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	seen := map[plan.Status]int{}
	seenSecret := 0
	for seed := range runs {
		r := rand.New(rand.NewPCG(uint64(seed), 23))
		reg := randomRegistry(t, r)
		var b strings.Builder
		b.WriteString("materializations:\n")
		for i := range 12 {
			b.WriteString(randomTask(r, fmt.Sprintf("acmeCo/s%d/t%02d", seed, i)))
		}
		dir := t.TempDir()
		path := filepath.Join(dir, "flow.yaml")
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		cat := load(t, path)
		if len(cat.Problems) > 0 {
			t.Fatalf("seed %d: %s\n%s", seed, cat.Problems[0].Message, b.String())
		}
		planner := &plan.Planner{Registry: reg}
		cen := &census.Census{Planner: planner}
		chk := &validate.Checker{Registry: reg}
		opts := plan.Options{ZeroFileSinks: r.IntN(2) == 0, EnableRuntimeV2: r.IntN(2) == 0, Resolve: []string{"", "model", "connector"}[r.IntN(3)]}
		mg := &migrate.Migrator{Planner: &plan.Planner{Registry: reg, Options: opts}, Registry: reg}
		res := mg.Catalog(cat)
		actions := map[string]migrate.Task{}
		for _, task := range res.Tasks {
			actions[task.Task] = task
		}
		decided := map[string]plan.Decision{}
		for _, m := range cat.Materializations {
			d := planner.Decide(m)
			decided[m.Name] = d
			where := fmt.Sprintf("seed %d, %s (opts %+v)", seed, m.Name, opts)
			if d.Entry == nil {
				if _, ok := cen.RowOf(m); ok {
					t.Errorf("%s: a census row for a task on no scheduling image", where)
				}
				continue
			}
			seen[d.Status]++

			// census
			row, ok := cen.RowOf(m)
			if !ok || row.Status != string(d.Status) {
				t.Errorf("%s: census %q, decision %q (%s)", where, row.Status, d.Status, d.Reason)
			}
			if wantDelay := delayText(d); row.Delay != wantDelay {
				t.Errorf("%s: census delay %q, decision %q", where, row.Delay, wantDelay)
			}
			if row.Remaining() != d.Status.Remaining() {
				t.Errorf("%s: census remaining %v for %s", where, row.Remaining(), d.Status)
			}

			// validate
			rules := map[string]bool{}
			for _, f := range chk.Check(m) {
				rules[f.Rule] = true
			}
			for rule, want := range map[string]bool{
				"ack-delay-stacks":          d.Status == plan.StatusStacked,
				"invalid-sync-schedule":     d.BrokenModel(),
				"requires-runtime-v2":       d.HasModel && !d.V2,
				"sync-schedule-conflict":    d.Conflict(),
				"connector-schedule-in-use": d.V2 && !d.HasModel && d.DelayKnown && d.Delay > 0,
			} {
				if rules[rule] != want {
					t.Errorf("%s: validate %s %v, decision %s (holds %s): want %v", where, rule, rules[rule], d.Status, d.Holds(), want)
				}
			}
			if d.Status == plan.StatusConflict && !rules["sync-schedule-conflict"] {
				t.Errorf("%s: conflict without sync-schedule-conflict", where)
			}

			// explain
			e := explain.Explain(m, planner, at, 3)
			if e.Holder != d.Holds() || e.Holds != d.Holds().String() || e.Status != string(d.Status) {
				t.Errorf("%s: explain holds %q status %q, decision %q %q", where, e.Holds, e.Status, d.Holds(), d.Status)
			}
			if want := delayText(d); e.Delay != want {
				t.Errorf("%s: explain delay %q, decision %q", where, e.Delay, want)
			}
			holders := map[plan.Status][]string{
				plan.StatusStacked:        {"both (stacked)"},
				plan.StatusMigrated:       {"runtime"},
				plan.StatusUnaffected:     {"none"},
				plan.StatusBlockedV1:      {"connector", "none"}, // the V1 runtime paces nothing
				plan.StatusReady:          {"connector"},
				plan.StatusReadyNeedsFlag: {"connector"},
				plan.StatusConflict:       {"runtime", "both (stacked)"},
			}[d.Status]
			if d.BrokenModel() {
				holders = []string{"connector", "none"}
			}
			if holders != nil && !slices.Contains(holders, e.Holds) {
				t.Errorf("%s: explain says %q for %s", where, e.Holds, d.Status)
			}

			// migrate: its action follows from the status, whatever the flags.
			task, ok := actions[m.Name]
			if !ok {
				t.Errorf("%s: not in migrate's report", where)
				continue
			}
			act := plan.Action(task.Action)
			okAct := false
			switch d.Status {
			case plan.StatusMigrated, plan.StatusUnaffected:
				okAct = act == plan.None
			case plan.StatusBlockedV1:
				okAct = act == plan.Skip || (opts.EnableRuntimeV2 && (act == plan.Migrate || act == plan.Review))
			case plan.StatusConflict:
				okAct = act == plan.Review || act == plan.Migrate
			case plan.StatusStacked:
				okAct = act == plan.Migrate || act == plan.Skip || act == plan.Review
			case plan.StatusReady:
				okAct = act == plan.Migrate
			case plan.StatusReadyNeedsFlag:
				okAct = (act == plan.Skip) != opts.ZeroFileSinks && (act == plan.Skip || act == plan.Migrate)
			case plan.StatusNeedsReview:
				okAct = act == plan.Review
			}
			if !okAct {
				t.Errorf("%s: migrate %s for a task %s (%s)", where, act, d.Status, task.Reason)
			}
			if d.BrokenModel() && (task.Model != nil || task.Connector != "" || len(task.Files) > 0) {
				t.Errorf("%s: migrate edits a task whose model schedule does not work: %+v", where, task)
			}

			// A secret over the schedule (docs/behaviour.md §4.5): unknown
			// in every command, configured for the conflict rule, never
			// ready, stacked, migrated or unaffected, never written.
			covered := secretCovers(m)
			if covered != (len(d.Secrets) > 0) || covered != rules["secret-schedule"] {
				t.Errorf("%s: secret covers the schedule %v; decision names %d secrets, validate secret-schedule %v", where, covered, len(d.Secrets), rules["secret-schedule"])
			}
			if covered {
				seenSecret++
				switch d.Status {
				case plan.StatusReady, plan.StatusReadyNeedsFlag, plan.StatusStacked, plan.StatusMigrated, plan.StatusUnaffected:
					t.Errorf("%s: a schedule under a secret is %s", where, d.Status)
				}
				if d.DelayKnown || row.Delay != "unknown" || row.Kind != "secret" || (d.HasModel && !d.BrokenModel() && d.Entry.Family == connector.FamilySyncSchedule && !d.Conflict()) {
					t.Errorf("%s: a schedule under a secret: delay known %v, census %s %s, conflict %v", where, d.DelayKnown, row.Kind, row.Delay, d.Conflict())
				}
				if act == plan.Migrate || task.Model != nil || task.Connector != "" || len(task.Files) > 0 {
					t.Errorf("%s: migrate writes a task whose schedule is under a secret: %+v", where, task)
				}
			}
		}

		// Migrated, each task is paced as before (never unpaced), and a
		// task migrate changed is then migrated (or unaffected: --absent=drop
		// is not among the flags here).
		if len(res.Files) == 0 {
			continue
		}
		if len(res.Files) != 1 || res.Files[0].Err != "" {
			t.Fatalf("seed %d: files %+v", seed, res.Files)
		}
		if err := os.WriteFile(path, res.Files[0].New, 0o644); err != nil {
			t.Fatal(err)
		}
		after := load(t, path)
		for _, m := range after.Materializations {
			before, now := decided[m.Name], planner.Decide(m)
			if before.Entry == nil {
				continue
			}
			where := fmt.Sprintf("seed %d, %s (opts %+v)", seed, m.Name, opts)
			paced := func(d plan.Decision) bool { return d.RuntimePaces() || d.ConnectorPaces() }
			if paced(before) && !paced(now) {
				t.Errorf("%s: unpaced by migrate: %s (%s) became %s (%s)", where, before.Status, before.Holds(), now.Status, now.Holds())
			}
			if actions[m.Name].Action == plan.Migrate && now.Status != plan.StatusMigrated {
				t.Errorf("%s: migrated, yet %s (%s)", where, now.Status, now.Reason)
			}
		}
	}
	if seenSecret == 0 {
		t.Error("no task had a secret over its schedule: the generator misses it")
	}
	for _, s := range []plan.Status{plan.StatusNeedsReview, plan.StatusBlockedV1, plan.StatusConflict, plan.StatusStacked, plan.StatusMigrated, plan.StatusUnaffected, plan.StatusReady, plan.StatusReadyNeedsFlag} {
		if seen[s] == 0 {
			t.Errorf("no task was %s: the generator misses a status", s)
		}
	}
}

func load(t *testing.T, path string) *catalog.Catalog {
	t.Helper()
	in, err := input.Resolve([]string{path}, catalog.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return catalog.Load(in, catalog.DefaultOptions())
}

// delayText is the effective delay as census and explain print it.
func delayText(d plan.Decision) string {
	switch {
	case !d.DelayKnown:
		return "unknown"
	case d.Delay == 0:
		return "0s"
	}
	return connector.FormatDelay(d.Delay)
}

// randomRegistry is the builtin registry with the deferral, on some
// images, from a random tag (or none).
func randomRegistry(t *testing.T, r *rand.Rand) *connector.Registry {
	t.Helper()
	since := func() string {
		return []string{"", "v1", "v4", "v5", "v10"}[r.IntN(5)]
	}
	doc := fmt.Sprintf(`{"images": [
		{"image": "ghcr.io/estuary/materialize-snowflake", "family": "syncSchedule", "updateDelayBefore": "v3", "deferralSince": %q},
		{"image": "ghcr.io/estuary/materialize-s3-csv", "family": "uploadInterval", "enum": ["1s", "1m", "5m", "15m", "30m", "1h"], "deferralSince": %q},
		{"image": "ghcr.io/estuary/materialize-s3-iceberg", "family": "upload_interval", "deferralSince": %q}]}`, since(), since(), since())
	o, err := connector.ParseRegistry([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	reg, err := connector.Builtin().Extend(o)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func pick(r *rand.Rand, xs ...string) string { return xs[r.IntN(len(xs))] }

// randomTask is one materialization, with its config inline.
func randomTask(r *rand.Rand, name string) string {
	var b strings.Builder
	b.WriteString("  " + name + ":\n")
	switch r.IntN(5) {
	case 0: // V1
	case 1:
		b.WriteString("    shards: {flags: {enable-runtime-v2: \"TRUE\"}}\n") // not V2
	default:
		b.WriteString("    shards: {flags: {enable-runtime-v2: \"true\"}}\n")
	}
	switch r.IntN(8) {
	case 0, 1, 2: // none
	case 3:
		b.WriteString("    syncSchedule: null\n")
	case 4, 5: // working
		b.WriteString("    syncSchedule: " + pick(r, "{baseInterval: 1h}", "{baseInterval: 15m}", `{baseInterval: 4h, timezone: UTC, windows: [{interval: 15m, start: "09:00", end: "17:00"}]}`) + "\n")
	default: // broken: Flow refuses it, or schedtool cannot evaluate it
		b.WriteString("    syncSchedule: " + pick(r, "{}", "false", "{baseInterval: 4h, timezone: America/New_York}", "{baseInterval: 99999999999h}", "{baseInterval: 1h, timeZone: UTC}", `{baseInterval: 1h, windows: [{interval: 5m, start: "09:00", end: "09:00"}], timezone: UTC}`) + "\n")
	}
	const enc = `"ENC[AES256_GCM,data:x]"`
	var image, cfg string
	switch r.IntN(3) {
	case 0, 1:
		image = "ghcr.io/estuary/materialize-snowflake:" + pick(r, "v4", "v5", "v6", "dev")
		cfg = pick(r,
			"{host: h}",                   // the 30m default
			"{host: h, syncSchedule: {}}", // empty: the default
			`{host: h, syncSchedule: {syncFrequency: "0s"}}`, // zero
			"{host: h, syncSchedule: {syncFrequency: 1h}}",   // fixed
			"{host: h, syncSchedule: {syncFrequency: 45m}}",  // off-enum
			`{host: h, syncSchedule: {syncFrequency: 15m, timezone: UTC, fastSyncStartTime: "09:00", fastSyncStopTime: "17:00"}}`,
			"{host: h, syncSchedule: {syncFrequency: soon}}",                                                                        // invalid
			"{host: h, syncSchedule: {syncFrequency: "+enc+"}, sops: {mac: x}}",                                                     // sealed, unknown
			"{host: "+enc+", syncSchedule: {syncFrequency: 1h}, sops: {mac: x, encrypted_regex: ^host$}}",                           // sealed, schedule plaintext
			"{host: "+enc+", sops: {mac: x}}",                                                                                       // sealed, the default
			"{host: "+enc+", syncSchedule: {syncFrequency: "+enc+"}, sops: {mac: x, overlay: {syncSchedule: {syncFrequency: 2h}}}}", // overlay
		)
	default:
		if r.IntN(4) == 0 {
			image = "ghcr.io/estuary/materialize-s3-iceberg:" + pick(r, "v1", "v5")
			cfg = pick(r, "{bucket: b, upload_interval: PT15M}", "{bucket: b, upload_interval: PT0S}")
			break
		}
		image = "ghcr.io/estuary/materialize-s3-csv:" + pick(r, "v1", "v5", "v6")
		cfg = pick(r,
			"{bucket: b, uploadInterval: 15m}",                       // plaintext
			"{bucket: b, uploadInterval: 1h}",                        // plaintext
			`{bucket: b, uploadInterval: "0s"}`,                      // zero (off its enum)
			"{bucket: b}",                                            // missing: invalid
			"{bucket: "+enc+", uploadInterval: 15m, sops: {mac: x}}", // sealed, interval plaintext
			"{bucket: b, uploadInterval: "+enc+", sops: {mac: x}}",   // sealed, unknown
		)
	}
	if r.IntN(12) == 0 {
		image, cfg = "ghcr.io/estuary/materialize-postgres:v4", "{address: pg}"
	}
	if r.IntN(4) == 0 {
		// Flow's secrets stanza (docs/behaviour.md §4.5): a pointer that
		// covers the schedule of one family or another, or none.
		b.WriteString("    secrets: {" + name + "-secret: " + pick(r, `""`, "/syncSchedule", "/syncSchedule/syncFrequency", "/SyncSchedule/timezone", "/uploadInterval", "/upload_interval", "/host", "/credentials/password", "/syncScheduleX") + "}\n")
	}
	b.WriteString("    endpoint: {connector: {image: " + image + ", config: " + cfg + "}}\n    bindings: []\n")
	return b.String()
}

// secretCovers says, apart from the code under test, whether a task's
// secret covers its image's schedule: the pointers randomTask writes
// that equal, are above or are below its family's location.
func secretCovers(m *catalog.Materialization) bool {
	covering := map[string][]string{
		"ghcr.io/estuary/materialize-snowflake":  {"", "/syncSchedule", "/syncSchedule/syncFrequency", "/SyncSchedule/timezone"},
		"ghcr.io/estuary/materialize-s3-csv":     {"", "/uploadInterval"},
		"ghcr.io/estuary/materialize-s3-iceberg": {"", "/upload_interval"},
	}
	name, _ := connector.SplitImage(m.Image)
	for _, s := range m.Secrets() {
		if slices.Contains(covering[name], s.Pointer) {
			return true
		}
	}
	return false
}
