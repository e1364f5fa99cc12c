package census

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/estuary/schedtool/report"
)

// csv: a header line, then one row per task (RFC 4180). Unreadable inputs
// have no row: they are listed on standard error, so that they are never
// skipped silently, and the CSV stays one row per task.
type csvWriter struct {
	errw io.Writer
	kept
	w *bufio.Writer
	c *csv.Writer
}

var csvHeader = []string{"task", "image", "tag", "family", "runtime", "kind", "delay", "model", "disabled", "status", "reason", "file", "line", "crash"}

func newCSV(w *bufio.Writer, errw io.Writer) *csvWriter {
	c := csv.NewWriter(w)
	c.Write(csvHeader)
	return &csvWriter{w: w, c: c, errw: errw}
}

// csvCell neutralises a cell a spreadsheet would read as a formula, and
// escapes control characters (a terminal showing the file obeys them).
func csvCell(s string) string {
	s = report.Escape(s)
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

func (c *csvWriter) Row(r *Row) {
	c.c.Write([]string{csvCell(r.Task), csvCell(r.Image), csvCell(r.Tag), r.Family, r.Runtime, r.Kind, r.Delay,
		strconv.FormatBool(r.Model), strconv.FormatBool(r.Disabled), r.Status, csvCell(r.Reason), csvCell(r.File), strconv.Itoa(r.Line), r.Crash})
}

func (c *csvWriter) End(t *Totals) error {
	c.c.Flush()
	if err := c.c.Error(); err != nil {
		return err
	}
	if err := c.w.Flush(); err != nil {
		return err
	}
	if t.Unreadable > 0 {
		fmt.Fprintf(c.errw, "schedtool: census: %d unreadable %s, counted but not rows of the CSV (an unknown is not a zero):\n", t.Unreadable, report.Plural(t.Unreadable, "input", "inputs"))
		listUnreadable(c.errw, c.bad, t.Unreadable)
	}
	return nil
}
