package census

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/report"
)

// What unblocks what (docs/behaviour.md §8): each remaining task is moved
// by one decision or action, taken from its row's status and reason only
// (so that it follows however statuses are decided). The HTML, Markdown
// and JSON censuses show the same list, Unblocks of the totals.

// Unblock kinds, in the order the list shows them.
const (
	UnblockRuntimeV2     = "enable-runtime-v2"
	UnblockMigrate       = "migrate"
	UnblockZeroFileSinks = "zero-file-sinks"
	UnblockFileSinkSeal  = "file-sink-deferral"
	UnblockResolve       = "resolve"
	UnblockImageUpgrade  = "image-upgrade"
	UnblockPerson        = "person"
)

var unblockOrder = []string{UnblockRuntimeV2, UnblockMigrate, UnblockZeroFileSinks, UnblockFileSinkSeal, UnblockResolve, UnblockImageUpgrade, UnblockPerson}

// Unblock is one decision or action and the remaining tasks it moves.
type Unblock struct {
	Kind string `json:"kind"`
	// Action says what is decided or done; Command is how (empty for a
	// person's review).
	Action  string `json:"action"`
	Command string `json:"command,omitempty"`
	// Image is the image to upgrade (image-upgrade); Reason why a person
	// must look (person).
	Image  string `json:"image,omitempty"`
	Reason string `json:"reason,omitempty"`
	Tasks  int    `json:"tasks"`
}

// UnblockKind says which decision or action moves a remaining task, from
// its status and reason; "" for a task that does not remain.
func UnblockKind(r *Row) string {
	if !r.Remaining() {
		return ""
	}
	switch r.Status {
	case string(plan.StatusBlockedV1):
		return UnblockRuntimeV2
	case string(plan.StatusConflict):
		return UnblockResolve
	case string(plan.StatusReady):
		return UnblockMigrate
	case ReadyNeedsFlag:
		return UnblockZeroFileSinks
	case string(plan.StatusStacked):
		switch {
		case isPlaintextFileSinkReason(r.Reason):
			return UnblockFileSinkSeal
		case isFileSinkReason(r.Reason):
			return UnblockZeroFileSinks
		}
		return UnblockMigrate
	}
	switch {
	case isUpgradeReason(r.Reason):
		return UnblockImageUpgrade
	case isFileSinkReason(r.Reason):
		return UnblockFileSinkSeal
	}
	return UnblockPerson
}

// isFileSinkReason reports whether a reason is a file sink's: its
// interval can be turned off only outside its published values.
func isFileSinkReason(reason string) bool {
	return strings.Contains(reason, "file sink") || strings.Contains(reason, "file-sink")
}

// isPlaintextFileSinkReason reports whether a reason is a plaintext file
// sink's: its zero is off its published values, so it is sealed, or
// moved to an image with the deferral, first.
func isPlaintextFileSinkReason(reason string) bool {
	return isFileSinkReason(reason) && strings.Contains(reason, "plaintext")
}

// isUpgradeReason reports whether a reason asks for a newer image tag.
func isUpgradeReason(reason string) bool {
	return strings.Contains(reason, "upgrade the image") || strings.Contains(reason, "image upgrade")
}

// unblocks counts remaining tasks per unblock kind, image (image-upgrade)
// and reason (person); it grows with those, not with rows.
type unblocks struct {
	byKind   map[string]int
	byImage  map[string]int
	byReason map[string]int
}

func newUnblocks() *unblocks {
	return &unblocks{byKind: map[string]int{}, byImage: map[string]int{}, byReason: map[string]int{}}
}

func (u *unblocks) addN(r *Row, n int) {
	k := UnblockKind(r)
	if k == "" {
		return
	}
	switch k {
	case UnblockImageUpgrade:
		if _, ok := u.byImage[r.Image]; !ok && len(u.byImage) >= maxReasons {
			u.byKind[k] += n
			return
		}
		u.byImage[strings.Clone(r.Image)] += n
	case UnblockPerson:
		reason := r.Reason
		if reason == "" {
			reason = r.Status
		}
		if _, ok := u.byReason[reason]; !ok && len(u.byReason) >= maxReasons {
			reason = otherReasons
		}
		u.byReason[strings.Clone(reason)] += n
	default:
		u.byKind[k] += n
	}
}

