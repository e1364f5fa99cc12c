// What of a catalog or a stored spec may be shown in a review (a diff,
// Markdown, a plan, show, a report): SPEC 7 "Dry run is the default", 12.
// Shown is the one decision; every renderer asks it.

package migrate

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/estuary/schedtool/catalog/tree"
)

// Hidden is what a renderer writes in place of a value Shown refuses.
const Hidden = "<hidden>"

// Shown reports whether the scalar value v, at the JSON pointer tokens
// toks from a materialization spec's root, may appear in any output a
// person reviews. A config's values are under endpoint/connector/config
// (a config file's root is there): only its schedule may be shown (the
// connector's syncSchedule, a file sink's interval, advanced.updateDelay,
// and the same under sops.overlay). No ciphertext, sops MAC or data key
// is shown anywhere, whatever its place.
func Shown(toks []string, v string) bool {
	if Secretish(v) {
		return false
	}
	rest, ok := inConfig(toks)
	if !ok || len(rest) == 0 {
		return true // outside a config, or a config that names its file
	}
	if len(rest) > 0 && strings.EqualFold(rest[0], "sops") {
		if len(rest) < 2 || rest[1] != "overlay" {
			return false // the MAC, data keys, recipients, dates
		}
		rest = rest[2:]
	}
	return scheduleLeaf(rest)
}

// Secretish reports whether a value reads as sops ciphertext or an
// encrypted data key, which are never shown.
func Secretish(v string) bool {
	return strings.Contains(v, "ENC[") || strings.Contains(v, "-----BEGIN ")
}

// inConfig gives the tokens below a connector config (endpoint/connector
// /config, endpoint/local/config), ok when toks are inside one.
func inConfig(toks []string) (rest []string, ok bool) {
	if len(toks) >= 3 && toks[0] == "endpoint" && (toks[1] == "connector" || toks[1] == "local") && toks[2] == "config" {
		return toks[3:], true
	}
	return nil, false
}

// scheduleLeaf: a config's schedule, keys matched without regard to case
// as the connectors' Go decoding does.
func scheduleLeaf(rest []string) bool {
	if len(rest) == 0 {
		return false
	}
	switch {
	case strings.EqualFold(rest[0], "syncSchedule"), strings.EqualFold(rest[0], "uploadInterval"), strings.EqualFold(rest[0], "upload_interval"):
		return true
	case strings.EqualFold(rest[0], "advanced"):
		return len(rest) >= 2 && strings.EqualFold(rest[1], "updateDelay")
	}
	return false
}

// catalogKeys are the top-level keys of a catalog source.
var catalogKeys = []string{"materializations", "captures", "collections", "import", "tests", "storageMappings"}

// specTokens maps a node of a catalog file to tokens from the spec root
// Shown judges: a catalog source's materializations and captures (their
// configs), or a config file of its own (its root is a config). ok is
// false for the parts of a catalog source that are no task's spec.
func specTokens(root *tree.Node, toks []string) []string {
	source := false
	if root != nil && root.Kind == tree.Object {
		for _, k := range catalogKeys {
			if root.Get(k) != nil {
				source = true
				break
			}
		}
	}
	if !source {
		return append([]string{"endpoint", "connector", "config"}, toks...)
	}
	if len(toks) >= 2 && (toks[0] == "materializations" || toks[0] == "captures") {
		return toks[2:]
	}
	return nil
}

// HiddenLines marks the lines of a catalog file (a source or a config
// file, YAML or JSON) that hold a value Shown refuses; nil when none does
// or the file cannot be parsed, in which case every line is judged by its
// text alone (Secretish).
func HiddenLines(name string, src []byte) []bool {
	starts := lineStarts(src)
	hide := make([]bool, len(starts))
	lineOf := func(off int) int {
		lo, hi := 0, len(starts)
		for lo < hi {
			m := (lo + hi) / 2
			if starts[m] > off {
				hi = m
			} else {
				lo = m + 1
			}
		}
		return lo - 1
	}
	lineText := func(l int) []byte {
		e := len(src)
		if l+1 < len(starts) {
			e = starts[l+1]
		}
		return src[starts[l]:e]
	}
	any := false
	hideLine := func(l int) {
		if l >= 0 && l < len(hide) {
			hide[l] = true
			any = true
		}
	}
	doc, err := tree.Parse(name, src, tree.DefaultLimits)
	if err == nil && doc.Root != nil {
		// keyAt is where the key of an object's value is (-1 for an
		// array item): a YAML value's continuation lines are indented
		// deeper than its key.
		var walk func(n *tree.Node, toks []string, keyAt int)
		walk = func(n *tree.Node, toks []string, keyAt int) {
			switch n.Kind {
			case tree.Object:
				for _, f := range n.Fields {
					walk(f.Value, append(toks[:len(toks):len(toks)], f.Key), f.KeyOffset)
				}
			case tree.Array:
				for i, it := range n.Items {
					walk(it, append(toks[:len(toks):len(toks)], strconv.Itoa(i)), -1)
				}
			default:
				if n.Offset < 0 || Shown(specTokens(doc.Root, toks), n.Value) {
					return
				}
				first := lineOf(n.Offset)
				hideLine(first)
				if n.End > n.Offset { // JSON: the value's bytes
					for l := first + 1; l < len(starts) && starts[l] < n.End; l++ {
						hideLine(l)
					}
					return
				}
				// YAML gives no end: a scalar goes on over the lines
				// indented deeper than its first (a block scalar, a
				// folded plain or quoted one), blank lines included.
				in := indent(lineText(first))
				if keyAt >= starts[first] {
					in = keyAt - starts[first]
				}
				for l := first + 1; l < len(starts); l++ {
					t := lineText(l)
					if len(bytes.TrimSpace(t)) > 0 && indent(t) <= in {
						break
					}
					hideLine(l)
				}
			}
		}
		walk(doc.Root, nil, -1)
	}
	// Whatever the parse saw or missed: ciphertext on a line hides it.
	for l := range starts {
		if Secretish(string(lineText(l))) {
			hideLine(l)
		}
	}
	if !any {
		return nil
	}
	return hide
}

// indent is a line's leading spaces and tabs.
func indent(l []byte) int { return len(l) - len(bytes.TrimLeft(l, " \t")) }
