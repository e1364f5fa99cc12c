package migrate

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/jitter"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/schedule/connector"
	"github.com/estuary/schedtool/schedule/model"
	"github.com/estuary/schedtool/verify"
)

// behaviour lists what changes for a task beyond the schedule text
// (docs/behaviour.md §7, Report).
func behaviour(d plan.Decision, m *catalog.Materialization) []string {
	var out []string
	if d.Model == nil {
		if d.Situation == plan.Default {
			out = append(out, "commits are no longer paced: the connector's 30m default delay is dropped (--absent=drop)")
		}
		return out
	}
	tenant := jitter.Tenant(m.Name)
	if d.Entry != nil && len(d.Entry.Seed) > 0 {
		parts := make([]string, len(d.Entry.Seed))
		for i, s := range d.Entry.Seed {
			parts[i] = s.Pointer
		}
		out = append(out, fmt.Sprintf("jitter: the connector offset its commit grid by a hash of the destination (%s), which keeps the tasks on one warehouse in step; the runtime offsets it by a hash of the tenant (%s)", strings.Join(parts, " + "), tenant))
	} else {
		out = append(out, fmt.Sprintf("jitter: the connector's commit grid had no offset; the runtime offsets it by a hash of the tenant (%s)", tenant))
	}
	out = append(out, "backfills: the connector did not delay until it had seen 5 transactions that stored documents, nor while any of the last 5 stored 1,000,000 documents or more; the runtime paces every transaction")
	if s := d.Result.Schedule; s != nil && s.Alternating && s.Spec.Timezone == "Local" {
		out = append(out, "timezone: "+plan.LocalNote)
	}
	if d.ReplaceModel {
		out = append(out, "the materialization's previous syncSchedule is replaced by the connector's schedule (--resolve=connector)")
	}
	if len(d.Crashes) > 0 {
		out = append(out, crashNote(d))
	}
	if s := d.Result.Schedule; d.Result.Kind == connector.KindAlternating && s != nil && quirkApplies(s) {
		out = append(out, "utc-midnight quirk: the connector found this overnight window's days at UTC midnight, so after a disabled day it skipped the window's after-midnight part; the runtime keeps that part (see --verify)")
	}
	return out
}

// crashNote says that the connector's schedule crashes it and that the
// migration removes the crash.
func crashNote(d plan.Decision) string {
	n := ""
	if len(d.Crashes) > 1 {
		n = fmt.Sprintf(" (and %d more ranges in the next 366 days)", len(d.Crashes)-1)
	}
	return fmt.Sprintf("connector crash: the connector panics (its search for the next fast-window start gives up after 7 days) when its last acknowledgement is %s%s, and the task crash-loops until the clock is past that range; the runtime's schedule has no such limit, so the migration removes the crash", d.Crashes[0].Describe(d.Result.Schedule.Location), n)
}

// quirkApplies reports whether an alternating schedule can meet the
// connector's UTC-midnight quirk: an overnight window on some days only,
// in a zone that is not UTC.
func quirkApplies(s *connector.Parsed) bool {
	if s.Start <= s.Stop || s.Location == nil {
		return false
	}
	all := true
	for _, on := range s.Days {
		all = all && on
	}
	if all {
		return false
	}
	_, off1 := time.Date(2026, 1, 15, 12, 0, 0, 0, s.Location).Zone()
	_, off2 := time.Date(2026, 7, 15, 12, 0, 0, 0, s.Location).Zone()
	return off1 != 0 || off2 != 0
}

// Verified is the equivalence check of one migrated task.
type Verified struct {
	Minutes    int            `json:"minutes"`
	Mismatches int            `json:"mismatches"`
	ByCause    map[string]int `json:"byCause,omitempty"`
	MaxDiff    string         `json:"maxDiff"`
	MaxAt      string         `json:"maxAt,omitempty"`
	Equivalent bool           `json:"equivalent"`
	maxDiff    time.Duration
}

type verifyCache struct{ m sync.Map }

// verify compares the legacy schedule (jitter 0) with the model one
// (seed 0); results are shared by tasks with the same two schedules.
func (mg *Migrator) verify(d plan.Decision) *Verified {
	if d.Model == nil {
		return nil
	}
	legacy := d.Result.Schedule
	switch d.Result.Kind {
	case connector.KindFileInterval, connector.KindUpdateDelay:
		legacy = &connector.Parsed{Frequency: d.Result.Interval}
	}
	if legacy == nil {
		return nil
	}
	key := fmt.Sprintf("%d %v %v %d %d %v|%s", mg.VerifyYear, legacy.Alternating, legacy.Frequency, legacy.Start, legacy.Stop, legacy.Days, d.Model.String())
	if legacy.Location != nil {
		key += "|" + legacy.Location.String()
	}
	if v, ok := mg.verified.m.Load(key); ok {
		return v.(*Verified)
	}
	s, err := model.Decode(d.Model.Value())
	if err != nil {
		return nil
	}
	loc := time.UTC
	if legacy.Location != nil {
		loc = legacy.Location
	}
	year := mg.VerifyYear
	if year == 0 {
		year = time.Now().Year()
	}
	spans := verify.Horizon(loc, year)
	if legacy.Alternating {
		spans = verify.Merge(append(spans, verify.CrashSpans(legacy, year)...))
	}
	rep := verify.Compare(legacy, s, spans)
	v := &Verified{Minutes: rep.Minutes, Mismatches: rep.Mismatches, MaxDiff: model.FormatDuration(rep.MaxDiff), Equivalent: rep.Equivalent(), maxDiff: rep.MaxDiff}
	if len(rep.ByCause) > 0 {
		v.ByCause = rep.ByCause
	}
	if rep.MaxDiff > 0 {
		v.MaxAt = rep.MaxAt.UTC().Format(time.RFC3339)
	}
	mg.verified.m.Store(key, v)
	return v
}
