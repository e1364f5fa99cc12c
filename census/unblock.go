package census

import (
	"fmt"
	"hash/maphash"
	"math"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/report"
)

// What unblocks what (docs/behaviour.md §8): the remaining tasks
// partitioned by the smallest set of decisions under which migrate's own
// planning migrates them, found by dry runs of migrate (Census.DryRun),
// one per set, never from statuses; what no set migrates is a person's,
// by reason. The HTML, Markdown and JSON censuses show the same list,
// Unblocks of the totals.

// Unblock kinds, in the order the list shows them: the sets of
// decisions, smallest first, then a person's.
const (
	UnblockMigrate       = "migrate"
	UnblockZeroFileSinks = "zero-file-sinks"
	UnblockRuntimeV2     = "enable-runtime-v2"
	UnblockBoth          = "zero-file-sinks+enable-runtime-v2"
	UnblockResolve       = "resolve"
	UnblockImageUpgrade  = "image-upgrade"
	UnblockPerson        = "person"
)

// DryRun runs migrate's planning (a dry run) over the census's inputs
// under a set of decisions, given as planner options that add to the
// project file's, and hands each task definition it plans to each with
// migrate's action and reason. Census takes it from its caller: migrate
// and census are on one layer, and the answer to "what would migrate do"
// is migrate's alone. want says which names the census still needs: a
// dry run may leave a stored-spec row of any other name unplanned (each
// row is planned alone), which keeps the later runs to the tasks no
// earlier one moved.
type DryRun func(set plan.Options, want func(task string) bool, each func(task string, action plan.Action, reason string)) error

// DrySet is one row of what unblocks what: its decisions as planner
// options (a set tried with each --resolve choice has two), its flags,
// and the rows whose sets have fewer decisions.
type DrySet struct {
	Kind  string
	Runs  []plan.Options
	Flags []string
	// Fewer are the indexes in DrySets of the sets that are subsets of
	// this one: a task is this row's when this set migrates it and none
	// of those does.
	Fewer []int
}

var (
	zeroSinks = plan.Options{ZeroFileSinks: true}
	runtimeV2 = plan.Options{EnableRuntimeV2: true}
	both      = plan.Options{ZeroFileSinks: true, EnableRuntimeV2: true}
)

// DrySets are the sets of decisions the dry runs are made under, in the
// order a task's row is looked for: each set after those with fewer
// decisions. --resolve and an image upgrade each come with both flags
// before them; the image upgrade is one run for every image, counted per
// image (a task's upgrade is its own image's).
var DrySets = []DrySet{
	{Kind: UnblockMigrate, Runs: []plan.Options{{}}},
	{Kind: UnblockZeroFileSinks, Runs: []plan.Options{zeroSinks}, Flags: []string{"--zero-file-sinks"}, Fewer: []int{0}},
	{Kind: UnblockRuntimeV2, Runs: []plan.Options{runtimeV2}, Flags: []string{"--enable-runtime-v2"}, Fewer: []int{0}},
	{Kind: UnblockBoth, Runs: []plan.Options{both}, Flags: []string{"--zero-file-sinks", "--enable-runtime-v2"}, Fewer: []int{0, 1, 2}},
	{Kind: UnblockResolve, Runs: []plan.Options{withResolve("model"), withResolve("connector")},
		Flags: []string{"--zero-file-sinks", "--enable-runtime-v2", "--resolve=model|connector"}, Fewer: []int{0, 1, 2, 3}},
	{Kind: UnblockImageUpgrade, Runs: []plan.Options{{ZeroFileSinks: true, EnableRuntimeV2: true, UpgradeImages: true}},
		Flags: []string{"--zero-file-sinks", "--enable-runtime-v2"}, Fewer: []int{0, 1, 2, 3}},
}

func withResolve(r string) plan.Options { o := both; o.Resolve = r; return o }

// reasonRun is the run whose reasons a person's tasks are listed by:
// every decision taken (--resolve=model), so that the reason is what no
// flag fixes (the connector's own error for an invalid config, not "a V1
// task").
var reasonRun = [2]int{4, 0}

