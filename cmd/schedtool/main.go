// Command schedtool validates, migrates and counts the sync schedules of
// Estuary Flow materializations. This package only wires: the work is in
// validate, migrate, census and the packages below them.
package main

import (
	"os"
	"runtime/debug"

	_ "schedtool/catalog/pgsource" // postgres:// PATHs
)

// memoryLimit is the Go runtime's soft memory limit (GOMEMLIMIT) unless
// the user sets one: a stream of rows stays under 64 MiB of resident
// memory whatever its length (bench/migrate-rss.sh measures it).
const memoryLimit = 48 << 20

func main() {
	if os.Getenv("GOGC") == "" {
		// schedtool allocates short-lived trees by the million and keeps
		// little: collect less often (GOGC=400) unless the user says.
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		// But never to a heap larger than this: GOGC=400 lets the heap
		// grow to five times what is live, so a stream whose live part
		// grows a little with its rows (a million rows of dump, say)
		// would take hundreds of MiB. The limit is soft: a run that
		// truly needs more gets it, the collector working harder.
		debug.SetMemoryLimit(memoryLimit)
	}
	os.Exit(Main(os.Args[1:], Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}))
}
