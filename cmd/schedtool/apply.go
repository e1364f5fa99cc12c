package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/estuary/schedtool/catalog/livespecs"
	"github.com/estuary/schedtool/internal/paths"
	"github.com/estuary/schedtool/migrate"
	"github.com/estuary/schedtool/project"
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

	path string
	plan *savedplan.Plan
}

func newApply(c *common) *cobra.Command {
	o := &applyOptions{common: c}
	cmd := &cobra.Command{
		Use:   "apply [flags] PLAN",
		Short: "Write a saved plan (migrate --plan) where migrate would still write it",
		Long: `apply writes what a saved plan (schedtool migrate --plan FILE) holds, as
reviewed, and only where migrate would write exactly that now: the plan is
trusted for consent, never for safety. apply finds the root in the checkout
it runs in (as migrate does: --root, the project file, the git work tree;
run it from the directory the plan was made in, in any clone), runs
migrate's own planning again on the current inputs with the plan's options
and its task set (the names the selectors and --limit chose), and writes a
group of files only where that gives byte for byte the plan's edits for it
(for a stored spec, the same migrated row). Each group is written as
migrate --write writes it: all or nothing, the file adding a
materialization syncSchedule before the file zeroing its connector, under
migrate's locks, a signal finishing or undoing the group being written.

Anything else refuses that group, naming the file and the difference (an
input changed, a new user of a file the plan zeroes, a decision that no
longer holds, a changed project file): exit 2, and the other groups are
still written unless --all-or-nothing. A group whose files already hold the
planned result is already applied (exit 0): a plan applied twice changes
nothing the second time. Nothing outside the root is written. A plan edited
by hand (its digest), made by a newer schedtool, or of an older layout, is
refused (exit 1). --check says per group what apply would do, writing
nothing, and exits as apply would.

--out DIR writes the migrated tree elsewhere instead, as migrate --out DIR
does (the whole tree, so nothing is written when a group is refused). A
plan of stored specs (live_specs dump files) writes the migrated rows to
--out FILE (a .ndjson, .jsonl or .json name), or a publishable tree of them
to --out DIR (one source per task, as migrate --out DIR), reading the dump
again: a row published since the plan (its last_pub_id) or changed is
refused.`,
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
		RunE: runOptions(o),
	}
	f := cmd.Flags()
	f.BoolVar(&o.check, "check", false, "say per group what apply would do, writing nothing")
	f.BoolVar(&o.allOrNothing, "all-or-nothing", false, "write nothing when any group or row is refused")
	f.StringVar(&o.out, "out", "", "write elsewhere, as migrate --out: the migrated tree under this directory (a plan of catalog files), or the migrated rows to this file (a plan of stored specs); never over existing files unless --force")
	f.BoolVar(&o.force, "force", false, "let --out replace an existing file, or write into a non-empty directory")
	o.changed = f.Changed
	return cmd
}

// Complete reads the plan, refusing one edited by hand or made by a newer
// schedtool.
func (o *applyOptions) Complete(args []string) error {
	o.path = args[0]
	p, err := savedplan.Open(o.path, toolVersion(), o.maxFileSize)
	o.plan = p
	return err
}

// Validate checks --out against what the plan holds; migrate checks the
// rest of it when it runs again.
func (o *applyOptions) Validate() error {
	switch {
	case o.changed("out") && strings.TrimSpace(o.out) == "":
		return &usageError{"--out: an empty path names nothing"}
	case o.out != "" && len(o.plan.Groups) > 0 && len(o.plan.Dumps) > 0:
		return &usageError{"--out: the plan holds both catalog files and stored-spec rows; plan them in separate runs"}
	case o.out == "" && !o.check && len(o.plan.Dumps) > 0:
		return &savedplan.Error{Msg: "the plan holds migrated rows of stored specs, which are not written in place: give --out FILE for the migrated rows"}
	}
	return nil
}

func (o *applyOptions) Run() error {
	var extra []string
	switch {
	case o.check:
	case o.out != "":
		extra = []string{"--out=" + o.out}
		if o.force {
			extra = append(extra, "--force")
		}
	default:
		extra = []string{"--write"}
	}
	return o.replay(o.plan, extra, o.apply)
}

// apply is apply's run over migrate set up as the plan was made.
func (o *applyOptions) apply(m *migrateOptions) error {
	ro := m.run
	head := "apply"
	if o.check {
		head = "apply --check (nothing written)"
	}
	// The whole tree of --out DIR, or --all-or-nothing: every group is
	// compared first, in a dry run, and nothing is written when one is
	// refused.
	whole := o.allOrNothing || m.run.Mode == migrate.OutDir
	if o.check || whole {
		cmp := o.comparer(m, true)
		dry := ro
		dry.Mode, dry.Format = migrate.DryRun, "diff"
		if _, err := savedplan.Run(m.migrator, m.inputs, dry, cmp, io.Discard, o.Err); err != nil {
			return err
		}
		if n := cmp.Refused + cmp.ByPlan; o.check || n > 0 {
			if !o.check {
				what, why := "nothing written", "--all-or-nothing"
				if !o.allOrNothing {
					what, why = "nothing written under "+report.Escape(o.out), "--out DIR writes the whole tree"
				}
				fmt.Fprintf(o.Err, "schedtool: %s: %s, and %d %s refused\n", what, why, n, report.Plural(n, "file or row is", "files or rows are"))
			}
			fmt.Fprintln(o.Err, cmp.Line(head, true, 0))
			return o.exit(cmp, nil)
		}
	}
	cmp := o.comparer(m, false)
	sum, err := savedplan.Run(m.migrator, m.inputs, ro, cmp, io.Discard, o.Err)
	if err != nil {
		return err
	}
	fmt.Fprintln(o.Err, cmp.Line(head, false, sum.Written))
	return o.exit(cmp, sum)
}

