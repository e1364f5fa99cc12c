package validate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/estuary/schedtool/bench/gen"
	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/finding"
	"github.com/estuary/schedtool/report"
	"github.com/estuary/schedtool/schedule/connector"
)

// trickyRows are specs (with %s for the name) whose findings sit in every
// place a template anchors them, in several field orders and with
// characters of several widths before them.
var trickyRows = []string{
	// A conflict, and the same shape with the fields in another order.
	`{"catalog_name":%s,"spec_type":"materialization","spec":{"shards":{"flags":{"enable-runtime-v2":"true"}},"syncSchedule":{"baseInterval":"1h"},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{"host":"h","syncSchedule":{"syncFrequency":"2h"}}}},"bindings":[]}}`,
	`{"spec":{"bindings":[{"resource":{"table":"é名😀"}}],"endpoint":{"connector":{"config":{"syncSchedule":{"syncFrequency":"2h"},"host":"hé"},"image":"ghcr.io/estuary/materialize-snowflake:v4"}},"syncSchedule":{"baseInterval":"1h"},"shards":{"flags":{"enable-runtime-v2":"true"}}},"spec_type":"materialization","catalog_name":%s}`,
	// Invalid model schedules, found inside the schedule.
	`{"catalog_name":%s,"spec_type":"materialization","spec":{"shards":{"flags":{"enable-runtime-v2":"true"}},"syncSchedule":{"baseInterval":"5x"},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-bigquery:v3","config":{"syncSchedule":{"syncFrequency":"0s"}}}}}}`,
	`{"catalog_name":%s,"spec_type":"materialization","spec":{"shards":{"flags":{"enable-runtime-v2":"true"}},"syncSchedule":{"baseInterval":"1h","windows":[{"interval":"10m","start":"25:00","end":"10:00"}]},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-bigquery:v3","config":{}}}}}`,
	// A boolean flag: two errors at two places.
	`{"catalog_name":%s,"spec_type":"materialization","spec":{"shards":{"flags":{"enable-runtime-v2":true}},"syncSchedule":{"baseInterval":"1h"},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{"host":"h"}}}}}`,
	// Sealed, with an overlay and an encrypted schedule.
	`{"catalog_name":%s,"spec_type":"materialization","spec":{"shards":{"flags":{"enable-runtime-v2":"true"}},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{"host":"ENC[AES256_GCM,data:x,iv:y,tag:z,type:str]","syncSchedule":{"syncFrequency":"ENC[AES256_GCM,data:a,iv:b,tag:c,type:str]"},"sops":{"mac":"m","overlay":{"syncSchedule":{"timezone":"UTC"}}}}}}}}`,
	// The legacy delay, a file sink off its enum, a V1 task.
	`{"catalog_name":%s,"spec_type":"materialization","spec":{"shards":{"flags":{"enable-runtime-v2":"true"}},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-motherduck:v3","config":{"advanced":{"updateDelay":"2h"}}}}}}`,
	`{"catalog_name":%s,"spec_type":"materialization","spec":{"shards":{"flags":{"enable-runtime-v2":"true"}},"syncSchedule":{"baseInterval":"5m"},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-s3-csv:v1","config":{"bucket":"b","uploadInterval":"45m"}}}}}`,
	`{"catalog_name":%s,"spec_type":"materialization","spec":{"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-redshift:v2","config":{"syncSchedule":{"syncFrequency":"not a duration"}}}}}}`,
	// An alternating schedule that crashes its connector (docs/behaviour.md §10).
	`{"catalog_name":%s,"spec_type":"materialization","spec":{"shards":{"flags":{"enable-runtime-v2":"true"}},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{"syncSchedule":{"syncFrequency":"15m","timezone":"America/New_York","fastSyncStartTime":"09:00","fastSyncStopTime":"17:00","fastSyncEnabledDays":"M"}}}}}}`,
	// No config, a null config, a local endpoint.
	`{"catalog_name":%s,"spec_type":"materialization","spec":{"shards":{"flags":{"enable-runtime-v2":"true"}},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4"}}}}`,
	`{"catalog_name":%s,"spec_type":"materialization","spec":{"shards":{"flags":{"enable-runtime-v2":"true"}},"syncSchedule":{"baseInterval":"1h"},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":null}}}}`,
	`{"catalog_name":%s,"spec_type":"materialization","spec":{"endpoint":{"local":{"command":["x"]}},"syncSchedule":{"baseInterval":"1h"}}}`,
	// Fields whose type Flow's model refuses, in several places.
	`{"catalog_name":%s,"spec_type":"materialization","spec":{"shards":{"disable":"true","flags":{"enable-runtime-v2":"true"}},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{"syncSchedule":{"syncFrequency":"1h"}}}}}}`,
	`{"catalog_name":%s,"spec_type":"materialization","spec":{"bindings":[{"resource":{"table":"é名😀"}}],"shards":{"flags":{"enable-runtime-v2":"true"},"disable":"true"},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{"syncSchedule":{"syncFrequency":"1h"}}}}}}`,
	`{"catalog_name":%s,"spec_type":"materialization","spec":{"delete":"yes","shards":{"flags":{"enable-runtime-v2":"true"}},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{}}}}}`,
	`{"catalog_name":%s,"spec_type":"materialization","spec":{"shards":{"flags":"x"},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{}}}}}`,
	`{"catalog_name":%s,"spec_type":"materialization","spec":{"bindings":[],"shards":{"flags":{"other":3,"enable-runtime-v2":null}},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{}}}}}`,
	`{"catalog_name":%s,"spec_type":"materialization","spec":{"shards":null,"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{}}}}}`,
	// A value that reads like the name, or like the stand-ins.
	`{"catalog_name":%s,"spec_type":"materialization","spec":{"shards":{"flags":{"enable-runtime-v2":"true"}},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-redshift:v4","config":{"syncSchedule":{"syncFrequency":"acmeCo/a @@schedtool-task-9d41@@ 1987654321"}}}}}}`,
}

