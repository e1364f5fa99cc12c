// Command schedtool validates, migrates and counts the sync schedules of
// Estuary Flow materializations. This package only wires: the work is in
// validate, migrate, census and the packages below them.
package main

import (
	"os"
	"runtime/debug"
)

func main() {
	if os.Getenv("GOGC") == "" {
		// schedtool allocates short-lived trees by the million and keeps
		// little: collect less often (GOGC=400) unless the user says.
		debug.SetGCPercent(400)
	}
	os.Exit(Main(os.Args[1:], Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}))
}
