package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/catalog/livespecs"
	"github.com/estuary/schedtool/internal/groupwrite"
	"github.com/estuary/schedtool/internal/paths"
	"github.com/estuary/schedtool/migrate"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/project"
	"github.com/estuary/schedtool/report"
	"github.com/estuary/schedtool/savedplan"
)

type migrateOptions struct {
	*common
	write         bool
	out           string
	force         bool
	absent        string
	resolve       string
	zeroFileSinks bool
	verify        bool
	verifyYear    int
	at            string
	output        string
	limit         int
	enableV2      bool
	limitSet      func() bool
	changed       func(flag string) bool
	planFile      string
	dryRun        bool // --dry-run: what migrate does anyway
	// flagsSet are the flags given, by name, for a saved plan.
	flagsSet func() map[string][]string

	paths    []string
	inputs   []catalog.Input
	migrator *migrate.Migrator
	run      migrate.RunOptions
}

// migrateLong is migrate's help text.
const migrateLong = `migrate moves each connector-side schedule into the materialization's
syncSchedule (run by the V2 runtime) and sets the connector to its off state,
{syncFrequency: "0s"}. Nothing else changes: edits are made to the original
bytes (comments, key order, quoting, indentation, CRLF and anchors stay), and
each edited file is re-read and must decode to exactly the intended tree.
Sealed (sops) configs are never edited in their values: the change goes into
sops.overlay.

By default migrate is a dry run that prints a unified diff per file, and
each stored-spec row by field (a line per changed JSON pointer, never the
row whole: no config value but the schedule's is shown). It
exits 2 whenever a person is needed: changes pending in a dry run, tasks
that need review, V1 tasks skipped (still paced by their connectors) or file
sinks skipped (without --zero-file-sinks), in every mode, --write and --out
too; 0 when everything the run was asked to do is done. --write applies the
changes in place, atomically; --out DIR writes the migrated tree elsewhere.
Each file written is listed on standard error (written: PATH), before the
summary line; -q keeps the summary line alone. The summary is followed by
the behaviour changes (the jitter seed moving to the tenant, backfills now
paced, timezone quirks), one line each with its number of tasks and the
first three.

--plan FILE saves the dry run as a plan instead of printing the diff: the
options and the task set, the exact edits, each input's SHA-256, the
reports of the tasks it migrates or leaves to a person, a digest, every
path relative to the root. schedtool show renders it, schedtool apply
writes it where migrate, run again in the checkout apply runs in, would
write exactly it (refusing any other group). -o markdown renders the dry run as a
pull-request body, in parts under GitHub's 65,536 characters.

A task's pacing is never lost: the files one migration touches (a source,
its config file, a shared or sealed config) are written together, all or
nothing, the file adding the materialization syncSchedule before the file
zeroing the connector, so an interruption leaves a task at worst with both
schedules, which the next run finishes. Files are compared by identity
(device and inode), not by path. --out never names an input, never writes
through a symlink, and refuses an existing file or a non-empty directory
unless --force. SIGINT, SIGTERM, SIGHUP (the terminal or ssh session
closing) or SIGQUIT finishes or undoes the group being written, removes
every temp file, and exits 130 (SIGINT) or 1 (the others).

Stored specs (live_specs dumps) carry expectPubId on each migrated spec (its
row's last_pub_id as 16 hex digits) so publishing them cannot overwrite a
concurrent change. --out FILE (a name ending in .ndjson, .jsonl or .json)
writes the migrated rows; --out DIR (any other name, new or empty) writes one
catalog source per migrated task at DIR/<catalog name>/flow.yaml and
DIR/flow.yaml importing them all, and says how to publish them with flowctl.

--limit N migrates at most N tasks in this run, the first in catalog name
order over every input (tasks sharing a config file move together); the
rest are reported as deferred. Deferred tasks are the operator's choice: a
--write or --out wave that did what it was asked exits 0 (a dry run with
changes pending still exits 2).

A file sink (uploadInterval, upload_interval) is left untouched and skipped
unless --zero-file-sinks is given: a materialization syncSchedule beside the
interval its connector requires would stack the two. With the flag, the
schedule and the interval "0s" / "PT0S" are written in one group, and a
file sink already stacked is finished: only in a sealed config (through
sops.overlay) or a stored spec, since Flow refuses "0s" in a plaintext
uploadInterval config (off its enum), which needs review instead. On an
image tag with the deferral (the registry's deferralSince) a file sink gets
the materialization schedule alone. A materialization syncSchedule that
does not decode and validate is never migrated around: the task needs
review.

Tasks that need a person (conflicts, sealed or invalid schedules, a Local
timezone, shared config files asked for different changes) are listed on
standard error by reason, each with its count and its first 20 tasks (-o
json lists them all). V1 tasks are skipped, unless
--enable-runtime-v2 opts them in: each then also gets
shards.flags.enable-runtime-v2: "true", in the same reviewed change.`

