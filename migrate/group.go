package migrate

import (
	"fmt"
	"sort"
	"strings"

	"github.com/estuary/schedtool/internal/groupwrite"
	"github.com/estuary/schedtool/internal/paths"
)

// group is the files one migration touches, written together: a task's
// files, and those of every task that shares one of them (docs/behaviour.md §7).
type group struct {
	files []*File // in the order they are renamed
	err   string  // why the group cannot be written, "" when it can
}

// groups splits the changed files into groups, each in an order whose
// every prefix leaves each task paced: a file adding a task's model
// schedule comes before a file zeroing that task's connector.
func groups(files []*File) []group {
	parent := make([]int, len(files))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	union := func(a, b int) { parent[find(a)] = find(b) }
	byTask := map[string]int{}
	byID := map[paths.FileID]int{}
	alias := map[int]string{}
	for i, f := range files {
		for _, t := range f.Tasks {
			if j, ok := byTask[t]; ok {
				union(i, j)
			} else {
				byTask[t] = i
			}
		}
		if id, ok := paths.Identify(f.Path); ok {
			if j, seen := byID[id]; seen {
				// One file read as two documents (a config file that is
				// also a source): two edits of it would undo each other.
				union(i, j)
				alias[i] = fmt.Sprintf("%s and %s are one file, read twice (as a source and as a config file); edit it by hand", files[j].Path, f.Path)
			} else {
				byID[id] = i
			}
		}
	}
	members := map[int][]int{}
	var roots []int
	for i := range files {
		r := find(i)
		if members[r] == nil {
			roots = append(roots, r)
		}
		members[r] = append(members[r], i)
	}
	out := make([]group, 0, len(roots))
	for _, r := range roots {
		idx := members[r]
		g := group{}
		for _, i := range idx {
			if msg, ok := alias[i]; ok && g.err == "" {
				g.err = msg
			}
		}
		var order []*File
		order, cyc := writeOrder(files, idx)
		g.files = order
		if g.err == "" && cyc != "" {
			g.err = cyc
		}
		out = append(out, g)
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].files[0].Path < out[b].files[0].Path })
	return out
}

// writeOrder sorts the files idx (indexes into files, sorted by path)
// topologically: a file adding a task's model schedule before a file
// zeroing its connector; ties by path. When the files need each other
// first (a cycle) there is no order that keeps every task paced: the
// files come back by path with the reason.
func writeOrder(files []*File, idx []int) ([]*File, string) {
	models := map[string][]int{}
	for _, i := range idx {
		for _, t := range files[i].Models {
			models[t] = append(models[t], i)
		}
	}
	after := map[int][]int{} // i must be renamed before each of after[i]
	indeg := map[int]int{}
	for _, j := range idx {
		for _, t := range files[j].Zeroes {
			for _, i := range models[t] {
				if i != j {
					after[i] = append(after[i], j)
					indeg[j]++
				}
			}
		}
	}
	var order []*File
	done := map[int]bool{}
	for len(order) < len(idx) {
		next := -1
		for _, i := range idx { // sorted by path: the first ready one
			if !done[i] && indeg[i] == 0 {
				next = i
				break
			}
		}
		if next < 0 {
			var names []string
			byPath := make([]*File, 0, len(idx))
			for _, i := range idx {
				names = append(names, files[i].Path)
				byPath = append(byPath, files[i])
			}
			return byPath, "the files " + strings.Join(names, ", ") + " each hold a model schedule another one's connector change depends on: no order of writing them keeps every task paced; give these tasks separate files"
		}
		done[next] = true
		order = append(order, files[next])
		for _, j := range after[next] {
			indeg[j]--
		}
	}
	return order, ""
}

// Put is one file of a group to write (outdir.go builds them).
type Put = groupwrite.Put
