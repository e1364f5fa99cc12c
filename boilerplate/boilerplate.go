// Package boilerplate is the shim the materialization connectors import
// where they build their commit-acknowledgement delay (RunTransactions in
// estuary/connectors' go/materialize, which holds the Open request): when
// the runtime paces commits, the connector's own delay is forced off.
//
// It is a module of its own (github.com/estuary/schedtool/boilerplate,
// go 1.25.0) with no requirements and standard library imports only, so
// that a connector's module gains nothing else by requiring it. Its name
// clashes with materialize-boilerplate's package at the call site: import
// it under an alias (docs/connectors.md has the patch).
package boilerplate

import (
	"bytes"
	_ "embed"
	"encoding/json"
)

// RuntimeV2Label is the shard label that puts a task on the V2 runtime.
// The runtime reads its value verbatim: only "true" means V2.
//
// It duplicates materialize-boilerplate's runtimeV2Flag
// (labels.FlagPrefix + RuntimeV2FlagName in its runtime.go, read by
// IsMaterializationSpecRuntimeV2): the call site in go/materialize cannot
// import materialize-boilerplate, which imports go/materialize, and this
// module imports nothing. The two must stay equal.
const RuntimeV2Label = "estuary.dev/flag/enable-runtime-v2"

// RuntimePacesReason is what a connector logs when it turns its own
// commit delay off because RuntimePaces says so.
const RuntimePacesReason = "the runtime paces commits (a materialization syncSchedule on the V2 runtime): the connector's own commit delay is off"

// RuntimePaces reports whether the runtime paces the task's commits, so
// that the connector must not delay its acknowledgements on top: the
// materialization spec's sync_schedule_json (SyncScheduleJson) is present
// (not empty after trimming space, and not null) and the shard template's
// RuntimeV2Label is exactly "true" (pass "" when the template or the label
// is absent).
//
// Why space is trimmed and null is absent: sync_schedule_json is the
// schedule as raw JSON bytes, empty when the task has none; a JSON null,
// or whitespace around either, is the same absence written another way,
// not a schedule the runtime could pace by. Every doubtful input keeps the
// connector's delay: the worst it can do is the stacked delay of today,
// never a task that nothing paces.
//
// A V1 task is left alone even with a schedule: the V1 runtime ignores the
// schedule, so turning the connector's delay off would leave it unpaced.
// The residual risk is the label itself: a task labelled V2 whose runtime
// does not honour schedules (a runtime build from before schedules were
// honoured, a label set by hand) is unpaced, with nothing delaying its
// commits; the shim cannot see the runtime, only the label.
//
// Any input is safe: nil, empty, invalid JSON, invalid UTF-8.
func RuntimePaces(syncScheduleJSON []byte, runtimeV2Label string) bool {
	if runtimeV2Label != "true" {
		return false
	}
	s := bytes.TrimSpace(syncScheduleJSON)
	return len(s) > 0 && string(s) != "null"
}

// Case is one row of the decision table (testdata/decisions.json): an
// Open request's materialization spec, described so that a connector's
// test can build the protobuf value, and whether the runtime paces it.
type Case struct {
	Name string `json:"name"`
	// NilMaterialization: open.Materialization is nil (nothing below is
	// set).
	NilMaterialization bool `json:"nilMaterialization,omitempty"`
	// NilShardTemplate: open.Materialization.ShardTemplate is nil (Label
	// is nil).
	NilShardTemplate bool `json:"nilShardTemplate,omitempty"`
	// SyncScheduleJSON is the spec's SyncScheduleJson; nil when absent.
	SyncScheduleJSON *string `json:"syncScheduleJson"`
	// Label is the value of RuntimeV2Label in the shard template's
	// LabelSet; nil when the label is absent.
	Label *string `json:"label"`
	// RuntimePaces is the answer: the connector's delay must be off.
	RuntimePaces bool `json:"runtimePaces"`
}

//go:embed testdata/decisions.json
var decisions []byte

// DecisionTable is the decision table, testdata/decisions.json, which the
// shim's tests and a connector's test both run, so that both sides test
// the same cases. Each call returns a fresh copy.
func DecisionTable() []Case {
	var cases []Case
	if err := json.Unmarshal(decisions, &cases); err != nil {
		// The embedded file is this package's own, and its tests decode it.
		panic("boilerplate: testdata/decisions.json: " + err.Error())
	}
	return cases
}
