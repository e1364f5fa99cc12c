package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/livespecs"
	"github.com/estuary/schedtool/catalog/users"
	"github.com/estuary/schedtool/explain"
	"github.com/estuary/schedtool/internal/suggest"
	"github.com/estuary/schedtool/migrate"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/project"
	"github.com/estuary/schedtool/report"
	"github.com/estuary/schedtool/schedule/connector"
)

type explainOptions struct {
	*common
	output string
	at     string
	days   int
	// migrate's decision flags: the migration previewed.
	absent        string
	resolve       string
	zeroFileSinks bool
	enableV2      bool
	changed       func(string) bool

	name    string
	paths   []string
	when    time.Time
	planner *plan.Planner
	inputs  []catalog.Input
}

func newExplain(c *common) *cobra.Command {
	o := &explainOptions{common: c}
	cmd := &cobra.Command{
		Use:   "explain [flags] NAME PATH...",
		Short: "Tell who holds a materialization's commits, and when the next ones happen",
		Long: `explain tells, for one materialization: its runtime, its materialization
syncSchedule, its connector schedule and delay, who holds its commits today
(the runtime, the connector, or both: stacked), what sync-now collapses and
the longest it could still wait on the connector, the next 10 commit instants
(UTC and the schedule's zone), and the migration schedtool migrate would give
it. An unknown NAME exits 1 with the closest names.`,
		Example: `  schedtool explain acmeCo/warehouse/materialize-snowflake fixtures/catalog
  schedtool explain -o json --at 2026-01-05T08:00:00Z acmeCo/stored/materialize-snowflake fixtures/live_specs.ndjson

  # A timeline of a week: the connector's acknowledgements and the runtime's commits
  schedtool explain -o html --days 7 acmeCo/warehouse/materialize-snowflake fixtures/catalog > timeline.html`,
		Args: explainArgs,
		RunE: runOptions(o),
	}
	cmd.Flags().VarP(newOnce(&o.output, "text", "run explain once per format"), "output", "o", "output format: text, json, html or svg (html and svg: a timeline of --days days from --at)")
	cmd.Flags().IntVar(&o.days, "days", 7, fmt.Sprintf("the days -o html and -o svg draw (1 to %d)", explain.MaxTimelineDays))
	cmd.Flags().StringVar(&o.at, "at", "", "explain as of this instant (RFC 3339; default now)")
	// migrate's decision flags, to preview what migrate would give a task
	// with them (its picture included).
	f := cmd.Flags()
	f.StringVar(&o.absent, "absent", "preserve", "preview migrate --absent: preserve or drop")
	f.StringVar(&o.resolve, "resolve", "", "preview migrate --resolve: model or connector")
	f.BoolVar(&o.zeroFileSinks, "zero-file-sinks", false, "preview migrate --zero-file-sinks")
	f.BoolVar(&o.enableV2, "enable-runtime-v2", false, "preview migrate --enable-runtime-v2: a V1 task planned as the V2 task it would become")
	o.changed = f.Changed
	completeValues(cmd, "absent", "preserve", "drop")
	completeValues(cmd, "resolve", "model", "connector")
	completeValues(cmd, "output", "text", "json", "html", "svg")
	completeExplain(cmd, c)
	return cmd
}

// explainArgs wants a NAME and at least one PATH, and says which is missing.
func explainArgs(cmd *cobra.Command, args []string) error {
	switch len(args) {
	case 0:
		return &usageError{fmt.Sprintf("explain needs a materialization NAME and a catalog PATH: %s NAME PATH... (see '%s --help')", cmd.CommandPath(), cmd.CommandPath())}
	case 1:
		if f := cmd.Flag("config"); f != nil && f.Changed || project.Find(".") != "" {
			return nil // the project file's PATHs, if it has some (Complete)
		}
		return &usageError{fmt.Sprintf("explain %s: give a catalog PATH (a source, a directory or a live_specs dump) to find it in: %s NAME PATH... (see '%s --help')", args[0], cmd.CommandPath(), cmd.CommandPath())}
	}
	return nil
}

// Complete fills in what the flags and arguments imply, reading what they
// name: the registry and the inputs.
func (o *explainOptions) Complete(args []string) error {
	o.name, o.paths = args[0], args[1:]
	if len(o.paths) == 0 && len(o.projectPaths()) == 0 {
		return &usageError{fmt.Sprintf("explain %s: give a catalog PATH (a source, a directory or a live_specs dump) to find it in, or paths in the project file", o.name)}
	}
	if len(o.paths) == 0 {
		o.paths = o.projectPaths()
	}
	reg, err := o.registry()
	if err != nil {
		return err
	}
	if o.when, err = parseAt(o.at); err != nil {
		return err
	}
	o.planner = &plan.Planner{Registry: reg, Crashes: connector.NewCrashFinder(o.when),
		Options: plan.Options{Absent: o.absent, Resolve: o.resolve, ZeroFileSinks: o.zeroFileSinks, EnableRuntimeV2: o.enableV2}}
	o.inputs, err = o.resolveInputs(o.paths)
	return err
}

