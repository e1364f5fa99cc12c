package savedplan

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/livespecs"
	"github.com/estuary/schedtool/internal/paths"
	"github.com/estuary/schedtool/migrate"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/report"
)

// Comparer is the one comparison of apply and show: it receives migrate's
// planning run again on the current inputs with the plan's options and
// task set (as migrate.RunOptions.Record), and keeps a group of files (or
// a row) only where the recomputation gives byte for byte what the plan
// holds for it: the same files, in the same order, read as the same
// bytes, with the same edits for the same tasks. Anything else is refused
// for that group, naming the file and the difference. It checks nothing
// else: what migrate would write now is migrate's to decide.
type Comparer struct {
	p    *Plan
	root string
	wd   string // the working directory: paths are shown from it
	errw io.Writer
	// Say lists what would be written ("would write: PATH"), for apply
	// --check and show; Quiet keeps the notes of what is already applied
	// or not in the plan.
	Say, Quiet bool
	verb       string // "not written", "would not be written"

	refuseAll string         // why every group is refused (a changed project file)
	byPath    map[string]int // a planned file's path: its group
	seen      []bool         // planned groups met in the recomputation
	// refused are the planned groups already refused and counted: a
	// group migrate now computes as several is refused once.
	refused []bool
	// covered are the planned files a recomputed group held.
	covered map[string]bool
	rows    map[[2]string]int // (dump, name): index in rowList
	rowList []*Row
	rowSeen []bool
	names   map[string]bool   // the tasks the plan's groups and rows edit
	why     map[string]string // what migrate now decides for them, when not to migrate

	Outcome
}

// Outcome is what apply did, or would do.
type Outcome struct {
	Groups int `json:"groups"` // groups of files in the plan
	Rows   int `json:"rows"`   // rows in the plan
	// Approved are the files and rows the recomputation gives as planned:
	// written, or that would be (--check, show).
	Approved int `json:"approved"`
	Applied  int `json:"applied"` // files that already hold the planned result
	Refused  int `json:"refused"` // files and rows refused: not what migrate gives now
	ByPlan   int `json:"byPlan"`  // files of groups the plan itself refused
	// NotPlanned are the files and rows migrate would change now that
	// the plan does not: never written by apply.
	NotPlanned int `json:"notPlanned"`
}

// NewComparer compares a recomputation under root (the root of the
// checkout apply runs in) with p, saying refusals on errw.
func NewComparer(p *Plan, root string, errw io.Writer) *Comparer {
	c := &Comparer{p: p, root: AbsRoot(root), errw: errw, verb: "not written", byPath: map[string]int{}, rows: map[[2]string]int{}, names: map[string]bool{}, why: map[string]string{}}
	c.Groups = len(p.Groups)
	c.wd, _ = os.Getwd()
	for gi, g := range p.Groups {
		for _, f := range g.Files {
			if _, dup := c.byPath[f.Path]; !dup {
				c.byPath[f.Path] = gi
			}
			for _, ts := range [][]string{f.Tasks, f.Models, f.Zeroes} {
				for _, t := range ts {
					c.names[t] = true
				}
			}
		}
	}
	c.seen = make([]bool, len(p.Groups))
	c.refused = make([]bool, len(p.Groups))
	c.covered = map[string]bool{}
	for di := range p.Dumps {
		for ri := range p.Dumps[di].Rows {
			r := &p.Dumps[di].Rows[ri]
			c.rows[[2]string{r.Dump, r.Name}] = len(c.rowList)
			c.rowList = append(c.rowList, r)
			c.names[r.Name] = true
			c.Rows++
		}
	}
	c.rowSeen = make([]bool, len(c.rowList))
	return c
}

// shown is a plan's path as migrate shows it: relative to the working
// directory when under it, else absolute.
func (c *Comparer) shown(rel string) string {
	if filepath.IsAbs(rel) || rel == "-" || rel == "<stdin>" || livespecs.IsDBURL(rel) {
		return report.Escape(rel)
	}
	p := filepath.Join(c.root, filepath.FromSlash(rel))
	if r, err := filepath.Rel(c.wd, p); err == nil && c.wd != "" && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		p = r
	}
	return report.Escape(p)
}

// Check makes the messages say what would happen.
func (c *Comparer) Check() { c.verb = "would not be written" }

// RefuseAll refuses every group and row, for why (a project file that
// changed since the plan).
func (c *Comparer) RefuseAll(why string) { c.refuseAll = why }

func (c *Comparer) note(format string, args ...any) {
	if !c.Quiet {
		fmt.Fprintf(c.errw, format+"\n", args...)
	}
}