var trickyNames = []string{"acmeCo/a", "acmeCo/é/名前/😀", "materialization", "syncSchedule", "h", "1h", "acmeCo/" + strings.Repeat("long", 40)}

// runAs validates as the command does: rendered ahead when the writer can.
func runAs(t *testing.T, c *Checker, inputs []catalog.Input, format string) string {
	t.Helper()
	var out bytes.Buffer
	w, _ := report.New(format, &out, "test")
	var sum finding.Summary
	var err error
	if r, ok := w.(report.Renderer); ok {
		sum, err = c.RunRendered(inputs, catalog.DefaultOptions(), r, func(f *finding.Finding, b []byte) {
			if b != nil {
				r.Rendered(b)
			} else {
				r.Finding(f)
			}
		})
	} else {
		sum, err = c.Run(inputs, catalog.DefaultOptions(), w.Finding)
	}
	if err != nil {
		t.Fatal(err)
	}
	w.End(sum)
	return out.String()
}

// Templates never change what validate says: every format, with and
// without them, over generated rows, the fixtures, the hostile rows and
// rows made to trip them.
func TestTemplatesChangeNothing(t *testing.T) {
	var dump bytes.Buffer
	if err := gen.Write(&dump, 3000, 7); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"../fixtures/live_specs.ndjson", "../migrate/testdata/golden/dump/in/live_specs.ndjson"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dump.Write(b)
	}
	hostile, _ := filepath.Glob("../testdata/hostile/*/*.ndjson")
	for _, f := range hostile {
		b, _ := os.ReadFile(f)
		dump.Write(bytes.TrimRight(b, "\n"))
		dump.WriteByte('\n')
	}
	for round := 0; round < 3; round++ {
		for _, name := range trickyNames {
			for _, row := range trickyRows {
				fmt.Fprintf(&dump, row+"\n", fmt.Sprintf("%q", name+fmt.Sprint(round)))
			}
		}
	}
	path := filepath.Join(t.TempDir(), "d.ndjson")
	os.WriteFile(path, dump.Bytes(), 0o644)
	inputs, err := input.Resolve([]string{path}, catalog.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range report.Formats {
		with := runAs(t, &Checker{Registry: connector.Builtin(), Crashes: connector.NewCrashFinder(crashFrom)}, inputs, format)
		without := runAs(t, &Checker{Registry: connector.Builtin(), Crashes: connector.NewCrashFinder(crashFrom), NoCache: true}, inputs, format)
		if with != without {
			t.Errorf("-o %s differs with templates:\n%s", format, cmp.Diff(without, with))
		}
		if format == "text" && !strings.Contains(with, "still paced by their connector (V1): ") {
			t.Errorf("the summary names no V1 task paced by its connector:\n%s", with[max(0, len(with)-600):])
		}
		if format == "json" && (strings.Count(with, `"rule"`) < 3*len(trickyNames)*len(trickyRows) || !strings.Contains(with, `"connector-schedule-crashes"`)) {
			t.Errorf("too few findings: the rows did not trip what they should\n%s", with)
		}
	}
	// The same rows as flowctl raw get output, every other one
	// pretty-printed: a template (made on one line) never places a finding
	// in a row over several lines.
	var raw bytes.Buffer
	raw.WriteString("[\n")
	n := 0
	for _, row := range bytes.Split(dump.Bytes(), []byte("\n")) {
		if !json.Valid(row) {
			continue
		}
		if n > 0 {
			raw.WriteString(",\n")
		}
		raw.WriteString("  ")
		if n%2 == 0 {
			json.Indent(&raw, row, "  ", "  ")
		} else {
			raw.Write(row)
		}
		n++
	}
	raw.WriteString("\n]\n")
	rawPath := filepath.Join(t.TempDir(), "raw.json")
	os.WriteFile(rawPath, raw.Bytes(), 0o644)
	inputs, err = input.Resolve([]string{rawPath}, catalog.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	with := runAs(t, &Checker{Registry: connector.Builtin(), Crashes: connector.NewCrashFinder(crashFrom)}, inputs, "json")
	without := runAs(t, &Checker{Registry: connector.Builtin(), Crashes: connector.NewCrashFinder(crashFrom), NoCache: true}, inputs, "json")
	if with != without {
		t.Errorf("raw output: -o json differs with templates:\n%s", cmp.Diff(without, with))
	}
	if strings.Count(with, `"rule"`) < 3*len(trickyNames)*len(trickyRows) {
		t.Errorf("raw output: too few findings\n%s", with)
	}
}

// Most rows of a generated dump are filled in from a template, and most
// templates are rendered ahead.
func TestTemplatesAreUsed(t *testing.T) {
	var dump bytes.Buffer
	gen.Write(&dump, 20000, 3)
	path := filepath.Join(t.TempDir(), "d.ndjson")
	os.WriteFile(path, dump.Bytes(), 0o644)
	inputs, _ := input.Resolve([]string{path}, catalog.DefaultOptions())
	c := &Checker{Registry: connector.Builtin(), Crashes: connector.NewCrashFinder(crashFrom)}
	var rendered, plain int
	w, _ := report.New("json", &bytes.Buffer{}, "")
	r := w.(report.Renderer)
	_, err := c.RunRendered(inputs, catalog.DefaultOptions(), r, func(f *finding.Finding, b []byte) {
		if f.Task == "" && b != nil {
			rendered++ // from a template: the finding carries its rule only
		} else {
			plain++
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if rendered < 5*plain {
		t.Errorf("%d findings from templates, %d the slow way", rendered, plain)
	}
}

// FuzzTemplates: a spec given to two tasks, with the second's findings
// filled in from the first's template, says what it says read the slow way.
func FuzzTemplates(f *testing.F) {
	for _, row := range trickyRows {
		i := strings.Index(row, `"spec":`)
		spec := row[i+len(`"spec":`):]
		spec = spec[:len(spec)-1]
		if strings.HasPrefix(row, `{"spec"`) {
			spec = spec[:strings.LastIndex(spec, `,"spec_type"`)]
		}
		f.Add(spec, "acmeCo/é")
	}
	f.Fuzz(func(t *testing.T, spec, name string) {
		if strings.ContainsAny(spec, "\n\r") {
			return
		}
		var dump bytes.Buffer
		for _, n := range []string{"acmeCo/x", name, "acmeCo/😀/" + name} {
			fmt.Fprintf(&dump, `{"catalog_name":%s,"spec_type":"materialization","spec":%s}`+"\n", jsonQuote(n), spec)
		}
		opts := catalog.DefaultOptions()
		opts.Stdin = bytes.NewReader(dump.Bytes())
		inputs, err := input.Resolve([]string{"-"}, opts)
		if err != nil {
			return
		}
		with := runAs(t, &Checker{Registry: connector.Builtin(), Crashes: connector.NewCrashFinder(crashFrom)}, inputs, "json")
		without := runAs(t, &Checker{Registry: connector.Builtin(), Crashes: connector.NewCrashFinder(crashFrom), NoCache: true}, inputs, "json")
		if with != without {
			t.Fatalf("differs with templates:\n%s", cmp.Diff(without, with))
		}
	})
}

func jsonQuote(s string) string {
	var b bytes.Buffer
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// A row of an unknown spec type is reported whatever its shape: the
// shape's key does not hold the spec type, so a template is no answer.
func TestUnknownSpecTypeIsReadWithTemplates(t *testing.T) {
	row := `{"catalog_name":"acmeCo/%s","spec_type":%q,"spec":{"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{}}}}}` + "\n"
	dump := fmt.Sprintf(row, "a", "materialization") + fmt.Sprintf(row, "b", "wat") + fmt.Sprintf(row, "c", "capture")
	path := filepath.Join(t.TempDir(), "d.ndjson")
	os.WriteFile(path, []byte(dump), 0o644)
	inputs, _ := input.Resolve([]string{path}, catalog.DefaultOptions())
	with := runAs(t, &Checker{Registry: connector.Builtin()}, inputs, "json")
	without := runAs(t, &Checker{Registry: connector.Builtin(), NoCache: true}, inputs, "json")
	if with != without || !strings.Contains(with, `\"wat\"`) {
		t.Errorf("differs with templates:\n%s", cmp.Diff(without, with))
	}
}