func newMigrate(c *common) *cobra.Command {
	o := &migrateOptions{common: c}
	cmd := &cobra.Command{
		Use:   "migrate [flags] PATH...",
		Short: "Move connector schedules into the materialization's syncSchedule",
		Long:  migrateLong,
		Example: `  # What would change
  schedtool migrate fixtures/catalog

  # Apply it, then check the result
  schedtool migrate --write fixtures/catalog && schedtool validate fixtures/catalog

  # Stored specs: migrated rows for publication, with a per-task report
  schedtool migrate --out migrated.ndjson -o json live_specs.ndjson > report.json

  # Stored specs: a catalog source per task, published one draft per task
  schedtool migrate --out migrated/ live_specs.ndjson

  # A first wave of 50 under a prefix; run again for the next
  schedtool migrate --write --limit 50 --prefix acmeCo/prod/ catalog/

  # Prove each migrated schedule commits when the old one did
  schedtool migrate --verify -o json fixtures/catalog

  # Plan a wave for review, then write exactly what was reviewed
  schedtool migrate --plan wave.plan -o markdown fixtures/catalog > pr-body.md
  schedtool apply wave.plan`,
		Args: wrapArgs(cobra.ArbitraryArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.write || o.out != "" || o.planFile != "" {
				// From the start: a signal while the inputs are read
				// must not kill the process without its summary.
				stop := o.handleSignals()
				defer stop()
			}
			return runOptions(o)(cmd, args)
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&o.write, "write", "w", false, "apply the changes in place (atomically; a file changed since it was read is refused)")
	f.StringVar(&o.out, "out", "", "write the migrated tree under this directory; for stored specs, a publishable tree (one source per task) under this directory, or the migrated rows to this .ndjson file (never an input, never over existing files unless --force)")
	f.BoolVar(&o.force, "force", false, "let --out replace an existing file, or write into a non-empty directory")
	f.StringVar(&o.absent, "absent", "preserve", "a task on the 30m default: preserve writes syncSchedule {baseInterval: 30m}, drop only turns the connector's delay off")
	f.StringVar(&o.resolve, "resolve", "", "a conflict: model keeps the materialization schedule, connector replaces it by the converted connector one")
	f.BoolVar(&o.zeroFileSinks, "zero-file-sinks", false, "migrate file sinks: write the materialization schedule and set the interval to zero (outside its published values) in one change")
	f.BoolVar(&o.verify, "verify", false, "simulate old and new schedule for every migrated task and report the differences")
	f.StringVar(&o.at, "at", "", atUsage)
	f.IntVar(&o.verifyYear, "verify-year", 0, "the year whose DST transitions --verify covers (default: this year)")
	f.VarP(newOnce(&o.output, "diff", "run migrate once per format"), "output", "o", "output format: diff, json, or markdown (a pull-request body: summary, verify verdict, behaviour changes, what needs a person, the diff collapsed; in parts under 65,536 characters)")
	completeValues(cmd, "output", "diff", "json", "markdown")
	f.StringVar(&o.planFile, "plan", "", "write a saved plan to this file instead of the diff (mode 0600): the options, the task set, the edits, each input's SHA-256; schedtool apply writes it where migrate would still write exactly it, schedtool show renders it")
	o.flagsSet = func() map[string][]string { return planFlags(cmd) }
	completeValues(cmd, "absent", "preserve", "drop")
	completeValues(cmd, "resolve", "model", "connector")
	f.BoolVar(&o.enableV2, "enable-runtime-v2", false, "move V1 tasks with a connector schedule to the V2 runtime (shards.flags.enable-runtime-v2: \"true\") in the same change as their schedule")
	o.limitSet = func() bool { return f.Changed("limit") }
	o.changed = f.Changed
	f.IntVar(&o.limit, "limit", 0, "migrate at most N tasks this run, the first in catalog name order; the rest are deferred to later runs (waves)")
	// Typed from habit (kubectl, terraform): accepted, and said to be
	// the default; hidden, as it changes nothing.
	f.BoolVar(&o.dryRun, "dry-run", false, "migrate is a dry run by default")
	f.MarkHidden("dry-run")
	return cmd
}

// Complete fills in what the flags and arguments imply, reading what they
// name: the registry and the inputs (standard input included).
func (o *migrateOptions) Complete(args []string) error {
	o.paths = args
	reg, err := o.registry()
	if err != nil {
		return err
	}
	if o.verifyYear == 0 {
		o.verifyYear = time.Now().Year()
	} else if o.verifyYear < minYear || o.verifyYear > maxYear {
		return &usageError{fmt.Sprintf("--verify-year %d: give a year from %d to %d (the time zone data's range)", o.verifyYear, minYear, maxYear)}
	}
	crashes, err := crashFinder(o.at)
	if err != nil {
		return err
	}
	o.migrator = &migrate.Migrator{
		Planner:  &plan.Planner{Registry: reg, Options: o.planOptions(), Crashes: crashes},
		Registry: reg, Limits: o.loadOptions().Limits, Verify: o.verify, VerifyYear: o.verifyYear,
	}
	o.migrator.Options = o.decisions(o.migrator.Planner.Options)
	o.inputs, err = o.resolveInputs(o.paths)
	return err
}

// Validate checks the flags.
func (o *migrateOptions) Validate() error {
	switch o.absent {
	case "preserve", "drop":
	default:
		return &usageError{fmt.Sprintf("--absent %q: must be preserve or drop", o.absent)}
	}
	// An empty --out (an unset shell variable) is not "no --out": with
	// --write it would change the inputs in place.
	if o.changed != nil && o.changed("out") && strings.TrimSpace(o.out) == "" {
		return &usageError{"--out: an empty path names nothing; give a directory or a .ndjson file"}
	}
	if o.changed != nil && o.changed("resolve") && o.resolve == "" {
		return &usageError{`--resolve "": must be model or connector`}
	}
	switch o.resolve {
	case "", "model", "connector":
	default:
		return &usageError{fmt.Sprintf("--resolve %q: must be model or connector", o.resolve)}
	}
	if o.limit < 0 || (o.limit == 0 && o.limitSet()) {
		return &usageError{fmt.Sprintf("--limit %d: give a number of tasks, at least 1", o.limit)}
	}
	switch o.output {
	case "diff", "json", "markdown":
	default:
		return &usageError{fmt.Sprintf("-o %q: must be diff, json or markdown", o.output)}
	}
	if o.changed != nil && o.changed("plan") && strings.TrimSpace(o.planFile) == "" {
		return &usageError{"--plan: an empty path names nothing; give the plan file to write"}
	}
	if o.dryRun && (o.write || o.out != "") {
		return &usageError{"--dry-run: migrate is a dry run by default; --write and --out are what write, so give one or the other"}
	}
	if o.dryRun && !o.quiet {
		fmt.Fprintln(o.Err, "schedtool: migrate is a dry run by default: --dry-run changes nothing (--write applies the changes, --out writes them elsewhere)")
	}
	if (o.planFile != "" || o.output == "markdown") && (o.write || o.out != "") {
		what := "--plan"
		if o.planFile == "" {
			what = "-o markdown"
		}
		return &usageError{what + " is a dry run that saves or renders the plan: --write and --out exclude it (schedtool apply PLAN writes a saved plan)"}
	}
	if o.write && o.out != "" {
		return &usageError{"--write and --out exclude each other: --write changes the files in place, --out writes elsewhere"}
	}
	return nil
}

// chooseMode sets how the run writes, from --write, --out and the kinds of
// the inputs, and refuses what they cannot do together, an --out that is
// an input among them (it looks at the disk): before anything is written.
func (o *migrateOptions) chooseMode() error {
	dumps, trees := 0, 0
	for _, in := range o.inputs {
		if in.Dump != "" {
			dumps++
		} else {
			trees++
		}
	}
	o.run = migrate.RunOptions{Load: o.loadOptions(), Format: o.output, Quiet: o.quiet, Out: o.out, Force: o.force, Limit: o.limit, Hooks: writeHooks}
	switch {
	case o.write && dumps > 0:
		return &usageError{"--write does not rewrite a live_specs dump in place; use --out FILE to write its migrated rows"}
	case o.write:
		for _, in := range o.inputs {
			if in.Arg == "-" {
				// Its config files could be written and the source not:
				// refuse before anything is written (docs/behaviour.md §7).
				return &usageError{"--write -: standard input cannot be written in place (and the files it names would be changed without it); give the catalog by its path, or use a dry run"}
			}
		}
		o.run.Mode = migrate.Write
		o.noteNoGit()
	case o.out != "" && dumps > 0 && trees > 0:
		return &usageError{"--out is a directory for catalog trees and a file for dumps: migrate them in separate runs"}
	case o.out != "" && dumps > 0 && rowsFile(o.out):
		o.run.Mode = migrate.OutFile
		return o.checkOutFile()
	case o.out != "" && dumps > 0:
		o.run.Mode = migrate.OutTree
		return o.checkOutDir()
	case o.out != "":
		o.run.Mode = migrate.OutDir
		for _, in := range o.inputs {
			if in.Arg == "-" {
				// Refused here, before the run writes a line of its report.
				return &usageError{"--out DIR -: standard input has no place in an output tree (the files it names would be copied without it); give the catalog by its path"}
			}
		}
		if _, err := os.Lstat(o.out); errors.Is(err, fs.ErrNotExist) && rowsFile(o.out) {
			return &usageError{fmt.Sprintf("--out %s: a %s name is the file of a dump's migrated rows, but the inputs are catalog sources, whose migrated copy is a tree of files; name a directory (%s/ if that is its name)", o.out, filepath.Ext(o.out), strings.TrimRight(o.out, "/"))}
		}
		return o.checkOutDir()
	}
	return nil
}

// inputFiles are the files and directories the command line names, and
// the sources found under its directories.
func (o *migrateOptions) inputFiles() []string {
	var paths []string
	for _, in := range o.inputs {
		if in.Arg == "-" {
			continue
		}
		paths = append(paths, in.Arg)
		if in.Dump != "" {
			paths = append(paths, in.Dump)
		}
		paths = append(paths, in.Sources...)
	}
	return paths
}

// checkOutFile refuses an --out FILE that is an input (by identity, so a
// symlink or another spelling is no way round), a symlink, something
// other than a file, or an existing file without --force.
func (o *migrateOptions) checkOutFile() error {
	st, err := os.Lstat(o.out)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return &usageError{fmt.Sprintf("--out %s: %v", o.out, err)}
		}
		return nil
	}
	if id, ok := paths.Identify(o.out); ok {
		for _, p := range o.inputFiles() {
			if pid, ok := paths.Identify(p); ok && pid == id {
				return &usageError{fmt.Sprintf("--out %s is the input %s: writing it would replace the input with only the migrated rows; name another file", o.out, p)}
			}
		}
		// Standard input redirected from the file --out names is that
		// input too (migrate --force --out live.ndjson - < live.ndjson).
		for _, in := range o.inputs {
			if in.Arg != "-" {
				continue
			}
			if sst, err := os.Stdin.Stat(); err == nil {
				if sid, ok := paths.IdentifyInfo(sst); ok && sid == id {
					return &usageError{fmt.Sprintf("--out %s is the input - (standard input reads it): writing it would replace the input with only the migrated rows; name another file", o.out)}
				}
			}
		}
	}
	switch {
	case st.Mode()&fs.ModeSymlink != 0:
		return &usageError{fmt.Sprintf("--out %s is a symlink; schedtool does not write through one", o.out)}
	case st.IsDir():
		return &usageError{fmt.Sprintf("--out %s is a directory; for a dump, name the file to write", o.out)}
	case !st.Mode().IsRegular():
		return &usageError{fmt.Sprintf("--out %s is not a regular file", o.out)}
	case !o.force:
		return &usageError{fmt.Sprintf("--out %s exists; schedtool does not replace it unless --force", o.out)}
	}
	return nil
}

