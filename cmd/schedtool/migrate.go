package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"schedtool/catalog"
	"schedtool/migrate"
	"schedtool/plan"
	"schedtool/report"
)

type migrateOptions struct {
	*common
	write         bool
	out           string
	absent        string
	resolve       string
	zeroFileSinks bool
	verify        bool
	verifyYear    int
	output        string

	paths    []string
	inputs   []catalog.Input
	migrator *migrate.Migrator
	run      migrate.RunOptions
}

func newMigrate(c *common) *cobra.Command {
	o := &migrateOptions{common: c}
	cmd := &cobra.Command{
		Use:   "migrate [flags] PATH...",
		Short: "Move connector schedules into the materialization's syncSchedule",
		Long: `migrate moves each connector-side schedule into the materialization's
syncSchedule (run by the V2 runtime) and sets the connector to its off state,
{syncFrequency: "0s"}. Nothing else changes: edits are made to the original
bytes (comments, key order, quoting, indentation, CRLF and anchors stay), and
each edited file is re-read and must decode to exactly the intended tree.
Sealed (sops) configs are never edited in their values: the change goes into
sops.overlay.

By default migrate is a dry run that prints a unified diff per file. It
exits 2 whenever a person is needed: changes pending in a dry run, or tasks
that need review (in every mode, --write and --out too); 0 only when
everything is done. --write applies the
changes in place, atomically; --out DIR writes the migrated tree elsewhere;
for live_specs dumps --out FILE writes the migrated rows, each spec carrying
expectPubId (its row's last_pub_id) so publishing them cannot overwrite a
concurrent change.

Tasks that need a person (conflicts, sealed or invalid schedules, a Local
timezone, shared config files asked for different changes) are listed on
standard error with the reason; V1 tasks are skipped.`,
		Example: `  # What would change
  schedtool migrate fixtures/catalog

  # Apply it, then check the result
  schedtool migrate --write fixtures/catalog && schedtool validate fixtures/catalog

  # Stored specs: migrated rows for publication, with a per-task report
  schedtool migrate --out migrated.ndjson -o json live_specs.ndjson > report.json

  # Prove each migrated schedule commits when the old one did
  schedtool migrate --verify -o json fixtures/catalog`,
		Args: wrapArgs(cobra.ArbitraryArgs),
		RunE: runOptions(o),
	}
	f := cmd.Flags()
	f.BoolVarP(&o.write, "write", "w", false, "apply the changes in place (atomically; a file changed since it was read is refused)")
	f.StringVar(&o.out, "out", "", "write the migrated tree under this directory, or the migrated rows of a dump to this file")
	f.StringVar(&o.absent, "absent", "preserve", "a task on the 30m default: preserve writes syncSchedule {baseInterval: 30m}, drop only turns the connector's delay off")
	f.StringVar(&o.resolve, "resolve", "", "a conflict: model keeps the materialization schedule, connector replaces it by the converted connector one")
	f.BoolVar(&o.zeroFileSinks, "zero-file-sinks", false, "also set file sinks' intervals to zero (outside their published values)")
	f.BoolVar(&o.verify, "verify", false, "simulate old and new schedule for every migrated task and report the differences")
	f.IntVar(&o.verifyYear, "verify-year", 0, "the year whose DST transitions --verify covers (default: this year)")
	f.StringVarP(&o.output, "output", "o", "diff", "output format: diff or json")
	return cmd
}

func (o *migrateOptions) Complete(args []string) error {
	o.paths = args
	reg, err := o.registry()
	if err != nil {
		return err
	}
	if o.verifyYear == 0 {
		o.verifyYear = time.Now().Year()
	}
	o.migrator = &migrate.Migrator{
		Planner:  &plan.Planner{Registry: reg, Options: plan.Options{Absent: o.absent, Resolve: o.resolve, ZeroFileSinks: o.zeroFileSinks}},
		Registry: reg, Limits: o.loadOptions().Limits, Verify: o.verify, VerifyYear: o.verifyYear,
	}
	return nil
}

func (o *migrateOptions) Validate() error {
	switch o.absent {
	case "preserve", "drop":
	default:
		return &usageError{fmt.Sprintf("--absent %q: must be preserve or drop", o.absent)}
	}
	switch o.resolve {
	case "", "model", "connector":
	default:
		return &usageError{fmt.Sprintf("--resolve %q: must be model or connector", o.resolve)}
	}
	switch o.output {
	case "diff", "json":
	default:
		return &usageError{fmt.Sprintf("-o %q: must be diff or json", o.output)}
	}
	if o.write && o.out != "" {
		return &usageError{"--write and --out exclude each other: --write changes the files in place, --out writes elsewhere"}
	}
	var err error
	if o.inputs, err = catalog.Resolve(o.paths, o.loadOptions()); err != nil {
		return err
	}
	dumps, trees := 0, 0
	for _, in := range o.inputs {
		if in.Dump != "" {
			dumps++
		} else {
			trees++
		}
	}
	o.run = migrate.RunOptions{Load: o.loadOptions(), Format: o.output, Quiet: o.quiet, Out: o.out}
	switch {
	case o.write && dumps > 0:
		return &usageError{"--write does not rewrite a live_specs dump in place; use --out FILE to write its migrated rows"}
	case o.write:
		o.run.Mode = migrate.Write
	case o.out != "" && dumps > 0 && trees > 0:
		return &usageError{"--out is a directory for catalog trees and a file for dumps: migrate them in separate runs"}
	case o.out != "" && dumps > 0:
		o.run.Mode = migrate.OutFile
		if st, err := os.Stat(o.out); err == nil && st.IsDir() {
			return &usageError{fmt.Sprintf("--out %s is a directory; for a dump, name the file to write", o.out)}
		}
	case o.out != "":
		o.run.Mode = migrate.OutDir
		if st, err := os.Stat(o.out); err == nil && !st.IsDir() {
			return &usageError{fmt.Sprintf("--out %s is a file; for a catalog tree, name a directory", o.out)}
		}
		out, _ := filepath.Abs(o.out)
		for _, in := range o.inputs {
			if st, err := os.Stat(in.Arg); err != nil || !st.IsDir() {
				continue // only a directory is searched for more sources
			}
			root, _ := filepath.Abs(in.Arg)
			if rel, err := filepath.Rel(root, out); err == nil && (rel == "." || !strings.HasPrefix(rel, "..")) {
				return &usageError{fmt.Sprintf("--out %s is inside the input %s: the next run would read the migrated copy as more sources; name a directory elsewhere", o.out, in.Arg)}
			}
		}
	}
	return nil
}

func (o *migrateOptions) Run() error {
	sum, err := o.migrator.Run(o.inputs, o.run, o.Out, o.Err)
	if err != nil {
		return err
	}
	if err := o.selected(); err != nil {
		return err
	}
	if !sum.OK() {
		return fmt.Errorf("migration incomplete: %d unreadable %s, %d %s refused, %d %s not written",
			sum.Problems, report.Plural(sum.Problems, "input", "inputs"), sum.Refused, report.Plural(sum.Refused, "file", "files"), sum.Failed, report.Plural(sum.Failed, "file", "files"))
	}
	// A person is needed: tasks to review (in every mode), or changes
	// a dry run left pending.
	if n := sum.Review(); n > 0 {
		return &reportError{fmt.Sprintf("%d %s need%s review", n, report.Plural(n, "task", "tasks"), map[bool]string{true: "s"}[n == 1])}
	}
	if o.run.Mode == migrate.DryRun && sum.Pending > 0 {
		return &reportError{}
	}
	return nil
}
