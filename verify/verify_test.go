package verify

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/schedule/connector"
	"github.com/estuary/schedtool/schedule/model"
)

func mapped(t *testing.T, spec connector.SyncScheduleSpec) (*connector.Parsed, *model.Schedule) {
	t.Helper()
	p, prob := connector.ParseSyncSchedule(spec)
	if prob != nil {
		t.Fatalf("%+v: %s", spec, prob.Msg)
	}
	ms := &model.Spec{BaseInterval: model.FormatDuration(p.Frequency)}
	if p.Alternating {
		ms = plan.AlternatingModel(p)
	}
	s, err := model.Decode(ms.Value())
	if err == nil {
		err = s.Validate()
	}
	if err != nil {
		t.Fatalf("%s: %v", ms, err)
	}
	return p, s
}

// horizon14 is 14 days around loc's first DST transition of 2026 (or 14
// days of January without one).
func horizon14(loc *time.Location) []Span {
	trs := Transitions(loc, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC))
	if len(trs) == 0 {
		from := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
		return []Span{{from, from.AddDate(0, 0, 14)}}
	}
	return []Span{{trs[0].AddDate(0, 0, -7), trs[0].AddDate(0, 0, 7)}}
}

var enum = []string{"0s", "30s", "5m", "15m", "30m", "1h", "2h", "4h"}
var zones = []string{"UTC", "America/New_York", "Europe/Berlin", "Australia/Lord_Howe", "Asia/Kolkata", "America/Sao_Paulo", "Pacific/Chatham", "Antarctica/Troll", "+05:30", "-08:00"}

func randomDays(r *rand.Rand) string {
	if r.IntN(3) == 0 {
		return ""
	}
	var parts []string
	for d := 0; d < 7; d++ {
		if r.IntN(2) == 0 {
			parts = append(parts, connector.DayTokens[d])
		}
	}
	if len(parts) == 0 {
		return "M"
	}
	return strings.Join(parts, ",")
}

func clock(r *rand.Rand) string { return fmt.Sprintf("%02d:%02d", r.IntN(24), 15*r.IntN(4)) }

// The docs/behaviour.md §7 mapping, evaluated by the model evaluator, agrees with
// the legacy evaluator at every minute of 14 days that span a DST
// transition, but where a named cause applies.
func TestMappingAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	n := 24
	if testing.Short() {
		n = 6
	}
	for i := 0; i < n; i++ {
		spec := connector.SyncScheduleSpec{SyncFrequency: enum[1+r.IntN(len(enum)-1)]}
		if i%4 != 0 { // three in four alternating
			start, stop := clock(r), clock(r)
			for stop == start {
				stop = clock(r)
			}
			spec = connector.SyncScheduleSpec{SyncFrequency: enum[r.IntN(len(enum))], Timezone: zones[r.IntN(len(zones))],
				FastSyncStartTime: start, FastSyncStopTime: stop, FastSyncEnabledDays: randomDays(r)}
		}
		t.Run(fmt.Sprintf("%02d %s %s-%s %s %s", i, spec.SyncFrequency, spec.FastSyncStartTime, spec.FastSyncStopTime, spec.FastSyncEnabledDays, spec.Timezone), func(t *testing.T) {
			legacy, m := mapped(t, spec)
			loc := time.UTC
			if legacy.Location != nil {
				loc = legacy.Location
			}
			rep := Compare(legacy, m, horizon14(loc))
			if rep.Minutes != 14*24*60 {
				t.Fatalf("%d minutes compared", rep.Minutes)
			}
			if !rep.Equivalent() {
				t.Errorf("unexplained differences: %+v", rep)
			}
			if _, _, fixed := strings.Cut(spec.Timezone, ":"); (spec.Timezone == "" || spec.Timezone == "UTC" || fixed) && rep.Mismatches > 0 && rep.ByCause[DSTBoundary] > 0 {
				t.Errorf("a DST cause without DST: %+v", rep)
			}
			if spec.Timezone == "" || spec.Timezone == "UTC" {
				if rep.Mismatches != 0 {
					t.Errorf("differences in UTC, where there is no quirk: %+v", rep)
				}
			}
		})
	}
}

