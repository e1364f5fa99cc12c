package selection

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/estuary/schedtool/internal/suggest"
	"github.com/estuary/schedtool/internal/usage"
	"github.com/estuary/schedtool/schedule/connector"
)

// Selector picks materializations as flowctl's catalog commands do:
// --name (exact catalog names), --prefix (catalog name prefixes) and
// --image (connector image names, without tag). Names and prefixes are
// alternatives (a task named by either is picked); images narrow that
// further. The zero Selector picks every task.
//
// Its fields are plain so that a source that can filter itself (a
// PostgreSQL query) can push the same selection down:
//
//	(catalog_name = ANY(Names) OR starts_with(catalog_name, ANY(Prefixes)))
//	AND connector image name (tag removed) = ANY(Images)
//
// with each empty list dropping its clause.
type Selector struct {
	Names    []string
	Prefixes []string
	Images   []string
	// MaxSpec, when above 0, keeps a database from sending a spec longer
	// than this many bytes (--max-row-size): its row comes with
	// spec_bytes, its length, in place of the spec, and is unreadable.
	// It selects no task.
	MaxSpec int
	// Timeout, when above 0, ends a database read that has received no
	// row (or no answer) for that long (--db-timeout), so that a stalled
	// server fails the command instead of hanging it. It selects no task.
	Timeout time.Duration
	// Rows, if set, counts the rows a database has sent so far (for a
	// progress line). It selects no task.
	Rows *atomic.Int64
}

// IsZero reports whether the selector picks every task.
func (s Selector) IsZero() bool {
	return len(s.Names) == 0 && len(s.Prefixes) == 0 && len(s.Images) == 0
}

// Check refuses values that can never match: an empty one, or an image
// given with a tag or digest (images are matched by name).
func (s Selector) Check() error {
	for _, v := range [][2]any{{"--name", s.Names}, {"--prefix", s.Prefixes}, {"--image", s.Images}} {
		for _, x := range v[1].([]string) {
			if strings.TrimSpace(x) == "" {
				return &usage.Error{Msg: fmt.Sprintf("%s: an empty value selects nothing", v[0])}
			}
		}
	}
	for _, img := range s.Images {
		if name, tag := connector.SplitImage(img); name != img {
			what := "tag " + tag
			switch {
			case tag == "":
				what = "digest"
			case strings.Contains(img, "@"):
				what += " and digest"
			}
			return &usage.Error{Msg: fmt.Sprintf("--image %s: give the image name without its %s (--image %s)", img, what, name)}
		}
	}
	return nil
}

