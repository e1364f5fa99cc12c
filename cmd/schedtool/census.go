package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/livespecs"
	"github.com/estuary/schedtool/census"
	"github.com/estuary/schedtool/internal/paths"
	"github.com/estuary/schedtool/migrate"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/report"
	"github.com/estuary/schedtool/schedule/connector"
)

type censusOptions struct {
	*common
	output          string
	failIfRemaining bool
	at              string
	now             string
	history         []string
	summary         bool

	writerOpts census.Options

	paths  []string
	census *census.Census
	inputs []catalog.Input
	except *exceptions
}

func newCensus(c *common) *cobra.Command {
	o := &censusOptions{common: c}
	cmd := &cobra.Command{
		Use:   "census [flags] PATH...",
		Short: "Count who still relies on connector-side pacing",
		Long: `census lists every materialization on a scheduling image with its runtime, the
kind and delay of its connector schedule, whether it has a materialization
syncSchedule, and a status, decided in this order:

  needs-review  first, a materialization schedule that does not decode and
                validate (the task has none that works)
  blocked-v1    a V1 task whose connector delay is non-zero or unknown, or
                with a materialization schedule and no connector delay
                (nothing paces it: migrate --enable-runtime-v2)
  conflict      a materialization schedule and a configured connector schedule
  migrated      a materialization schedule, no connector delay
  unaffected    neither
  stacked       a materialization schedule and a non-zero connector delay
  ready         a V2 task whose connector schedule schedtool migrate converts
  ready (needs --zero-file-sinks)
                a V2 file sink migrate converts with --zero-file-sinks (a
                sealed config, a stored spec, or no enum: s3-iceberg)
  needs-review  the rest (not convertible, sealed, invalid, a plaintext
                file-sink config), with the reason

The connector delay is the effective one: none on an image tag that defers
to the runtime's schedule (the registry's deferralSince) when a V2 task has
a materialization schedule. Every status but migrated and unaffected still
relies on connector-side pacing. Unreadable inputs are counted and listed, never skipped: an unknown
is not a zero.`,
		Example: `  # Groups and counts, for a terminal
  schedtool census fixtures/catalog fixtures/live_specs.ndjson

  # One row per task, for a spreadsheet or a pull request
  schedtool census -o csv live_specs.ndjson > census.csv
  schedtool census -o markdown fixtures/catalog

  # A burndown: earlier census -o json outputs as its history
  schedtool census -o html --history monday.json --history tuesday.json live_specs.ndjson > census.html

  # The removal gate: exit 2 while any task still relies on connector pacing
  schedtool census --fail-if-remaining -o json live_specs.ndjson`,
		Args: wrapArgs(cobra.ArbitraryArgs),
		RunE: runOptions(o),
	}
	f := cmd.Flags()
	f.VarP(newOnce(&o.output, "table", "run census once per format"), "output", "o", "output format: "+strings.Join(census.Formats[:len(census.Formats)-1], ", ")+" or "+census.Formats[len(census.Formats)-1])
	completeValues(cmd, "output", census.Formats...)
	f.StringArrayVar(&o.history, "history", nil, "an earlier census -o json output, for the burndown of -o html and -o markdown (repeat the flag, one file each)")
	f.BoolVar(&o.summary, "summary", false, "with -o json, write only the summary and scope: a small file to keep each week for --history")
	f.StringVar(&o.now, "now", "", "the instant the census is taken at, written as generatedAt (RFC 3339; default $SCHEDTOOL_NOW, else now)")
	f.StringVar(&o.at, "at", "", atUsage)
	f.BoolVar(&o.failIfRemaining, "fail-if-remaining", false, "exit 2 when any task still relies on connector-side pacing, or an input is unreadable")
	return cmd
}

