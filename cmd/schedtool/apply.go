package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/internal/paths"
	"github.com/estuary/schedtool/report"
	"github.com/estuary/schedtool/savedplan"
)

type applyOptions struct {
	*common
	check        bool
	allOrNothing bool
	out          string
	force        bool
	changed      func(string) bool
	rowsTree     bool

	path   string
	plan   *savedplan.Plan
	inputs []catalog.Input // the plan's PATHs, for --out DIR
}

func newApply(c *common) *cobra.Command {
	o := &applyOptions{common: c}
	cmd := &cobra.Command{
		Use:   "apply [flags] PLAN",
		Short: "Write exactly the edits of a saved plan (migrate --plan)",
		Long: `apply writes the edits a saved plan holds (schedtool migrate --plan FILE),
exactly as reviewed, and recomputes nothing. Each group of files is written
as migrate --write writes it: all or nothing, the file adding a
materialization syncSchedule before the file zeroing its connector, under
migrate's locks, a signal finishing or undoing the group being written.

Every input is checked against the SHA-256 the plan read: a group with a
file changed since the plan is refused, naming the file and what changed
(exit 2), and the other groups are still written unless --all-or-nothing.
A group whose files already hold the planned result is reported as already
applied (exit 0): a plan applied twice changes nothing the second time.
The plan's catalog is read again: a group zeroing a config file that a task
the plan does not migrate with it now uses (a source added since) is
refused the same way, as it would leave that task unpaced. A
plan edited by hand (its digest), or made by a newer schedtool, is refused
(exit 1). --check says what would happen and writes nothing.

--out DIR writes the migrated tree elsewhere instead, as migrate --out DIR
does (the whole tree, so nothing is written when an input changed). A plan
of stored specs (live_specs dumps) writes the migrated rows to --out FILE
(a .ndjson, .jsonl or .json name), or a publishable tree of them to --out
DIR (one source per task, as migrate --out DIR), reading the dump file
again: a row published since the plan (its last_pub_id) or changed is
refused.

Run apply from the directory migrate --plan ran in: the plan names files
as migrate did.`,
		Example: `  # Plan, review, apply
  schedtool migrate --plan wave1.plan fixtures/catalog
  schedtool show wave1.plan
  schedtool apply wave1.plan

  # What would happen, writing nothing
  schedtool apply --check wave1.plan

  # Stored specs: the migrated rows of a reviewed plan
  schedtool migrate --plan rows.plan live_specs.ndjson
  schedtool apply --out migrated.ndjson rows.plan`,
		Args: wrapArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !o.check {
				// migrate's handling: a signal finishes or undoes the group.
				stop := (&migrateOptions{common: o.common}).handleSignals()
				defer stop()
			}
			return runOptions(o)(cmd, args)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.check, "check", false, "say what would happen, writing nothing")
	f.BoolVar(&o.allOrNothing, "all-or-nothing", false, "write nothing when any group or row changed since the plan")
	f.StringVar(&o.out, "out", "", "write elsewhere, as migrate --out: the migrated tree under this directory (a plan of catalog files), or the migrated rows to this file (a plan of stored specs); never over existing files unless --force")
	f.BoolVar(&o.force, "force", false, "let --out replace an existing file, or write into a non-empty directory")
	o.changed = f.Changed
	return cmd
}

// Complete reads the plan, refusing one edited by hand or made by a newer
// schedtool.
func (o *applyOptions) Complete(args []string) error {
	o.path = args[0]
	p, err := savedplan.Read(o.path, toolVersion(), o.maxFileSize)
	if err != nil {
		return err
	}
	o.plan = p
	if o.out != "" && len(p.Groups) > 0 {
		// The tree --out DIR mirrors: the plan's PATHs under its root.
		o.inputs, err = input.Resolve(p.Args, o.planLoad())
	}
	return err
}

// Validate checks --out: a directory for a plan of catalog files, as
// migrate --out DIR checks it; a file for a plan of stored specs.
func (o *applyOptions) Validate() error {
	if o.out == "" {
		return nil
	}
	if o.changed("out") && strings.TrimSpace(o.out) == "" {
		return &usageError{"--out: an empty path names nothing"}
	}
	if len(o.plan.Groups) > 0 {
		if len(o.plan.Dumps) > 0 {
			return &usageError{"--out: the plan holds both catalog files and stored-spec rows; plan them in separate runs"}
		}
		m := &migrateOptions{common: o.common, out: o.out, force: o.force, inputs: o.inputs}
		return m.checkOutDir()
	}
	if !rowsFile(o.out) {
		// The publishable tree, one source per task, as migrate --out DIR.
		o.rowsTree = true
		return (&migrateOptions{common: o.common, out: o.out, force: o.force}).checkOutDir()
	}
	st, err := os.Lstat(o.out)
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return &usageError{fmt.Sprintf("--out %s: %v", o.out, err)}
	case err != nil:
		return nil
	case st.Mode()&fs.ModeSymlink != 0:
		return &usageError{fmt.Sprintf("--out %s is a symlink; schedtool does not write through one", o.out)}
	case !st.Mode().IsRegular():
		return &usageError{fmt.Sprintf("--out %s is not a regular file", o.out)}
	}
	if id, ok := paths.Identify(o.out); ok {
		for _, d := range o.plan.Dumps {
			if did, ok := paths.Identify(d.Name); ok && did == id {
				return &usageError{fmt.Sprintf("--out %s is the dump %s the plan reads: name another file", o.out, d.Name)}
			}
		}
	}
	if !o.force {
		return &usageError{fmt.Sprintf("--out %s exists; schedtool does not replace it unless --force", o.out)}
	}
	return nil
}

