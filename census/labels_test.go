package census

import (
	"testing"
	"time"
)

// The time axis's labels, as timeLabels places them with labelWidth,
// keep labelGap between them and stay inside the chart, and name both
// ends, for censuses hours, days and weeks apart and mixed (the
// browser test measures the glyphs Chromium draws).
func TestTimeLabelsRoom(t *testing.T) {
	t0 := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	every := func(step time.Duration, n int, from time.Time) []time.Time {
		var out []time.Time
		for i := range n {
			out = append(out, from.Add(time.Duration(i)*step))
		}
		return out
	}
	day := 24 * time.Hour
	for name, times := range map[string][]time.Time{
		"hours":  every(time.Hour, 30, t0.Add(3*time.Hour)),
		"days":   every(day, 40, t0.Add(12*time.Hour+30*time.Minute)),
		"weeks":  every(7*day, 30, t0),
		"mixed":  append(every(time.Hour, 2, t0), every(21*day, 4, t0.Add(21*day))...),
		"minute": every(time.Minute, 2, t0.Add(time.Hour)),
	} {
		points := make([]Snapshot, len(times))
		for i, at := range times {
			points[i].At = at
		}
		const lo, hi, left, plotW = 0.0, 760.0, 56.0, 680.0
		span := times[len(times)-1].Sub(times[0]).Seconds()
		x := func(at time.Time) float64 { return left + at.Sub(times[0]).Seconds()/span*plotW }
		got := timeLabels(points, x, lo, hi)
		if _, ok := got[0]; !ok {
			t.Errorf("%s: the first census is not named", name)
		}
		if _, ok := got[len(points)-1]; !ok {
			t.Errorf("%s: this census is not named", name)
		}
		for i, c := range got {
			wi := labelWidth(snapshotLabel(points[i].At))
			if c-wi/2 < lo || c+wi/2 > hi {
				t.Errorf("%s: label %d at %.1f leaves the chart", name, i, c)
			}
			for j, d := range got {
				wj := labelWidth(snapshotLabel(points[j].At))
				if i < j && c-wi/2 < d+wj/2+labelGap && d-wj/2 < c+wi/2+labelGap {
					t.Errorf("%s: labels %d (%.1f) and %d (%.1f) have no room between them", name, i, c, j, d)
				}
			}
		}
	}
}