// comparer is the comparison of one run against the plan.
func (o *applyOptions) comparer(m *migrateOptions, check bool) *savedplan.Comparer {
	cmp := newComparer(o.plan, m, o.Err)
	cmp.Quiet = o.quiet
	if check {
		cmp.Check()
		cmp.Say = o.check
	}
	return cmp
}

// exit is apply's exit: 1 when a file could not be written or the plan
// itself refused a group, 2 when a group or row was refused, else 0.
func (o *applyOptions) exit(cmp *savedplan.Comparer, sum *migrate.Summary) error {
	if s := o.plan.Summary; s != nil && !o.quiet {
		if n := s.Review() + s.Skipped(); n > 0 {
			fmt.Fprintf(o.Err, "the plan leaves %d %s to a person (needs review or skipped): schedtool show %s lists them\n", n, report.Plural(n, "task", "tasks"), report.Escape(paths.Display(o.path)))
		}
	}
	if sum != nil && sum.Interrupted != "" {
		return &interruptedError{sig: sum.Interrupted, written: sum.Written}
	}
	failed := 0
	if sum != nil {
		failed = sum.Failed
	}
	if failed > 0 || cmp.ByPlan > 0 {
		return fmt.Errorf("apply incomplete: %d %s refused by the plan, %d not written", cmp.ByPlan, report.Plural(cmp.ByPlan, "file", "files"), failed)
	}
	if cmp.Refused > 0 {
		return &reportError{fmt.Sprintf("%d %s not written: refused, as migrate would not write now what the plan holds for %s; plan again (schedtool migrate --plan) and review the new plan", cmp.Refused, report.Plural(cmp.Refused, "file or row", "files or rows"), report.Plural(cmp.Refused, "it", "them"))}
	}
	return nil
}

// newComparer compares a run of m with the plan p, under the root of the
// checkout m reads, refusing everything when the project file in effect
// is not the plan's.
func newComparer(p *savedplan.Plan, m *migrateOptions, errw io.Writer) *savedplan.Comparer {
	root := "."
	if roots := inputRoots(m.inputs); len(roots) > 0 {
		root = roots[0]
	}
	cmp := savedplan.NewComparer(p, root, errw)
	if why := projectChanged(p, m.project, savedplan.AbsRoot(root)); why != "" {
		cmp.RefuseAll(why)
	}
	return cmp
}

// projectChanged says how the project file in effect now differs from
// the plan's ("" when it is the same file with the same bytes).
func projectChanged(p *savedplan.Plan, now *project.Config, root string) string {
	was := p.Options.Project
	switch {
	case was == nil && now == nil:
		return ""
	case was == nil:
		return fmt.Sprintf("the project file %s applies now, and the plan was made without one", savedplan.Rel(root, now.File))
	case now == nil:
		return fmt.Sprintf("the project file %s the plan was made with no longer applies", was.File)
	}
	b, err := os.ReadFile(now.File)
	if at := savedplan.Rel(root, now.File); err != nil || at != was.File || savedplan.Hash(b) != was.SHA256 {
		return fmt.Sprintf("the project file changed since the plan (%s now, %s when planned)", at, was.File)
	}
	return ""
}

// replayDropped are the plan's flags a replay does not pass: --limit
// (the task set takes its place), --verify (it changes no edit), and
// those of the writing, which apply chooses.
var replayDropped = []string{"limit", "verify", "verify-year", "write", "out", "force", "plan"}