// Task notes what migrate now decides for a task the plan edits.
func (c *Comparer) Task(t *migrate.Task) {
	if c.names[t.Task] && t.Action != plan.Migrate {
		if _, ok := c.why[t.Task]; !ok {
			c.why[t.Task] = fmt.Sprintf("%s (%s:%d) %s: %s", t.Task, Rel(c.root, t.File), t.Line, t.Action, t.Reason)
		}
	}
}

// Group keeps a recomputed group only when it is the plan's.
func (c *Comparer) Group(files []*migrate.File, refused string) bool {
	got := groupRecord(c.root, files, refused)
	var planned []int
	for _, f := range got.Files {
		if gi, ok := c.byPath[f.Path]; ok && !slices.Contains(planned, gi) {
			planned = append(planned, gi)
		}
	}
	if len(planned) == 0 {
		if refused == "" {
			for _, f := range got.Files {
				c.NotPlanned++
				c.note("schedtool: %s: %s: migrate would change it now, but the plan does not (plan again to include it)", c.shown(f.Path), c.verb)
			}
		}
		return false
	}
	for _, gi := range planned {
		c.seen[gi] = true
	}
	for _, f := range got.Files {
		c.covered[f.Path] = true
	}
	gi := planned[0]
	pg := &c.p.Groups[gi]
	switch {
	case slices.ContainsFunc(planned, func(gi int) bool { return c.refused[gi] }):
		// Another part of a planned group migrate now computes as
		// several was refused, and its files with it.
		for _, gi := range planned {
			c.refused[gi] = true
		}
		return false
	case pg.Refused != "":
		c.refused[gi] = true
		for _, f := range pg.Files {
			c.ByPlan++
			fmt.Fprintf(c.errw, "schedtool: %s: %s: %s (refused when the plan was made)\n", c.shown(f.Path), c.verb, report.Escape(pg.Refused))
		}
		return false
	case c.refuseAll != "":
		c.refuse(gi, "", c.refuseAll)
		return false
	}
	if len(planned) > 1 {
		c.refuse(gi, got.Files[0].Path, "migrate would now write it together with files the plan writes in other groups ("+c.pathsOf(planned[1:])+")")
		for _, gi := range planned[1:] {
			c.refuse(gi, "", "migrate would now write it together with "+got.Files[0].Path)
		}
		return false
	}
	if at, why := c.difference(pg, got); why != "" {
		c.refuse(gi, at, why)
		return false
	}
	for _, f := range got.Files {
		c.Approved++
		if c.Say {
			c.note("would write: %s", c.shown(f.Path))
		}
	}
	return true
}

func (c *Comparer) pathsOf(gs []int) string {
	var out []string
	for _, gi := range gs {
		for _, f := range c.p.Groups[gi].Files {
			out = append(out, f.Path)
		}
	}
	return strings.Join(out, ", ")
}

// difference says how the recomputed group got differs from the planned
// one, and at which file ("" when they are the same).
func (c *Comparer) difference(pg, got *Group) (string, string) {
	if got.Refused != "" {
		return got.Files[0].Path, "migrate would not write it now: " + got.Refused
	}
	var want, have []string
	for _, f := range pg.Files {
		want = append(want, f.Path)
	}
	for _, f := range got.Files {
		have = append(have, f.Path)
	}
	// An input changed first: the likeliest difference, and the plainest.
	for _, g := range got.Files {
		for _, p := range pg.Files {
			if p.Path == g.Path && p.SHA256 != g.SHA256 {
				return p.Path, changedText(p.Size, p.SHA256, g.Size, g.SHA256) + editLines(p.Edits)
			}
		}
	}
	for _, h := range have {
		if !slices.Contains(want, h) {
			return want[0], "migrate would now write it together with " + h + ", which the plan does not change with it"
		}
	}
	// A group a killed write left half renamed: migrate now gives the
	// files it did not rename, alone or as several groups, and each
	// must be what migrate gives now, as planned. The planned files no
	// recomputed group holds must already hold their planned result,
	// which Finish checks.
	var rest []File
	for _, f := range pg.Files {
		if slices.Contains(have, f.Path) {
			rest = append(rest, f)
		}
	}
	partial := len(rest) < len(pg.Files)
	for i := range rest {
		p, g := &rest[i], &got.Files[i]
		if p.Path != g.Path {
			return p.Path, "migrate would now write the group's files in another order (" + strings.Join(have, ", ") + ")"
		}
		if p.SHA256 != g.SHA256 {
			return p.Path, changedText(p.Size, p.SHA256, g.Size, g.SHA256) + editLines(p.Edits)
		}
		if !sameJSON(p.Edits, g.Edits) || p.Result != g.Result {
			return p.Path, "its bytes are those planned on, but migrate would now edit them otherwise: a decision no longer holds" + editLines(g.Edits) + c.reasons(pg)
		}
		if !partial && (!slices.Equal(p.Tasks, g.Tasks) || !slices.Equal(p.Models, g.Models) || !slices.Equal(p.Zeroes, g.Zeroes)) {
			return p.Path, fmt.Sprintf("migrate would make the same edits, but for other tasks now (%s; planned for %s)", strings.Join(g.Tasks, ", "), strings.Join(p.Tasks, ", "))
		}
	}
	return "", ""
}

