package migrate

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/estuary/schedtool/catalog/edit"
	"github.com/estuary/schedtool/finding"
	"github.com/estuary/schedtool/internal/paths"
	"github.com/estuary/schedtool/report"
)

// Diff writes a unified diff of one file's edits with ctx lines of
// context, which git apply takes. It is computed from the edits, not by
// comparing texts, so it shows exactly the lines the edits touch. A line
// of context holding a value Shown refuses (a config value, ciphertext,
// the sops MAC or a data key) is left out wherever git apply can do
// without it: a hunk's leading context stops below it, its trailing
// context above it while one line is left, and two changes with such a
// line between them are two hunks.
func Diff(w io.Writer, path string, old []byte, edits []finding.TextEdit, ctx int) error {
	return diff(w, path, old, edits, ctx, false)
}

// ReviewDiff is Diff for a person only (a pull-request comment, -o
// markdown), which no one applies: every line holding a value Shown
// refuses, context or changed, is written as its key (when it has one)
// and Hidden.
func ReviewDiff(w io.Writer, path string, old []byte, edits []finding.TextEdit, ctx int) error {
	return diff(w, path, old, edits, ctx, true)
}

func diff(w io.Writer, path string, old []byte, edits []finding.TextEdit, ctx int, review bool) error {
	if len(edits) == 0 {
		return nil
	}
	hideOld := HiddenLines(path, old)
	hidden := func(l int) bool { return l >= 0 && l < len(hideOld) && hideOld[l] }
	var hideNew []bool
	if review {
		hideNew = HiddenLines(path, edit.Apply(old, edits))
	}
	starts := lineStarts(old)
	groups := editGroups(old, starts, edits)
	nLines := len(starts)
	if len(old) > 0 && starts[nLines-1] == len(old) {
		nLines-- // the file ends with a newline: no empty last line
	}
	lineEnd := func(i int) int {
		if i+1 < len(starts) {
			return starts[i+1]
		}
		return len(old)
	}
	if err := diffHeader(w, path); err != nil {
		return err
	}
	hiddenIn := func(a, b int) bool {
		for l := a; l < b; l++ {
			if hidden(l) {
				return true
			}
		}
		return false
	}
	delta, prevEnd := 0, 0
	for i := 0; i < len(groups); {
		// A hunk: groups whose contexts touch (and, for git apply, no
		// hidden line between them).
		j := i + 1
		for j < len(groups) && groups[j].a-groups[j-1].b <= 2*ctx && (review || !hiddenIn(groups[j-1].b, groups[j].a)) {
			j++
		}
		ha := max(groups[i].a-ctx, 0)
		hb := min(groups[j-1].b+ctx, nLines)
		if !review {
			for l := groups[i].a - 1; l >= ha; l-- {
				if hidden(l) {
					ha = l + 1
					break
				}
			}
			// No trailing context at all would make git apply match the
			// hunk at the end of the file only: one line is kept.
			for l := groups[j-1].b; l < hb; l++ {
				if hidden(l) {
					if l > groups[j-1].b {
						hb = l
					}
					break
				}
			}
			// Hunks split at a hidden line never overlap.
			ha = max(ha, prevEnd)
			if j < len(groups) {
				hb = min(hb, groups[j].a)
			}
			prevEnd = hb
		}
		var body bytes.Buffer
		oldCount, newCount := 0, 0
		line := func(prefix byte, text []byte, hide bool) {
			body.WriteByte(prefix)
			if review && hide {
				text = hiddenLine(text)
			}
			// Controls and bidi overrides (raw in a JSON string) are
			// shown escaped, never sent to the terminal.
			body.Write(report.EscapeLine(text))
			if len(text) == 0 || text[len(text)-1] != '\n' {
				body.WriteString("\n\\ No newline at end of file\n")
			}
		}
		at := ha
		for k := i; k < j; k++ {
			g := groups[k]
			for ; at < g.a; at++ {
				line(' ', old[starts[at]:lineEnd(at)], hidden(at))
				oldCount++
				newCount++
			}
			for l := g.a; l < g.b && l < nLines; l++ {
				line('-', old[starts[l]:lineEnd(l)], hidden(l))
				oldCount++
			}
			// The new file's line of this group's first added line.
			nl0 := ha + delta + newCount
			for n, nl := range splitLines(g.newText(old, starts)) {
				line('+', nl, nl0+n < len(hideNew) && hideNew[nl0+n])
				newCount++
			}
			at = max(at, g.b)
		}
		for ; at < hb; at++ {
			line(' ', old[starts[at]:lineEnd(at)], hidden(at))
			oldCount++
			newCount++
		}
		fmt.Fprintf(w, "@@ -%s +%s @@\n", hunkRange(ha, oldCount), hunkRange(ha+delta, newCount))
		if _, err := w.Write(body.Bytes()); err != nil {
			return err
		}
		delta += newCount - oldCount
		i = j
	}
	return nil
}

