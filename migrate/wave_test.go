package migrate

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/estuary/schedtool/plan"
)

// newWave takes the first tasks in name order, groups whole; a group that
// does not fit ends the wave, one that never fits is passed over.
func TestNewWave(t *testing.T) {
	one := func(names ...string) []candidate {
		var cs []candidate
		for _, n := range names {
			cs = append(cs, candidate{name: n})
		}
		return cs
	}
	group := func(names ...string) []candidate {
		var cs []candidate
		for _, n := range names {
			cs = append(cs, candidate{name: n, group: names})
		}
		return cs
	}
	cat := func(parts ...[]candidate) []candidate {
		var cs []candidate
		for _, p := range parts {
			cs = append(cs, p...)
		}
		return cs
	}
	for _, tc := range []struct {
		limit int
		cands []candidate
		take  string
		why   string // tasks deferred with a reason of their own
	}{
		{2, one("c", "a", "b"), "a b", ""},
		{5, one("c", "a", "b"), "a b c", ""},
		{1, one("b", "a"), "a", ""},
		{3, cat(one("a"), group("b1", "b2"), one("c")), "a b1 b2", ""},
		{2, cat(one("a"), group("b1", "b2"), one("c")), "a", ""}, // the pair does not fit: the wave stops
		{1, cat(group("a1", "a2"), one("b"), one("c")), "b", "a1 a2"},
		{2, cat(group("a1", "a2", "a3"), one("b"), group("c1", "c2")), "b", "a1 a2 a3"},
		{3, one("a", "a2", "a10"), "a a10 a2", ""}, // byte order
		{4, nil, "", ""},
	} {
		w := newWave(tc.limit, tc.cands)
		var take, why []string
		for n := range w.take {
			take = append(take, n)
		}
		for n := range w.why {
			why = append(why, n)
		}
		sort.Strings(take)
		sort.Strings(why)
		if strings.Join(take, " ") != tc.take || strings.Join(why, " ") != tc.why {
			t.Errorf("limit %d over %v: take %v, why %v; want %q, %q", tc.limit, tc.cands, take, why, tc.take, tc.why)
		}
		for _, c := range tc.cands {
			cause, reason, deferred := w.defers(c.name)
			if deferred == w.take[c.name] || (deferred && !strings.Contains(reason, fmt.Sprintf("--limit %d", tc.limit))) ||
				(deferred && (cause == plan.CauseLimit) != (w.why[c.name] == "")) {
				t.Errorf("limit %d: %s deferred %v (%q), taken %v", tc.limit, c.name, deferred, reason, w.take[c.name])
			}
		}
	}
	var none *wave
	if _, _, ok := none.defers("x"); ok {
		t.Error("no --limit defers a task")
	}
}