// Complete fills in what the flags and arguments imply, reading what they
// name: the registry, the --history files and the inputs.
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
	if o.writerOpts.Now, err = parseNow(o.now); err != nil {
		return err
	}
	o.writerOpts.Scope = o.scope()
	o.writerOpts.Summary = o.summary
	if o.except = o.exceptions(o.writerOpts.Now); o.except != nil {
		o.census.Except = func(task, status string) *census.Exception {
			if e := o.except.status(task, status); e != nil {
				return &census.Exception{Reason: e.Reason, Owner: e.Owner, Expires: e.Expires}
			}
			return nil
		}
	}
	for _, path := range o.history {
		s, err := readSnapshot(path, o.maxFileSize)
		if err != nil {
			return err
		}
		if s.Scope != nil && !s.Scope.Same(o.writerOpts.Scope) && !o.quiet {
			fmt.Fprintf(o.Err, "schedtool: warning: --history %s covers a different scope (%s) than this census (%s): its counts are not comparable\n",
				report.Escape(path), cutText(report.Escape(s.Scope.Describe()), 500), cutText(report.Escape(o.writerOpts.Scope.Describe()), 500))
		}
		o.writerOpts.History = append(o.writerOpts.History, s)
	}
	o.inputs, err = o.resolveInputs(o.paths)
	if err == nil && census.HasUnblocks(o.output) {
		o.census.DryRun = o.dryRun(reg)
	}
	return err
}

// dryRun is migrate's planning of the census's inputs replayed under a
// set of decisions added to the project file's: what unblocks what is
// counted from what migrate itself would do (docs/behaviour.md §8).
func (o *censusOptions) dryRun(reg *connector.Registry) census.DryRun {
	rp := migrate.NewReplay(o.inputs, o.loadOptions())
	return func(set plan.Options, want func(string) bool, each func(string, plan.Action, string)) error {
		mo := &migrateOptions{common: o.common}
		mg := &migrate.Migrator{Planner: &plan.Planner{Registry: reg, Options: set}, Registry: reg, Limits: o.loadOptions().Limits}
		mg.Options = mo.decisions(set)
		return rp.Tasks(mg, want, func(t *migrate.Task) { each(t.Task, t.Action, t.Reason) })
	}
}

// scope is what this census covers: the paths as shown (a PostgreSQL
// URL without its password), --root, the selectors, this schedtool.
func (o *censusOptions) scope() *census.Scope {
	s := &census.Scope{Inputs: []string{}, Root: o.root, Schedtool: toolVersion()}
	args := o.paths
	if len(args) == 0 {
		args = o.projectPaths() // the project file's PATHs, which the census covers
	}
	for _, p := range args {
		if livespecs.IsDBURL(p) {
			s.Inputs = append(s.Inputs, livespecs.RedactURL(p))
		} else {
			s.Inputs = append(s.Inputs, paths.Display(p)) // as the working directory sees it
		}
	}
	s.Names = append(s.Names, o.selector.Names...)
	s.Prefixes = append(s.Prefixes, o.selector.Prefixes...)
	s.Images = append(s.Images, o.selector.Images...)
	return s
}

// parseNow reads --now: an RFC 3339 instant, by default $SCHEDTOOL_NOW
// (for tests and reproducible documents), else the clock's, to the second.
func parseNow(now string) (time.Time, error) {
	if now == "" {
		now = os.Getenv("SCHEDTOOL_NOW")
	}
	if now == "" {
		return time.Now().UTC().Truncate(time.Second), nil
	}
	t, err := time.Parse(time.RFC3339, now)
	if err != nil {
		return time.Time{}, &usageError{fmt.Sprintf("--now %q: not an RFC 3339 instant (2026-01-05T08:00:00Z)", now)}
	}
	return t.UTC(), nil
}

// readSnapshot reads one --history file: a regular file only (a FIFO
// would block the run; catalog.OpenRegular never opens one), of at most
// max bytes (--max-file-size), read in constant memory.
func readSnapshot(path string, max int64) (census.Snapshot, error) {
	f, st, err := paths.OpenRegular(path)
	if err != nil {
		return census.Snapshot{}, &usageError{"--history: " + report.Escape(path) + ": " + catalog.Describe(err)}
	}
	defer f.Close()
	if st.Size() > max {
		return census.Snapshot{}, &usageError{fmt.Sprintf("--history: %s: file is %s, over the limit of %s (see --max-file-size)", report.Escape(path), paths.FormatSize(st.Size()), paths.FormatSize(max))}
	}
	// Read no further than the limit, whatever the file does meanwhile;
	// the file itself gives positions back (ReadAt).
	s, err := census.ReadSnapshot(struct {
		io.Reader
		io.ReaderAt
	}{io.LimitReader(f, max), f}, path)
	if err != nil {
		return census.Snapshot{}, &usageError{"--history " + err.Error()}
	}
	return s, nil
}

