// The behaviour changes of a run, said under the summary of the diff
// format (docs/behaviour.md §7, Report): a reviewer of the diff sees
// them, not only a reader of -o json.

package migrate

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/estuary/schedtool/report"
)

// maxChangeLines is how many distinct behaviour changes the text lists;
// changeNames how many tasks each names.
const (
	maxChangeLines = 12
	changeNames    = 3
)

// ChangeCount is one behaviour change, the number of tasks it applies
// to and the first few of them.
type ChangeCount struct {
	Change string   `json:"change"`
	Tasks  int      `json:"tasks"`
	Names  []string `json:"names,omitempty"`
}

// changes counts the behaviour changes of the migrated tasks.
type changes struct {
	by    map[string]*ChangeCount
	order []string
}

// detail is what a behaviour change says of one task alone: the
// destination's config pointers and the tenant of a jitter note
// ("(/host + /warehouse)", "(acmeCo/)").
var detail = regexp.MustCompile(` \((?:/[^()]*|[^()\s]*/)\)`)

// changeKind is a behaviour change without what it says of one task, so
// that a change repeated across tasks is summarised once.
func changeKind(ch string) string { return detail.ReplaceAllString(ch, "") }

func (c *changes) add(t *Task) {
	for _, ch := range t.Changes {
		if c.by == nil {
			c.by = map[string]*ChangeCount{}
		}
		k := changeKind(ch)
		cc := c.by[k]
		if cc == nil {
			cc = &ChangeCount{Change: k}
			c.by[k] = cc
			c.order = append(c.order, k)
		}
		cc.Tasks++
		if len(cc.Names) < changeNames {
			cc.Names = append(cc.Names, t.Task)
		}
	}
}

func (c *changes) list() []ChangeCount {
	out := make([]ChangeCount, len(c.order))
	for i, ch := range c.order {
		out[i] = *c.by[ch]
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
// number of tasks and the first few, most tasks first, then by text. A
// change that differs between tasks only in what it says of each (a
// jitter note's destination and tenant) is one change; -o json keeps
// each task's own.
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
		fmt.Fprintf(&b, "\n  %d %s (%s): %s", c.Tasks, report.Plural(c.Tasks, "task", "tasks"), report.Escape(c.Example()), report.Escape(c.Change))
	}
	return b.String()
}

// Example names the first tasks of a change, and how many more there are.
func (c ChangeCount) Example() string {
	s := strings.Join(c.Names, ", ")
	if more := c.Tasks - len(c.Names); more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s
}
