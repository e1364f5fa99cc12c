// Package arch holds the architecture test and nothing else: the layers
// of docs/design.md ("Layers"), read from that table, checked against the
// imports of every Go file of the module (go/parser over the tree: every
// build tag, no dependency beyond the standard library).
package arch
