package model

import (
	"testing"
	"time"
)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func mustDecode(t *testing.T, js string) *Schedule {
	t.Helper()
	s, err := DecodeJSON([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	return s
}

// Instants written out by hand (the zone facts checked against IANA data
// with an independent tool), never computed by the code under test.
func TestNext(t *testing.T) {
	const nyWork = `{"baseInterval":"4h","timezone":"America/New_York","windows":[{"interval":"15m","start":"09:00","end":"16:50"}]}`
	for _, tc := range []struct {
		name, sched, after string
		jitter             int64
		want               string // "" for no hold
	}{
		{"base only", `{"baseInterval":"1h"}`, "2026-03-01T10:20:00Z", 0, "2026-03-01T11:00:00Z"},
		{"base with the acmeCo jitter (68366 s: 59m26s past each hour)", `{"baseInterval":"1h"}`, "2026-03-01T10:20:00Z", 68366, "2026-03-01T10:59:26Z"},
		{"strictly after a grid point", `{"baseInterval":"1h"}`, "2026-03-01T11:00:00Z", 0, "2026-03-01T12:00:00Z"},
		{"zero interval: no hold", `{"baseInterval":"0s"}`, "2026-03-01T10:20:00Z", 0, ""},
		{"base cut at a faster window's start", nyWork, "2026-01-05T13:00:00Z", 0, "2026-01-05T14:00:00Z"},
		{"in the window", nyWork, "2026-01-05T16:50:00Z", 0, "2026-01-05T17:00:00Z"},
		{"a window's tick may overrun its end", nyWork, "2026-01-05T21:47:00Z", 0, "2026-01-05T22:00:00Z"},
		{"NY spring forward: a window inside the gap is inactive that day",
			`{"baseInterval":"4h","timezone":"America/New_York","windows":[{"interval":"1m","start":"02:15","end":"02:45"}]}`, "2026-03-08T06:00:00Z", 0, "2026-03-08T08:00:00Z"},
		{"NY the day after: the same window is active",
			`{"baseInterval":"4h","timezone":"America/New_York","windows":[{"interval":"1m","start":"02:15","end":"02:45"}]}`, "2026-03-09T05:00:00Z", 0, "2026-03-09T06:15:00Z"},
		{"NY fall back: a start in the fold is its earlier instant",
			`{"baseInterval":"4h","timezone":"America/New_York","windows":[{"interval":"5m","start":"01:00","end":"01:30"}]}`, "2026-11-01T05:40:00Z", 0, "2026-11-01T08:00:00Z"},
		{"NY fall back: the window ended at 01:30 EDT, so the repeated hour (EST) is outside it (docs/behaviour.md §10)",
			`{"baseInterval":"4h","timezone":"America/New_York","windows":[{"interval":"5m","start":"01:00","end":"01:30"}]}`, "2026-11-01T06:10:00Z", 0, "2026-11-01T08:00:00Z"},
		{"NY fall back: inside the window's first pass",
			`{"baseInterval":"4h","timezone":"America/New_York","windows":[{"interval":"5m","start":"01:00","end":"01:30"}]}`, "2026-11-01T05:10:00Z", 0, "2026-11-01T05:15:00Z"},
		{"London fall back: a window from 01:30 BST to 03:00 GMT is active across the fold (docs/behaviour.md §10)",
			`{"baseInterval":"1h","timezone":"Europe/London","windows":[{"interval":"1m","start":"01:30","end":"03:00"}]}`, "2026-10-25T01:05:00Z", 0, "2026-10-25T01:06:00Z"},
		{"NY spring forward: an overnight window with both ends in the gap is inactive all day (docs/behaviour.md §10)",
			`{"baseInterval":"1h","timezone":"America/New_York","windows":[{"interval":"5m","start":"03:00","end":"02:00"}]}`, "2026-03-08T16:00:00Z", 0, "2026-03-08T17:00:00Z"},
		{"NY the day before: the same overnight window is active",
			`{"baseInterval":"1h","timezone":"America/New_York","windows":[{"interval":"5m","start":"03:00","end":"02:00"}]}`, "2026-03-07T16:00:00Z", 0, "2026-03-07T16:05:00Z"},
		{"Havana spring forward at midnight: 01:00-00:00 collapses (docs/behaviour.md §10)",
			`{"baseInterval":"1h","timezone":"America/Havana","windows":[{"interval":"5m","start":"01:00","end":"00:00"}]}`, "2026-03-08T16:00:00Z", 0, "2026-03-08T17:00:00Z"},
		{"Lord Howe: a start in the 30-minute gap fires at the gap's end",
			`{"baseInterval":"4h","timezone":"Australia/Lord_Howe","windows":[{"interval":"1m","start":"02:10","end":"03:00"}]}`, "2026-10-03T15:00:00Z", 0, "2026-10-03T15:30:00Z"},
		{"Troll: a window wholly inside the 2-hour gap is inactive",
			`{"baseInterval":"4h","timezone":"Antarctica/Troll","windows":[{"interval":"1m","start":"01:30","end":"02:30"}]}`, "2026-03-29T00:10:00Z", 0, "2026-03-29T04:00:00Z"},
		{"Troll: the next day it starts at 01:30 +02",
			`{"baseInterval":"4h","timezone":"Antarctica/Troll","windows":[{"interval":"1m","start":"01:30","end":"02:30"}]}`, "2026-03-29T22:00:00Z", 0, "2026-03-29T23:30:00Z"},
		{"overnight on Monday only: Tuesday's early hours are not in it",
			`{"baseInterval":"4h","timezone":"UTC","windows":[{"interval":"10m","start":"22:00","end":"06:00","days":["Mon"]}]}`, "2026-01-06T01:00:00Z", 0, "2026-01-06T04:00:00Z"},
		{"overnight on Monday only: Monday night is",
			`{"baseInterval":"4h","timezone":"UTC","windows":[{"interval":"10m","start":"22:00","end":"06:00","days":["Mon"]}]}`, "2026-01-05T23:00:00Z", 0, "2026-01-05T23:10:00Z"},
		{"overnight on Monday only: Monday's early hours start at midnight",
			`{"baseInterval":"5h","timezone":"UTC","windows":[{"interval":"10m","start":"22:00","end":"06:00","days":["Mon"]}]}`, "2026-01-04T22:30:00Z", 0, "2026-01-05T00:00:00Z"},
		{"adjacent windows: into the faster one cuts",
			`{"baseInterval":"4h","timezone":"UTC","windows":[{"interval":"1h","start":"09:00","end":"11:45"},{"interval":"1m","start":"11:45","end":"17:00"}]}`, "2026-01-05T11:30:00Z", 0, "2026-01-05T11:45:00Z"},
		{"adjacent windows: into the slower one does not",
			`{"baseInterval":"4h","timezone":"UTC","windows":[{"interval":"1m","start":"09:00","end":"12:00"},{"interval":"1h","start":"12:00","end":"17:00"}]}`, "2026-01-05T11:59:30Z", 0, "2026-01-05T12:00:00Z"},
		{"offset zone", `{"baseInterval":"4h","timezone":"+05:30","windows":[{"interval":"15m","start":"09:00","end":"17:00"}]}`, "2026-01-05T02:00:00Z", 0, "2026-01-05T03:30:00Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustDecode(t, tc.sched)
			got, ok := s.Next(at(tc.after), tc.jitter)
			if tc.want == "" {
				if ok {
					t.Errorf("Next = %v, want no hold", got)
				}
				return
			}
			if !ok || !got.Equal(at(tc.want)) {
				t.Errorf("Next(%s) = %v %v, want %s", tc.after, got.UTC().Format(time.RFC3339), ok, tc.want)
			}
		})
	}
}

func TestLocalInstant(t *testing.T) {
	ny, _ := time.LoadLocation("America/New_York")
	for _, tc := range []struct {
		y     int
		m     time.Month
		d, mn int
		want  string
	}{
		{2026, 3, 8, 2*60 + 30, "2026-03-08T07:00:00Z"}, // in the gap: its end
		{2026, 3, 8, 3 * 60, "2026-03-08T07:00:00Z"},
		{2026, 11, 1, 60 + 30, "2026-11-01T05:30:00Z"}, // in the fold: the earlier
		{2026, 1, 5, 9 * 60, "2026-01-05T14:00:00Z"},
	} {
		if got := LocalInstant(ny, tc.y, tc.m, tc.d, tc.mn); !got.Equal(at(tc.want)) {
			t.Errorf("LocalInstant(%d-%d-%d %d) = %v, want %s", tc.y, tc.m, tc.d, tc.mn, got, tc.want)
		}
	}
}

// The unit tests of Flow's runtime evaluator,
// crates/runtime-next/src/leader/materialize/sync_schedule.rs
// (estuary/flow@9f69f1bf532798bebaed1bd15f787c49a891dba4), as a table.
func TestFlowNext(t *testing.T) {
	// windowed(): 4h base, +00:00, a 15m window 09:00-17:00.
	sched := func(base, tz, windows string) string {
		return `{"baseInterval":"` + base + `","timezone":"` + tz + `","windows":[` + windows + `]}`
	}
	win := func(iv, start, end, days string) string {
		w := `{"interval":"` + iv + `","start":"` + start + `","end":"` + end + `"`
		if days != "" {
			w += `,"days":[` + days + `]`
		}
		return w + "}"
	}
	windowed := sched("4h", "+00:00", win("15m", "09:00", "17:00", ""))
	wk := `"Mon","Tue","Wed","Thu","Fri"`
	for _, tc := range []struct {
		name, sched, after string
		seed               int64
		want               string
	}{
		{"zero_interval_never_holds", `{"baseInterval":"0s"}`, "2026-01-01T00:13:00Z", 0, ""},
		{"fires_align_to_wall_clock_grid", `{"baseInterval":"15m"}`, "2026-01-01T00:13:00Z", 0, "2026-01-01T00:15:00Z"},
		{"fires_align_to_wall_clock_grid (same slot)", `{"baseInterval":"15m"}`, "2026-01-01T00:14:30Z", 0, "2026-01-01T00:15:00Z"},
		{"grid_is_aligned_to_the_unix_epoch_not_the_hour", `{"baseInterval":"45m"}`, "2026-01-01T00:50:00Z", 0, "2026-01-01T01:30:00Z"},
		{"windowed_uses_window_cadence_inside", windowed, "2026-01-01T12:00:00Z", 0, "2026-01-01T12:15:00Z"},
		{"windowed_uses_base_cadence_outside", windowed, "2026-01-01T03:00:00Z", 0, "2026-01-01T04:00:00Z"},
		{"base_regime_clamps_to_the_window_open_boundary", windowed, "2026-01-01T08:50:00Z", 0, "2026-01-01T09:00:00Z"},
		{"window_regime_does_not_clamp_to_the_window_close_boundary", sched("4h", "+00:00", win("15m", "09:00", "17:10", "")), "2026-01-01T17:05:00Z", 0, "2026-01-01T17:15:00Z"},
		{"slower_window_clamps_to_the_window_close_boundary", sched("15m", "+00:00", win("4h", "09:00", "17:00", "")), "2026-01-01T16:50:00Z", 0, "2026-01-01T17:00:00Z"},
		{"disabled_day_uses_base_cadence_all_day", sched("4h", "+00:00", win("15m", "09:00", "17:00", wk)), "2026-01-03T12:00:00Z", 0, "2026-01-03T16:00:00Z"},
		{"boundary_clamp_skips_disabled_days", sched("4h", "+00:00", win("15m", "09:00", "17:00", wk)), "2026-01-03T08:00:00Z", 0, "2026-01-03T12:00:00Z"},
		{"adjacent_windows: base clamps into the first", sched("4h", "+00:00", win("15m", "09:00", "17:00", "")+","+win("2h", "17:00", "20:00", "")), "2026-01-01T08:50:00Z", 0, "2026-01-01T09:00:00Z"},
		{"adjacent_windows: into the slower evening window", sched("4h", "+00:00", win("15m", "09:00", "17:00", "")+","+win("2h", "17:00", "20:00", "")), "2026-01-01T16:55:00Z", 0, "2026-01-01T17:00:00Z"},
		{"adjacent_windows: inside the evening window", sched("4h", "+00:00", win("15m", "09:00", "17:00", "")+","+win("2h", "17:00", "20:00", "")), "2026-01-01T17:05:00Z", 0, "2026-01-01T18:00:00Z"},
		{"adjacent_windows: back into the slower base", sched("4h", "+00:00", win("15m", "09:00", "17:00", "")+","+win("2h", "17:00", "20:00", "")), "2026-01-01T19:05:00Z", 0, "2026-01-01T20:00:00Z"},
		{"the_nearest_upcoming_window_bounds_the_base_fire", sched("4h", "+00:00", win("15m", "14:00", "17:00", "")+","+win("15m", "06:00", "08:00", "")), "2026-01-01T05:00:00Z", 0, "2026-01-01T06:00:00Z"},
		{"straddling_window_exits_at_disabled_day_midnight", sched("15m", "+00:00", win("8h", "22:00", "06:00", `"Mon"`)), "2026-01-05T23:00:00Z", 0, "2026-01-06T00:00:00Z"},
		{"window_follows_local_time_across_dst (winter)", sched("4h", "America/New_York", win("15m", "09:00", "17:00", "")), "2026-01-15T13:50:00Z", 0, "2026-01-15T14:00:00Z"},
		{"window_follows_local_time_across_dst (summer)", sched("4h", "America/New_York", win("15m", "09:00", "17:00", "")), "2026-07-15T12:50:00Z", 0, "2026-07-15T13:00:00Z"},
		{"dst_spring_forward_gap_resolves_to_the_gap_end", sched("4h", "America/New_York", win("15m", "02:30", "17:00", "")), "2026-03-08T06:00:00Z", 0, "2026-03-08T07:00:00Z"},
		{"dst_gaps_that_are_not_one_hour (Troll)", sched("4h", "Antarctica/Troll", win("15m", "01:30", "17:00", "")), "2026-03-29T00:30:00Z", 0, "2026-03-29T01:00:00Z"},
		{"dst_gaps_that_are_not_one_hour (Lord Howe)", sched("4h", "Australia/Lord_Howe", win("15m", "02:00", "17:00", "")), "2026-10-03T15:00:00Z", 0, "2026-10-03T15:30:00Z"},
		{"a_window_wholly_inside_a_dst_gap_is_inactive_rather_than_inverted", sched("4h", "America/New_York", win("15m", "02:30", "03:00", "")), "2026-03-08T09:00:00Z", 0, "2026-03-08T12:00:00Z"},
		{"a_collapsed_window_defers_to_its_next_enabled_day", sched("4h", "America/New_York", win("15m", "02:30", "03:00", `"Sun"`)), "2026-03-07T12:00:00Z", 0, "2026-03-07T16:00:00Z"},
		{"dst_short_day_is_not_skipped_when_scanning_for_the_window", sched("4h", "America/New_York", win("15m", "09:00", "17:00", `"Sun"`)), "2026-03-08T04:30:00Z", 0, "2026-03-08T08:00:00Z"},
		{"straddling_window_activates_at_local_midnight_not_utc", sched("4h", "+05:30", win("15m", "22:00", "06:00", `"Mon"`)), "2026-01-04T17:00:00Z", 0, "2026-01-04T18:30:00Z"},
		{"single_digit_clock_times_evaluate_like_zero_padded_ones", sched("4h", "+00:00", win("15m", "9:00", "17:00", "")), "2026-01-01T08:50:00Z", 0, "2026-01-01T09:00:00Z"},
		{"fire_does_not_hop_a_short_slower_window_into_a_faster_regime", sched("15m", "+00:00", win("4h", "22:00", "06:00", "")+","+win("12h", "06:00", "06:30", "")), "2026-01-01T04:00:00Z", 0, "2026-01-01T06:30:00Z"},
		{"fire_does_not_hop: from 05:00 too", sched("15m", "+00:00", win("4h", "22:00", "06:00", "")+","+win("12h", "06:00", "06:30", "")), "2026-01-01T05:00:00Z", 0, "2026-01-01T06:30:00Z"},
		{"walk_returns_the_grid_fire_when_no_faster_regime_intervenes", sched("15m", "+00:00", win("12h", "06:00", "06:30", "")), "2026-01-01T05:50:00Z", 0, "2026-01-01T06:00:00Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustDecode(t, tc.sched)
			got, ok := s.Next(at(tc.after), tc.seed)
			if tc.want == "" {
				if ok {
					t.Errorf("Next = %v, want no hold", got)
				}
				return
			}
			if !ok || !got.Equal(at(tc.want)) {
				t.Errorf("Next(%s) = %v %v, want %s", tc.after, got.UTC().Format(time.RFC3339), ok, tc.want)
			}
		})
	}
}