// MatchName reports whether a catalog name is picked by the names and
// prefixes (true when there are none).
func (s Selector) MatchName(name string) bool {
	if len(s.Names) == 0 && len(s.Prefixes) == 0 {
		return true
	}
	for _, n := range s.Names {
		if n == name {
			return true
		}
	}
	for _, p := range s.Prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// MatchImage reports whether an image as written (name[:tag] or
// name@digest, "" for none) is picked by the images (true when there
// are none).
func (s Selector) MatchImage(image string) bool {
	if len(s.Images) == 0 {
		return true
	}
	name, _ := connector.SplitImage(image)
	for _, img := range s.Images {
		if img == name {
			return true
		}
	}
	return false
}

// Match reports whether a task with this name and image is picked.
func (s Selector) Match(name, image string) bool {
	return s.MatchName(name) && s.MatchImage(image)
}

// Selection is a Selector in use: it also records which of its values
// picked a task, so that a value that picked none is an error (a typo
// must not look like a clean run). It is safe for concurrent use; a nil
// Selection picks everything.
type Selection struct {
	Selector
	mu   sync.Mutex
	hits map[string]bool // "--name\x00value"
	// near holds, for each --name and --prefix value, the names (the
	// prefixes) nearest to it among the tasks seen: a value that picks
	// nothing is told what was likely meant.
	near map[string]*suggest.Nearest
	// full holds, for each --image value without a registry (no /), the
	// full image names seen whose last part it is (materialize-snowflake
	// for ghcr.io/estuary/materialize-snowflake).
	full map[string]map[string]bool
}

// New returns the selection of s, or nil when s picks everything.
func New(s Selector) *Selection {
	if s.IsZero() {
		return nil
	}
	sel := &Selection{Selector: s, hits: map[string]bool{}, near: map[string]*suggest.Nearest{}, full: map[string]map[string]bool{}}
	for _, img := range s.Images {
		if !strings.Contains(img, "/") {
			sel.full[img] = map[string]bool{}
			for _, e := range connector.Builtin().Images {
				sel.shortOf(img, e.Image)
			}
		}
	}
	for _, n := range s.Names {
		sel.near["--name\x00"+n] = suggest.New(n, 3)
	}
	for _, p := range s.Prefixes {
		sel.near["--prefix\x00"+p] = suggest.New(p, 3)
	}
	return sel
}

// shortOf records image (a full name) for the --image value short when
// short is its last part, in any letter case.
func (s *Selection) shortOf(short, image string) {
	name, _ := connector.SplitImage(image)
	if i := strings.LastIndexByte(name, '/'); i >= 0 && strings.EqualFold(name[i+1:], short) {
		s.full[short][name] = true
	}
}

// consider offers a task's name to the suggestions of the names, and
// its prefixes (up to each "/") to those of the prefixes; its image to
// those of the short --image values.
func (s *Selection) consider(name, image string) {
	if len(s.near) == 0 && len(s.full) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for short := range s.full {
		s.shortOf(short, image)
	}
	for _, n := range s.Names {
		s.near["--name\x00"+n].Add(name)
	}
	for _, p := range s.Prefixes {
		near := s.near["--prefix\x00"+p]
		for i := 0; i < len(name); i++ {
			if name[i] == '/' {
				near.Add(name[:i+1])
			}
		}
	}
}

// Take reports whether the task is picked, and records the values that
// picked it.
func (s *Selection) Take(name, image string) bool {
	if s == nil {
		return true
	}
	s.consider(name, image)
	if !s.Match(name, image) {
		return false
	}
	imgName, _ := connector.SplitImage(image)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range s.Names {
		if n == name {
			s.hits["--name\x00"+n] = true
		}
	}
	for _, p := range s.Prefixes {
		if strings.HasPrefix(name, p) {
			s.hits["--prefix\x00"+p] = true
		}
	}
	for _, img := range s.Images {
		if img == imgName {
			s.hits["--image\x00"+img] = true
		}
	}
	return true
}

// Unmatched lists, as flags, the values that picked no task.
func (s *Selection) Unmatched() []string {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, v := range []struct {
		flag string
		vals []string
	}{{"--name", s.Names}, {"--prefix", s.Prefixes}, {"--image", s.Images}} {
		for _, x := range v.vals {
			if !s.hits[v.flag+"\x00"+x] {
				u := v.flag + " " + x
				if near := s.near[v.flag+"\x00"+x]; near != nil {
					if l := near.List(); len(l) > 0 {
						u += " (closest: " + strings.Join(l, ", ") + ")"
					}
				}
				if full := s.full[x]; v.flag == "--image" && len(full) > 0 {
					names := make([]string, 0, len(full))
					for n := range full {
						names = append(names, "--image "+n)
					}
					sort.Strings(names)
					u += " (images are named in full: " + strings.Join(names, ", ") + ")"
				}
				out = append(out, u)
			}
		}
	}
	return out
}

// Err is a UsageError naming the values that picked no task, nil when
// every value picked one.
func (s *Selection) Err() error {
	un := s.Unmatched()
	if len(un) == 0 {
		return nil
	}
	msg := "selects no materialization"
	if len(un) > 1 {
		msg = "select no materialization"
	}
	return &usage.Error{Msg: fmt.Sprintf("%s %s (a selector that matches nothing is an error; check the spelling, or run census without it to see the names)", strings.Join(un, ", "), msg)}
}
