// Terminal conventions: colour on a terminal only (NO_COLOR, --color),
// a progress line on standard error for long reads, on a terminal only.

package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	"golang.org/x/term"

	"github.com/estuary/schedtool/catalog"
)

// isTerminal reports whether w is a terminal. A character device is not
// enough: /dev/null is one, and a run with its output there is not
// watched.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// colorModes are --color's values.
var colorModes = []string{"auto", "always", "never"}

// useColor decides --color for output to a terminal or not: always,
// never, or auto (a terminal, and NO_COLOR unset or empty: no-color.org).
func useColor(mode string, terminal bool) (bool, error) {
	switch mode {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto", "":
		return terminal && os.Getenv("NO_COLOR") == "", nil
	}
	return false, &usageError{fmt.Sprintf("--color: unknown value %q (want auto, always or never)", mode)}
}

// ANSI SGR sequences.
const (
	sgrReset  = "\033[0m"
	sgrRed    = "\033[31m"
	sgrGreen  = "\033[32m"
	sgrYellow = "\033[33m"
	sgrCyan   = "\033[36m"
	sgrBold   = "\033[1m"
)

// diffColor colours a unified diff written through it, a line at a
// time: headers bold, hunk lines cyan, removals red, additions green.
type diffColor struct {
	w    io.Writer
	line []byte // a line not yet ended
}

func (d *diffColor) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			d.line = append(d.line, p...)
			break
		}
		d.line = append(d.line, p[:i+1]...)
		p = p[i+1:]
		if err := d.flushLine(); err != nil {
			return 0, err
		}
	}
	return n, nil
}

func (d *diffColor) flushLine() error {
	if len(d.line) == 0 {
		return nil
	}
	l := d.line
	d.line = d.line[:0]
	sgr := ""
	switch {
	case bytes.HasPrefix(l, []byte("--- ")), bytes.HasPrefix(l, []byte("+++ ")), bytes.HasPrefix(l, []byte("=== ")):
		sgr = sgrBold // a file's header; "===" begins a dump's rows
	case bytes.HasPrefix(l, []byte("~ ")):
		sgr = sgrYellow // a stored spec's field changed
	case bytes.HasPrefix(l, []byte("@@")):
		sgr = sgrCyan
	case l[0] == '-':
		sgr = sgrRed
	case l[0] == '+':
		sgr = sgrGreen
	}
	if sgr == "" {
		_, err := d.w.Write(l)
		return err
	}
	body, end := bytes.TrimSuffix(l, []byte("\n")), ""
	if len(body) < len(l) {
		end = "\n"
	}
	_, err := fmt.Fprintf(d.w, "%s%s%s%s", sgr, body, sgrReset, end)
	return err
}

// Close writes a last line that did not end.
func (d *diffColor) Close() error { return d.flushLine() }

// progress writes a line to standard error every half second while a
// long command reads, when standard error is a terminal and not --quiet:
// status is asked for the line's text. It returns the stop function,
// which clears the line.
func (c *common) progress(status func(elapsed time.Duration) string) func() {
	if c.quiet || !c.ErrTerminal {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(finished)
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		shown := false
		for {
			select {
			case <-done:
				if shown {
					fmt.Fprint(c.Err, "\r\033[K")
				}
				return
			case <-tick.C:
				if s := status(time.Since(start)); s != "" {
					fmt.Fprint(c.Err, "\r\033[K"+s)
					shown = true
				}
			}
		}
	}()
	return func() { close(done); <-finished }
}

// rowProgress is a progress line of rows (format has one %d) and their
// rate.
func (c *common) rowProgress(format string, rows *atomic.Int64) func() {
	return c.progress(func(elapsed time.Duration) string {
		n := rows.Load()
		if n == 0 {
			return ""
		}
		return fmt.Sprintf(format+", %.0f rows/s", n, float64(n)/elapsed.Seconds())
	})
}

// readProgress is the progress of a command over dumps: the bytes read
// (counted by the dump reader through opts) and the rate.
func (c *common) readProgress(name string, opts *catalog.Options) func() {
	if c.quiet || !c.ErrTerminal || c.stopDB != nil { // over a database, its line of rows is on
		return func() {}
	}
	read := &atomic.Int64{}
	opts.Progress = read
	return c.progress(func(elapsed time.Duration) string {
		n := read.Load()
		if n == 0 {
			return ""
		}
		return fmt.Sprintf("%s: %.1f MiB read, %.1f MiB/s", name, float64(n)/(1<<20), float64(n)/(1<<20)/elapsed.Seconds())
	})
}