// checkOutDir refuses an --out DIR that is a file, a symlink, an input, a
// directory holding an input or inside one (judged on resolved paths), or
// a non-empty directory without --force.
func (o *migrateOptions) checkOutDir() error {
	st, err := os.Lstat(o.out)
	switch {
	case err == nil && st.Mode()&fs.ModeSymlink != 0:
		return &usageError{fmt.Sprintf("--out %s is a symlink; schedtool does not write through one", o.out)}
	case err == nil && !st.IsDir():
		return &usageError{fmt.Sprintf("--out %s is a file; for a catalog tree, name a directory", o.out)}
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return &usageError{fmt.Sprintf("--out %s: %v", o.out, err)}
	}
	out := realPath(o.out)
	for _, in := range o.inputs {
		if in.Arg == "-" {
			continue
		}
		p := realPath(in.Arg)
		if _, ok := paths.Under(p, out); ok && in.Dir != "" {
			return &usageError{fmt.Sprintf("--out %s is inside the input %s: the next run would read the migrated copy as more sources; name a directory elsewhere", o.out, in.Arg)}
		}
		if _, ok := paths.Under(out, p); ok {
			return &usageError{fmt.Sprintf("--out %s holds the input %s: the migrated tree could overwrite it; name a directory elsewhere", o.out, in.Arg)}
		}
	}
	if err == nil && !o.force {
		if entries, rerr := os.ReadDir(o.out); rerr != nil {
			return &usageError{fmt.Sprintf("--out %s: %v", o.out, rerr)}
		} else if len(entries) > 0 {
			return &usageError{fmt.Sprintf("--out %s is not empty; schedtool writes a tree only into a new or empty directory unless --force", o.out)}
		}
	}
	return nil
}

