package savedplan

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/estuary/schedtool/migrate"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/report"
)

// CommentLimit is GitHub's limit on a comment's (and a pull request
// body's) length, in characters.
const CommentLimit = 65536

// PartMarker begins each part of a Markdown body split in parts.
func PartMarker(n, m int) string { return fmt.Sprintf("<!-- schedtool part %d of %d -->", n, m) }

// Markdown renders the plan as a pull-request body: the summary, the
// verify verdict, the behaviour changes, what needs a person, and the
// diff in a collapsed block. Over limit characters it is cut into parts
// each shorter than limit, each beginning with PartMarker.
func Markdown(p *Plan, diff []byte, limit int) []string {
	var head []string
	add := func(format string, args ...any) { head = append(head, fmt.Sprintf(format, args...)) }
	add("## schedtool migrate plan")
	add("")
	add("%s", summaryLine(p))
	add("")
	add("Plan `%s`, made by schedtool %s from `schedtool migrate%s`%s.", p.Digest, mdText(p.Schedtool), mdCode(cut(commandLine(p), maxCommandLine)), moreCommand(p))
	add("")
	add("### Verify")
	add("")
	switch {
	case p.Summary != nil && p.Summary.Verify != nil:
		add("%s", mdText(p.Summary.Verify.Line()))
	case slices.Equal(p.Options.Flags["verify"], []string{"true"}):
		add("verify: no task migrated, nothing to check")
	default:
		add("Not run: plan with `--verify` to compare each task's old and new commit instants.")
	}
	add("")
	add("### Behaviour changes")
	add("")
	cs := p.Account.Changes()
	if len(cs) == 0 {
		add("None.")
	}
	for _, c := range cs {
		add("- **%d %s** (%s): %s", c.Tasks, report.Plural(c.Tasks, "task", "tasks"), mdText(c.Example()), mdText(c.Change))
	}
	add("")
	add("### Needs a person")
	add("")
	gs := p.Account.reasonGroups()
	if len(gs) == 0 {
		add("Nothing: every task is migrated, has nothing to do, or was deferred by `--limit`.")
	}
	for i, g := range gs {
		if i == maxReasons {
			n := 0
			for _, g := range gs[i:] {
				n += g.count
			}
			add("- … and %d more %s (%d %s): `schedtool show PLAN -o json` lists every task", len(gs)-i, report.Plural(len(gs)-i, "reason", "reasons"), n, report.Plural(n, "task", "tasks"))
			break
		}
		head := map[plan.Action]string{plan.Review: report.Plural(g.count, "needs review", "need review"), plan.Skip: "skipped"}[g.action]
		add("- **%d %s %s**: %s", g.count, report.Plural(g.count, "task", "tasks"), head, mdText(cut(g.reason, 600)))
		for _, t := range g.tasks {
			add("  - `%s` (%s:%d)", mdCode(t.Task), mdText(t.File), t.Line)
		}
		if more := g.count - len(g.tasks); more > 0 {
			add("  - … and %d more", more)
		}
	}
	add("")
	return pack(head, diff, limit)
}

// moreCommand says that the command line was cut, and where it is whole.
func moreCommand(p *Plan) string {
	if n := len(commandLine(p)); n > maxCommandLine {
		return fmt.Sprintf(" (cut: %d bytes; `schedtool show PLAN -o json` has its flags and PATHs)", n)
	}
	return ""
}

const (
	// maxCommandLine bounds the plan's command line in Markdown: a glob
	// of thousands of PATHs is one line no part could hold.
	maxCommandLine    = 2000
	maxReasons        = 20
	maxTasksPerReason = 10
)

type reasonGroup struct {
	action plan.Action
	reason string
	count  int
	tasks  []*migrate.Task // the first maxTasksPerReason
}

func summaryLine(p *Plan) string {
	acts := map[plan.Action]int{}
	defs := 0
	if p.Summary != nil {
		acts, defs = p.Summary.Actions, p.Summary.Definitions
	}
	var parts []string
	for _, a := range []struct {
		key  plan.Action
		text string
	}{{plan.Migrate, "to migrate"}, {migrate.Deferred, "deferred (--limit)"}, {plan.Review, "need review"}, {plan.Skip, "skipped"}, {plan.None, "with nothing to do"}} {
		if n := acts[a.key]; n > 0 {
			if n == 1 && a.key == plan.Review {
				a.text = "needs review"
			}
			parts = append(parts, fmt.Sprintf("%d %s", n, a.text))
		}
	}
	files, rows := 0, 0
	if p.Summary != nil {
		files, rows = p.Summary.Files, p.Summary.Rows
	}
	line := fmt.Sprintf("**%d %s**", defs, report.Plural(defs, "materialization", "materializations"))
	if len(parts) > 0 {
		line += ": " + strings.Join(parts, ", ")
	}
	line += fmt.Sprintf(". %d %s", files, report.Plural(files, "file", "files"))
	if rows > 0 {
		line += fmt.Sprintf(" and %d dump %s", rows, report.Plural(rows, "row", "rows"))
	}
	return line + " to change."
}

