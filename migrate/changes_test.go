package migrate

import (
	"fmt"
	"strings"
	"testing"
)

// A behaviour change repeated across tasks, differing only in what it
// says of each (a jitter note's destination and tenant), is said once
// with the count and the first few names.
func TestChangesSummarisedOnce(t *testing.T) {
	var tasks []Task
	for i := range 50 {
		tasks = append(tasks, Task{Task: fmt.Sprintf("tenant%d/task%d", i%7, i), Changes: []string{
			fmt.Sprintf("jitter: the connector offset its commit grid by a hash of the destination (/host%d + /warehouse), which keeps the tasks on one warehouse in step; the runtime offsets it by a hash of the tenant (tenant%d/)", i%5, i%7),
			"backfills: the runtime paces every transaction",
		}})
	}
	tasks = append(tasks, Task{Task: "solo", Changes: []string{"the materialization's previous syncSchedule is replaced by the connector's schedule (--resolve=connector)"}})
	cs := CountChanges(tasks)
	if len(cs) != 3 {
		t.Fatalf("%d changes, want 3: %+v", len(cs), cs)
	}
	text := ChangeLines(cs)
	for _, want := range []string{
		"50 tasks (tenant0/task0, tenant1/task1, tenant2/task2 and 47 more): jitter: the connector offset its commit grid by a hash of the destination, which keeps the tasks on one warehouse in step; the runtime offsets it by a hash of the tenant\n",
		"50 tasks (tenant0/task0, tenant1/task1, tenant2/task2 and 47 more): backfills: the runtime paces every transaction\n",
		"1 task (solo): the materialization's previous syncSchedule is replaced by the connector's schedule (--resolve=connector)",
	} {
		if !strings.Contains(text+"\n", want) {
			t.Errorf("the summary has no %q:\n%s", want, text)
		}
	}
}