// realPath is p absolute with its symlinks resolved, as far as it exists.
func realPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	var rest []string
	for cur := abs; ; cur = filepath.Dir(cur) {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(append([]string{real}, rest...)...)
		}
		if filepath.Dir(cur) == cur {
			return abs
		}
		rest = append([]string{filepath.Base(cur)}, rest...)
	}
}

// rowsFile reports whether --out names a file for the migrated rows of
// stored specs rather than the directory of a publishable tree: an
// existing file, or a name ending in .ndjson, .jsonl or .json.
func rowsFile(out string) bool {
	if st, err := os.Stat(out); err == nil {
		return !st.IsDir()
	}
	if strings.HasSuffix(out, "/") || strings.HasSuffix(out, string(filepath.Separator)) {
		return false
	}
	switch strings.ToLower(filepath.Ext(out)) {
	case ".ndjson", ".jsonl", ".json":
		return true
	}
	return false
}

func (o *migrateOptions) Run() error {
	if err := o.chooseMode(); err != nil {
		return err
	}
	if o.replayRun != nil {
		// A saved plan's apply or show: migrate's planning, run again.
		return o.replayRun(o)
	}
	out := o.Out
	if color, _ := useColor(o.color, o.OutTerminal); color && o.output == "diff" && o.planFile == "" {
		dc := &diffColor{w: o.Out}
		defer dc.Close()
		out = dc
	}
	var rec *savedplan.Recorder
	var diff bytes.Buffer
	if o.planFile != "" || o.output == "markdown" {
		w, err := o.startPlan()
		if err != nil {
			return err
		}
		defer w.Abort()
		rec = o.recorder(w)
		o.run.Record = rec
		switch o.output {
		case "markdown":
			o.run.Format, o.run.Review = "diff", true
			out = &diff // the Markdown holds it
		case "diff":
			out = io.Discard // the plan instead of the diff
		}
	}
	stop := o.readProgress("migrate", &o.run.Load)
	sum, err := o.migrator.Run(o.inputs, o.run, out, o.Err)
	stop()
	if err != nil {
		return err
	}
	if rec != nil {
		if err := o.savePlan(rec, sum, diff.Bytes()); err != nil {
			return err
		}
	}
	if sum.Interrupted != "" {
		return &interruptedError{sig: sum.Interrupted, written: sum.Written}
	}
	if err := o.selected(); err != nil {
		return err
	}
	if !sum.OK() {
		return fmt.Errorf("migration incomplete: %d unreadable %s, %d %s refused, %d %s not written",
			sum.Unreadable, report.Plural(sum.Unreadable, "input", "inputs"), sum.Refused, report.Plural(sum.Refused, "file", "files"), sum.Failed, report.Plural(sum.Failed, "file", "files"))
	}
	// A person is needed (docs/behaviour.md §7), in every mode: tasks to review, V1
	// tasks skipped, file sinks left for want of --zero-file-sinks. Tasks
	// deferred by --limit are the operator's own choice: after --write or
	// --out they leave the run done; a dry run has them pending.
	var why []string
	if n := sum.Review(); n > 0 {
		why = append(why, fmt.Sprintf("%d %s review", n, report.Plural(n, "task needs", "tasks need")))
	}
	if n := sum.UnpacedV1; n > 0 {
		why = append(why, fmt.Sprintf("%d V1 %s skipped that nothing paces (a materialization syncSchedule the V1 runtime ignores, no connector delay): --enable-runtime-v2 moves %s to the V2 runtime",
			n, report.Plural(n, "task", "tasks"), report.Plural(n, "it", "them")))
	}
	if n := sum.V1Review; n > 0 {
		why = append(why, fmt.Sprintf("%d V1 %s skipped whose connector schedule needs a person first (the reason above): --enable-runtime-v2 alone would not move %s",
			n, report.Plural(n, "task", "tasks"), report.Plural(n, "it", "them")))
	}
	if n := sum.Skipped() - sum.FileSinks - sum.UnpacedV1 - sum.V1Review; n > 0 {
		why = append(why, fmt.Sprintf("%d V1 %s skipped, still paced by %s: --enable-runtime-v2 moves %s to the V2 runtime with %s",
			n, report.Plural(n, "task", "tasks"), report.Plural(n, "its connector", "their connectors"), report.Plural(n, "it", "them"), report.Plural(n, "its schedule", "their schedules")))
	}
	if n := sum.FileSinks; n > 0 {
		why = append(why, fmt.Sprintf("%d file %s skipped, still paced by %s interval: --zero-file-sinks writes the materialization schedule and sets the interval to 0s in one change",
			n, report.Plural(n, "sink", "sinks"), report.Plural(n, "its", "their")))
	}
	if n := sum.Oversized; n > 0 {
		why = append(why, fmt.Sprintf("%d %s config files with more tasks than --limit %d takes: no run at this limit migrates %s; raise --limit",
			n, report.Plural(n, "task shares", "tasks share"), o.limit, report.Plural(n, "it", "them")))
	}
	if n := sum.Deferred(); n > 0 && o.run.Mode == migrate.DryRun {
		why = append(why, fmt.Sprintf("%d %s deferred by --limit %d: run again for the next wave", n, report.Plural(n, "task", "tasks"), o.limit))
	}
	if len(why) > 0 {
		return &reportError{strings.Join(why, "; ")}
	}
	if o.run.Mode == migrate.DryRun && sum.Pending > 0 {
		return &reportError{}
	}
	return nil
}