// Validate checks the flags.
func (o *explainOptions) Validate() error {
	switch o.output {
	case "text", "json", "html", "svg":
	default:
		return &usageError{fmt.Sprintf("-o: unknown output format %q (want text, json, html, svg)", o.output)}
	}
	switch o.absent {
	case "preserve", "drop":
	default:
		return &usageError{fmt.Sprintf("--absent %q: must be preserve or drop", o.absent)}
	}
	if o.changed != nil && o.changed("resolve") && o.resolve == "" {
		return &usageError{`--resolve "": must be model or connector`}
	}
	switch o.resolve {
	case "", "model", "connector":
	default:
		return &usageError{fmt.Sprintf("--resolve %q: must be model or connector", o.resolve)}
	}
	if o.days < 1 || o.days > explain.MaxTimelineDays {
		return &usageError{fmt.Sprintf("--days %d: give 1 to %d", o.days, explain.MaxTimelineDays)}
	}
	return nil
}

func (o *explainOptions) Run() error {
	opts := o.loadOptions()
	near := suggest.New(o.name, 3) // the names nearest a miss, as they come
	cat := catalog.Load(o.inputs, opts)
	if err := o.duplicated(cat); err != nil {
		return err
	}
	var defs []*catalog.Materialization
	for _, m := range cat.Materializations {
		near.Add(m.Name)
		if m.Name == o.name {
			defs = append(defs, m) // each definition, when in several catalogs
		}
	}
	o.reportProblems(cat, defs)
	found, timeline := o.explainDefs(defs, opts)
	if err := o.scanDumps(opts, near, &found, &timeline); err != nil {
		return err
	}
	if err := o.selected(); err != nil {
		return err
	}
	if found == nil {
		return o.notFound(near)
	}
	return o.write(found, timeline)
}

// explainOne explains m as the output asks: a timeline draws it.
func (o *explainOptions) explainOne(m *catalog.Materialization) (*explain.Explanation, *explain.Timeline) {
	if o.output == "html" || o.output == "svg" {
		tl := explain.TimelineOf(m, o.planner, o.when, o.days)
		return &tl.Explanation, &tl
	}
	e := explain.Explain(m, o.planner, o.when, 10)
	return &e, nil
}

// duplicated refuses a name twice in one catalog: no definition is
// explained.
func (o *explainOptions) duplicated(cat *catalog.Catalog) error {
	if !cat.Duplicated[o.name] {
		return nil
	}
	for _, p := range cat.Problems {
		if p.Task == o.name {
			return &usageError{fmt.Sprintf("%s:%d:%d: %s", p.Pos.File, p.Pos.Line, p.Pos.Column, p.Message)}
		}
	}
	return nil
}

// reportProblems writes the catalog's problems: only the asked task's
// (and those of its files) once it is found, the others one line with a
// count. When it is not found, every problem is shown: it may be in what
// did not parse.
func (o *explainOptions) reportProblems(cat *catalog.Catalog, defs []*catalog.Materialization) {
	files := map[string]bool{}
	for _, m := range defs {
		files[m.Source.Name()] = true
	}
	others := 0
	for i := range cat.Problems {
		f := &cat.Problems[i]
		if len(defs) > 0 && f.Task != o.name && !files[f.Pos.File] {
			others++
			continue
		}
		fmt.Fprintf(o.Err, "schedtool: %s:%d:%d: %s\n%s", report.Escape(f.Pos.File), f.Pos.Line, f.Pos.Column, report.Escape(f.Message),
			report.Excerpt(f.Excerpt, f.Pos.Column, "    "))
	}
	if others > 0 && !o.quiet {
		fmt.Fprintf(o.Err, "schedtool: %d %s in other files, not about %s (schedtool validate lists them)\n", others, report.Plural(others, "problem", "problems"), o.name)
	}
}

