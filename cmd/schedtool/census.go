package main

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"schedtool/catalog"
	"schedtool/census"
	"schedtool/plan"
	"schedtool/report"
)

type censusOptions struct {
	*common
	output          string
	failIfRemaining bool
	at              string

	paths  []string
	census *census.Census
	inputs []catalog.Input
}

func newCensus(c *common) *cobra.Command {
	o := &censusOptions{common: c}
	cmd := &cobra.Command{
		Use:   "census [flags] PATH...",
		Short: "Count who still relies on connector-side pacing",
		Long: `census lists every materialization on a scheduling image with its runtime, the
kind and delay of its connector schedule, whether it has a materialization
syncSchedule, and a status, decided in this order:

  blocked-v1    a V1 task whose connector delay is non-zero or unknown
  conflict      a materialization schedule and a configured connector schedule
  stacked       a materialization schedule and a non-zero connector delay
  migrated      a materialization schedule, no connector delay
  unaffected    neither
  ready         a V2 task whose connector schedule schedtool migrate converts
  needs-review  the rest (not convertible, sealed, invalid), with the reason

Every status but migrated and unaffected still relies on connector-side
pacing. Unreadable inputs are counted and listed, never skipped: an unknown
is not a zero.`,
		Example: `  # Groups and counts, for a terminal
  schedtool census fixtures/catalog fixtures/live_specs.ndjson

  # One row per task, for a spreadsheet or a pull request
  schedtool census -o csv live_specs.ndjson > census.csv
  schedtool census -o markdown fixtures/catalog

  # The removal gate: exit 2 while any task still relies on connector pacing
  schedtool census --fail-if-remaining -o json live_specs.ndjson`,
		Args: wrapArgs(cobra.ArbitraryArgs),
		RunE: runOptions(o),
	}
	f := cmd.Flags()
	f.StringVarP(&o.output, "output", "o", "table", "output format: table, wide, json, csv or markdown")
	completeValues(cmd, "output", census.Formats...)
	f.StringVar(&o.at, "at", "", atUsage)
	f.BoolVar(&o.failIfRemaining, "fail-if-remaining", false, "exit 2 when any task still relies on connector-side pacing, or an input is unreadable")
	return cmd
}

func (o *censusOptions) Complete(args []string) error {
	o.paths = args
	reg, err := o.registry()
	if err != nil {
		return err
	}
	crashes, err := crashFinder(o.at)
	if err != nil {
		return err
	}
	o.census = &census.Census{Planner: &plan.Planner{Registry: reg, Crashes: crashes}}
	return nil
}

func (o *censusOptions) Validate() error {
	if _, err := census.NewWriter(o.output, nopWriter{}, nopWriter{}); err != nil {
		return &usageError{"-o: " + err.Error()}
	}
	var err error
	o.inputs, err = catalog.Resolve(o.paths, o.loadOptions())
	return err
}

func (o *censusOptions) Run() error {
	w, _ := census.NewWriter(o.output, o.Out, o.Err)
	stop := o.progress()
	tot, err := o.census.Run(o.inputs, o.loadOptions(), w)
	stop()
	if err != nil {
		return err
	}
	if err := w.End(tot); err != nil {
		return fmt.Errorf("writing the census: %w", err)
	}
	if err := o.selected(); err != nil {
		return err
	}
	if o.failIfRemaining && (tot.Remaining > 0 || tot.Unreadable > 0) {
		// An unreadable input may hide users: an unknown is not a zero.
		msg := fmt.Sprintf("%d %s still rely on connector-side pacing", tot.Remaining, report.Plural(tot.Remaining, "task", "tasks"))
		if tot.Unreadable > 0 {
			msg += fmt.Sprintf(", and %d unreadable %s may hide more", tot.Unreadable, report.Plural(tot.Unreadable, "input", "inputs"))
		}
		return &reportError{msg}
	}
	return nil
}

// progress writes rows per second to standard error while a dump is read,
// when that is a terminal and not --quiet. It returns the stop function.
func (o *censusOptions) progress() func() {
	if o.quiet || !o.ErrTerminal {
		return func() {}
	}
	var rows atomic.Int64
	o.census.Rows = &rows
	return o.common.progress(func(elapsed time.Duration) string {
		n := rows.Load()
		if n == 0 {
			return ""
		}
		return fmt.Sprintf("census: %d rows, %.0f rows/s", n, float64(n)/elapsed.Seconds())
	})
}

type nopWriter struct{}

func (nopWriter) Write(b []byte) (int, error) { return len(b), nil }