// interruptSignals are the signals that end a write run cleanly: SIGHUP
// is the terminal or ssh session closing, SIGQUIT a user's ^\; each is
// handled as SIGTERM is.
var interruptSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// writeHooks are the group writer's fault hooks of a run; the zero value
// (none) outside the tests, which set them to pause a write.
var writeHooks groupwrite.Hooks

// handleSignals makes interruptSignals finish or undo the group being
// written and leave no temp file (docs/behaviour.md §7): outside a group's renames the
// process ends at once, its temp files removed; during them the group
// finishes and the run stops after it. stop ends the handling. validate
// takes it for its -o FILE temp files, apply for its groups.
func (c *common) handleSignals() (stop func()) {
	groupwrite.ResetInterrupt()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, interruptSignals...)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			groupwrite.OnSignal(sig, func() {
				e := &interruptedError{sig: migrate.SignalName(sig), written: int(migrate.Written())}
				os.Exit(exitCode(e, c.Err))
			})
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}

// decisions are the project file's migrate decisions over the flags'
// options, per task: a flag given on the command line wins (nil when
// the file decides nothing).
func (o *migrateOptions) decisions(base plan.Options) func(name string) plan.Options {
	if o.project == nil || o.project.Decisions == nil {
		return nil
	}
	d := o.project.Decisions
	given := func(name string) bool { return o.changed != nil && o.changed(name) }
	if d.Absent != "" && !given("absent") {
		base.Absent = d.Absent
		o.absent = d.Absent
	}
	return func(name string) plan.Options {
		opt := base
		if !given("enable-runtime-v2") && project.MatchesAny(d.EnableRuntimeV2, name) {
			opt.EnableRuntimeV2 = true
		}
		if !given("zero-file-sinks") && project.MatchesAny(d.ZeroFileSinks, name) {
			opt.ZeroFileSinks = true
		}
		if !given("resolve") {
			for _, r := range d.Resolve {
				if project.Matches(r.Task, name) {
					opt.Resolve = r.Resolve // the first entry that picks the task
					break
				}
			}
		}
		return opt
	}
}