// jitter_shifts_phase_deterministically_by_seed, windowed cadences, and
// Flow's sweep: over pathological zones and window shapes, every
// evaluation is strictly after its anchor (and nothing panics).
func TestFlowNextProperties(t *testing.T) {
	s := mustDecode(t, `{"baseInterval":"15m"}`)
	a, _ := s.Next(at("2026-01-01T00:07:00Z"), 42)
	if a2, _ := s.Next(at("2026-01-01T00:07:00Z"), 42); !a.Equal(a2) || a.Equal(at("2026-01-01T00:15:00Z")) {
		t.Errorf("seed 42: %v, %v", a, a2)
	}
	if b, _ := s.Next(a, 42); b.Sub(a) != 15*time.Minute {
		t.Errorf("cadence across the phase shift: %v", b.Sub(a))
	}
	zones := []string{"America/New_York", "Europe/London", "Pacific/Auckland", "America/Santiago", "Australia/Lord_Howe", "Antarctica/Troll"}
	var shapes []string
	for _, se := range [][2]string{{"09:00", "17:00"}, {"02:30", "17:00"}, {"02:15", "17:00"}, {"02:15", "02:45"}, {"22:00", "06:00"}} {
		for _, days := range []string{`"Sun"`, `"Mon"`, `"Tue"`, `"Wed"`, `"Thu"`, `"Fri"`, `"Sat"`, `"Mon","Tue","Wed","Thu","Fri"`} {
			shapes = append(shapes, `{"interval":"15m","start":"`+se[0]+`","end":"`+se[1]+`","days":[`+days+`]}`)
		}
	}
	shapes = append(shapes, `{"interval":"15m","start":"09:00","end":"17:00","days":["Mon","Tue","Wed","Thu","Fri"]},{"interval":"8h","start":"22:00","end":"06:00","days":["Sat"]}`)
	// Flow steps 7h13m; a prime multiple of it keeps the walk through
	// varied local times of day at a seventh of the cost.
	step := 7 * (7*time.Hour + 13*time.Minute)
	for _, z := range zones {
		for _, sh := range shapes {
			s := mustDecode(t, `{"baseInterval":"4h","timezone":"`+z+`","windows":[`+sh+`]}`)
			for anchor := at("2026-01-01T00:00:00Z"); anchor.Before(at("2027-01-01T00:00:00Z")); anchor = anchor.Add(step) {
				f, ok := s.Next(anchor, 12_345)
				if !ok || !f.After(anchor) {
					t.Fatalf("%s %s: Next(%v) = %v %v", z, sh, anchor, f, ok)
				}
			}
		}
	}
}

// local_time_of_day_resolves_monotonically: over every local day of 2026
// in the pathological zones, a later clock time never resolves to an
// earlier instant.
func TestLocalInstantMonotone(t *testing.T) {
	for _, z := range []string{"America/New_York", "Europe/London", "Pacific/Auckland", "America/Santiago", "Australia/Lord_Howe", "Antarctica/Troll"} {
		loc, ok := LoadZone(z)
		if !ok {
			t.Fatal(z)
		}
		for d := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC); d.Year() == 2026; d = d.AddDate(0, 0, 1) {
			y, m, dd := d.Date()
			prev := LocalInstant(loc, y, m, dd, 0)
			for min := 1; min < 24*60; min += 5 {
				next := LocalInstant(loc, y, m, dd, min)
				if next.Before(prev) {
					t.Fatalf("%s %v minute %d: %v precedes %v", z, d, min, next, prev)
				}
				prev = next
			}
		}
	}
}
