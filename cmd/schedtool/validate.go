package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/finding"
	"github.com/estuary/schedtool/report"
	"github.com/estuary/schedtool/validate"
)

type validateOptions struct {
	*common
	output     outputsValue
	failOn     string
	at         string
	pathPrefix string

	paths   []string
	failSev finding.Severity
	checker *validate.Checker
	inputs  []catalog.Input
	except  *exceptions
}

func newValidate(c *common) *cobra.Command {
	o := &validateOptions{common: c}
	cmd := &cobra.Command{
		Use:   "validate [flags] PATH...",
		Short: "Check materializations' sync schedules as a catalog build would",
		Long: `validate checks every materialization of the catalogs and dumps named by PATH:
its syncSchedule (Flow's decoding and validation texts), the V2 runtime gate,
its connector's own schedule (the connector's validation texts), conflicts and
stacking between the two, and what still relies on connector-side pacing.

Findings are written to standard output; exit code 2 when any is at or above
--fail-on (default error).`,
		Example: `  # Validate a catalog tree, as flowctl catalog pull-specs lays it out
  schedtool validate fixtures/catalog

  # Validate a stored-spec dump and fail on warnings too
  schedtool validate --fail-on warning fixtures/live_specs.ndjson

  # Annotate a pull request in GitHub Actions, or upload SARIF to code scanning
  schedtool validate -o github flow.yaml
  schedtool validate -o sarif flow.yaml > schedtool.sarif`,
		Args: wrapArgs(cobra.ArbitraryArgs),
		RunE: runOptions(o),
	}
	f := cmd.Flags()
	o.output = outputsValue{specs: []outputSpec{{format: "text"}}}
	f.VarP(&o.output, "output", "o", "output format: text, json, sarif or github; FORMAT=FILE writes it to FILE (repeatable: -o github -o sarif=findings.sarif, one run)")
	f.StringVar(&o.at, "at", "", atUsage)
	f.StringVar(&o.pathPrefix, "path-prefix", "", "put this before every path in -o github and -o sarif (the directory's path in the repository, when schedtool runs in a subdirectory)")
	f.StringVar(&o.failOn, "fail-on", "error", "exit 2 when a finding is at or above this severity: error, warning or info")
	completeValues(cmd, "output", report.Formats...)
	completeValues(cmd, "fail-on", "error", "warning", "info")
	return cmd
}

// Complete fills in what the flags and arguments imply, reading what they
// name: the registry and the inputs (standard input included).
func (o *validateOptions) Complete(args []string) error {
	o.paths = args
	reg, err := o.registry()
	if err != nil {
		return err
	}
	crashes, err := crashFinder(o.at)
	if err != nil {
		return err
	}
	o.checker = &validate.Checker{Registry: reg, Crashes: crashes}
	when, _ := parseAt(o.at) // checked by crashFinder
	if o.except = o.exceptions(when); o.except != nil {
		o.checker.Except = o.except.finding
	}
	o.inputs, err = o.resolveInputs(o.paths)
	return err
}

// Validate checks the flags.
func (o *validateOptions) Validate() error {
	var err error
	for _, s := range o.output.specs {
		if _, err = report.New(s.format, io.Discard, toolVersion()); err != nil {
			return &usageError{"-o: " + err.Error()}
		}
	}
	if err := o.output.check(); err != nil {
		return err
	}
	if o.pathPrefix != "" && !o.output.has("github") && !o.output.has("sarif") {
		return &usageError{"--path-prefix applies to -o github and -o sarif only"}
	}
	if o.failSev, err = finding.ParseSeverity(o.failOn); err != nil {
		return &usageError{"--fail-on: " + err.Error()}
	}
	return nil
}

// Run validates, writing the report as findings come.
func (o *validateOptions) Run() error {
	if o.output.guard != nil {
		// A signal removes the temp files of -o FILE.
		defer o.handleSignals()()
	}
	// A run that fails leaves no -o FILE and no temp file (its failure
	// document aside): commit empties the list once they are in place.
	defer o.output.abort()
	w, err := o.output.writers(o.Out, func(w report.Writer, tty bool) {
		switch w := w.(type) {
		case *report.Text:
			w.Color, _ = useColor(o.color, tty && o.OutTerminal)
		case *report.GitHub:
			w.PathPrefix = o.pathPrefix
		case *report.SARIF:
			w.PathPrefix = o.pathPrefix
		}
	})
	if err != nil {
		return err
	}
	opts := o.loadOptions()
	stop := o.readProgress("validate", &opts)
	var sum finding.Summary
	if r, ok := w.(report.Renderer); ok && o.except == nil {
		// The dump's findings are rendered by the workers that check them.
		sum, err = o.checker.RunRendered(o.inputs, opts, r, func(f *finding.Finding, b []byte) {
			if b != nil {
				r.Rendered(b)
			} else {
				r.Finding(f)
			}
		})
	} else {
		sum, err = o.checker.Run(o.inputs, opts, w.Finding)
	}
	stop()
	if err != nil {
		return err
	}
	if err := w.End(sum); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	if o.except != nil {
		for _, n := range o.except.notes("rule") {
			fmt.Fprintf(o.Err, "schedtool: %s\n", report.Escape(n))
		}
	}
	if err := o.selected(); err != nil {
		return err
	}
	if err := o.output.commit(); err != nil {
		return err
	}
	if sum.AtLeast(o.failSev) {
		return &reportError{}
	}
	return nil
}