// planLoad is how the plan's catalog is read again: the flags' options,
// under the plan's root unless --root says otherwise.
func (o *applyOptions) planLoad() catalog.Options {
	load := o.loadOptions()
	if load.Root == "" {
		load.Root = o.plan.Flags["root"]
	}
	return load
}

func (o *applyOptions) Run() error {
	res, err := savedplan.Apply(o.plan, savedplan.ApplyOptions{Check: o.check, AllOrNothing: o.allOrNothing, Out: o.out, Inputs: o.inputs, RowsTree: o.rowsTree, Force: o.force, Hooks: writeHooks, Quiet: o.quiet, Load: o.planLoad()}, o.Err)
	if err != nil {
		return err
	}
	if res.Interrupted != "" {
		return &interruptedError{sig: res.Interrupted, written: res.Written}
	}
	if res.Failed > 0 || res.Refused > 0 {
		return fmt.Errorf("apply incomplete: %d %s refused by the plan, %d not written", res.Refused, report.Plural(res.Refused, "file", "files"), res.Failed)
	}
	if res.Changed > 0 {
		return &reportError{fmt.Sprintf("%d %s not written: refused with a group (or a row) whose input changed since the plan; plan again (schedtool migrate --plan) and review the new plan", res.Changed, report.Plural(res.Changed, "file or row", "files or rows"))}
	}
	return nil
}

type showOptions struct {
	*common
	output string
	path   string
	raw    []byte
	plan   *savedplan.Plan
}

func newShow(c *common) *cobra.Command {
	o := &showOptions{common: c}
	cmd := &cobra.Command{
		Use:   "show [flags] PLAN",
		Short: "Render a saved plan: its diff, a pull-request body, or its JSON",
		Long: `show renders a saved plan (schedtool migrate --plan FILE). -o diff is byte
for byte the dry-run diff migrate printed when the plan was made: the plan
holds edits, not files, so each input is read again and must still hold
the bytes the plan read (an input changed since is named on standard error,
exit 2). -o markdown is a pull-request body: the summary, the verify
verdict, the behaviour changes, what needs a person, and the diff in a
collapsed block; over 65,536 characters it comes in parts, each under that
limit, each beginning with a line <!-- schedtool part N of M -->. -o json is
the plan itself. A plan edited by hand, or made by a newer schedtool, is
refused (exit 1).`,
		Example: `  schedtool show wave1.plan
  schedtool show -o markdown wave1.plan > pr-body.md`,
		Args: wrapArgs(cobra.ExactArgs(1)),
		RunE: runOptions(o),
	}
	cmd.Flags().StringVarP(&o.output, "output", "o", "diff", "output format: diff, markdown or json")
	completeValues(cmd, "output", "diff", "markdown", "json")
	return cmd
}

func (o *showOptions) Complete(args []string) error {
	o.path = args[0]
	b, err := savedplan.ReadFile(o.path, o.maxFileSize)
	if err != nil {
		return err
	}
	o.raw = b
	o.plan, err = savedplan.Parse(o.path, b, toolVersion())
	return err
}

func (o *showOptions) Validate() error {
	switch o.output {
	case "diff", "markdown", "json":
		return nil
	}
	return &usageError{fmt.Sprintf("-o %q: must be diff, markdown or json", o.output)}
}

func (o *showOptions) Run() error {
	if o.output == "json" {
		_, err := o.Out.Write(o.raw)
		return err
	}
	var diff bytes.Buffer
	w := o.Out
	if o.output == "markdown" {
		w = &diff
	} else if color, _ := useColor(o.color, o.OutTerminal); color {
		dc := &diffColor{w: o.Out} // as migrate's dry run on a terminal
		defer dc.Close()
		w = dc
	}
	bad, err := savedplan.Diff(o.plan, w, o.loadOptions())
	if err != nil {
		return err
	}
	for _, b := range bad {
		fmt.Fprintf(o.Err, "schedtool: %s\n", report.Escape(b))
	}
	if o.output == "markdown" {
		if err := writeParts(o.Out, savedplan.Markdown(o.plan, diff.Bytes(), savedplan.CommentLimit)); err != nil {
			return err
		}
	}
	if len(bad) > 0 {
		return &reportError{fmt.Sprintf("%d %s of the plan cannot be shown: %s", len(bad), report.Plural(len(bad), "input", "inputs"), "apply would refuse them; plan again")}
	}
	return nil
}
