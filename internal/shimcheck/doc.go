// Package shimcheck holds the main module's tests of the connectors' shim,
// github.com/estuary/schedtool/boilerplate, a module of its own nested in
// this repository (docs/behaviour.md §6): a connector's module can
// require it with Go 1.25 and gains no other requirement. Only test files
// of the main module import the shim: `go install
// github.com/estuary/schedtool/cmd/schedtool@latest` ignores go.work, so
// the command must build without it.
package shimcheck
