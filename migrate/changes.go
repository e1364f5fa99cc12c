// The behaviour changes of a run, said under the summary of the diff
// format (docs/behaviour.md §7, Report): a reviewer of the diff sees
// them, not only a reader of -o json.

package migrate

import (
	"fmt"
	"sort"
	"strings"

	"github.com/estuary/schedtool/report"
)

// maxChangeLines is how many distinct behaviour changes the text lists.
const maxChangeLines = 12

// ChangeCount is one behaviour change and the tasks it applies to.
type ChangeCount struct {
	Change string `json:"change"`
	Tasks  int    `json:"tasks"`
}

// changes counts the behaviour changes of the migrated tasks.
type changes struct {
	by    map[string]int
	order []string
}

func (c *changes) add(t *Task) {
	for _, ch := range t.Changes {
		if c.by == nil {
			c.by = map[string]int{}
		}
		if _, ok := c.by[ch]; !ok {
			c.order = append(c.order, ch)
		}
		c.by[ch]++
	}
}

func (c *changes) list() []ChangeCount {
	out := make([]ChangeCount, len(c.order))
	for i, ch := range c.order {
		out[i] = ChangeCount{ch, c.by[ch]}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Tasks != out[j].Tasks {
			return out[i].Tasks > out[j].Tasks
		}
		return out[i].Change < out[j].Change
	})
	return out
}

// Changes counts the behaviour changes of tasks as they stream by (what
// CountChanges does for a slice).
type Changes struct{ c changes }

// Add counts the changes of t.
func (c *Changes) Add(t *Task) { c.c.add(t) }

// List is CountChanges of the tasks added.
func (c *Changes) List() []ChangeCount { return c.c.list() }

// CountChanges groups the behaviour changes of tasks, each with its
// number of tasks, most tasks first, then by text.
func CountChanges(tasks []Task) []ChangeCount {
	var c changes
	for i := range tasks {
		c.add(&tasks[i])
	}
	return c.list()
}

// ChangeLines is the text of the behaviour changes: a heading, then one
// line each (the first maxChangeLines), "" when there are none.
func ChangeLines(cs []ChangeCount) string {
	if len(cs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("behaviour changes:")
	for i, c := range cs {
		if i == maxChangeLines {
			fmt.Fprintf(&b, "\n  ... and %d more (-o json lists each task's)", len(cs)-i)
			break
		}
		fmt.Fprintf(&b, "\n  %d %s: %s", c.Tasks, report.Plural(c.Tasks, "task", "tasks"), report.Escape(c.Change))
	}
	return b.String()
}