// explainDefs explains each definition of the task in the catalog
// sources, the first found and the others as its OtherDefinitions, with
// migrate's refusal where migrate would not make its own plan's change.
func (o *explainOptions) explainDefs(defs []*catalog.Materialization, opts catalog.Options) (*explain.Explanation, *explain.Timeline) {
	var found *explain.Explanation
	var timeline *explain.Timeline
	says := o.migrateSays(defs, opts)
	for _, m := range defs {
		e, tl := o.explainOne(m)
		if t, ok := says[m]; ok {
			refusedPreview(e, tl, t)
		}
		if found == nil {
			found, timeline = e, tl
			continue
		}
		found.OtherDefinitions = append(found.OtherDefinitions, *e)
	}
	if len(defs) > 1 && (o.output == "html" || o.output == "svg") && !o.quiet {
		fmt.Fprintf(o.Err, "schedtool: %s is defined in %d catalogs; the timeline draws the one in %s (-o text or json shows every definition)\n", o.name, len(defs), report.Escape(defs[0].Source.Name()))
	}
	return found, timeline
}

// scanDumps looks for the task in the dumps, when the catalog sources
// have not defined it (found), adding every name to near.
func (o *explainOptions) scanDumps(opts catalog.Options, near *suggest.Nearest, found **explain.Explanation, timeline **explain.Timeline) error {
	type out struct {
		name string
		e    *explain.Explanation
		tl   *explain.Timeline
	}
	return livespecs.EachDump(o.inputs, func(r io.Reader, name string) error {
		return livespecs.ScanDump(r, name, livespecs.DumpOptions{Options: opts}, func(rr *livespecs.RowResult) out {
			if rr.Mat == nil {
				return out{}
			}
			x := out{name: rr.Mat.Name}
			if rr.Mat.Name == o.name { // explained here: the row's nodes are reused after
				x.e, x.tl = o.explainOne(rr.Mat)
			}
			return x
		}, func(x out) {
			if x.name != "" {
				near.Add(x.name)
			}
			if x.e != nil && *found == nil {
				*found, *timeline = x.e, x.tl
			}
		})
	})
}

// notFound is the usage error of a task no input defines, with the
// names nearest it.
func (o *explainOptions) notFound(near *suggest.Nearest) error {
	shown := make([]string, len(o.paths))
	for i, p := range o.paths {
		shown[i] = p
		if livespecs.IsDBURL(p) {
			shown[i] = livespecs.RedactURL(p) // never the password
		}
	}
	msg := fmt.Sprintf("no materialization %s in %s", report.Escape(o.name), report.Escape(strings.Join(shown, ", ")))
	if l := near.List(); len(l) > 0 {
		msg += "; closest: " + report.Escape(strings.Join(l, ", "))
	}
	return &usageError{msg}
}

// write writes the explanation as the output asks: a timeline (html,
// svg), JSON, or text, each definition in turn.
func (o *explainOptions) write(found *explain.Explanation, timeline *explain.Timeline) error {
	switch o.output {
	case "html", "svg":
		write := explain.WriteHTML
		if o.output == "svg" {
			write = explain.WriteSVG
		}
		w := &errWriter{w: o.Out}
		if err := write(w, timeline); err != nil || w.err != nil {
			return fmt.Errorf("writing the timeline: %w", errors.Join(err, w.err))
		}
		return nil
	case "json":
		b, _ := json.MarshalIndent(found, "", "  ")
		_, err := fmt.Fprintf(o.Out, "%s\n", b)
		return err
	}
	w := &errWriter{w: o.Out}
	if n := len(found.OtherDefinitions); n > 0 {
		fmt.Fprintf(w, "materialization %s is defined in %d catalogs; each definition is read as itself:\n\n", report.Escape(found.Task), n+1)
	}
	for i, e := range append([]explain.Explanation{*found}, found.OtherDefinitions...) {
		if i > 0 {
			fmt.Fprintln(w)
		}
		writeExplanation(w, &e)
	}
	if w.err != nil {
		return fmt.Errorf("writing the explanation: %w", w.err)
	}
	return nil
}

