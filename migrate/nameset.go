package migrate

import (
	"slices"

	"github.com/zeebo/xxh3"
)

// nameSet remembers the catalog names a run has seen, and where, in 16
// bytes a name whatever its length: the 64-bit xxh3 hash of the name and
// its place (the input's index and the row's line), with no pointer for
// the collector to scan. A map of names to "file:line" strings cost
// about 100 bytes a row, kept to the end of the run, and (at GOGC=400)
// five times that in heap: migrate --out FILE grew with the fleet.
//
// Names go into a small map first; every nameSetBatch of them are sorted
// into one sorted slice (a merge), so that lookups are a map probe and a
// binary search. Two names with the same hash are taken for one: at a
// million names the odds of that are about 3 in 100 million.
type nameSet struct {
	sorted []nameAt // by hash
	recent map[uint64]uint64
}

type nameAt struct{ hash, at uint64 }

// nameSetBatch is how many names wait in the map before being merged.
const nameSetBatch = 1 << 14

func newNameSet() *nameSet { return &nameSet{recent: map[uint64]uint64{}} }

// rowPlace packs an input's index and a row's line.
func rowPlace(input, line int) uint64 { return uint64(input)<<40 | uint64(line)&(1<<40-1) }

func unplace(at uint64) (input, line int) { return int(at >> 40), int(at & (1<<40 - 1)) }

// add records name at its place, unless it is there already: then it
// returns the first place and true.
func (s *nameSet) add(name string, at uint64) (first uint64, dup bool) {
	h := xxh3.HashString(name)
	if first, ok := s.recent[h]; ok {
		return first, true
	}
	if i, ok := slices.BinarySearchFunc(s.sorted, h, func(e nameAt, h uint64) int {
		switch {
		case e.hash < h:
			return -1
		case e.hash > h:
			return 1
		}
		return 0
	}); ok {
		return s.sorted[i].at, true
	}
	s.recent[h] = at
	if len(s.recent) >= nameSetBatch {
		s.merge()
	}
	return 0, false
}

// merge moves the map's names into the sorted slice.
func (s *nameSet) merge() {
	batch := make([]nameAt, 0, len(s.recent))
	for h, at := range s.recent {
		batch = append(batch, nameAt{h, at})
	}
	slices.SortFunc(batch, func(a, b nameAt) int {
		switch {
		case a.hash < b.hash:
			return -1
		case a.hash > b.hash:
			return 1
		}
		return 0
	})
	out := make([]nameAt, len(s.sorted)+len(batch))
	i, j := 0, 0
	for k := range out {
		if j == len(batch) || (i < len(s.sorted) && s.sorted[i].hash < batch[j].hash) {
			out[k] = s.sorted[i]
			i++
		} else {
			out[k] = batch[j]
			j++
		}
	}
	s.sorted = out
	clear(s.recent)
}
