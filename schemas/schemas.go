// Package schemas publishes JSON Schemas of the model syncSchedule and of
// the connectors' syncSchedule object, generated from the Go types, and
// checks values against them. validate uses the check for the structural
// part of decoding, so the published schema and the code cannot drift.
package schemas

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	invopop "github.com/invopop/jsonschema"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/estuary/schedtool/schedule/connector"
	"github.com/estuary/schedtool/schedule/model"
)

const (
	ModelID     = "https://schedtool.dev/schemas/model-sync-schedule.json"
	ConnectorID = "https://schedtool.dev/schemas/connector-sync-schedule.json"
)

func reflectSchema(v any, id, title, desc string) *invopop.Schema {
	r := invopop.Reflector{DoNotReference: true, ExpandedStruct: true}
	s := r.Reflect(v)
	s.ID = invopop.ID(id)
	s.Title = title
	s.Description = desc
	return s
}

func marshal(s *invopop.Schema) []byte {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

// Flow's published patterns (crates/models at estuary/flow@7bf4bae): a
// duration as one integer and one unit, and a clock time.
const (
	DurationPattern = `^\d+(s|m|h|d)$`
	ClockPattern    = `^([01]?[0-9]|2[0-3]):[0-5][0-9]$`
)

// Weekdays is the enum Flow publishes for a window's days.
var Weekdays = []any{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}

// flowDuration annotates a duration as Flow's schema describes one: a
// string or null matching DurationPattern.
func flowDuration(p *invopop.Schema, title, desc string) {
	p.Title, p.Description = title, desc
	p.Type = ""
	p.Pattern = DurationPattern
	p.Extras = map[string]any{"type": []string{"string", "null"}}
}

// Model is the JSON Schema of a materialization's syncSchedule, as Flow
// publishes it (models::SyncSchedule at estuary/flow@7bf4bae): the
// structure of the Go types validate decodes with, and Flow's titles,
// descriptions, duration and clock patterns and day enum. Flow's decoder
// accepts more than this schema describes (humantime durations such as
// "1h 30m", day names in any case); validate follows the decoder, and
// everything schedtool writes fits the schema.
func Model() []byte {
	s := reflectSchema(&model.Spec{}, ModelID, "Sync Schedule",
		"Controls how often a materialization commits transactions, trading data freshness for reduced destination compute cost. When caught up, the runtime holds an open transaction (continuing to combine new documents) until the next scheduled instant, rather than committing continuously.\n\nThe base interval applies 24/7, and any number of non-overlapping recurring local-time windows may each be given their own interval, which applies while that window is active.")
	prop := func(s *invopop.Schema, k string) *invopop.Schema {
		p, ok := s.Properties.Get(k)
		if !ok {
			panic("schemas: no property " + k)
		}
		return p
	}
	flowDuration(prop(s, "baseInterval"), "Base Interval",
		"Interval between transaction commits when the materialization is caught up, at all times not covered by a window. A value of zero commits as fast as possible.")
	tz := prop(s, "timezone")
	tz.Title, tz.Description = "Timezone", "IANA timezone name (e.g. `America/New_York`) or `+HH:MM` offset in which window times and days are interpreted. Required when windows are configured."
	ws := prop(s, "windows")
	ws.Title, ws.Description = "Windows", "Recurring local-time windows, each with its own commit interval which applies instead of the base interval while the window is active. Windows must not overlap."
	w := ws.Items
	w.Title, w.Description = "Window", "A recurring local-time window and the commit interval effective within it."
	flowDuration(prop(w, "interval"), "Interval", "Interval between transaction commits while the window is active. A value of zero commits as fast as possible.")
	start, end := prop(w, "start"), prop(w, "end")
	start.Title, start.Description, start.Pattern = "Start", "Local time of day (`HH:MM`) at which the window opens.", ClockPattern
	end.Title, end.Description, end.Pattern = "End", "Local time of day (`HH:MM`) at which the window closes. The window may straddle midnight (`end` earlier than `start`).", ClockPattern
	days := prop(w, "days")
	days.Title, days.Description = "Days", "Days of the week on which the window applies (e.g. `[Mon, Fri]`). All days if not set."
	days.Items.Enum = Weekdays
	return marshal(s)
}

// Connector is the JSON Schema of the connectors' syncSchedule object, as
// the connectors publish it: titles, whole descriptions, the enum of
// syncFrequency, the clock pattern, and the UI's order and nonsensitive
// annotations.
func Connector() []byte {
	s := reflectSchema(&connector.SyncScheduleSpec{}, ConnectorID, "Connector sync schedule",
		"The syncSchedule object of a warehouse connector's endpoint config (connector-side pacing).")
	for i, k := range connector.SyncScheduleKeys {
		p, ok := s.Properties.Get(k)
		if !ok {
			panic("schemas: no property " + k)
		}
		p.Description = connector.SyncScheduleDocs[k]
		if k == "fastSyncStartTime" || k == "fastSyncStopTime" {
			p.Pattern = connector.ClockPattern
		}
		p.Extras = map[string]any{"order": i, "nonsensitive": true}
	}
	return marshal(s)
}

// Task is the part of a materialization spec that schedtool reads besides
// its schedules, typed as Flow's model types it (MaterializationDef and
// ShardTemplate, crates/models/src/shards.rs at estuary/flow@7bf4bae):
// delete and shards.disable are booleans, shards an object, and
// shards.flags a map of strings (BTreeMap<Token, Token>). Flow's serde
// decoder refuses the spec, and so the build, when one of these has
// another type (null too: these fields have defaults, not Options). The
// other keys are left to Flow: schedtool does not model them, so they are
// allowed here.
type Task struct {
	Delete bool           `json:"delete,omitempty"`
	Shards *ShardTemplate `json:"shards,omitempty"`
}

// ShardTemplate is the part of Flow's ShardTemplate that Task checks.
type ShardTemplate struct {
	Disable bool              `json:"disable,omitempty"`
	Flags   map[string]string `json:"flags,omitempty"`
}

// TaskID identifies Task's schema.
const TaskID = "https://schedtool.dev/schemas/materialization-task-fields.json"

func taskSchema() []byte {
	r := invopop.Reflector{DoNotReference: true, ExpandedStruct: true, AllowAdditionalProperties: true}
	s := r.Reflect(&Task{})
	s.ID = invopop.ID(TaskID)
	return marshal(s)
}

// structural are the schemas validate checks with: the structure alone
// (types, required and unknown keys), no patterns, since Flow's decoder
// and the connectors accept values outside the published patterns.
func structural() (modelDoc, connDoc []byte) {
	return marshal(reflectSchema(&model.Spec{}, ModelID, "", "")), marshal(reflectSchema(&connector.SyncScheduleSpec{}, ConnectorID, "", ""))
}

var (
	once                       sync.Once
	modelSch, connSch, taskSch *jsonschema.Schema
	errCompile                 error
)

func compile() {
	c := jsonschema.NewCompiler()
	m, cn := structural()
	for id, b := range map[string][]byte{ModelID: m, ConnectorID: cn, TaskID: taskSchema()} {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err == nil {
			err = c.AddResource(id, doc)
		}
		if err != nil {
			errCompile = err
			return
		}
	}
	if modelSch, errCompile = c.Compile(ModelID); errCompile != nil {
		return
	}
	if connSch, errCompile = c.Compile(ConnectorID); errCompile != nil {
		return
	}
	taskSch, errCompile = c.Compile(TaskID)
}

// Problem is a structural failure at a path (JSON pointer tokens relative
// to the checked value), worded as Flow's decoder (serde) words it.
type Problem struct {
	Path []string
	Msg  string
	// Unknown: the last of Path is a key the schema does not know.
	Unknown bool
}

// CheckModel checks a generic value against the model schema.
// Null values are dropped first: Flow reads an optional null as absent.
func CheckModel(v any) *Problem { return check(&modelSch, dropNulls(v)) }

func dropNulls(v any) any {
	switch x := v.(type) {
	case map[string]any:
		c := make(map[string]any, len(x))
		for k, e := range x {
			if e != nil {
				c[k] = dropNulls(e)
			}
		}
		return c
	case []any:
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = dropNulls(e)
		}
		return c
	}
	return v
}

