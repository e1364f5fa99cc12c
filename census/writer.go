package census

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/estuary/schedtool/report"
)

// A census is written by one Writer per format, one file per format
// (table.go: table and wide, json.go, csv.go, markdown.go, html.go), as report/ does.

// Writer writes a census in one format: Row and Unreadable as they come,
// then End once.
type Writer interface {
	Row(r *Row)
	Unreadable(u *Unreadable)
	End(t *Totals) error
}

// Renderer is a Writer whose rows can be rendered ahead, on the workers
// that read them: Render appends a row's bytes, RowBytes writes them (in
// order) instead of Row.
//
// Shared renders what a row has in common with the other rows of its
// verdict (everything but task, file and line); RenderShared renders a
// row around those bytes.
type Renderer interface {
	Writer
	Render(b []byte, r *Row) []byte
	Shared(r *Row) []byte
	RenderShared(b []byte, r *Row, shared []byte) []byte
	RowBytes(b []byte)
}

// Formats lists the format names.
var Formats = []string{"table", "wide", "json", "csv", "markdown", "html"}

// Options are what a census document says beyond its rows and totals.
type Options struct {
	// Now is the instant the census is taken at (json's generatedAt,
	// the last point of a burndown); the zero time leaves it out.
	Now time.Time
	// History are earlier censuses (ReadSnapshot), for a burndown.
	History []Snapshot
	// Scope is what the census covers; nil leaves it out.
	Scope *Scope
	// Summary makes -o json write the summary and scope only.
	Summary bool
}

// NewWriter returns a writer of a format to w. A format that has no place
// for unreadable inputs (csv: one row per task) lists them on errw.
func NewWriter(format string, w, errw io.Writer, opts Options) (Writer, error) {
	bw := bufio.NewWriterSize(w, 256<<10)
	if opts.Summary && format != "json" && slices.Contains(Formats, format) {
		return nil, fmt.Errorf("--summary is a form of -o json, not of -o %s", format)
	}
	switch format {
	case "table":
		return &tableWriter{w: bw}, nil
	case "wide":
		return &wideWriter{w: bw, tw: tabwriter.NewWriter(bw, 0, 4, 2, ' ', 0)}, nil
	case "json":
		if opts.Summary {
			return &jsonSummary{w: bw, now: opts.Now, scope: opts.Scope, history: burndownOf(opts)}, nil
		}
		return &jsonWriter{w: bw, now: opts.Now, scope: opts.Scope, history: burndownOf(opts)}, nil
	case "csv":
		return newCSV(bw, errw), nil
	case "html":
		return newHTML(bw, opts), nil
	case "markdown":
		return &markdownWriter{w: bw, history: burndownOf(opts), now: opts.Now, scope: opts.Scope}, nil
	}

	return nil, fmt.Errorf("unknown output format %q (want %s)", format, strings.Join(Formats, ", "))
}

// HasUnblocks reports whether a format says what unblocks what (json,
// markdown, html), for which the census makes migrate's dry runs.
func HasUnblocks(format string) bool {
	return format == "json" || format == "markdown" || format == "html"
}

// SummaryLine is the census in one sentence.
func SummaryLine(t *Totals) string {
	disabled := ""
	if t.Disabled > 0 {
		disabled = fmt.Sprintf(" (%d disabled)", t.Disabled)
	}
	crashing := ""
	if t.Crashing > 0 {
		crashing = fmt.Sprintf(" (%d whose connector schedule crashes it within 366 days: migrate them first)", t.Crashing)
	}
	flag := ""
	if n := t.ByStatus[ReadyNeedsFlag]; n > 0 {
		flag = fmt.Sprintf(" (%d %s ready only with migrate --zero-file-sinks)", n, report.Plural(n, "file sink", "file sinks"))
	}
	if t.Excepted > 0 {
		crashing += fmt.Sprintf(" (%d excepted by the project file, remaining all the same)", t.Excepted)
	}
	line := fmt.Sprintf("%d %s on scheduling images%s, %d still relying on connector-side pacing%s%s, %d unreadable %s",
		t.Tasks, report.Plural(t.Tasks, "task", "tasks"), disabled, t.Remaining, flag, crashing, t.Unreadable, report.Plural(t.Unreadable, "input", "inputs"))
	if t.Excluded > 0 {
		line += ", " + ExcludedPhrase(t)
	}
	return line
}

// ExcludedPhrase says what the project file's exclude left out of the
// census, and when it left out every task.
func ExcludedPhrase(t *Totals) string {
	s := fmt.Sprintf("%d %s in %d %s excluded by the project file", t.Excluded, report.Plural(t.Excluded, "task", "tasks"),
		t.ExcludedSources, report.Plural(t.ExcludedSources, "source", "sources"))
	if t.AllExcluded() {
		s += " (every task of the inputs: a census of nothing)"
	}
	return s
}

// kept is a writer's list of the unreadable inputs it is handed (the
// census hands over the first MaxUnreadableListed).
type kept struct{ bad []Unreadable }

func (k *kept) Unreadable(u *Unreadable) { k.bad = append(k.bad, *u) }

// listUnreadable lists the unreadable inputs kept, of total, a line each.
func listUnreadable(w io.Writer, bad []Unreadable, total int) {
	for _, u := range bad {
		fmt.Fprintf(w, "  %s:%d:%d: %s\n%s", report.Escape(u.File), u.Line, u.Column, report.Escape(u.Message), report.Excerpt(u.Excerpt, u.Column, "      "))
	}
	if more := total - len(bad); more > 0 {
		fmt.Fprintf(w, "  ... and %d more (the first %d are listed)\n", more, len(bad))
	}
}
