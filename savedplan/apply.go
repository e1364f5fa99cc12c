package savedplan

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/catalog/livespecs"
	catusers "github.com/estuary/schedtool/catalog/users"
	"github.com/estuary/schedtool/internal/groupwrite"
	"github.com/estuary/schedtool/internal/paths"
	"github.com/estuary/schedtool/migrate"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/report"
	"github.com/estuary/schedtool/schedule/connector"
)

// ApplyOptions are apply's choices.
type ApplyOptions struct {
	// Check says what would happen and writes nothing.
	Check bool
	// AllOrNothing writes nothing when any group or row is refused.
	AllOrNothing bool
	// Out is the file the migrated rows of the plan's dumps go to, or
	// the directory a plan of catalog files writes its migrated tree
	// under, as migrate --out DIR (Inputs are then the plan's PATHs).
	Out    string
	Inputs []catalog.Input
	// RowsTree writes a plan's stored specs as a publishable tree under
	// Out (one source per task), as migrate --out DIR does, instead of
	// the rows to the file Out.
	RowsTree bool
	Force    bool
	Quiet    bool
	// Load reads the dumps again (their limits).
	Load catalog.Options
	// Hooks inject faults into the writes (tests).
	Hooks groupwrite.Hooks
}

// Outcome is what apply did, or would do (--check).
type Outcome struct {
	Groups  int `json:"groups"`
	Rows    int `json:"rows"`
	Written int `json:"written"` // files (or rows) written, or that would be
	Applied int `json:"applied"` // files that already hold the planned result
	Changed int `json:"changed"` // files or rows refused: changed since the plan
	Refused int `json:"refused"` // files of groups the plan itself refused
	Failed  int `json:"failed"`  // files that could not be written
	// Untouched are the files a signal left as they were, and Interrupted
	// that signal.
	Untouched   int    `json:"untouched,omitempty"`
	Interrupted string `json:"interrupted,omitempty"`
	Review      int    `json:"review"` // tasks the plan left to a person
	// publish is how to publish the tree apply --out DIR wrote from
	// stored specs.
	publish *migrate.Publish
}

// state of one planned file against the disk.
type state struct {
	f    *File
	cur  []byte
	what string // "pending", "applied" or "changed"
	why  string // what changed
}

func look(f *File) state {
	s := state{f: f}
	// migrate read it through a link: so does apply. Only a regular
	// file, opened without blocking (a FIFO swapped in cannot hang it).
	fh, _, err := paths.OpenRegular(f.Path)
	if err == nil {
		s.cur, err = io.ReadAll(fh)
		fh.Close()
	}
	var nr *paths.NotRegularError
	if errors.As(err, &nr) {
		err = errors.New("is not a regular file")
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			s.what, s.why = "changed", "changed since the plan: the file no longer exists"
		} else {
			s.what, s.why = "changed", "cannot be read: "+err.Error()
		}
		return s
	}
	switch h := Hash(s.cur); {
	case h == f.SHA256:
		s.what = "pending"
	case f.Result != "" && h == f.Result:
		s.what = "applied"
	default:
		s.what = "changed"
		s.why = changedText(f.Size, f.SHA256, s.cur, h) + editLines(f.Edits)
	}
	return s
}

// lookAll looks at every planned file (look), then, the hashes being
// those planned on, at who uses each file the plan zeroes (newUsers) and
// at what the groups would leave (checkResults): one check for apply in
// place and apply --out DIR, on the plan's catalog read again once.
func lookAll(p *Plan, load catalog.Options) [][]state {
	states := make([][]state, len(p.Groups))
	again := &reread{plan: p, load: load}
	var users func(*Group, *File) string
	for gi := range p.Groups {
		g := &p.Groups[gi]
		states[gi] = make([]state, len(g.Files))
		for i := range g.Files {
			s := look(&g.Files[i])
			if s.what == "pending" && len(s.f.Zeroes) > 0 && g.Refused == "" {
				if users == nil {
					users = newUsers(again)
				}
				if why := users(g, s.f); why != "" {
					s.what, s.why = "changed", why
				}
			}
			states[gi][i] = s
		}
	}
	checkResults(p, again, states)
	return states
}

