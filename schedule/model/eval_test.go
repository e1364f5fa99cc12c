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
		{"NY fall back: the repeated local hour is in the window again",
			`{"baseInterval":"4h","timezone":"America/New_York","windows":[{"interval":"5m","start":"01:00","end":"01:30"}]}`, "2026-11-01T06:10:00Z", 0, "2026-11-01T06:15:00Z"},
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