// CheckConnector checks a connector syncSchedule object (null values
// dropped first: the connector reads null as empty). Enum failures are not
// problems: the connector accepts off-enum values.
func CheckConnector(v any) *Problem {
	if m, ok := v.(map[string]any); ok {
		c := make(map[string]any, len(m))
		for k, x := range m {
			if x != nil {
				c[k] = x
			}
		}
		v = c
	}
	return check(&connSch, v)
}

// CheckTask checks the delete and shards values of a materialization spec
// (Task), given as {"delete": ..., "shards": ...} with only the keys the
// spec has. It returns every problem, in path order: Flow reports the
// first it meets, but a person fixing the spec wants them all.
func CheckTask(v any) []Problem { return checkAll(&taskSch, v) }

func check(sch **jsonschema.Schema, v any) *Problem {
	if ps := checkAll(sch, v); len(ps) > 0 {
		return &ps[0]
	}
	return nil
}

func checkAll(sch **jsonschema.Schema, v any) []Problem {
	once.Do(compile)
	if errCompile != nil {
		panic("schemas: " + errCompile.Error())
	}
	err := (*sch).Validate(v)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return []Problem{{Msg: err.Error()}}
	}
	leaves := leafErrors(ve, nil)
	sort.SliceStable(leaves, func(i, j int) bool {
		return strings.Join(leaves[i].InstanceLocation, "/") < strings.Join(leaves[j].InstanceLocation, "/")
	})
	var out []Problem
	for _, l := range leaves {
		if p := describe(l); p != nil {
			out = append(out, *p)
		}
	}
	return out
}

func leafErrors(e *jsonschema.ValidationError, out []*jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return append(out, e)
	}
	for _, c := range e.Causes {
		out = leafErrors(c, out)
	}
	return out
}

func describe(e *jsonschema.ValidationError) *Problem {
	path := e.InstanceLocation
	switch k := e.ErrorKind.(type) {
	case *kind.AdditionalProperties:
		props := append([]string(nil), k.Properties...)
		sort.Strings(props)
		return &Problem{Path: append(append([]string{}, path...), props[0]), Msg: fmt.Sprintf("unknown field `%s`", props[0]), Unknown: true}
	case *kind.Required:
		return &Problem{Path: path, Msg: fmt.Sprintf("missing field `%s`", k.Missing[0])}
	case *kind.Type:
		return &Problem{Path: path, Msg: fmt.Sprintf("invalid type: %s, expected %s", k.Got, strings.Join(k.Want, " or "))}
	case *kind.Enum:
		return nil
	}
	return &Problem{Path: path, Msg: e.Error()}
}