// Validate checks the flags.
func (o *censusOptions) Validate() error {
	if _, err := census.NewWriter(o.output, nopWriter{}, nopWriter{}, census.Options{}); err != nil {
		return &usageError{"-o: " + err.Error()}
	}
	if o.summary && o.output != "json" {
		return &usageError{fmt.Sprintf("--summary writes the summary of -o json, not of -o %s", o.output)}
	}
	return nil
}

func (o *censusOptions) Run() error {
	w, _ := census.NewWriter(o.output, o.Out, o.Err, o.writerOpts)
	stop := func() {}
	if o.stopDB == nil {
		// Over a database, the line of its rows is already on.
		var rows atomic.Int64
		o.census.Rows = &rows
		stop = o.rowProgress("census: %d rows", &rows)
	}
	if o.census.DryRun != nil {
		// The census and its dry runs read one snapshot of a database,
		// read once.
		release, err := livespecs.HoldDB(o.inputs)
		defer release()
		if err != nil {
			stop()
			return err
		}
	}
	tot, err := o.census.Run(o.inputs, o.loadOptions(), w)
	stop()
	if err != nil {
		return err
	}
	if err := w.End(tot); err != nil {
		return fmt.Errorf("writing the census: %w", err)
	}
	if o.except != nil {
		for _, n := range o.except.notes("status") {
			fmt.Fprintf(o.Err, "schedtool: %s\n", report.Escape(n))
		}
	}
	if err := o.selected(); err != nil {
		return err
	}
	if o.failIfRemaining && tot.AllExcluded() && tot.Remaining == 0 && tot.Unreadable == 0 {
		// A gate over nothing is not a pass: as an input with no rows
		// fails it (docs/behaviour.md §8, §13).
		file := "the project file"
		if o.project != nil {
			file += " " + report.Escape(o.project.File)
		}
		return &reportError{fmt.Sprintf("the removal gate does not pass on nothing: %s excluded every task of the inputs (%d %s in %d %s)", file,
			tot.Excluded, report.Plural(tot.Excluded, "task", "tasks"), tot.ExcludedSources, report.Plural(tot.ExcludedSources, "source", "sources"))}
	}
	if o.failIfRemaining && (tot.Remaining > 0 || tot.Unreadable > 0) {
		// An unreadable input may hide users: an unknown is not a zero.
		msg := fmt.Sprintf("%d %s on connector-side pacing", tot.Remaining, report.Plural(tot.Remaining, "task still relies", "tasks still rely"))
		if tot.Excepted > 0 {
			msg += fmt.Sprintf(" (%d of them excepted by the project file: the gate never trusts an exception)", tot.Excepted)
		}
		if tot.Unreadable > 0 {
			msg += fmt.Sprintf(", and %d unreadable %s may hide more", tot.Unreadable, report.Plural(tot.Unreadable, "input", "inputs"))
		}
		if tot.Excluded > 0 {
			msg += " (" + census.ExcludedPhrase(tot) + ")"
		}
		return &reportError{msg}
	}
	if o.failIfRemaining && !o.quiet {
		// The failure is an error message (always written); the pass
		// is a note, which --quiet leaves out as it does every note.
		line := "gate passed: no task relies on connector-side pacing"
		if tot.Excluded > 0 {
			line += " (" + census.ExcludedPhrase(tot) + ")" // as docs/project-file.md says
		}
		fmt.Fprintln(o.Err, line)
	}
	return nil
}

type nopWriter struct{}

func (nopWriter) Write(b []byte) (int, error) { return len(b), nil }

// cutText shortens a text for a message to about n bytes, at a rune,
// saying how long it was (a history file may hold a scope of any size).
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:i], len(s))
}
