// Command schedtool validates, migrates and counts the sync schedules of
// Estuary Flow materializations. This package only wires: the work is in
// validate, migrate, census and the packages below them.
package main

import (
	"os"
)

func main() {
	os.Exit(Main(os.Args[1:], Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}))
}