// Unblock is one set of decisions, or a person's reason, and the
// remaining tasks it moves.
type Unblock struct {
	Kind string `json:"kind"`
	// Action says what is decided or done; Command is how (empty for a
	// person's review); Flags are migrate's flags of the row's set.
	Action  string   `json:"action"`
	Command string   `json:"command,omitempty"`
	Flags   []string `json:"flags,omitempty"`
	// Image is the image to upgrade and Tag the tag to upgrade it to
	// (image-upgrade); Reason why a person must look (person).
	Image  string `json:"image,omitempty"`
	Tag    string `json:"tag,omitempty"`
	Reason string `json:"reason,omitempty"`
	Tasks  int    `json:"tasks"`
}

// unblocks counts remaining tasks per unblock kind, image (image-upgrade)
// and reason (person); it grows with those, not with rows.
type unblocks struct {
	byKind   map[string]int
	byImage  map[string]int
	byReason map[string]int
	tags     map[string]string // image -> the tag an upgrade moves it to
}

func newUnblocks() *unblocks {
	return &unblocks{byKind: map[string]int{}, byImage: map[string]int{}, byReason: map[string]int{}, tags: map[string]string{}}
}

func (u *unblocks) add(kind, image, reason string) {
	switch kind {
	case UnblockImageUpgrade:
		if _, ok := u.byImage[image]; !ok && len(u.byImage) >= maxReasons {
			u.byKind[kind]++
			return
		}
		u.byImage[image]++
	case UnblockPerson:
		if _, ok := u.byReason[reason]; !ok && len(u.byReason) >= maxReasons {
			reason = otherReasons
		}
		u.byReason[reason]++
	default:
		u.byKind[kind]++
	}
}

// remainingSet is the census's remaining tasks by the hash of their
// name, each with its image (an index into images): 12 bytes or so a
// task, whatever its name, for the dry runs to be matched against.
type remainingSet struct {
	seed   maphash.Seed
	names  map[uint64]int32
	images []string
	index  map[string]int32
}

func newRemainingSet() *remainingSet {
	return &remainingSet{seed: maphash.MakeSeed(), names: map[uint64]int32{}, index: map[string]int32{}}
}

func (s *remainingSet) hash(name string) uint64 { return maphash.String(s.seed, name) }

func (s *remainingSet) add(r *Row) {
	i, ok := s.index[r.Image]
	if !ok {
		i = int32(len(s.images))
		s.images = append(s.images, strings.Clone(r.Image))
		s.index[s.images[i]] = i
	}
	s.names[s.hash(r.Task)] = i
}

// partition runs the dry runs and puts each remaining task in the row of
// the first set that migrates it (every definition of its name migrated,
// or no longer paced by its connector), the rest in a person's rows by
// their reason in reasonRun. The rows add up to the remaining tasks.
func (c *Census) partition(rem *remainingSet) (*unblocks, error) {
	u := newUnblocks()
	if len(rem.names) == 0 {
		return u, nil
	}
	moved := make(map[uint64]bool, len(rem.names))
	reasons := map[uint64]string{}
	intern := map[string]string{}
	for si, set := range DrySets {
		for ri, opts := range set.Runs {
			moves := map[uint64]bool{} // false once a definition does not migrate
			keep := reasonRun == [2]int{si, ri}
			// Read only during the run (rows are planned in parallel):
			// moved changes after it.
			want := func(task string) bool {
				h := rem.hash(task)
				_, ok := rem.names[h]
				return ok && !moved[h]
			}
			err := c.DryRun(opts, want, func(task string, a plan.Action, reason string) {
				h := rem.hash(task)
				if _, ok := rem.names[h]; !ok || moved[h] {
					return
				}
				ok := a == plan.Migrate || a == plan.None
				if prev, seen := moves[h]; seen {
					ok = ok && prev
				}
				moves[h] = ok
				if keep && !ok && reasons[h] == "" {
					r, seen := intern[reason]
					if !seen && len(intern) < maxReasons {
						r = strings.Clone(reason)
						intern[r] = r
					} else if !seen {
						r = otherReasons
					}
					reasons[h] = r
				}
			})
			if err != nil {
				return nil, err
			}
			for h, ok := range moves {
				if ok {
					moved[h] = true
					img := rem.images[rem.names[h]]
					u.add(set.Kind, img, "")
					if set.Kind == UnblockImageUpgrade {
						if e, _, found := c.Planner.Registry.Lookup(img); found {
							u.tags[img] = e.NewestTag()
						}
					}
				}
			}
		}
	}
	for h, img := range rem.names {
		if moved[h] {
			continue
		}
		reason := reasons[h]
		if reason == "" {
			reason = "no set of migrate's decisions migrates it"
		}
		u.add(UnblockPerson, rem.images[img], reason)
	}
	return u, nil
}