// planOptions are the planner's options from the flags.
func (o *migrateOptions) planOptions() plan.Options {
	return plan.Options{Absent: o.absent, Resolve: o.resolve, ZeroFileSinks: o.zeroFileSinks, EnableRuntimeV2: o.enableV2}
}

// noteNoGit says once, for --write, when a PATH is outside every git work
// tree: the files are replaced in place, and nothing (no commit, no
// diff) keeps their old bytes.
func (o *migrateOptions) noteNoGit() {
	if o.quiet {
		return
	}
	var outside []string
	for _, in := range o.inputs {
		dir := in.Dir
		if dir == "" {
			dir = filepath.Dir(in.Arg)
		}
		if in.Arg != "-" && !input.InGitWorkTree(dir) {
			outside = append(outside, in.Arg)
		}
	}
	if len(outside) == 0 {
		return
	}
	fmt.Fprintf(o.Err, "schedtool: --write: %s %s not in a git work tree: nothing records the old bytes of the files it changes (commit the catalog to git first, or write a copy with --out DIR)\n",
		report.Escape(strings.Join(outside, ", ")), report.Plural(len(outside), "is", "are"))
}

// savePlan ends the plan a dry run recorded (--plan FILE), and writes
// its Markdown (-o markdown) to standard output.
func (o *migrateOptions) savePlan(rec *savedplan.Recorder, sum *migrate.Summary, diff []byte) error {
	// An import or config file the run read is refused (outguard.go);
	// the plan's temp file is dropped.
	if err := o.guard.err(); o.planFile != "" && err != nil {
		return err
	}
	if err := rec.W.Close(sum); err != nil {
		return fmt.Errorf("--plan %s: %w", o.planFile, err)
	}
	if o.planFile != "" && !o.quiet {
		shown := report.Escape(paths.Display(o.planFile))
		fmt.Fprintf(o.Err, "plan written: %s (%s); review it with schedtool show %s, write it with schedtool apply %s\n",
			shown, rec.W.Plan.Digest, shown, shown)
	}
	if o.output == "markdown" {
		return writeParts(o.Out, savedplan.Markdown(rec.W.Plan, diff, savedplan.CommentLimit))
	}
	return nil
}