// reasons says what migrate now decides for the tasks of a group that
// it no longer migrates.
func (c *Comparer) reasons(pg *Group) string {
	var out []string
	for _, f := range pg.Files {
		for _, t := range f.Tasks {
			if w, ok := c.why[t]; ok && !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	if len(out) == 0 {
		return ""
	}
	if len(out) > 5 {
		out = append(out[:5], fmt.Sprintf("and %d more", len(out)-5))
	}
	return "; migrate now decides: " + strings.Join(out, "; ")
}

// refuse refuses the planned group gi: the file at fault with why, the
// others as written together with it. A group is refused once.
func (c *Comparer) refuse(gi int, at, why string) {
	if c.refused[gi] {
		return
	}
	c.refused[gi] = true
	pg := &c.p.Groups[gi]
	if at == "" {
		at = pg.Files[0].Path
	}
	for _, f := range pg.Files {
		c.Refused++
		if f.Path == at || len(pg.Files) == 1 {
			fmt.Fprintf(c.errw, "schedtool: %s: %s: %s; plan again and review the new plan\n", c.shown(f.Path), c.verb, report.Escape(why))
		} else {
			fmt.Fprintf(c.errw, "schedtool: %s: %s: written together with %s, which is refused\n", c.shown(f.Path), c.verb, c.shown(at))
		}
	}
}

// Row keeps a recomputed row only when it is the plan's.
func (c *Comparer) Row(dump string, row *migrate.Row) bool {
	got := rowRecord(c.root, dump, row)
	i, ok := c.rows[[2]string{got.Dump, got.Name}]
	if !ok {
		c.NotPlanned++
		c.note("schedtool: %s:%d: %s: %s: migrate would change it now, but the plan does not (plan again to include it)", c.shown(got.Dump), got.Line, report.Escape(got.Name), c.verb)
		return false
	}
	if c.rowSeen[i] {
		return false // a second row of the name: migrate refuses it
	}
	c.rowSeen[i] = true
	p := c.rowList[i]
	why := c.refuseAll
	switch {
	case why != "":
	case p.LastPubID != got.LastPubID:
		why = fmt.Sprintf("published since the plan: last_pub_id %s now, %s when planned", got.LastPubID, p.LastPubID)
	case p.SHA256 != got.SHA256:
		why = changedText(p.Size, p.SHA256, got.Size, got.SHA256)
	case !sameJSON(p.Edits, got.Edits) || p.Result != got.Result:
		why = "the row is the one planned on, but migrate would now migrate it otherwise: a decision no longer holds"
	}
	if why != "" {
		c.Refused++
		fmt.Fprintf(c.errw, "schedtool: %s:%d: %s: %s: %s; plan again and review the new plan\n", c.shown(got.Dump), got.Line, report.Escape(got.Name), c.verb, report.Escape(why))
		return false
	}
	c.Approved++
	if c.Say {
		c.note("would write: %s:%d: %s", c.shown(got.Dump), got.Line, report.Escape(got.Name))
	}
	return true
}

// Run is apply's and show's one run: migrate's planning run again by mg
// over inputs under ro (its mode: a dry run, --write, --out), with the
// plan's task set in place of --limit, keeping only what c approves.
// Finish is called when the run completes.
func Run(mg *migrate.Migrator, inputs []catalog.Input, ro migrate.RunOptions, c *Comparer, out, errw io.Writer) (*migrate.Summary, error) {
	ro.Record, ro.Replay, ro.TaskSet = c, true, c.p.TaskSet
	if ro.TaskSet == nil {
		ro.TaskSet = []string{}
	}
	sum, err := mg.Run(inputs, ro, out, errw)
	if err == nil {
		c.Finish()
	}
	return sum, err
}

// Finish judges what the plan holds that the recomputation did not give:
// a group whose files already hold the planned result is already
// applied; any other is refused, as is every row not met.
func (c *Comparer) Finish() {
	for gi := range c.p.Groups {
		pg := &c.p.Groups[gi]
		if c.seen[gi] {
			c.unmet(gi)
			continue
		}
		if pg.Refused != "" {
			for _, f := range pg.Files {
				c.ByPlan++
				fmt.Fprintf(c.errw, "schedtool: %s: %s: %s (refused when the plan was made)\n", c.shown(f.Path), c.verb, report.Escape(pg.Refused))
			}
			continue
		}
		at, why := "", ""
		for _, f := range pg.Files {
			h, size, err := c.hashOf(f.Path)
			switch {
			case err != nil:
				at, why = f.Path, err.Error()
			case h == f.Result:
				continue
			case h == f.SHA256:
				at, why = f.Path, "its bytes are those planned on, but migrate would not change it now: a decision no longer holds"+c.reasons(pg)
			default:
				at, why = f.Path, changedText(f.Size, f.SHA256, size, h)+editLines(f.Edits)
			}
			break
		}
		if why == "" {
			for _, f := range pg.Files {
				c.Applied++
				c.note("already applied: %s", c.shown(f.Path))
			}
			continue
		}
		c.refuse(gi, at, why)
	}
	for i, r := range c.rowList {
		if c.rowSeen[i] {
			continue
		}
		c.Refused++
		why := "no longer migrated from " + r.Dump + ": the row is gone, or migrate would not change it now"
		if w, ok := c.why[r.Name]; ok {
			why = "migrate would not change it now: a decision no longer holds; migrate now decides: " + w
		}
		fmt.Fprintf(c.errw, "schedtool: %s:%d: %s: %s: %s; plan again and review the new plan\n", c.shown(r.Dump), r.Line, report.Escape(r.Name), c.verb, report.Escape(why))
	}
}

// unmet judges the files of a planned group met in the recomputation
// that no recomputed group held (migrate now computes it as several
// groups, after a killed write): each must already hold its planned
// result, else migrate would no longer change it with the rest.
func (c *Comparer) unmet(gi int) {
	if c.refused[gi] {
		return
	}
	pg := &c.p.Groups[gi]
	for _, f := range pg.Files {
		if c.covered[f.Path] {
			continue
		}
		if h, _, err := c.hashOf(f.Path); err != nil || h != f.Result {
			c.Refused++
			fmt.Fprintf(c.errw, "schedtool: %s: %s: migrate would no longer change it with the rest of its group%s; plan again and review the new plan\n", c.shown(f.Path), c.verb, report.Escape(c.reasons(pg)))
			continue
		}
		c.Applied++
		c.note("already applied: %s", c.shown(f.Path))
	}
}

// hashOf reads a planned file under the root as migrate reads it (a
// regular file, through a link) and returns its SHA-256 and size.
func (c *Comparer) hashOf(rel string) (string, int, error) {
	if filepath.IsAbs(rel) || rel == "-" || rel == "<stdin>" {
		return "", 0, fmt.Errorf("not a file under the root %s", c.root)
	}
	fh, _, err := paths.OpenRegular(filepath.Join(c.root, filepath.FromSlash(rel)))
	var b []byte
	if err == nil {
		b, err = io.ReadAll(fh)
		fh.Close()
	}
	var nr *paths.NotRegularError
	switch {
	case errors.As(err, &nr):
		return "", 0, errors.New("changed since the plan: it is not a regular file")
	case errors.Is(err, fs.ErrNotExist):
		return "", 0, errors.New("changed since the plan: the file no longer exists")
	case err != nil:
		return "", 0, errors.New("cannot be read: " + err.Error())
	}
	return Hash(b), len(b), nil
}

func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

// changedText says how the bytes now differ from those planned on.
func changedText(size int, sum string, now int, h string) string {
	return fmt.Sprintf("changed since the plan: %d bytes now, %d when planned (sha256 %s now, %s planned)", now, size, short(h), short(sum))
}

// editLines says where the plan edits a file: where to look for what
// changed.
func editLines(es []Edit) string {
	var lines []string
	for _, e := range es {
		l := fmt.Sprint(e.Line)
		if n := len(lines); e.Line > 0 && (n == 0 || lines[n-1] != l) {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	if len(lines) > 10 {
		lines = append(lines[:10], "…")
	}
	return fmt.Sprintf("; the plan edits it at %s %s", report.Plural(len(lines), "line", "lines"), strings.Join(lines, ", "))
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12] + "…"
	}
	return h
}

// Line is the outcome in a sentence, headed by what ran.
func (o *Outcome) Line(head string, check bool, written int) string {
	what := fmt.Sprintf("%d %s of files", o.Groups, report.Plural(o.Groups, "group", "groups"))
	if o.Rows > 0 {
		what += fmt.Sprintf(", %d dump %s", o.Rows, report.Plural(o.Rows, "row", "rows"))
	}
	verb := "written"
	if check {
		verb, written = "would be written", o.Approved
	}
	line := fmt.Sprintf("%s: %s: %d %s, %d already applied", head, what, written, verb, o.Applied)
	if o.Refused > 0 {
		line += fmt.Sprintf(", %d refused (not what migrate gives now)", o.Refused)
	}
	if o.ByPlan > 0 {
		line += fmt.Sprintf(", %d refused by the plan", o.ByPlan)
	}
	return line
}
