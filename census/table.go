package census

import (
	"bufio"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/estuary/schedtool/report"
)

// table: the summary and the groups, for a terminal.
type tableWriter struct {
	w *bufio.Writer
	kept
}

func (t *tableWriter) Row(*Row) {}
func (t *tableWriter) End(tot *Totals) error {
	writeGroups(t.w, tot)
	writeExcepted(t.w, tot)
	writeUnreadable(t.w, t.bad, tot.Unreadable)
	return t.w.Flush()
}

func writeGroups(w io.Writer, tot *Totals) {
	fmt.Fprintln(w, SummaryLine(tot))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\nSTATUS\tTASKS")
	for _, s := range Statuses {
		if n := tot.ByStatus[s]; n > 0 {
			fmt.Fprintf(tw, "%s\t%d\n", s, n)
		}
	}
	fmt.Fprintln(tw, "\nIMAGE\tTASKS\tREMAINING\tOLDEST TAG IN USE")
	for _, img := range Keys(tot.ByImage) {
		oldest := tot.OldestTag[img]
		if oldest == "" && tot.RemainingByImage[img] == 0 {
			oldest = "-"
		} else if oldest == "" {
			oldest = "(none)"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", report.Escape(img), tot.ByImage[img], tot.RemainingByImage[img], report.Escape(oldest))
	}
	fmt.Fprintln(tw, "\nKIND\tTASKS")
	for _, k := range Keys(tot.ByKind) {
		fmt.Fprintf(tw, "%s\t%d\n", k, tot.ByKind[k])
	}
	fmt.Fprintln(tw, "\nRUNTIME\tTASKS")
	for _, k := range Keys(tot.ByRuntime) {
		fmt.Fprintf(tw, "%s\t%d\n", k, tot.ByRuntime[k])
	}
	tw.Flush()
}

func writeUnreadable(w io.Writer, bad []Unreadable, total int) {
	if len(bad) == 0 {
		return
	}
	fmt.Fprintf(w, "\nUNREADABLE (%d): counted, not skipped: an unknown is not a zero\n", total)
	listUnreadable(w, bad, total)
}

// wide: one row per task.
type wideWriter struct {
	w  *bufio.Writer
	tw *tabwriter.Writer
	n  int
	kept
}

func (t *wideWriter) Row(r *Row) {
	if t.n == 0 {
		fmt.Fprintln(t.tw, "TASK\tIMAGE\tTAG\tFAMILY\tRUNTIME\tKIND\tDELAY\tMODEL\tDISABLED\tSTATUS\tREASON\tCRASH")
	}
	t.n++
	model := "-"
	if r.Model {
		model = "yes"
	}
	fmt.Fprintf(t.tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", report.Escape(r.Task), report.Escape(r.Image), dash(report.Escape(r.Tag)),
		r.Family, r.Runtime, r.Kind, r.Delay, model, yesDash(r.Disabled), r.Status, dash(report.Escape(r.Reason)), dash(r.Crash))
	for _, d := range r.Definitions {
		// Each definition of a name in several catalogs, with its own
		// status, under the name's row (which counts once).
		fmt.Fprintf(t.tw, "  defined at %s:%d\t\t\t\t\t\t\t\t\t%s\t%s\t-\n", report.Escape(d.File), d.Line, d.Status, dash(report.Escape(d.Reason)))
	}
	if t.n%4096 == 0 {
		t.tw.Flush() // keep memory bounded; columns stay aligned in blocks
	}
}

func yesDash(b bool) string {
	if b {
		return "yes"
	}
	return "-"
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func (t *wideWriter) End(tot *Totals) error {
	t.tw.Flush()
	if t.n > 0 {
		fmt.Fprintln(t.w)
	}
	fmt.Fprintln(t.w, SummaryLine(tot))
	writeExcepted(t.w, tot)
	writeUnreadable(t.w, t.bad, tot.Unreadable)
	return t.w.Flush()
}

// writeExcepted lists apart the remaining tasks whose status the project
// file excepts: they are remaining all the same.
func writeExcepted(w io.Writer, tot *Totals) {
	if tot.Excepted == 0 {
		return
	}
	fmt.Fprintf(w, "\nEXCEPTED (%d): still remaining: the removal gate never trusts an exception\n", tot.Excepted)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  TASK\tSTATUS\tREASON\tOWNER\tEXPIRES")
	for _, r := range tot.ExceptedRows {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", report.Escape(r.Task), r.Status, report.Escape(r.Exception.Reason), report.Escape(r.Exception.Owner), report.Escape(r.Exception.Expires))
	}
	tw.Flush()
	if more := tot.Excepted - len(tot.ExceptedRows); more > 0 {
		fmt.Fprintf(w, "  ... and %d more\n", more)
	}
}
