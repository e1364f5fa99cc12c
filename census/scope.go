package census

import (
	"slices"
	"strings"
)

// Scope is what a census covers (docs/behaviour.md §8): the inputs as
// given (a PostgreSQL URL without its password), the containment root,
// the selectors, and the schedtool that took it. Two censuses of
// different scopes do not make one burndown.
type Scope struct {
	Inputs    []string `json:"inputs"`
	Root      string   `json:"root"`
	Names     []string `json:"names,omitempty"`
	Prefixes  []string `json:"prefixes,omitempty"`
	Images    []string `json:"images,omitempty"`
	Schedtool string   `json:"schedtool"`
}

// Same reports whether two scopes cover the same tasks: the same inputs,
// root and selectors (the schedtool version may differ).
func (s *Scope) Same(o *Scope) bool {
	return slices.Equal(s.Inputs, o.Inputs) && s.Root == o.Root && slices.Equal(s.Names, o.Names) &&
		slices.Equal(s.Prefixes, o.Prefixes) && slices.Equal(s.Images, o.Images)
}

// Describe is the scope in one line, for a page or a warning.
func (s *Scope) Describe() string {
	in := strings.Join(s.Inputs, " ")
	if in == "" {
		in = "(no inputs)"
	}
	d := "inputs " + in
	if s.Root != "" {
		d += "; root " + s.Root
	}
	for _, sel := range []struct {
		flag string
		v    []string
	}{{"--name", s.Names}, {"--prefix", s.Prefixes}, {"--image", s.Images}} {
		if len(sel.v) > 0 {
			d += "; " + sel.flag + " " + strings.Join(sel.v, ", ")
		}
	}
	if s.Schedtool != "" {
		d += "; schedtool " + s.Schedtool
	}
	return d
}