// editGroup is the edits that touch old lines [a, b): one change of a
// hunk.
type editGroup struct {
	a, b  int // old lines [a, b)
	edits []finding.TextEdit
}

// editGroups groups sorted edits by the old lines they touch, starts
// being old's line starts.
func editGroups(old []byte, starts []int, edits []finding.TextEdit) []editGroup {
	lineOf := func(off int) int { return sort.Search(len(starts), func(i int) bool { return starts[i] > off }) - 1 }
	var groups []editGroup
	for _, e := range edits {
		a := lineOf(e.Start)
		var b int
		switch {
		case e.End == e.Start && e.Start == starts[a] && e.Start < len(old):
			b = a // an insertion between lines
		case e.End > e.Start && e.End == starts[lineOf(e.End)] && lineOf(e.End) > a:
			b = lineOf(e.End)
		default:
			b = lineOf(max(e.End, e.Start)) + 1
		}
		if e.Start == len(old) && a < len(starts) && starts[a] == len(old) {
			b = a
		}
		if n := len(groups); n > 0 && a <= groups[n-1].b {
			groups[n-1].b = max(groups[n-1].b, b)
			groups[n-1].edits = append(groups[n-1].edits, e)
			continue
		}
		groups = append(groups, editGroup{a, b, []finding.TextEdit{e}})
	}
	return groups
}

// newText is the new text of g's lines.
func (g editGroup) newText(old []byte, starts []int) []byte {
	from, to := starts[g.a], len(old)
	if g.b < len(starts) {
		to = starts[g.b]
	}
	// The one applier (edit.Apply), over the lines' bytes: an edit
	// may end past them, its text then ending the lines' new text.
	to = max(to, g.edits[len(g.edits)-1].End)
	es := make([]finding.TextEdit, len(g.edits))
	for i, e := range g.edits {
		es[i] = finding.TextEdit{File: e.File, Start: e.Start - from, End: e.End - from, NewText: e.NewText}
	}
	return edit.Apply(old[from:to], es)
}

func hunkRange(start, count int) string {
	if count == 1 {
		return fmt.Sprint(start + 1)
	}
	if count == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	return fmt.Sprintf("%d,%d", start+1, count)
}

func lineStarts(b []byte) []int {
	starts := []int{0}
	for i, c := range b {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, b)
			break
		}
		out = append(out, b[:i+1])
		b = b[i+1:]
	}
	return out
}

// diffHeader writes a file's ---/+++ lines as git does, the path as
// outputs show it (paths.Display: relative to the working directory when
// the file is under it, so that git apply takes the diff there); an
// absolute path loses its leading slash (a/tmp/x, not a//tmp/x).
func diffHeader(w io.Writer, path string) error {
	path = report.Escape(strings.TrimPrefix(paths.Display(path), "/"))
	_, err := fmt.Fprintf(w, "--- a/%s\n+++ b/%s\n", path, path)
	return err
}

// hiddenLine is a line that Shown refuses, as a review shows it: its
// indentation and key, when it begins with one, then Hidden.
func hiddenLine(l []byte) []byte {
	body := bytes.TrimLeft(l, " \t")
	out := append([]byte(nil), l[:len(l)-len(body)]...)
	if i := bytes.Index(body, []byte(": ")); i > 0 && i < 100 && !bytes.ContainsAny(body[:i], "{[,#") && !Secretish(string(body[:i])) {
		out = append(out, body[:i+2]...)
	} else if i := bytes.Index(body, []byte(`":`)); i > 0 && i < 100 && body[0] == '"' && !bytes.ContainsAny(body[:i], "{[,") && !Secretish(string(body[:i])) {
		out = append(out, body[:i+2]...)
		out = append(out, ' ')
	}
	out = append(out, Hidden...)
	if bytes.HasSuffix(l, []byte("\r\n")) {
		return append(out, '\r', '\n')
	}
	if bytes.HasSuffix(l, []byte("\n")) {
		return append(out, '\n')
	}
	return out
}
