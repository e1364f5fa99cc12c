package connector

import (
	"testing"
	"time"
)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

func parsed(t *testing.T, s SyncScheduleSpec) *Parsed {
	t.Helper()
	p, prob := ParseSyncSchedule(s)
	if prob != nil {
		t.Fatal(prob.Msg)
	}
	return p
}

// Instants written out by hand.
func TestEvaluatorNext(t *testing.T) {
	utcWork := SyncScheduleSpec{SyncFrequency: "15m", Timezone: "UTC", FastSyncStartTime: "09:00", FastSyncStopTime: "16:50", FastSyncEnabledDays: "M-F"}
	nyTueNight := SyncScheduleSpec{SyncFrequency: "5m", Timezone: "America/New_York", FastSyncStartTime: "22:00", FastSyncStopTime: "06:00", FastSyncEnabledDays: "T"}
	for _, tc := range []struct {
		name          string
		spec          SyncScheduleSpec
		jitter        time.Duration
		localMidnight bool
		after, want   string
	}{
		{"fixed 30m", SyncScheduleSpec{SyncFrequency: "30m"}, 0, false, "2026-01-05T10:10:00Z", "2026-01-05T10:30:00Z"},
		{"the 30m default", SyncScheduleSpec{}, 0, false, "2026-01-05T10:31:00Z", "2026-01-05T11:00:00Z"},
		{"fixed 1h with the abc123 jitter (10h58m36.187140457s)", SyncScheduleSpec{SyncFrequency: "1h"}, 10*time.Hour + 58*time.Minute + 36187140457*time.Nanosecond, false, "2026-01-05T10:00:00Z", "2026-01-05T10:58:36.187140457Z"},
		{"zero: no delay", SyncScheduleSpec{SyncFrequency: "0s"}, 0, false, "2026-01-05T10:10:00Z", "2026-01-05T10:10:00Z"},
		{"outside: acks at the window start", utcWork, 0, false, "2026-01-05T08:00:00Z", "2026-01-05T09:00:00Z"},
		{"inside: the fast grid", utcWork, 0, false, "2026-01-05T10:05:00Z", "2026-01-05T10:15:00Z"},
		{"a fast tick overruns the window end", utcWork, 0, false, "2026-01-05T16:47:00Z", "2026-01-05T17:00:00Z"},
		{"Friday evening waits for Monday's window", utcWork, 0, false, "2026-01-09T20:00:00Z", "2026-01-10T00:00:00Z"},
		{"Saturday night: the 4h grid until Monday 09:00", utcWork, 0, false, "2026-01-11T22:00:00Z", "2026-01-12T00:00:00Z"},
		{"Sunday 08:00 reaches Monday's start", utcWork, 0, false, "2026-01-12T06:00:00Z", "2026-01-12T08:00:00Z"},
		{"cut at the window end only when the fast interval exceeds 4h", SyncScheduleSpec{SyncFrequency: "6h", Timezone: "UTC", FastSyncStartTime: "09:00", FastSyncStopTime: "17:00"}, 0, false, "2026-01-05T13:00:00Z", "2026-01-05T17:00:00Z"},
		{"not cut before the end", SyncScheduleSpec{SyncFrequency: "6h", Timezone: "UTC", FastSyncStartTime: "09:00", FastSyncStopTime: "17:00"}, 0, false, "2026-01-05T10:00:00Z", "2026-01-05T12:00:00Z"},
		// The quirk: New York, an overnight window on Tuesday only. At
		// Monday 23:00 EST (Tue 04:00Z) the window's after-midnight part
		// begins at Tuesday 00:00 EST (05:00Z), but the connector looks
		// for it at UTC midnight and acks on the 4h grid instead.
		{"UTC-midnight quirk: the after-midnight part is missed", nyTueNight, 0, false, "2026-01-06T04:00:00Z", "2026-01-06T08:00:00Z"},
		{"with local midnight it would start at 00:00 EST", nyTueNight, 0, true, "2026-01-06T04:00:00Z", "2026-01-06T05:00:00Z"},
		{"once inside, the fast grid", nyTueNight, 0, false, "2026-01-06T08:00:00Z", "2026-01-06T08:05:00Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &Evaluator{Schedule: parsed(t, tc.spec), Jitter: tc.jitter, LocalMidnight: tc.localMidnight}
			if got := e.Next(at(tc.after)); !got.Equal(at(tc.want)) {
				t.Errorf("Next(%s) = %s, want %s", tc.after, got.UTC().Format(time.RFC3339Nano), tc.want)
			}
		})
	}
}

