package connector

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// docs/behaviour.md §10 and hand-checked cases: the ranges of last
// acknowledgements for which the connector panics.
func TestCrashes(t *testing.T) {
	ny := func(days, start, stop string) SyncScheduleSpec {
		return SyncScheduleSpec{SyncFrequency: "15m", Timezone: "America/New_York", FastSyncStartTime: start, FastSyncStopTime: stop, FastSyncEnabledDays: days}
	}
	for _, tc := range []struct {
		name string
		spec SyncScheduleSpec
		from string
		want []string // ranges as "start end" (end exclusive), RFC 3339
	}{
		{"docs/behaviour.md §10: Monday only, the week before the autumn change", ny("M", "09:00", "17:00"), "2026-01-01T00:00:00Z",
			[]string{"2026-10-26T13:00:00.000000001Z 2026-10-26T14:00:00.000000001Z"}},
		{"Saturday only: the day before the change", ny("S", "09:00", "17:00"), "2026-01-01T00:00:00Z",
			[]string{"2026-10-31T13:00:00.000000001Z 2026-10-31T14:00:00.000000001Z"}},
		{"docs/behaviour.md §10: Monday to Friday never panics", ny("M-F", "09:00", "17:00"), "2026-01-01T00:00:00Z", nil},
		{"every day never panics", ny("", "09:00", "17:00"), "2026-01-01T00:00:00Z", nil},
		{"a range already begun at from is cut there", ny("M", "09:00", "17:00"), "2026-10-26T13:30:00Z",
			[]string{"2026-10-26T13:30:00Z 2026-10-26T14:00:00.000000001Z"}},
		{"no DST: Tokyo, Monday only", SyncScheduleSpec{SyncFrequency: "15m", Timezone: "Asia/Tokyo", FastSyncStartTime: "09:00", FastSyncStopTime: "17:00", FastSyncEnabledDays: "M"}, "2026-01-01T00:00:00Z", nil},
		{"no DST: an offset, Sunday only", SyncScheduleSpec{SyncFrequency: "15m", Timezone: "+05:30", FastSyncStartTime: "23:00", FastSyncStopTime: "01:00", FastSyncEnabledDays: "Su"}, "2026-01-01T00:00:00Z", nil},
		{"Local is UTC: never", SyncScheduleSpec{SyncFrequency: "15m", Timezone: "Local", FastSyncStartTime: "09:00", FastSyncStopTime: "17:00", FastSyncEnabledDays: "W"}, "2026-01-01T00:00:00Z", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, r := range Crashes(parsed(t, tc.spec), at(tc.from), CrashHorizon) {
				got = append(got, r.Start.UTC().Format(time.RFC3339Nano)+" "+r.End.UTC().Format(time.RFC3339Nano))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// docs/behaviour.md §10: at the last ack 2026-10-26T13:30:00Z the Monday-only
// schedule panics; Monday to Friday acks at 13:45Z.
func TestPanicsVector(t *testing.T) {
	mon := &Evaluator{Schedule: parsed(t, SyncScheduleSpec{SyncFrequency: "15m", Timezone: "America/New_York", FastSyncStartTime: "09:00", FastSyncStopTime: "17:00", FastSyncEnabledDays: "M"})}
	week := &Evaluator{Schedule: parsed(t, SyncScheduleSpec{SyncFrequency: "15m", Timezone: "America/New_York", FastSyncStartTime: "09:00", FastSyncStopTime: "17:00", FastSyncEnabledDays: "M-F"})}
	ack := at("2026-10-26T13:30:00Z")
	if !mon.Panics(ack) {
		t.Error("Monday only: no panic at 13:30Z")
	}
	if week.Panics(ack) {
		t.Error("Monday to Friday panics")
	}
	if got := week.Next(ack); !got.Equal(at("2026-10-26T13:45:00Z")) {
		t.Errorf("Monday to Friday: next %s, want 13:45Z", got)
	}
	for _, edge := range []struct {
		at    string
		panic bool
	}{{"2026-10-26T13:00:00Z", false}, {"2026-10-26T13:00:00.000000001Z", true}, {"2026-10-26T14:00:00Z", true}, {"2026-10-26T14:00:00.000000001Z", false}} {
		if got := mon.Panics(at(edge.at)); got != edge.panic {
			t.Errorf("Panics(%s) = %v, want %v", edge.at, got, edge.panic)
		}
	}
	fixed := &Evaluator{Schedule: parsed(t, SyncScheduleSpec{SyncFrequency: "15m"})}
	if fixed.Panics(ack) {
		t.Error("a fixed schedule panics")
	}
}

func TestCrashRangeDescribe(t *testing.T) {
	ny, _ := ParseTimezone("America/New_York")
	for _, tc := range []struct {
		r    CrashRange
		want string
	}{
		{CrashRange{at("2026-10-26T13:00:00.000000001Z"), at("2026-10-26T14:00:00.000000001Z")},
			"after Mon 2026-10-26 09:00:00 EDT up to and including 10:00:00 EDT (UTC: after 2026-10-26T13:00:00Z, up to and including 2026-10-26T14:00:00Z)"},
		{CrashRange{at("2026-03-02T04:00:00Z"), at("2026-03-02T05:00:00Z")},
			"from Sun 2026-03-01 23:00:00 EST before Mon 2026-03-02 00:00:00 EST (UTC: 2026-03-02T04:00:00Z, before 2026-03-02T05:00:00Z)"},
		{CrashRange{at("2026-10-26T13:30:00.5Z"), at("2026-10-26T13:30:01Z")},
			"from Mon 2026-10-26 09:30:00.5 EDT before 09:30:01 EDT (UTC: 2026-10-26T13:30:00.5Z, before 2026-10-26T13:30:01Z)"},
	} {
		if got := tc.r.Describe(ny); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}

// genAlternating makes alternating schedules likely to meet the search's
// limit: single days, Sundays, windows in and around the DST hours,
// overnight windows, and a few broad ones.
func genAlternating(r *rand.Rand, zone string) SyncScheduleSpec {
	tokens := []string{"Su", "M", "T", "W", "Th", "F", "S"}
	var days string
	switch r.IntN(4) {
	case 0, 1: // one day
		days = tokens[r.IntN(7)]
	case 2: // a range
		a := r.IntN(6)
		b := a + 1 + r.IntN(6-a)
		days = tokens[a] + "-" + tokens[b]
	default: // two days apart
		a := r.IntN(5)
		b := a + 2 + r.IntN(5-a)
		days = tokens[a] + "," + tokens[b]
	}
	clocks := []int{0, 30, 60, 90, 120, 150, 180, 210, 240, 540, 1020, 1320, 1410}
	var start, stop int
	for start == stop {
		if r.IntN(3) == 0 {
			start, stop = r.IntN(96)*15, r.IntN(96)*15
		} else {
			start, stop = clocks[r.IntN(len(clocks))], clocks[r.IntN(len(clocks))]
		}
	}
	hhmm := func(m int) string { return fmt.Sprintf("%02d:%02d", m/60, m%60) }
	return SyncScheduleSpec{SyncFrequency: "15m", Timezone: zone, FastSyncStartTime: hhmm(start), FastSyncStopTime: hhmm(stop), FastSyncEnabledDays: days}
}

// The finder against a brute force: for generated schedules across DST
// zones (and one without), Panics at every minute agrees with whether a
// range found holds it. With SCHEDTOOL_CRASH_FULL=1 every minute of the
// year is scanned (200 schedules, about 105 million minutes: minutes of
// CPU); by default every minute from 9 days before to 1 day after each
// DST transition of the year, where the search can fail, and every 127th
// minute of the rest.
func TestCrashesBruteForce(t *testing.T) {
	zones := []string{"America/New_York", "Europe/London", "America/Santiago", "Australia/Lord_Howe", "Asia/Tokyo"}
	full := os.Getenv("SCHEDTOOL_CRASH_FULL") != ""
	n := 200
	if (testing.Short() || raceEnabled) && !full {
		n = 30
	}
	r := rand.New(rand.NewPCG(11, 12))
	from := at("2026-01-01T00:00:00Z")
	to := from.Add(CrashHorizon)
	specs := make([]SyncScheduleSpec, n)
	for i := range specs {
		specs[i] = genAlternating(r, zones[i%len(zones)])
	}
	var mu sync.Mutex
	crashing := map[string]int{}
	t.Run("group", func(t *testing.T) {
		for w := range 2 {
			t.Run(fmt.Sprint(w), func(t *testing.T) {
				t.Parallel()
				for i := w; i < n; i += 2 {
					spec := specs[i]
					p := parsed(t, spec)
					e := &Evaluator{Schedule: p}
					ranges := Crashes(p, from, CrashHorizon)
					if len(ranges) > 0 {
						mu.Lock()
						crashing[spec.Timezone]++
						mu.Unlock()
					}
					var dense []time.Time // transitions
					off := func(x time.Time) int { _, o := x.In(p.Location).Zone(); return o }
					for h := from.Add(-24 * time.Hour); h.Before(to); h = h.Add(time.Hour) {
						if off(h) != off(h.Add(time.Hour)) {
							dense = append(dense, h)
						}
					}
					near := func(m time.Time) bool {
						for _, tr := range dense {
							if m.After(tr.Add(-9*24*time.Hour)) && m.Before(tr.Add(24*time.Hour)) {
								return true
							}
						}
						return false
					}
					k, step := 0, 0
					for m := from; m.Before(to); m = m.Add(time.Minute) {
						step++
						if !full && step%127 != 0 && !near(m) {
							continue
						}
						for k < len(ranges) && !m.Before(ranges[k].End) {
							k++
						}
						in := k < len(ranges) && !m.Before(ranges[k].Start)
						if got := e.Panics(m); got != in {
							t.Fatalf("%+v at %s: Panics %v, finder %v (ranges %v)", spec, m.Format(time.RFC3339), got, in, ranges)
						}
					}
				}
			})
		}
	})
	// The generator must reach the limit in every DST zone, and a zone
	// without DST never.
	if crashing["Asia/Tokyo"] != 0 {
		t.Errorf("Asia/Tokyo crashes: %v", crashing)
	}
	var dst []string
	for z, c := range crashing {
		if c > 0 {
			dst = append(dst, z)
		}
	}
	slices.Sort(dst)
	if n >= 100 && strings.Join(dst, " ") != "America/New_York America/Santiago Australia/Lord_Howe Europe/London" {
		t.Errorf("zones with a crashing schedule: %v", crashing)
	}
	t.Logf("%d schedules, crashing by zone: %v", n, crashing)
}

// The finder's cost: once per schedule shape, then a lookup per task.
func BenchmarkCrashes(b *testing.B) {
	p, _ := ParseSyncSchedule(SyncScheduleSpec{SyncFrequency: "15m", Timezone: "America/Chicago", FastSyncStartTime: "08:00", FastSyncStopTime: "18:00", FastSyncEnabledDays: "M-F"})
	from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for b.Loop() {
		Crashes(p, from, CrashHorizon)
	}
}

func BenchmarkCrashFinderCached(b *testing.B) {
	p, _ := ParseSyncSchedule(SyncScheduleSpec{SyncFrequency: "15m", Timezone: "America/Chicago", FastSyncStartTime: "08:00", FastSyncStopTime: "18:00", FastSyncEnabledDays: "M-F"})
	f := NewCrashFinder(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	f.Find(p)
	for b.Loop() {
		f.Find(p)
	}
}