// commandLine is the plan's migrate flags and PATHs, as a command line.
func commandLine(p *Plan) string {
	names := make([]string, 0, len(p.Options.Flags))
	for n := range p.Options.Flags {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		for _, v := range p.Options.Flags[n] {
			if v == "true" {
				fmt.Fprintf(&b, " --%s", n)
			} else {
				fmt.Fprintf(&b, " --%s %s", n, v)
			}
		}
	}
	for _, a := range p.Args {
		b.WriteString(" " + a)
	}
	return b.String()
}

// mdText is text safe in a Markdown line: controls escaped, the
// characters that would start markup (HTML, links, emphasis) escaped,
// and autolinks and @mentions broken by a word joiner (U+2060), so that
// a file or directory named @someone notifies no one from a pull request.
func mdText(s string) string { return mdEscaper.Replace(report.Escape(s)) }

var mdEscaper = strings.NewReplacer("\\", "\\\\", "<", "&lt;", ">", "&gt;", "[", "\\[", "]", "\\]", "*", "\\*", "_", "\\_", "`", "\\`", "|", "\\|",
	"@", "@\u2060", "://", ":\u2060//", "www.", "www\u2060.")

// mdCode is text inside a `code span`.
func mdCode(s string) string { return strings.ReplaceAll(report.Escape(s), "`", "'") }

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// pack lays the head lines and the diff out in parts shorter than limit.
func pack(head []string, diff []byte, limit int) []string {
	fence := "```"
	for run := longestRun(diff, '`'); len(fence) <= run; {
		fence += "`"
	}
	lines := splitLines(diff)
	nLines := len(lines)
	// Room for the part marker and the closing of a diff block.
	const marker = len("<!-- schedtool part 9999 of 9999 -->\n")
	closing := fence + "\n\n</details>\n"
	budget := limit - 1 - marker
	var parts []string
	var cur strings.Builder
	inDiff := false
	flush := func() {
		if inDiff {
			cur.WriteString(closing)
		}
		parts = append(parts, cur.String())
		cur.Reset()
	}
	open := func(cont bool) {
		what := fmt.Sprintf("Diff: %d %s", nLines, report.Plural(nLines, "line", "lines"))
		if cont {
			what += " (continued)"
		}
		fmt.Fprintf(&cur, "<details><summary>%s</summary>\n\n%sdiff\n", what, fence)
	}
	for _, l := range head {
		if room := budget - 200; len(l) > room { // never one line longer than a part
			l = cut(l, room)
		}
		if cur.Len()+len(l)+1 > budget {
			flush()
		}
		cur.WriteString(l + "\n")
	}
	heading := "### Diff\n\n"
	if len(diff) == 0 {
		cur.WriteString(heading + "No change.\n")
		parts = append(parts, cur.String())
		return mark(parts)
	}
	if cur.Len()+len(heading)+200 > budget {
		flush()
	}
	cur.WriteString(heading)
	open(false)
	inDiff = true
	for _, l := range lines {
		room := budget - len(closing) - 200 // the opening of a new part's block
		if len(l) > room {
			note := fmt.Sprintf(" … (%d bytes more; schedtool show PLAN -o diff has the whole line)\n", len(l))
			l = cut(l, room-len(note)) + note
		}
		if cur.Len()+len(l)+len(closing) > budget {
			flush()
			open(true)
		}
		cur.WriteString(l)
	}
	flush()
	return mark(parts)
}

// mark begins each part with its marker, when there are several.
func mark(parts []string) []string {
	if len(parts) < 2 {
		return parts
	}
	for i := range parts {
		parts[i] = PartMarker(i+1, len(parts)) + "\n" + parts[i]
	}
	return parts
}

func longestRun(b []byte, c byte) int {
	best, n := 0, 0
	for _, x := range b {
		if x == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

// splitLines cuts b after each newline (the last line may have none; it
// gets one, for the fence after it).
func splitLines(b []byte) []string {
	var out []string
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, string(b)+"\n")
			break
		}
		out = append(out, string(b[:i+1]))
		b = b[i+1:]
	}
	return out
}
