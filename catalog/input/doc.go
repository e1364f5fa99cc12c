// Package input finds a run's inputs: Resolve turns PATHs into catalog
// sources (the one walk of a directory, sources told by name or by
// content), stored-spec dumps, flowctl raw get arrays, standard input and
// database URLs, each with its containment root.
package input