// replay runs migrate set up as the plan was made, in the checkout the
// command runs in: the plan's flags and PATHs under this checkout's root,
// and extra (--write, --out); run then does the work with migrate's
// options complete (the inputs resolved, the project file found as
// migrate finds it).
func (c *common) replay(p *savedplan.Plan, extra []string, run func(*migrateOptions) error) error {
	for _, a := range p.Args {
		if a == "-" || a == "<stdin>" || livespecs.IsDBURL(a) {
			return &savedplan.Error{Msg: fmt.Sprintf("%s: the plan's inputs came from standard input or a database, which cannot be read again; plan from files (a dump: psql \\copy, flowctl raw get > FILE)", a)}
		}
	}
	base, err := c.checkoutRoot(p)
	if err != nil {
		return err
	}
	argv := []string{"migrate"}
	names := make([]string, 0, len(p.Options.Flags))
	for n := range p.Options.Flags {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if slices.Contains(replayDropped, n) || n == "root" && c.root != "" {
			continue
		}
		for _, v := range p.Options.Flags[n] {
			if slices.Contains(pathFlags, n) {
				v = underRoot(base, v)
			}
			argv = append(argv, "--"+n+"="+v)
		}
	}
	if c.root != "" {
		argv = append(argv, "--root="+c.root)
	}
	if c.quiet {
		argv = append(argv, "-q")
	}
	argv = append(argv, "--color="+c.color)
	argv = append(argv, extra...)
	argv = append(argv, "--")
	for _, a := range p.Args {
		argv = append(argv, underRoot(base, a))
	}
	keep := stopProfiles
	defer func() { stopProfiles = keep }()
	cmd := newRootOf(&common{Streams: c.Streams, replayRun: run})
	cmd.SetArgs(argv)
	return cmd.Execute()
}

// underRoot is a plan's path under the root base, relative to the
// working directory when it is under it.
func underRoot(base, rel string) string {
	p := rel
	if !filepath.IsAbs(rel) {
		p = filepath.Join(base, filepath.FromSlash(rel))
	}
	if wd, err := os.Getwd(); err == nil {
		if r, err := filepath.Rel(wd, p); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return r
		}
	}
	return p
}

// checkoutRoot is where the plan's root-relative paths are read in this
// checkout: --root when given, else the plan's root taken from the
// working directory as it was from the directory migrate ran in.
func (c *common) checkoutRoot(p *savedplan.Plan) (string, error) {
	if c.root != "" {
		return c.root, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	if r := p.Options.Root; r != "" && !filepath.IsAbs(r) {
		return filepath.Join(wd, filepath.FromSlash(r)), nil
	}
	return wd, nil
}

type showOptions struct {
	*common
	output string
	path   string
	plan   *savedplan.Plan
}

func newShow(c *common) *cobra.Command {
	o := &showOptions{common: c}
	cmd := &cobra.Command{
		Use:   "show [flags] PLAN",
		Short: "Render a saved plan and say what apply would do with it now",
		Long: `show renders a saved plan (schedtool migrate --plan FILE) through migrate's
own dry run: it finds the root and runs migrate's planning again as apply
does, and shows each group of files (or row) that apply would write now,
which is byte for byte what the dry run printed when the plan was made.
On standard error it says, per group, what apply would do now (would
write, already applied, or refused and why), and it exits as apply would:
2 when apply would refuse a group, else 0 (after a successful apply, every
group is already applied).

-o diff is the dry run's diff; -o markdown is a pull-request body: the
summary, the verify verdict, the behaviour changes, what needs a person,
and the diff in a collapsed block; over 65,536 characters it comes in
parts, each under that limit, each beginning with a line
<!-- schedtool part N of M -->. -o json is the plan itself. A plan edited
by hand, or made by a newer schedtool, is refused (exit 1).`,
		Example: `  schedtool show wave1.plan
  schedtool show -o markdown wave1.plan > pr-body.md`,
		Args: wrapArgs(cobra.ExactArgs(1)),
		RunE: runOptions(o),
	}
	cmd.Flags().VarP(newOnce(&o.output, "diff", "run show once per format"), "output", "o", "output format: diff, markdown or json")
	completeValues(cmd, "output", "diff", "markdown", "json")
	return cmd
}

func (o *showOptions) Complete(args []string) error {
	o.path = args[0]
	p, err := savedplan.Open(o.path, toolVersion(), o.maxFileSize)
	o.plan = p
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
		f, _, err := paths.OpenRegular(o.path)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(o.Out, f)
		return err
	}
	return o.replay(o.plan, nil, o.show)
}

// show renders the plan through migrate's dry run, run again.
func (o *showOptions) show(m *migrateOptions) error {
	cmp := newComparer(o.plan, m, o.Err)
	cmp.Check()
	cmp.Say, cmp.Quiet = true, o.quiet
	ro := m.run
	ro.Mode, ro.Format = migrate.DryRun, "diff"
	ro.Review = o.output == "markdown" // as migrate -o markdown renders it
	var diff bytes.Buffer
	w := o.Out
	if o.output == "markdown" {
		w = &diff
	} else if color, _ := useColor(o.color, o.OutTerminal); color {
		dc := &diffColor{w: o.Out} // as migrate's dry run on a terminal
		defer dc.Close()
		w = dc
	}
	if _, err := savedplan.Run(m.migrator, m.inputs, ro, cmp, w, o.Err); err != nil {
		return err
	}
	if o.output == "markdown" {
		if err := writeParts(o.Out, savedplan.Markdown(o.plan, diff.Bytes(), savedplan.CommentLimit)); err != nil {
			return err
		}
	}
	fmt.Fprintln(o.Err, cmp.Line("show (what apply would do now)", true, 0))
	if n := cmp.Refused + cmp.ByPlan; n > 0 {
		return &reportError{fmt.Sprintf("apply would refuse %d %s of the plan: plan again", n, report.Plural(n, "file or row", "files or rows"))}
	}
	return nil
}
