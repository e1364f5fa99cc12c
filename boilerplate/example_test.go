package boilerplate_test

import (
	"fmt"
	"time"

	"github.com/estuary/schedtool/boilerplate"
	"github.com/estuary/schedtool/schedule/connector"
)

// What a connector adds where it builds its acknowledgement delay. The
// types below stand in for the Open request and the connector's config.
func Example() {
	type labelSet map[string]string
	open := struct {
		SyncScheduleJson []byte
		Labels           labelSet
	}{[]byte(`{"baseInterval":"4h"}`), labelSet{"estuary.dev/flag/enable-runtime-v2": "true"}}
	cfg := connector.SyncScheduleSpec{SyncFrequency: "1h"}

	// The few lines a connector adds:
	sched, decision := boilerplate.SyncSchedule(boilerplate.Spec{
		SyncScheduleJSON: open.SyncScheduleJson,
		LabelValue:       func(name string) string { return open.Labels[name] },
	}, cfg)
	fmt.Println(decision.Reason)

	// ... and then builds its schedule from sched as before.
	p, _ := connector.ParseSyncSchedule(sched)
	ack := (&connector.Evaluator{Schedule: p}).Next(time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC))
	fmt.Println("next ack:", ack.Format(time.RFC3339))
	// Output:
	// the runtime paces commits (materialization syncSchedule on the V2 runtime): the connector's own commit delay is off
	// next ack: 2026-01-05T10:00:00Z
}
