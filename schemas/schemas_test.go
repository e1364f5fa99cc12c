package schemas

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/estuary/schedtool/schedule/connector"
)

func compileDoc(t *testing.T, id string, b []byte) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func value(t *testing.T, s string) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The published model schema says what Flow's says (models::SyncSchedule
// at estuary/flow@7bf4bae): durations match ^\d+(s|m|h|d)$ and may be
// null, clocks match Flow's clock pattern, days are Mon..Sun.
func TestModelSchemaIsFlows(t *testing.T) {
	s := compileDoc(t, ModelID, Model())
	for _, tc := range []struct {
		doc string
		ok  bool
	}{
		{`{"baseInterval": "4h"}`, true},
		{`{"baseInterval": "90m"}`, true},
		{`{"baseInterval": "0s"}`, true},
		{`{"baseInterval": "2d"}`, true},
		{`{"baseInterval": null}`, true}, // Flow's duration schema is nullable
		{`{"baseInterval": "1h 30m"}`, false},
		{`{"baseInterval": "1h30m"}`, false},
		{`{"baseInterval": "banana"}`, false},
		{`{"baseInterval": "1day"}`, false},
		{`{"baseInterval": "1.5h"}`, false},
		{`{}`, false},
		{`{"baseInterval": "4h", "extra": 1}`, false},
		{`{"baseInterval": "4h", "timezone": "America/New_York", "windows": [{"interval": "15m", "start": "9:00", "end": "17:00", "days": ["Mon", "Fri"]}]}`, true},
		{`{"baseInterval": "4h", "timezone": null}`, false}, // timezone is a plain string in Flow's schema
		{`{"baseInterval": "4h", "windows": [{"interval": "15m", "start": "9:5", "end": "17:00"}]}`, false},
		{`{"baseInterval": "4h", "windows": [{"interval": "15m", "start": "24:00", "end": "17:00"}]}`, false},
		{`{"baseInterval": "4h", "windows": [{"interval": "15m", "start": "09:00", "end": "17:00", "days": ["monday"]}]}`, false},
		{`{"baseInterval": "4h", "windows": [{"interval": "15m", "start": "09:00", "end": "17:00", "days": ["Mon", "Sun"]}]}`, true},
		{`{"baseInterval": "4h", "windows": [{"interval": "1h 30m", "start": "09:00", "end": "17:00"}]}`, false},
		{`{"baseInterval": "4h", "windows": [{"start": "09:00", "end": "17:00"}]}`, false},
	} {
		err := s.Validate(value(t, tc.doc))
		if (err == nil) != tc.ok {
			t.Errorf("%s: valid %v, want %v (%v)", tc.doc, err == nil, tc.ok, err)
		}
	}
}

// validate reads as Flow's decoder does, not as its published schema:
// "1h 30m", "monday" and "9:5" are structure-checked, never refused by a
// pattern (Flow's validation words those).
func TestStructuralCheckIsTheDecoders(t *testing.T) {
	for _, doc := range []string{
		`{"baseInterval": "1h 30m"}`,
		`{"baseInterval": "4h", "timezone": "UTC", "windows": [{"interval": "1.5h", "start": "9:5", "end": "17:00", "days": ["monday"]}]}`,
	} {
		var v any
		if err := json.Unmarshal([]byte(doc), &v); err != nil {
			t.Fatal(err)
		}
		if p := CheckModel(v); p != nil {
			t.Errorf("%s: %+v", doc, p)
		}
	}
	var v any
	json.Unmarshal([]byte(`{"baseInterval": "4h", "windowz": []}`), &v)
	if p := CheckModel(v); p == nil || p.Msg != "unknown field `windowz`" {
		t.Errorf("unknown key: %+v", p)
	}
	json.Unmarshal([]byte(`{"fastSyncStartTime": "9:5", "syncFrequency": "45m"}`), &v)
	if p := CheckConnector(v); p != nil {
		t.Errorf("connector clock or enum refused structurally: %+v", p)
	}
}

