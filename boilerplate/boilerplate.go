// Package boilerplate is the shim the materialization connectors import
// where they build their commit-acknowledgement delay (RunTransactions,
// which holds the Open request): when the runtime paces commits, the
// connector's own delay is forced off. A module of its own
// (github.com/estuary/schedtool/boilerplate) with no requirements and
// standard library imports only, so every connector image can require it.
package boilerplate

import (
	"bytes"
	"fmt"
)

// V2Label is the shard label of the V2 runtime; its value is exactly "true".
const V2Label = "estuary.dev/flag/enable-runtime-v2"

// Spec is what the shim reads of the Open request's materialization spec,
// so that the protobuf type need not be imported here:
//
//	boilerplate.Spec{
//		SyncScheduleJSON: open.Materialization.SyncScheduleJson,
//		LabelValue:       open.Materialization.ShardTemplate.LabelSet.ValueOf,
//	}
type Spec struct {
	SyncScheduleJSON []byte
	// LabelValue returns the value of a shard template label, "" if unset.
	LabelValue func(name string) string
}

// Decision is what the connector applies, and why.
type Decision struct {
	// RuntimePaces: the runtime holds transactions open per the model
	// schedule, so the connector must not delay on top.
	RuntimePaces bool
	// Reason is a short account for the connector's log line.
	Reason string
}

// Decide says whether the runtime paces commits: the spec carries a
// non-empty sync_schedule_json and its shard template says V2. A V1 task
// is left alone even with a schedule (a V1 runtime ignores it).
func Decide(s Spec) Decision {
	sched := bytes.TrimSpace(s.SyncScheduleJSON)
	has := len(sched) > 0 && string(sched) != "null"
	v2 := s.LabelValue != nil && s.LabelValue(V2Label) == "true"
	switch {
	case has && v2:
		return Decision{true, "the runtime paces commits (materialization syncSchedule on the V2 runtime): the connector's own commit delay is off"}
	case has:
		return Decision{false, fmt.Sprintf("a materialization syncSchedule is set, but the task is not on the V2 runtime (%s is not \"true\"): the connector paces commits itself", V2Label)}
	}
	return Decision{false, "no materialization syncSchedule: the connector paces commits itself"}
}

// UploadInterval is the uploadInterval (Go duration) a file sink applies:
// "0s" when the runtime paces, else its own.
func UploadInterval(s Spec, configured string) (string, Decision) {
	d := Decide(s)
	if d.RuntimePaces {
		return "0s", d
	}
	return configured, d
}

// UploadIntervalISO is the upload_interval (ISO-8601) s3-iceberg applies:
// "PT0S" when the runtime paces, else its own.
func UploadIntervalISO(s Spec, configured string) (string, Decision) {
	d := Decide(s)
	if d.RuntimePaces {
		return "PT0S", d
	}
	return configured, d
}