// Unblocks lists, for the remaining tasks of a census, each decision or
// action with the tasks it moves, in unblockOrder (images and reasons by
// most tasks first, the first maxListed of each, the rest in one entry);
// only those that move a task. The tasks add up to t.Remaining.
func Unblocks(t *Totals) []Unblock {
	u := t.unblocks
	if u == nil {
		return nil
	}
	var out []Unblock
	for _, k := range unblockOrder {
		switch k {
		case UnblockImageUpgrade:
			rest := u.byKind[k]
			for i, img := range byCount(u.byImage) {
				if i >= maxListed {
					rest += u.byImage[img]
					continue
				}
				out = append(out, Unblock{Kind: k, Image: img, Tasks: u.byImage[img],
					Action:  "upgrade " + img + " to a tag that takes syncSchedule",
					Command: "change the image tag, then schedtool migrate --write"})
			}
			if rest > 0 {
				out = append(out, Unblock{Kind: k, Tasks: rest, Action: "upgrade other images", Command: "change the image tag, then schedtool migrate --write"})
			}
			continue
		case UnblockPerson:
			rest, others := 0, 0
			for i, r := range byCount(u.byReason) {
				if i >= maxListed {
					rest += u.byReason[r]
					others++
					continue
				}
				out = append(out, Unblock{Kind: k, Reason: r, Tasks: u.byReason[r], Action: "a person decides: " + r})
			}
			if rest > 0 {
				out = append(out, Unblock{Kind: k, Reason: otherReasons, Tasks: rest, Action: fmt.Sprintf("a person decides: %d other reasons", others)})
			}
			continue
		}
		n := u.byKind[k]
		if n == 0 {
			continue
		}
		a := Unblock{Kind: k, Tasks: n}
		switch k {
		case UnblockRuntimeV2:
			a.Action, a.Command = "move V1 tasks to the V2 runtime", "schedtool migrate --enable-runtime-v2 --write"
		case UnblockMigrate:
			a.Action, a.Command = "migrate: nothing left to decide (ready, stacked)", "schedtool migrate --write"
		case UnblockZeroFileSinks:
			a.Action, a.Command = "set file sinks' interval to 0s (sealed configs, stored specs)", "schedtool migrate --zero-file-sinks --write"
		case UnblockFileSinkSeal:
			a.Action, a.Command = "plaintext file sinks: seal the config, or move to an image with the deferral", "seal with sops, then schedtool migrate --zero-file-sinks --write; or change the image tag, then schedtool migrate --write"
		case UnblockResolve:
			a.Action, a.Command = "choose which schedule stays", "schedtool migrate --resolve=model --write (or --resolve=connector)"
		}
		out = append(out, a)
	}
	return out
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

// Projection says when the remaining count reaches zero at the pace of
// the recent censuses (those of the last four weeks, at least the last
// two), or that it has stalled; "" with fewer than two points in time.
func Projection(pts []Snapshot) string {
	if len(pts) < 2 {
		return ""
	}
	last := pts[len(pts)-1]
	if last.Remaining == 0 {
		return "No task remains."
	}
	first := pts[len(pts)-2]
	for i := len(pts) - 2; i >= 0; i-- {
		if last.At.Sub(pts[i].At) > projectionWindow {
			break
		}
		first = pts[i]
	}
	// In seconds, not a Duration: one saturates at 292 years, and a
	// history file may say any instant.
	secs := float64(last.At.Unix()-first.At.Unix()) + float64(last.At.Nanosecond()-first.At.Nanosecond())/1e9
	if secs <= 0 {
		return ""
	}
	over := spanWords(time.Duration(min(secs, float64(math.MaxInt64/int64(time.Second))) * float64(time.Second)))
	fell := first.Remaining - last.Remaining
	if fell <= 0 {
		return fmt.Sprintf("Stalled: the remaining count has not fallen over the last %s (%d then, %d now).", over, first.Remaining, last.Remaining)
	}
	perDay := float64(fell) / secs * 86400
	days := float64(last.Remaining) / perDay
	if days > 100*365 {
		return fmt.Sprintf("At the pace of the last %s (%d fewer), zero is more than a century away.", over, fell)
	}
	at := last.At.Add(time.Duration(days * 24 * float64(time.Hour)))
	return fmt.Sprintf("At the pace of the last %s (%s fewer per week), zero around %s.", over, perWeek(perDay*7), at.UTC().Format("2006-01-02"))
}

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
