// Package suggest finds the names closest to one that matched nothing:
// the task names for explain and --name, the prefixes for --prefix, the
// timezones and the keys of a schedule. It is linear in the candidates:
// each is compared under a distance bound that only shrinks, a length
// check skips most of them outright, and the comparison stops as soon as
// a row of its table is past the bound. Nothing within the bound is no
// suggestion, never an unrelated one.
package suggest

import "sort"

// MaxDistance bounds the distance of a suggestion to a name of n bytes:
// a third of it, at most 4. A name under three bytes gets only its own
// spelling in another case (one edit of two is another name); a few
// typos in a long name are still that name, but acmeCo/w/materialize-snowflak
// is 8 edits from acmeCo/w/materialize-bigquery, a different task.
func MaxDistance(n int) int { return min(n/3, 4) }

// Nearest keeps the closest candidates given to it (Add), at most Keep
// of them, nearest first, ties by name. The result does not depend on
// the order of the candidates. Not safe for concurrent use.
type Nearest struct {
	target string
	keep   int
	bound  int // a candidate farther than this is dropped
	best   []match
	rows   [3][]int // the distance table's rows, reused
}

type match struct {
	name string
	d    int
}

// New returns a Nearest for target keeping up to keep candidates.
func New(target string, keep int) *Nearest {
	return &Nearest{target: target, keep: keep, bound: MaxDistance(len(target))}
}

// Add considers a candidate.
func (s *Nearest) Add(cand string) {
	if diff := len(cand) - len(s.target); diff > s.bound || -diff > s.bound || cand == s.target {
		return
	}
	d := s.distance(cand)
	if d > s.bound {
		return
	}
	m := match{cand, d}
	i := sort.Search(len(s.best), func(i int) bool { return less(m, s.best[i]) })
	if i >= s.keep || (i > 0 && s.best[i-1].name == cand) {
		return
	}
	s.best = append(s.best, match{})
	copy(s.best[i+1:], s.best[i:])
	s.best[i] = m
	if len(s.best) > s.keep {
		s.best = s.best[:s.keep]
	}
	if len(s.best) == s.keep {
		s.bound = s.best[len(s.best)-1].d // nothing farther can enter
	}
}

func less(a, b match) bool { return a.d < b.d || (a.d == b.d && a.name < b.name) }

// List is the candidates kept, nearest first: those at most one edit
// farther than the nearest (europe/paris is Europe/Paris, and then not
// also Europe/Madrid, four edits away).
func (s *Nearest) List() []string {
	var out []string
	for _, m := range s.best {
		if m.d <= s.best[0].d+1 {
			out = append(out, m.name)
		}
	}
	return out
}

// Closest is the up to keep names nearest to target among names.
func Closest(target string, names []string, keep int) []string {
	s := New(target, keep)
	for _, n := range names {
		s.Add(n)
	}
	return s.List()
}

// distance is the optimal string alignment distance (Levenshtein with
// adjacent transpositions: New_Yrok is one edit from New_York) between
// the target and b, ASCII case ignored (timeZone is timezone), or
// bound+1 as soon as it must exceed the bound. A common prefix and
// suffix cost nothing and are skipped (names share long prefixes), and
// only the diagonal band of width 2*bound+1 is computed.
func (s *Nearest) distance(b string) int {
	a := s.target
	for len(a) > 0 && len(b) > 0 && fold(a[0]) == fold(b[0]) {
		a, b = a[1:], b[1:]
	}
	for len(a) > 0 && len(b) > 0 && fold(a[len(a)-1]) == fold(b[len(b)-1]) {
		a, b = a[:len(a)-1], b[:len(b)-1]
	}
	bound := s.bound
	inf := bound + 1
	if diff := len(a) - len(b); diff > bound || -diff > bound {
		return inf
	}
	for i := range s.rows {
		if cap(s.rows[i]) < len(b)+2 {
			s.rows[i] = make([]int, len(b)+2)
		}
		s.rows[i] = s.rows[i][:len(b)+2]
	}
	prev2, prev, cur := s.rows[0], s.rows[1], s.rows[2]
	for j := 0; j <= len(b); j++ {
		prev[j] = min(j, inf)
	}
	prev[len(b)+1] = inf
	for i := 1; i <= len(a); i++ {
		lo, hi := max(1, i-bound), min(len(b), i+bound)
		cur[lo-1] = inf
		if lo == 1 {
			cur[0] = min(i, inf)
		}
		rowMin := cur[lo-1]
		ca := fold(a[i-1])
		for j := lo; j <= hi; j++ {
			cb := fold(b[j-1])
			cost := 1
			if ca == cb {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost, inf)
			if i > 1 && j > 1 && ca == fold(b[j-2]) && fold(a[i-2]) == cb {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		cur[hi+1] = inf
		if rowMin > bound {
			return inf
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return min(prev[len(b)], inf)
}

func fold(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