// reread is the plan's catalog read again from its PATHs (a database or
// standard input holds no file the plan edits, and apply does not read
// them again), resolved and loaded at most once, when a check first
// needs it.
type reread struct {
	plan    *Plan
	load    catalog.Options
	done    bool
	args    int             // the plan's catalog PATHs
	err     error           // resolving them
	sources []catalog.Input // those holding sources
	cat     *catalog.Catalog
}

func (r *reread) read() *reread {
	if r.done {
		return r
	}
	r.done = true
	var args []string
	for _, a := range r.plan.Args {
		if a != "-" && !livespecs.IsDBURL(a) {
			args = append(args, a)
		}
	}
	if r.args = len(args); r.args == 0 {
		return r
	}
	var inputs []catalog.Input
	if inputs, r.err = input.Resolve(args, r.load); r.err != nil {
		return r
	}
	for _, in := range inputs {
		if len(in.Sources) > 0 {
			r.sources = append(r.sources, in)
		}
	}
	if len(r.sources) > 0 {
		r.cat = catalog.Load(r.sources, r.load)
	}
	return r
}

// checkResults reads the plan's catalog again, as it is and as the
// groups about to be written would leave it, and refuses (as changed) a
// group that edits a file the catalog does not read, or that leaves a
// task paced now with nothing pacing it: the plan's own account of what
// it zeroes (Zeroes, Models) is not trusted, since a plan is not signed
// and anyone can recompute its digest (docs/behaviour.md §7, "Saved
// plans"). A group is checked with the others that would be written;
// refusing one checks the rest again without it.
func checkResults(p *Plan, again *reread, states [][]state) {
	var todo []int
	for gi := range p.Groups {
		if p.Groups[gi].Refused != "" {
			continue
		}
		pending, changed := 0, false
		for _, s := range states[gi] {
			pending += b2i(s.what == "pending")
			changed = changed || s.what == "changed"
		}
		if pending > 0 && !changed {
			todo = append(todo, gi)
		}
	}
	if len(todo) == 0 {
		return
	}
	refuse := func(gi, fi int, why string) {
		states[gi][fi].what, states[gi][fi].why = "changed", why
	}
	sources, before := again.read().sources, again.cat
	if len(sources) == 0 {
		why := "the plan names no catalog PATH to read again, so what its edits leave cannot be checked"
		if again.err != nil {
			why = "the plan's catalog cannot be read again to check what its edits leave: " + again.err.Error()
		}
		for _, gi := range todo {
			refuse(gi, 0, why)
		}
		return
	}
	read := map[paths.FileID]bool{}
	for _, f := range before.Files {
		if id, ok := paths.Identify(f); ok {
			read[id] = true
		}
	}
	// Every file a group writes is one the catalog reads.
	kept := todo[:0]
	for _, gi := range todo {
		ok := true
		for fi, s := range states[gi] {
			if id, known := paths.Identify(s.f.Path); !known || !read[id] {
				refuse(gi, fi, "not a source or config file of the plan's catalog (its PATHs read again): apply edits only the catalog's files")
				ok = false
				break
			}
		}
		if ok {
			kept = append(kept, gi)
		}
	}
	todo = kept
	type def struct {
		name string
		src  paths.FileID
	}
	was := map[def]bool{}
	for _, m := range before.Materializations {
		if id, ok := paths.Identify(m.Source.File); ok {
			was[def{m.Name, id}] = was[def{m.Name, id}] || rowPaced(m)
		}
	}
	for len(todo) > 0 {
		results := map[paths.FileID][]byte{}
		owner := map[paths.FileID][]int{} // group, file
		for _, gi := range todo {
			for fi, s := range states[gi] {
				id, _ := paths.Identify(s.f.Path)
				owner[id] = []int{gi, fi}
				if s.what == "pending" {
					if data, err := Patch(s.cur, s.f.Edits); err == nil {
						results[id] = data
					}
				}
			}
		}
		after := again.load
		after.Overlay = func(path string) ([]byte, bool) {
			id, ok := paths.Identify(path)
			b, ok2 := results[id]
			return b, ok && ok2
		}
		cat := catalog.Load(sources, after)
		bad := map[int][]string{}
		badFile := map[int]int{}
		for _, m := range cat.Materializations {
			var touch [][]int
			sid, sok := paths.Identify(m.Source.File)
			if o, ok := owner[sid]; sok && ok {
				touch = append(touch, o)
			}
			if m.Config != nil && m.Config.File != nil {
				if cid, ok := paths.Identify(m.Config.File.Doc.File); ok && owner[cid] != nil {
					touch = append(touch, owner[cid])
				}
			}
			if len(touch) == 0 || rowPaced(m) {
				continue
			}
			if p, ok := was[def{m.Name, sid}]; ok && !p {
				continue // nothing paced it before the plan either
			}
			for _, o := range touch {
				if _, seen := badFile[o[0]]; !seen {
					badFile[o[0]] = o[1]
				}
				bad[o[0]] = append(bad[o[0]], fmt.Sprintf("%s (%s:%d)", m.Name, m.Source.File, m.Spec.Line()))
			}
		}
		if len(bad) == 0 {
			return
		}
		kept := todo[:0]
		for _, gi := range todo {
			if ts, ok := bad[gi]; ok {
				refuse(gi, badFile[gi], "the planned edits would leave "+strings.Join(ts, ", ")+" with no pacing: no working model syncSchedule on the V2 runtime, and its connector's delay zeroed; refused, whatever the plan says it does")
				continue
			}
			kept = append(kept, gi)
		}
		todo = kept
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// changedText says how the bytes now differ from those planned on.
func changedText(size int, sum string, cur []byte, h string) string {
	return fmt.Sprintf("changed since the plan: %d bytes now, %d when planned (sha256 %s now, %s planned), and it does not hold the planned result either", len(cur), size, short(h), short(sum))
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

// Apply writes the plan's edits: each group of files in place through
// groupwrite (all or nothing, in the plan's order, locked, a signal
// finishing the group), and the dumps' migrated rows to opts.Out. It
// recomputes nothing: a file whose bytes are not those planned on is
// refused with its group, a group whose files already hold the planned
// result is already applied. errw gets a line per file and a summary.
func Apply(p *Plan, opts ApplyOptions, errw io.Writer) (*Outcome, error) {
	o := &Outcome{Groups: len(p.Groups)}
	for _, t := range p.Tasks {
		if t.Action == "review" || t.Action == "skip" {
			o.Review++
		}
	}
	if len(p.Dumps) > 0 && opts.Out == "" {
		return o, &Error{"the plan holds migrated rows of stored specs, which are not written in place: give --out FILE for the migrated rows"}
	}
	if len(p.Groups) > 0 && opts.Out != "" {
		return applyTree(p, opts, errw, o)
	}
	note := func(format string, args ...any) {
		if !opts.Quiet {
			fmt.Fprintf(errw, format+"\n", args...)
		}
	}
	roots := realRoots(p.Roots)
	states := lookAll(p, opts.Load)
	anyChanged := false
	for _, ss := range states {
		for _, s := range ss {
			if s.what == "changed" {
				anyChanged = true
			}
		}
	}
	rows, rowErr := readRows(p, opts)
	if rowErr != nil {
		return o, rowErr
	}
	for _, r := range rows {
		if r.why != "" {
			anyChanged = true
		}
	}
	held := opts.AllOrNothing && anyChanged
	var wrote []string
	verb := "not written"
	if opts.Check {
		verb = "would not be written"
	}
	for gi := range p.Groups {
		g, ss := &p.Groups[gi], states[gi]
		var changed *state
		applied, pending := 0, 0
		for i := range ss {
			switch ss[i].what {
			case "changed":
				if changed == nil {
					changed = &ss[i]
				}
			case "applied":
				applied++
			case "pending":
				pending++
			}
		}
		switch {
		case g.Refused != "":
			for _, s := range ss {
				o.Refused++
				fmt.Fprintf(errw, "schedtool: %s: %s: %s (refused when the plan was made)\n", report.Escape(s.f.Path), verb, report.Escape(g.Refused))
			}
		case changed != nil:
			for _, s := range ss {
				o.Changed++
				if s.what == "changed" {
					fmt.Fprintf(errw, "schedtool: %s: %s: %s; plan again and review the new plan\n", report.Escape(s.f.Path), verb, report.Escape(s.why))
				} else {
					fmt.Fprintf(errw, "schedtool: %s: %s: written together with %s, which changed since the plan\n", report.Escape(s.f.Path), verb, report.Escape(changed.f.Path))
				}
			}
		case pending == 0:
			for _, s := range ss {
				o.Applied++
				note("already applied: %s", report.Escape(s.f.Path))
			}
		case held:
			for _, s := range ss {
				o.Untouched++
				fmt.Fprintf(errw, "schedtool: %s: %s: --all-or-nothing, and another group changed since the plan\n", report.Escape(s.f.Path), verb)
			}
		case opts.Check:
			for _, s := range ss {
				if s.what == "applied" {
					o.Applied++
					note("already applied: %s", report.Escape(s.f.Path))
				} else {
					o.Written++
					note("would write: %s", report.Escape(s.f.Path))
				}
			}
		default:
			if o.Interrupted != "" {
				o.Untouched += len(ss)
				continue
			}
			w := writeGroup(ss, roots, opts.Hooks, errw, o)
			wrote = append(wrote, w...)
			if sig := groupwrite.Interrupted(); sig != nil {
				o.Interrupted = migrate.SignalName(sig)
			}
		}
	}
	if len(p.Dumps) > 0 {
		if err := writeRows(p, rows, opts, held, errw, o, &wrote); err != nil {
			return o, err
		}
	}
	for _, w := range wrote {
		note("written: %s", report.Escape(w))
	}
	fmt.Fprintln(errw, o.line(opts.Check))
	if p := o.publish; p != nil {
		note("publish each task: %s\nor all at once:    %s", report.Escape(p.Each), report.Escape(p.All))
	}
	if o.Review > 0 {
		note("the plan leaves %d %s to a person (needs review or skipped): schedtool show PLAN lists them", o.Review, report.Plural(o.Review, "task", "tasks"))
	}
	return o, nil
}

func (o *Outcome) line(check bool) string {
	head := "apply"
	if check {
		head = "apply --check (nothing written)"
	}
	what := fmt.Sprintf("%d %s of files", o.Groups, report.Plural(o.Groups, "group", "groups"))
	if o.Rows > 0 {
		what += fmt.Sprintf(", %d dump %s", o.Rows, report.Plural(o.Rows, "row", "rows"))
	}
	verb := "written"
	if check {
		verb = "would be written"
	}
	line := fmt.Sprintf("%s: %s: %d %s, %d already applied", head, what, o.Written, verb, o.Applied)
	if o.Changed > 0 {
		line += fmt.Sprintf(", %d refused (changed since the plan)", o.Changed)
	}
	if o.Refused > 0 {
		line += fmt.Sprintf(", %d refused by the plan", o.Refused)
	}
	if o.Untouched > 0 {
		line += fmt.Sprintf(", %d left untouched", o.Untouched)
	}
	if o.Failed > 0 {
		line += fmt.Sprintf(", %d failed", o.Failed)
	}
	if o.Interrupted != "" {
		line += fmt.Sprintf("; interrupted by %s: the group being renamed was finished, no temp file is left", o.Interrupted)
	}
	return line
}

// writeGroup writes the pending files of one group, in the plan's order,
// through groupwrite; the files already holding their result are left.
func writeGroup(ss []state, roots []string, h groupwrite.Hooks, errw io.Writer, o *Outcome) []string {
	var puts []*groupwrite.Put
	for _, s := range ss {
		if s.what != "pending" {
			o.Applied++
			continue
		}
		data, err := Patch(s.cur, s.f.Edits)
		if err == nil && Hash(data) != s.f.Result {
			err = errors.New("the planned edits do not give the planned result")
		}
		if err != nil {
			for _, s := range ss {
				o.Failed++
				fmt.Fprintf(errw, "schedtool: %s: not written: %v\n", report.Escape(s.f.Path), err)
			}
			return nil
		}
		puts = append(puts, &groupwrite.Put{Path: s.f.Path, Old: s.cur, Data: data, Within: roots})
	}
	if err := groupwrite.WriteGroup(puts, h); err != nil {
		at := puts[0].Path
		var ge *groupwrite.GroupError
		if errors.As(err, &ge) {
			at = ge.Path
		}
		for _, p := range puts {
			o.Failed++
			if p.Path == at || len(puts) == 1 {
				fmt.Fprintf(errw, "schedtool: %s: not written: %s\n", report.Escape(p.Path), report.Escape(err.Error()))
			} else {
				fmt.Fprintf(errw, "schedtool: %s: not written: written together with %s, which failed: %s\n", report.Escape(p.Path), report.Escape(at), report.Escape(err.Error()))
			}
		}
		return nil
	}
	var out []string
	for _, p := range puts {
		o.Written++
		out = append(out, p.Path)
	}
	migrate.AddWritten(len(puts))
	return out
}

// realRoots are the roots, absolute with symlinks resolved, that every
// file written must resolve inside.
func realRoots(roots []string) []string {
	var out []string
	for _, r := range roots {
		if real, err := filepath.EvalSymlinks(r); err == nil {
			if abs, err := filepath.Abs(real); err == nil {
				out = append(out, abs)
			}
		}
	}
	return out
}

// rowNow is a planned row as the dump holds it now.
type rowNow struct {
	dump string
	row  *Row
	cur  []byte // the row's bytes now
	new  []byte // the migrated row
	why  string // why it is refused
}

// readRows reads the plan's dumps again and finds each planned row by
// catalog name: its bytes and last_pub_id must be those planned on.
func readRows(p *Plan, opts ApplyOptions) ([]rowNow, error) {
	var out []rowNow
	for di := range p.Dumps {
		d := &p.Dumps[di]
		cur, err := dumpRows(d.Name, opts.Load)
		if err != nil {
			return nil, err
		}
		for i := range d.Rows {
			r := &d.Rows[i]
			now := rowNow{dump: d.Name, row: r}
			c, ok := cur[r.Name]
			switch {
			case !ok:
				now.why = fmt.Sprintf("%s: no longer in %s", r.Name, d.Name)
			case c.pubID != r.LastPubID:
				now.why = fmt.Sprintf("%s: published since the plan: last_pub_id %s now, %s when planned", r.Name, c.pubID, r.LastPubID)
			case Hash(c.src) != r.SHA256:
				now.why = fmt.Sprintf("%s: %s", r.Name, changedText(r.Size, r.SHA256, c.src, Hash(c.src)))
			default:
				now.cur = c.src
				if why := rowUnpaces(d.Name, c, r, opts.Load); why != "" {
					now.cur, now.why = nil, r.Name+": "+why
				}
			}
			out = append(out, now)
		}
	}
	return out, nil
}

type dumpRow struct {
	name  string
	src   []byte
	pubID string
	paced bool // its runtime or its connector paces it
}

// rowUnpaces reads the row as the plan's edits would leave it and says
// why it is refused when the task is paced now and would not be then: a
// plan is not signed (its digest can be recomputed), so what its edits
// do is checked, not what it says they do (docs/behaviour.md §7).
func rowUnpaces(dump string, c dumpRow, r *Row, load catalog.Options) string {
	if !c.paced {
		return ""
	}
	data, err := Patch(c.src, r.Edits)
	if err != nil {
		return "" // refused when written: the edits do not fit the row
	}
	load.Select = nil
	paced, found := false, false
	err = livespecs.ScanDump(bytes.NewReader(append(data, '\n')), dump, livespecs.DumpOptions{Options: load}, func(rr *livespecs.RowResult) *bool {
		if rr.Mat == nil || rr.Mat.Name != c.name {
			return nil
		}
		p := rowPaced(rr.Mat)
		return &p
	}, func(p *bool) {
		if p != nil && !found {
			paced, found = *p, true
		}
	})
	switch {
	case err != nil || !found:
		return "the planned edits leave a row that cannot be read as its materialization: refused, whatever the plan says it does"
	case !paced:
		return "the planned edits would leave it with no pacing: no working model syncSchedule on the V2 runtime, and its connector's delay zeroed; refused, whatever the plan says it does"
	}
	return ""
}

// builtin is the built-in connector registry, parsed once: rowPaced asks
// it of every row of a dump.
var builtin = sync.OnceValue(connector.Builtin)

// rowPaced reports whether the runtime or the connector paces m.
func rowPaced(m *catalog.Materialization) bool {
	st := plan.StateOf(m, builtin())
	return st.RuntimePaces() || st.ConnectorPaces()
}

// dumpRows reads a dump file's materializations by catalog name.
func dumpRows(name string, load catalog.Options) (map[string]dumpRow, error) {
	if name == "-" || name == "<stdin>" || livespecs.IsDBURL(name) {
		return nil, &Error{fmt.Sprintf("%s: the plan's rows came from standard input or a database, which apply cannot read again; plan from a dump file (psql \\copy, flowctl raw get > FILE)", name)}
	}
	load.Select = nil
	inputs, err := input.Resolve([]string{name}, load)
	if err != nil {
		return nil, err
	}
	out := map[string]dumpRow{}
	dopts := livespecs.DumpOptions{Options: load}
	err = livespecs.EachDump(inputs, func(r io.Reader, file string) error {
		return livespecs.ScanDump(r, file, dopts, func(rr *livespecs.RowResult) *dumpRow {
			if rr.Mat == nil {
				return nil
			}
			return &dumpRow{name: rr.Mat.Name, src: bytes.Clone(rr.Mat.Source.Src), pubID: rr.Mat.Row.LastPubID, paced: rowPaced(rr.Mat)}
		}, func(d *dumpRow) {
			if d == nil {
				return
			}
			if _, dup := out[d.name]; !dup {
				out[d.name] = *d
			}
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// writeRows writes the migrated rows to opts.Out, in the plan's order.
func writeRows(p *Plan, rows []rowNow, opts ApplyOptions, held bool, errw io.Writer, o *Outcome, wrote *[]string) error {
	var news [][]byte
	verb := "not written"
	if opts.Check {
		verb = "would not be written"
	}
	for i := range rows {
		r := &rows[i]
		o.Rows++
		if r.why != "" {
			o.Changed++
			fmt.Fprintf(errw, "schedtool: %s:%d: %s: %s; plan again and review the new plan\n", report.Escape(r.dump), r.row.Line, verb, report.Escape(r.why))
			continue
		}
		data, err := Patch(r.cur, r.row.Edits)
		if err == nil && Hash(data) != r.row.Result {
			err = errors.New("the planned edits do not give the planned result")
		}
		if err != nil {
			o.Failed++
			fmt.Fprintf(errw, "schedtool: %s: not written: %v\n", report.Escape(r.row.Name), err)
			continue
		}
		news = append(news, data)
		r.new = data
	}
	if held || len(news) == 0 {
		o.Untouched += len(news)
		return nil
	}
	if opts.Check {
		o.Written += len(news)
		return nil
	}
	if opts.RowsTree {
		return writeRowsTree(p, rows, opts, errw, o, wrote)
	}
	s, err := groupwrite.CreateStream(opts.Out, migrate.DumpFileMode(dumpNames(p)), opts.Hooks)
	if err != nil {
		return &Error{"--out: " + err.Error()}
	}
	for _, n := range news {
		s.Write(n)
		s.Write([]byte{'\n'})
	}
	if err := s.Commit(); err != nil {
		o.Failed++
		return err
	}
	o.Written += len(news)
	*wrote = append(*wrote, opts.Out)
	migrate.AddWritten(1)
	return nil
}

// applyTree writes the migrated tree of a plan of catalog files under
// opts.Out, as migrate --out DIR does: the whole tree, so every planned
// input must be as planned (or already hold its result), else nothing is
// written.
func applyTree(p *Plan, opts ApplyOptions, errw io.Writer, o *Outcome) (*Outcome, error) {
	var changed []*migrate.File
	bad := 0
	states := lookAll(p, opts.Load)
	for gi := range p.Groups {
		g := &p.Groups[gi]
		for i := range g.Files {
			s := states[gi][i]
			switch {
			case g.Refused != "":
				o.Refused++
				fmt.Fprintf(errw, "schedtool: %s: not written: %s (refused when the plan was made)\n", report.Escape(s.f.Path), report.Escape(g.Refused))
			case s.what == "changed":
				bad++
				o.Changed++
				fmt.Fprintf(errw, "schedtool: %s: %s; plan again and review the new plan\n", report.Escape(s.f.Path), report.Escape(s.why))
			case s.what == "applied":
				o.Applied++ // copied as it is: it holds the result
			default:
				data, err := Patch(s.cur, s.f.Edits)
				if err != nil || Hash(data) != s.f.Result {
					return o, &Error{fmt.Sprintf("%s: the planned edits do not give the planned result", s.f.Path)}
				}
				changed = append(changed, &migrate.File{Path: s.f.Path, Old: s.cur, New: data, Edits: textEdits(s.f.Path, s.f.Edits), Tasks: s.f.Tasks, Models: s.f.Models, Zeroes: s.f.Zeroes})
			}
		}
	}
	if bad > 0 {
		fmt.Fprintf(errw, "schedtool: nothing written under %s: --out DIR writes the whole tree, and %d %s changed since the plan\n", report.Escape(opts.Out), bad, report.Plural(bad, "input", "inputs"))
		fmt.Fprintln(errw, o.line(opts.Check))
		return o, nil
	}
	if opts.Check {
		for _, f := range changed {
			o.Written++
			if !opts.Quiet {
				fmt.Fprintf(errw, "would write: %s (under %s)\n", report.Escape(f.Path), report.Escape(opts.Out))
			}
		}
		fmt.Fprintln(errw, o.line(true))
		return o, nil
	}
	sort.Slice(changed, func(i, j int) bool { return changed[i].Path < changed[j].Path })
	sum, wrote, err := migrate.WriteTree(opts.Inputs, migrate.RunOptions{Load: opts.Load, Mode: migrate.OutDir, Out: opts.Out, Quiet: opts.Quiet, Hooks: opts.Hooks}, changed, errw)
	if err != nil {
		return o, err
	}
	o.Written, o.Failed, o.Untouched, o.Interrupted = len(wrote), sum.Failed, sum.Untouched, sum.Interrupted
	if !opts.Quiet {
		sort.Strings(wrote)
		for _, w := range wrote {
			fmt.Fprintf(errw, "written: %s\n", report.Escape(w))
		}
	}
	fmt.Fprintln(errw, o.line(false))
	return o, nil
}

// writeRowsTree writes the migrated specs as a publishable tree under
// opts.Out (migrate.WriteRowsTree), and says how to publish it.
func writeRowsTree(p *Plan, rows []rowNow, opts ApplyOptions, errw io.Writer, o *Outcome, wrote *[]string) error {
	var pubs []migrate.PubRow
	for _, r := range rows {
		if r.new == nil {
			continue
		}
		end := r.row.SpecEnd + len(r.new) - len(r.cur)
		if r.row.SpecStart < 0 || r.row.SpecStart > end || end > len(r.new) {
			o.Failed++
			fmt.Fprintf(errw, "schedtool: %s:%d: not written: the plan's spec offsets do not fit the row\n", report.Escape(r.dump), r.row.Line)
			continue
		}
		pubs = append(pubs, migrate.PubRow{Dump: r.dump, Line: r.row.Line, Task: r.row.Name, Spec: r.new[r.row.SpecStart:end]})
	}
	sum, w, pub := migrate.WriteRowsTree(pubs, migrate.DumpFileMode(dumpNames(p)), migrate.RunOptions{Mode: migrate.OutTree, Out: opts.Out, Force: opts.Force, Quiet: opts.Quiet, Hooks: opts.Hooks}, errw)
	o.Written += len(pubs) - sum.Refused - sum.Failed
	o.Failed += sum.Failed + sum.Refused
	o.Interrupted = sum.Interrupted
	*wrote = append(*wrote, w...)
	o.publish = pub
	return nil
}

// dumpNames are the dumps a plan's rows come from.
func dumpNames(p *Plan) []string {
	var out []string
	for _, d := range p.Dumps {
		out = append(out, d.Name)
	}
	return out
}

// newUsers reads the plan's catalog again, as migrate read it (its PATHs,
// every source under the roots), and returns a check of a file whose
// connector the plan zeroes: the hashes say the file is as planned, but
// the files they cover are not all the plan was decided on. A task
// planned with no part in the file may have started using it since (a
// source added or edited that the plan never read), and a task whose
// model schedule the plan does not add (a stacked one) may have lost it,
// or its V2 flag, in a source the group does not edit. Zeroing the file
// would leave that task's connector off with no working model schedule,
// so the group is refused like one whose input changed
// (docs/behaviour.md §7, "Saved plans").
func newUsers(again *reread) func(g *Group, f *File) string {
	cat := again.read().cat
	switch {
	case again.args == 0:
		return func(*Group, *File) string {
			return "the plan names no catalog PATH to read again, so who uses this file cannot be checked"
		}
	case again.err != nil:
		return func(*Group, *File) string {
			return "the plan's catalog cannot be read again to check who uses this file: " + again.err.Error()
		}
	case cat == nil:
		return func(*Group, *File) string { return "" }
	}
	holders, _ := catusers.Users(again.sources, cat, again.load)
	// Only the runtime and the model schedule are asked of the one
	// decision (RuntimePaces), which no registry changes.
	reg := builtin()
	return func(g *Group, f *File) string {
		id, ok := paths.Identify(f.Path)
		if !ok {
			return ""
		}
		planned := map[string]bool{}
		for _, gf := range g.Files {
			for _, ts := range [][]string{gf.Tasks, gf.Models, gf.Zeroes} {
				for _, t := range ts {
					planned[t] = true
				}
			}
		}
		var users []string
		for _, r := range cat.Refs {
			if r.HasID && r.ID == id && !planned[r.Name] {
				users = append(users, fmt.Sprintf("%s (%s:%d)", r.Name, r.File, r.Line))
			}
		}
		for path, hs := range holders {
			if hid, ok := paths.Identify(path); ok && hid == id {
				for _, h := range hs {
					if h.Name == "" || !planned[h.Name] {
						users = append(users, h.String())
					}
				}
			}
		}
		if len(users) > 0 {
			sort.Strings(users)
			return "used since the plan by a task it does not migrate with this file: " + strings.Join(users, ", ") + "; zeroing its connector would leave that task unpaced"
		}
		// A task whose model schedule the group does not add (it had one
		// when the plan was made: a stacked task, finished by zeroing its
		// connector alone) must still be paced by the runtime: its source
		// is not among the group's files, so its hash was never checked.
		// A definition whose source the group edits, adding its model,
		// is checked by that file's hash.
		type def struct {
			name string
			src  paths.FileID
		}
		added := map[def]bool{}
		for _, gf := range g.Files {
			sid, ok := paths.Identify(gf.Path)
			for _, t := range gf.Models {
				if ok {
					added[def{t, sid}] = true
				}
			}
		}
		var lost []string
		for _, t := range f.Zeroes {
			// Its definitions whose connector config is this file (a
			// name may be defined in several catalogs under the root).
			n := 0
			for _, m := range cat.Materializations {
				if m.Name != t || !configIn(m, id) {
					continue
				}
				n++
				if sid, ok := paths.Identify(m.Source.File); ok && added[def{t, sid}] {
					continue
				}
				if st := plan.StateOf(m, reg); !st.RuntimePaces() {
					lost = append(lost, fmt.Sprintf("%s (%s: no working model syncSchedule on the V2 runtime now)", t, m.Source.File))
				}
			}
			if n == 0 {
				lost = append(lost, t+" (its config is no longer in this file)")
			}
		}
		if len(lost) > 0 {
			return "its source changed since the plan: " + strings.Join(lost, ", ") + "; zeroing its connector would leave it unpaced"
		}
		return ""
	}
}

// configIn reports whether m's connector config is in the file id: a
// config file of its own, or inline in its source.
func configIn(m *catalog.Materialization, id paths.FileID) bool {
	if m.Config == nil {
		return false
	}
	path := m.Source.File
	if m.Config.File != nil {
		path = m.Config.File.Doc.File
	}
	got, ok := paths.Identify(path)
	return ok && got == id
}
