package migrate

import (
	"io"

	"github.com/estuary/schedtool/catalog"
)

// Tasks runs migrate's dry run over the inputs, its diff read by nobody,
// and hands each task it plans to each, with the action and reason the
// run gives it: census's what unblocks what asks migrate this, once per
// set of decisions, rather than guess from statuses (docs/behaviour.md §8).
func (mg *Migrator) Tasks(inputs []catalog.Input, load catalog.Options, each func(*Task)) error {
	_, err := mg.Run(inputs, RunOptions{Load: load, Mode: DryRun, Format: "diff", Quiet: true, Record: taskRecorder(each)}, io.Discard, io.Discard)
	return err
}

// taskRecorder hands a dry run's tasks, and nothing else, to a function.
type taskRecorder func(*Task)

func (f taskRecorder) Task(t *Task)        { f(t) }
func (taskRecorder) Group([]*File, string) {}
func (taskRecorder) Row(string, *Row)      {}