// The connector schema keeps the connectors' annotations: the clock
// pattern, order, nonsensitive, and whole descriptions.
func TestConnectorSchemaAnnotations(t *testing.T) {
	var doc struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(Connector(), &doc); err != nil {
		t.Fatal(err)
	}
	for i, k := range connector.SyncScheduleKeys {
		p := doc.Properties[k]
		if p["order"] != float64(i) || p["nonsensitive"] != true {
			t.Errorf("%s: order %v, nonsensitive %v", k, p["order"], p["nonsensitive"])
		}
		if p["description"] != connector.SyncScheduleDocs[k] {
			t.Errorf("%s: description %q", k, p["description"])
		}
	}
	if d := doc.Properties["fastSyncEnabledDays"]["description"].(string); !strings.HasSuffix(d, "All days are enabled if unset.") {
		t.Errorf("fastSyncEnabledDays description cut: %q", d)
	}
	for _, k := range []string{"fastSyncStartTime", "fastSyncStopTime"} {
		if doc.Properties[k]["pattern"] != `^(0?[0-9]|1[0-9]|2[0-3]):[0-5][0-9]$` {
			t.Errorf("%s pattern %v", k, doc.Properties[k]["pattern"])
		}
	}
	s := compileDoc(t, ConnectorID, Connector())
	if err := s.Validate(value(t, `{"fastSyncStartTime": "25:00"}`)); err == nil {
		t.Error("25:00 fits the connector's clock pattern")
	}
	if err := s.Validate(value(t, `{"syncFrequency": "15m", "timezone": "UTC", "fastSyncStartTime": "9:00", "fastSyncStopTime": "17:00"}`)); err != nil {
		t.Error(err)
	}
}

// CheckTask types delete, shards, shards.disable and shards.flags as
// Flow's model does (MaterializationDef, ShardTemplate at
// estuary/flow@7bf4bae), reports every problem in path order, and leaves
// the keys it does not model alone.
func TestCheckTask(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want string // "path: message" per problem, joined by "; "
	}{
		{`{}`, ""},
		{`{"delete": true, "shards": {"disable": false, "flags": {"enable-runtime-v2": "true", "other": "x"}}}`, ""},
		{`{"shards": {"maxTxnDuration": "30s", "logLevel": "debug", "unknownToSchedtool": [1]}}`, ""},
		{`{"shards": {"flags": {}}}`, ""},
		{`{"delete": "yes"}`, "delete: invalid type: string, expected boolean"},
		{`{"delete": null}`, "delete: invalid type: null, expected boolean"},
		{`{"shards": "x"}`, "shards: invalid type: string, expected object"},
		{`{"shards": null}`, "shards: invalid type: null, expected object"},
		{`{"shards": {"disable": "true"}}`, "shards/disable: invalid type: string, expected boolean"},
		{`{"shards": {"disable": 1}}`, "shards/disable: invalid type: number, expected boolean"},
		{`{"shards": {"flags": "x"}}`, "shards/flags: invalid type: string, expected object"},
		{`{"shards": {"flags": ["enable-runtime-v2"]}}`, "shards/flags: invalid type: array, expected object"},
		{`{"shards": {"flags": {"enable-runtime-v2": true}}}`, "shards/flags/enable-runtime-v2: invalid type: boolean, expected string"},
		{`{"shards": {"flags": {"b": null, "a": 3}}}`, "shards/flags/a: invalid type: number, expected string; shards/flags/b: invalid type: null, expected string"},
		{`{"delete": "yes", "shards": {"disable": "true", "flags": "x"}}`, "delete: invalid type: string, expected boolean; shards/disable: invalid type: string, expected boolean; shards/flags: invalid type: string, expected object"},
	} {
		var got []string
		for _, p := range CheckTask(value(t, tc.doc)) {
			got = append(got, strings.Join(p.Path, "/")+": "+p.Msg)
		}
		if s := strings.Join(got, "; "); s != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.doc, s, tc.want)
		}
	}
}

// The connector schema publishes the syncFrequency enum of current images,
// the registry's family enum (1m, 2m30s and 20m were added in 2026-08,
// estuary/connectors#5125; issue 24).
func TestConnectorEnumIsTheRegistrys(t *testing.T) {
	var s struct {
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(Connector(), &s); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(s.Properties["syncFrequency"].Enum, ",")
	want := strings.Join(connector.Builtin().Family(connector.FamilySyncSchedule).Enum, ",")
	if got != want || want != "0s,30s,1m,2m30s,5m,15m,20m,30m,1h,2h,4h" {
		t.Errorf("schema enum %s, registry %s", got, want)
	}
}