// Unblocks lists, for the remaining tasks of a census, each set of
// decisions with the tasks it moves, in DrySets' order, then a person's
// reasons (images and reasons by most tasks first, the first maxListed
// of each, the rest in one entry); only those that move a task. The
// tasks add up to t.Remaining. nil when the census made no dry runs.
func Unblocks(t *Totals) []Unblock {
	u := t.unblocks
	if u == nil {
		return nil
	}
	var out []Unblock
	for _, set := range DrySets {
		k := set.Kind
		flags := strings.Join(set.Flags, " ")
		if flags != "" {
			flags += " "
		}
		if k == UnblockImageUpgrade {
			rest := u.byKind[k]
			for i, img := range byCount(u.byImage) {
				if i >= maxListed {
					rest += u.byImage[img]
					continue
				}
				tag := u.tags[img]
				out = append(out, Unblock{Kind: k, Image: img, Tag: tag, Tasks: u.byImage[img], Flags: set.Flags,
					Action:  "upgrade " + img + " to " + tag + " or later",
					Command: "change the image tag to " + tag + ", then schedtool migrate " + flags + "--write"})
			}
			if rest > 0 {
				out = append(out, Unblock{Kind: k, Tasks: rest, Flags: set.Flags, Action: "upgrade other images", Command: "change the image tag, then schedtool migrate " + flags + "--write"})
			}
			continue
		}
		n := u.byKind[k]
		if n == 0 {
			continue
		}
		a := Unblock{Kind: k, Tasks: n, Flags: set.Flags, Command: "schedtool migrate " + flags + "--write"}
		switch k {
		case UnblockMigrate:
			a.Action = "nothing to decide: migrate as it is"
		case UnblockZeroFileSinks:
			a.Action = "decide to set file sinks' interval to 0s (sealed configs, stored specs)"
		case UnblockRuntimeV2:
			a.Action = "decide to move V1 tasks to the V2 runtime"
		case UnblockBoth:
			a.Action = "both decisions: V1 file sinks, or tasks sharing a config file across the two"
		case UnblockResolve:
			a.Action = "choose which schedule stays (with both decisions above)"
			a.Command = "schedtool migrate --zero-file-sinks --enable-runtime-v2 --resolve=model --write (or --resolve=connector)"
		}
		out = append(out, a)
	}
	rest, others := 0, 0
	for i, r := range byCount(u.byReason) {
		if i >= maxListed {
			rest += u.byReason[r]
			others++
			continue
		}
		reason := mdCut(r) // in full in migrate's and explain's output
		out = append(out, Unblock{Kind: UnblockPerson, Reason: reason, Tasks: u.byReason[r], Action: "a person decides"})
	}
	if rest > 0 {
		out = append(out, Unblock{Kind: UnblockPerson, Tasks: rest, Action: "a person decides", Reason: fmt.Sprintf("%d other reasons", others)})
	}
	return out
}

// Says is the row as the page's table says it: its action, and a
// person's reason.
func (u *Unblock) Says() string {
	if u.Reason != "" {
		return u.Action + ": " + u.Reason
	}
	return u.Action
}

// byCount sorts a group's keys by count, most first, then by name.
func byCount(m map[string]int) []string {
	keys := Keys(m)
	sort.SliceStable(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] })
	return keys
}