// planRoot is the one root of the inputs, which every path of a plan is
// relative to (-o markdown alone takes the first: no plan is applied).
func (o *migrateOptions) planRoot() (string, error) {
	roots := inputRoots(o.inputs)
	if len(roots) > 1 && o.planFile != "" {
		return "", &usageError{fmt.Sprintf("--plan: the PATHs lie under several roots (%s), and a plan names its files relative to one: plan them in separate runs, or give --root DIR holding them all", strings.Join(roots, ", "))}
	}
	if len(roots) == 0 {
		return ".", nil
	}
	return roots[0], nil
}

// startPlan starts the plan document: its head holds the PATHs, the
// options in effect (the project file's with its digest) and where the
// root is from the working directory, every path relative to the root.
func (o *migrateOptions) startPlan() (*savedplan.Writer, error) {
	root, err := o.planRoot()
	if err != nil {
		return nil, err
	}
	abs := savedplan.AbsRoot(root)
	// The PATHs read: the project file's when none were given, so
	// that apply reads the same catalog again. A database PATH is kept
	// without its password: a plan is a file to review and share, and
	// apply never reads a database again.
	paths := o.paths
	if len(paths) == 0 {
		paths = o.projectPaths()
	}
	head := &savedplan.Plan{Schedtool: toolVersion(), Args: make([]string, len(paths))}
	for i, a := range paths {
		if livespecs.IsDBURL(a) {
			a = livespecs.RedactURL(a)
		}
		head.Args[i] = savedplan.Rel(abs, a)
	}
	head.Options.Flags = o.flagsSet()
	for _, name := range pathFlags {
		if vs, ok := head.Options.Flags[name]; ok {
			for i, v := range vs {
				vs[i] = savedplan.Rel(abs, v)
			}
		}
	}
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, abs); err == nil {
			head.Options.Root = filepath.ToSlash(rel)
		}
	}
	if p := o.project; p != nil {
		b, err := os.ReadFile(p.File)
		if err != nil {
			return nil, &usageError{"project file " + err.Error()}
		}
		head.Options.Project = &savedplan.Project{File: savedplan.Rel(abs, p.File), SHA256: savedplan.Hash(b), Root: p.Root, Exclude: p.Exclude, Decisions: p.Decisions, Connectors: p.Connectors, Paths: p.Paths}
	}
	w, err := savedplan.NewWriter(o.planFile, head)
	if err != nil {
		return nil, fmt.Errorf("--plan %s: %w", o.planFile, err)
	}
	return w, nil
}