// docs/behaviour.md §10: fixed 30m, last ack 10:10Z, ready at 10:12Z; the
// counts are the documents stored by the transactions that stored any.
func TestAck(t *testing.T) {
	e := &Evaluator{Schedule: parsed(t, SyncScheduleSpec{SyncFrequency: "30m"})}
	prev, now := at("2026-01-05T10:10:00Z"), at("2026-01-05T10:12:00Z")
	for _, tc := range []struct {
		name   string
		stored []int
		want   string
	}{
		{"no transactions yet", nil, "2026-01-05T10:12:00Z"},
		{"fewer than 5", []int{250}, "2026-01-05T10:12:00Z"},
		{"4 small ones", []int{10, 10, 10, 10}, "2026-01-05T10:12:00Z"},
		{"5 small ones: delayed", []int{10, 10, 10, 10, 10}, "2026-01-05T10:30:00Z"},
		{"one at the threshold among the last 5", []int{1000000, 10, 10, 10, 10}, "2026-01-05T10:12:00Z"},
		{"just under the threshold: delayed", []int{999_999, 10, 10, 10, 10}, "2026-01-05T10:30:00Z"},
		{"all large", []int{2000000, 2000000, 2000000, 2000000, 2000000}, "2026-01-05T10:12:00Z"},
		{"a large one before the last 5: delayed", []int{5000000, 10, 10, 10, 10, 10}, "2026-01-05T10:30:00Z"},
		{"a large one last", []int{10, 10, 10, 10, 10, 1000000}, "2026-01-05T10:12:00Z"},
	} {
		if got := e.Ack(prev, now, false, Backfilling(tc.stored)); !got.Equal(at(tc.want)) {
			t.Errorf("%s %v: ack at %s, want %s", tc.name, tc.stored, got.Format(time.RFC3339), tc.want)
		}
	}
	if got := e.Ack(prev, now, true, false); !got.Equal(now) {
		t.Errorf("first ack delayed to %v", got)
	}
	if got := e.Ack(prev, at("2026-01-05T10:45:00Z"), false, false); !got.Equal(at("2026-01-05T10:45:00Z")) {
		t.Errorf("a past tick delays to %v", got)
	}
}

// The connectors' own TestAlternatingSchedule cases (go/schedule, UTC, no
// jitter) whose default interval is the 4h the materializations use.
func TestEvaluatorConnectorVectors(t *testing.T) {
	for _, tc := range []struct {
		fast, start, stop, days, after, want string
	}{
		{"5m", "8:00", "17:00", "", "2024-02-15T00:00:00Z", "2024-02-15T04:00:00Z"},
		{"5m", "8:00", "17:00", "", "2024-02-15T01:00:00Z", "2024-02-15T04:00:00Z"},
		{"5m", "8:00", "17:00", "", "2024-02-15T08:00:00Z", "2024-02-15T08:05:00Z"},
		{"5m", "8:00", "17:00", "", "2024-02-15T17:00:00Z", "2024-02-15T20:00:00Z"},
		{"5m", "8:00", "17:00", "", "2024-02-15T07:59:59Z", "2024-02-15T08:00:00Z"},
		{"5m", "8:00", "17:00", "", "2024-02-15T16:59:59Z", "2024-02-15T17:00:00Z"},
		{"0s", "8:00", "17:00", "", "2024-02-15T16:59:59Z", "2024-02-15T16:59:59Z"},
		{"5m", "08:00", "17:00", "M-F", "2024-06-28T00:00:00Z", "2024-06-28T04:00:00Z"},
		{"5m", "08:00", "17:00", "M-F", "2024-06-28T10:00:00Z", "2024-06-28T10:05:00Z"},
		{"5m", "08:00", "17:00", "M-F", "2024-06-29T00:00:00Z", "2024-06-29T04:00:00Z"},
		{"5m", "22:00", "02:00", "M-F", "2024-06-28T23:00:00Z", "2024-06-28T23:05:00Z"},
	} {
		spec := SyncScheduleSpec{SyncFrequency: tc.fast, Timezone: "UTC", FastSyncStartTime: tc.start, FastSyncStopTime: tc.stop, FastSyncEnabledDays: tc.days}
		e := &Evaluator{Schedule: parsed(t, spec)}
		if got := e.Next(at(tc.after)); !got.Equal(at(tc.want)) {
			t.Errorf("%+v after %s: %s, want %s", spec, tc.after, got.UTC().Format(time.RFC3339), tc.want)
		}
		if e.Panics(at(tc.after)) {
			t.Errorf("%+v panics at %s", spec, tc.after)
		}
	}
}