// writeExplanation writes one definition's explanation as text.
func writeExplanation(w io.Writer, ex *explain.Explanation) {
	// Every text from the catalog (the name, the file, the image, the
	// schedule and what is said of them) with its controls escaped: a
	// name holding ESC sequences or a newline cannot drive the terminal
	// or forge a line, as in every other command's output.
	e := *ex
	for _, f := range []*string{&e.Task, &e.File, &e.Image, &e.Model, &e.Runtime, &e.Connector, &e.Delay, &e.Deferred, &e.Holds, &e.SyncNow, &e.Crash, &e.CrashStops, &e.Zone, &e.Situation, &e.Migration} {
		*f = report.Escape(*f)
	}
	model := e.Model
	if model == "" {
		model = "none"
	}
	fmt.Fprintf(w, "materialization %s (%s)\n", e.Task, e.File)
	runtime := e.Runtime
	if e.Disabled {
		runtime += ", disabled (shards.disable: its schedule applies again when it is enabled)"
	}
	fmt.Fprintf(w, "  runtime:             %s\n  image:               %s\n", runtime, e.Image)
	delay := "delay up to " + e.Delay
	switch {
	case e.Deferred != "":
		delay = "delay " + e.Deferred
	case e.DelayUnknown:
		delay = "delay unknown"
	}
	fmt.Fprintf(w, "  model syncSchedule:  %s\n  connector schedule:  %s, %s\n", model, e.Connector, delay)
	if e.Secrets != "" {
		fmt.Fprintf(w, "  connector secrets:   %s\n", e.Secrets)
	}
	fmt.Fprintf(w, "  who holds commits:   %s\n  sync-now:            %s\n", e.Holds, e.SyncNow)
	if e.ConnectorError != "" {
		fmt.Fprintf(w, "  connector error:     %s\n", report.Escape(e.ConnectorError))
	}
	if e.Crash != "" {
		fmt.Fprintf(w, "  connector crash:     %s\n", e.Crash)
	}
	if len(e.Next) > 0 {
		// One column when the zone's time is UTC's (UTC itself, or a zone
		// at offset zero over these instants): two would be the same.
		same := true
		for _, c := range e.Next {
			same = same && c.UTC == c.Local
		}
		switch {
		case same && (e.Zone == "UTC" || e.Zone == "Etc/UTC"):
			fmt.Fprintf(w, "  next commits (UTC):\n")
		case same:
			fmt.Fprintf(w, "  next commits (UTC, which is %s's time):\n", e.Zone)
		default:
			fmt.Fprintf(w, "  next commits (UTC, %s):\n", e.Zone)
		}
		for _, c := range e.Next {
			if same {
				fmt.Fprintf(w, "    %s\n", c.UTC)
			} else {
				fmt.Fprintf(w, "    %s  %s\n", c.UTC, c.Local)
			}
		}
	}
	switch {
	case e.CrashStops != "" && len(e.Next) > 0:
		fmt.Fprintf(w, "    then: %s\n", e.CrashStops)
	case e.CrashStops != "":
		fmt.Fprintf(w, "  next commits:        none: %s\n", e.CrashStops)
	}
	fmt.Fprintf(w, "  migration:           %s: %s\n", e.Situation, e.Migration)
	if e.Preview != "" {
		fmt.Fprintf(w, "  preview:             %s\n", strings.TrimPrefix(e.Preview, "Preview: "))
	}
}

// errWriter keeps the first write error, and writes nothing after it:
// output that could not be written is a failure (exit 1), never a success.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(b []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(b)
	e.err = err
	return n, err
}

// migrateSays is what migrate, with explain's decision flags, does with
// each definition of defs when it does not migrate it though its own
// plan would: a config file shared with a task migrate does not change
// alike (docs/behaviour.md §7), an edit refused. The preview is then
// migrate's refusal, never a migration migrate would not make.
func (o *explainOptions) migrateSays(defs []*catalog.Materialization, opts catalog.Options) map[*catalog.Materialization]migrate.Task {
	// migrate only ever turns a migration into a review: when no
	// definition's own plan migrates, there is nothing to preview, and
	// the sources need not be read a second time.
	if !slices.ContainsFunc(defs, func(m *catalog.Materialization) bool { return o.planner.Decide(m).Action == plan.Migrate }) {
		return nil
	}
	var sources []catalog.Input
	for _, in := range o.inputs {
		if len(in.Sources) > 0 {
			sources = append(sources, in)
		}
	}
	opts.Select = nil
	cat := catalog.Load(sources, opts) // its own: migrate's edits leave explain's as read
	holders, _ := users.Users(sources, cat, opts)
	mg := &migrate.Migrator{Planner: o.planner, Registry: o.planner.Registry, Holders: holders}
	res := mg.Catalog(cat)
	out := map[*catalog.Materialization]migrate.Task{}
	for _, t := range res.Tasks {
		if t.Action != plan.Review && t.Action != plan.Skip {
			continue
		}
		for _, m := range defs {
			if t.Task == m.Name && t.File == m.Source.Name() {
				out[m] = t
			}
		}
	}
	return out
}

// refusedPreview makes e say what migrate does with its task (t: review
// or skip), when its own plan said otherwise: the timeline's lane after
// the migration is dropped, since migrate would not make it.
func refusedPreview(e *explain.Explanation, tl *explain.Timeline, t migrate.Task) {
	if e.Action == t.Action {
		return
	}
	e.Migration = string(t.Action) + " (" + t.Reason + ")"
	if tl != nil && tl.ModelFrom == "migrate" {
		tl.ModelFrom, tl.ModelSpec, tl.Commits, tl.ModelFast, tl.Verdict = "", "", nil, nil, nil
	}
}
