package catalog

import (
	"strconv"
	"strings"

	"github.com/estuary/schedtool/catalog/tree"
)

// Secret is one entry of a materialization's `secrets` stanza
// (docs/behaviour.md §4.5; Flow's models::MaterializationDef): the name
// of a secret and the JSON pointer into the endpoint config where Flow
// merges its value (RFC 7396) at task start, over the stored config.
type Secret struct {
	Name    string
	Pointer string
	// Valid: Pointer is a JSON pointer ("" for the config root, else
	// starting with "/"). A stanza or pointer Flow's model refuses is
	// kept, invalid: what it would cover is unknown, so it covers all.
	Valid bool
	// NotObject: the stanza itself is not an object (Name is then "").
	NotObject bool
	Node      *tree.Node // the pointer's value, else the stanza: where findings point
}

// Describe names the secret and its pointer for a message:
// `secret acmeCo/c/snow-sched (at /syncSchedule/syncFrequency)`.
func (s Secret) Describe() string {
	switch {
	case s.NotObject:
		return "the secrets stanza (not an object of secret names to JSON pointers, which Flow refuses)"
	case !s.Valid:
		return "secret " + strconv.Quote(s.Name) + " (its pointer is not a JSON pointer, which Flow refuses)"
	case s.Pointer == "":
		return "secret " + s.Name + " (at the config root)"
	}
	return "secret " + s.Name + " (at " + s.Pointer + ")"
}

// Secrets reads the materialization's `secrets` stanza, in document
// order; nil when it has none (absent, null or empty).
func (m *Materialization) Secrets() []Secret {
	n := m.Spec.Get("secrets")
	if n.IsNull() {
		return nil
	}
	if n.Kind != tree.Object {
		return []Secret{{NotObject: true, Node: n}}
	}
	out := make([]Secret, 0, len(n.Fields))
	for _, f := range n.Fields {
		s := Secret{Name: f.Key, Node: f.Value}
		if p, ok := f.Value.Str(); ok {
			s.Pointer = p
			s.Valid = p == "" || strings.HasPrefix(p, "/")
		}
		out = append(out, s)
	}
	return out
}

// UsesSecrets reports whether the materialization has a `secrets`
// stanza with anything in it: Flow then reads its config as legitimately
// schema-invalid before the merge (docs/behaviour.md §4.5).
func (m *Materialization) UsesSecrets() bool {
	n := m.Spec.Get("secrets")
	return !n.IsNull() && (n.Kind != tree.Object || len(n.Fields) > 0)
}