// Verdict is the removal gate in one sentence: it passes when no task
// remains and no input is unreadable (docs/behaviour.md §8).
func Verdict(t *Totals) string {
	if GatePasses(t) {
		return "The removal gate passes: no task relies on connector-side pacing, and every input was read."
	}
	var why []string
	if t.AllExcluded() && t.Remaining == 0 && t.Unreadable == 0 {
		return "The removal gate fails, because the project file excluded every task of the inputs: a census of nothing is not a pass."
	}
	if t.Remaining > 0 {
		why = append(why, fmt.Sprintf("%d %s still %s on connector-side pacing", t.Remaining, report.Plural(t.Remaining, "task", "tasks"), report.Plural(t.Remaining, "relies", "rely")))
	}
	if t.Unreadable > 0 {
		why = append(why, fmt.Sprintf("%d %s unreadable", t.Unreadable, report.Plural(t.Unreadable, "input is", "inputs are")))
	}
	return "The removal gate fails, because " + strings.Join(why, " and ") + "."
}

// GatePasses is census --fail-if-remaining's verdict: nothing remains,
// every input was read, and the project file did not exclude every task
// (a census of nothing fails, docs/behaviour.md §13).
func GatePasses(t *Totals) bool { return t.Remaining == 0 && t.Unreadable == 0 && !t.AllExcluded() }

// points is the burndown: the history, then this census, in time order;
// a history point taken at the same instant as another (the census
// itself given as its own --history) is one point, the later given.
func points(history []Snapshot, t *Totals, now time.Time) []Snapshot {
	if history == nil {
		return nil
	}
	all := append(append([]Snapshot(nil), history...), SnapshotOf(t, now))
	if now.IsZero() {
		all[len(all)-1].At = all[len(all)-2].At
	}
	var out []Snapshot
	for _, p := range all {
		if n := len(out); n > 0 && out[n-1].At.Equal(p.At) {
			out[n-1] = p
			continue
		}
		out = append(out, p)
	}
	return out
}

// projectionWindow is how far back the pace is measured.
const projectionWindow = 28 * 24 * time.Hour

func perWeek(v float64) string {
	if v >= 10 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// spanWords is a span as people say it: "3 weeks", "1 week", "5 days".
func spanWords(d time.Duration) string {
	if d >= 100*365*24*time.Hour {
		return "century or more"
	}
	days := d.Hours() / 24
	if w := days / 7; w >= 1 && math.Abs(w-math.Round(w)) < 0.15 {
		n := int(math.Round(w))
		return fmt.Sprintf("%d %s", n, report.Plural(n, "week", "weeks"))
	}
	if days >= 1 {
		n := int(math.Round(days))
		return fmt.Sprintf("%d %s", n, report.Plural(n, "day", "days"))
	}
	n := max(1, int(math.Round(d.Hours())))
	return fmt.Sprintf("%d %s", n, report.Plural(n, "hour", "hours"))
}

// unreadableGroup is the unreadable inputs listed with one reason: their
// message with the paths and names in it left out.
type unreadableGroup struct {
	Reason  string
	Where   []string // file:line:col, in full
	Message []string // what each one's message names beyond the reason ("" when nothing)
}

// pathLike is a word naming a file or a task (it holds a slash), with
// what follows it up to a space or a comma; pathRun is several of them.
var (
	pathLike = regexp.MustCompile(`[^\s,()]*/[^\s,()]*`)
	pathRun  = regexp.MustCompile(`…(,? (and )?…)+`)
)

// unreadableReason is a message without the paths and names in it: the
// messages of one problem in several places group together.
func unreadableReason(msg string) string {
	r := pathLike.ReplaceAllString(msg, "…")
	return pathRun.ReplaceAllString(r, "…")
}

// groupUnreadable groups the listed unreadable inputs by reason, the
// largest group first.
func groupUnreadable(bad []Unreadable) []unreadableGroup {
	idx := map[string]int{}
	var out []unreadableGroup
	for _, u := range bad {
		reason := unreadableReason(u.Message)
		i, ok := idx[reason]
		if !ok {
			i = len(out)
			idx[reason] = i
			out = append(out, unreadableGroup{Reason: reason})
		}
		own := strings.Join(pathLike.FindAllString(u.Message, -1), ", ")
		out[i].Where = append(out[i].Where, fmt.Sprintf("%s:%d:%d", u.File, u.Line, u.Column))
		out[i].Message = append(out[i].Message, own)
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].Where) > len(out[j].Where) })
	return out
}