// recorder records the run into w, paths relative to its root.
func (o *migrateOptions) recorder(w *savedplan.Writer) *savedplan.Recorder {
	root, _ := o.planRoot()
	return savedplan.NewRecorder(w, root)
}

// pathFlags are migrate's flags that name a file or a directory: a plan
// holds them relative to the root.
var pathFlags = []string{"root", "connectors", "config"}

// writeParts writes the parts of a Markdown body one after the other
// (each after the first begins with its part marker line).
func writeParts(w io.Writer, parts []string) error {
	for _, p := range parts {
		if _, err := io.WriteString(w, p); err != nil {
			return err
		}
	}
	return nil
}

// planFlags are the flags set on migrate's command line that shape the
// plan (selectors, --limit, --resolve, --absent, ...), by name; the
// output and the plan file aside.
func planFlags(cmd *cobra.Command) map[string][]string {
	out := map[string][]string{}
	cmd.Flags().Visit(func(f *pflag.Flag) {
		switch f.Name {
		case "plan", "output", "quiet", "color", "cpuprofile", "dry-run":
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			out[f.Name] = append([]string(nil), sv.GetSlice()...)
			return
		}
		out[f.Name] = []string{f.Value.String()}
	})
	return out
}

// inputRoots are the inputs' roots, once each.
func inputRoots(inputs []catalog.Input) []string {
	var out []string
	for _, in := range inputs {
		if in.Root != "" && !slices.Contains(out, in.Root) {
			out = append(out, in.Root)
		}
	}
	return out
}
