package boilerplate_test

import (
	"fmt"

	schedshim "github.com/estuary/schedtool/boilerplate"
)

// What a connector adds where it builds its acknowledgement delay
// (docs/connectors.md has the patch of RunTransactions). The spec below
// stands in for open.Materialization, whose shard template may be nil.
func ExampleRuntimePaces() {
	spec := struct {
		SyncScheduleJson []byte
		Labels           map[string]string // nil: no shard template
	}{[]byte(`{"baseInterval":"4h"}`), map[string]string{schedshim.RuntimeV2Label: "true"}}

	ackSchedule := "30m" // what the connector would delay by
	if schedshim.RuntimePaces(spec.SyncScheduleJson, spec.Labels[schedshim.RuntimeV2Label]) {
		fmt.Println(schedshim.RuntimePacesReason)
		ackSchedule = ""
	}
	fmt.Printf("ack delay: %q\n", ackSchedule)
	// Output:
	// the runtime paces commits (a materialization syncSchedule on the V2 runtime): the connector's own commit delay is off
	// ack delay: ""
}
