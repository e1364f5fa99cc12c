package boilerplate_test

import (
	"fmt"

	"github.com/estuary/schedtool/boilerplate"
)

// What a connector adds where it builds its acknowledgement delay. The
// types below stand in for the Open request.
func Example() {
	type labelSet map[string]string
	open := struct {
		SyncScheduleJson []byte
		Labels           labelSet
	}{[]byte(`{"baseInterval":"4h"}`), labelSet{"estuary.dev/flag/enable-runtime-v2": "true"}}

	interval, decision := boilerplate.UploadInterval(boilerplate.Spec{
		SyncScheduleJSON: open.SyncScheduleJson,
		LabelValue:       func(name string) string { return open.Labels[name] },
	}, "15m")
	fmt.Println(decision.Reason)
	fmt.Println("upload interval:", interval)
	// Output:
	// the runtime paces commits (materialization syncSchedule on the V2 runtime): the connector's own commit delay is off
	// upload interval: 0s
}