// The quirk is found and named where docs/behaviour.md §4.3 says it bites: an
// overnight window in a non-UTC zone on a day after a disabled day.
func TestQuirkIsNamed(t *testing.T) {
	legacy, m := mapped(t, connector.SyncScheduleSpec{SyncFrequency: "5m", Timezone: "America/New_York",
		FastSyncStartTime: "22:00", FastSyncStopTime: "06:00", FastSyncEnabledDays: "T"})
	rep := Compare(legacy, m, []Span{{time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 12, 0, 0, 0, 0, time.UTC)}})
	if rep.ByCause[QuirkUTCMidnight] == 0 || !rep.Equivalent() {
		t.Fatalf("%+v", rep)
	}
	first := rep.First[0]
	if first.Cause != QuirkUTCMidnight || !first.Model.Equal(time.Date(2026, 1, 6, 5, 0, 0, 0, time.UTC)) {
		t.Errorf("first quirk: %+v (want the model at Tue 00:00 EST, 05:00Z)", first)
	}
	// The same window in UTC has no quirk.
	legacy, m = mapped(t, connector.SyncScheduleSpec{SyncFrequency: "5m", Timezone: "UTC",
		FastSyncStartTime: "22:00", FastSyncStopTime: "06:00", FastSyncEnabledDays: "T"})
	if rep := Compare(legacy, m, []Span{{time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 12, 0, 0, 0, 0, time.UTC)}}); rep.Mismatches != 0 {
		t.Errorf("UTC: %+v", rep)
	}
}

func TestTransitions(t *testing.T) {
	ny, _ := time.LoadLocation("America/New_York")
	trs := Transitions(ny, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC))
	want := []time.Time{time.Date(2026, 3, 8, 7, 0, 0, 0, time.UTC), time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC)}
	if len(trs) != 2 || !trs[0].Equal(want[0]) || !trs[1].Equal(want[1]) {
		t.Errorf("NY transitions %v", trs)
	}
}

// The minutes at which the connector panics are their own cause, and the
// crash spans put them in the horizon: docs/behaviour.md §10's Monday-only schedule
// panics for the 60 minutes 13:01Z..14:00Z of 2026-10-26.
func TestConnectorCrashCause(t *testing.T) {
	p, s := mapped(t, connector.SyncScheduleSpec{SyncFrequency: "15m", Timezone: "America/New_York", FastSyncStartTime: "09:00", FastSyncStopTime: "17:00", FastSyncEnabledDays: "M"})
	crash := CrashSpans(p, 2026)
	if len(crash) != 1 {
		t.Fatalf("crash spans %v", crash)
	}
	spans := Merge(append(Horizon(p.Location, 2026), crash...))
	rep := Compare(p, s, spans)
	if rep.ByCause[ConnectorCrash] != 60 || !rep.Equivalent() {
		t.Errorf("by cause %v, equivalent %v", rep.ByCause, rep.Equivalent())
	}
	var first *Mismatch
	for i := range rep.First {
		if rep.First[i].Cause == ConnectorCrash {
			first = &rep.First[i]
		}
	}
	if first == nil || !first.At.Equal(time.Date(2026, 10, 26, 13, 1, 0, 0, time.UTC)) {
		t.Errorf("first crash minute %+v", first)
	}
	// Merge joins overlapping and touching spans and keeps the rest.
	a := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	h := func(n int) time.Time { return a.Add(time.Duration(n) * time.Hour) }
	got := Merge([]Span{{h(5), h(6)}, {h(0), h(2)}, {h(1), h(3)}, {h(3), h(4)}})
	if want := []Span{{h(0), h(4)}, {h(5), h(6)}}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Merge: %v, want %v", got, want)
	}
}
