// Command gendump writes the deterministic benchmark dump:
//
//	go run ./bench/gendump -rows 200000 > dump.ndjson
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/estuary/schedtool/bench/gen"
)

func main() {
	rows := flag.Int("rows", 200000, "rows to write")
	seed := flag.Uint64("seed", 1, "generator seed")
	flag.Parse()
	if err := gen.Write(os.Stdout, *rows, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "gendump:", err)
		os.Exit(1)
	}
}
