// The closing notes of a run on standard error.

package migrate

import (
	"fmt"
	"strings"

	"schedtool/report"
)

// summary writes the closing notes to standard error.
func (r *runner) summary() {
	s := r.sum
	acts := make([]string, 0, len(s.Actions))
	for _, a := range []string{"migrate", Deferred, "review", "skip", "none"} {
		if n := s.Actions[a]; n > 0 {
			acts = append(acts, fmt.Sprintf("%d %s", n, map[string]string{"migrate": "to migrate", Deferred: fmt.Sprintf("deferred (--limit %d)", r.opts.Limit), "review": "need review", "skip": "skipped (V1)", "none": "with nothing to do"}[a]))
		}
	}
	line := fmt.Sprintf("migrate: %d %s", s.Tasks, report.Plural(s.Tasks, "materialization", "materializations"))
	if s.Disabled > 0 {
		line += fmt.Sprintf(" (%d disabled)", s.Disabled)
	}
	if len(acts) > 0 {
		line += ": " + strings.Join(acts, ", ")
	}
	switch r.opts.Mode {
	case DryRun:
		var what []string
		if s.Files > 0 || s.Rows == 0 {
			what = append(what, fmt.Sprintf("%d %s", s.Files, report.Plural(s.Files, "file", "files")))
		}
		if s.Rows > 0 {
			what = append(what, fmt.Sprintf("%d dump %s", s.Rows, report.Plural(s.Rows, "row", "rows")))
		}
		line += fmt.Sprintf("; %s to change (dry run: --write applies, --out writes elsewhere)", strings.Join(what, " and "))
	default:
		line += fmt.Sprintf("; %d written", s.Written)
	}
	if s.Refused > 0 {
		line += fmt.Sprintf("; %d refused", s.Refused)
	}
	if s.Failed > 0 {
		line += fmt.Sprintf("; %d failed", s.Failed)
	}
	if s.Interrupted != "" {
		line += fmt.Sprintf("; interrupted by %s: the group being renamed was finished, %d %s left as %s were, no temp file is left", s.Interrupted, s.Untouched, report.Plural(s.Untouched, "file", "files"), report.Plural(s.Untouched, "it", "they"))
	}
	r.note("%s", line)
	if r.opts.Mode == OutTree {
		if p := r.published; p != nil {
			r.note("publish each task: %s\nor all at once:    %s", report.Escape(p.Each), report.Escape(p.All))
		} else {
			r.note("nothing to publish: no source was written under %s", report.Escape(r.opts.Out))
		}
	}
	if r.mg.Verify {
		v := s.Verify
		if v == nil {
			v = &VerifySummary{MaxDiff: "0s"}
		}
		// Asked for by name: said even with --quiet.
		fmt.Fprintln(r.errw, v.Line())
	}
	if len(r.defers) > 0 {
		r.note("deferred to a later run (--limit %d, catalog name order):\n%s", r.opts.Limit, strings.Join(r.defers, "\n"))
		if r.moreDef > 0 {
			r.note("  ... and %d more (-o json lists them all)", r.moreDef)
		}
	}
	if len(r.reviews) > 0 {
		r.note("needs review:\n%s", strings.Join(r.reviews, "\n"))
		if r.more > 0 {
			r.note("  ... and %d more (-o json lists them all)", r.more)
		}
	}
}
