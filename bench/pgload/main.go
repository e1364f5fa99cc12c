// Command pgload makes a throwaway control-plane database on the server of
// $SCHEDTOOL_TEST_PG (scripts/pg-test-cluster starts one), loads a
// live_specs dump into it, and prints the database's NAME and the URL of
// a role that reads it (BYPASSRLS), on one line, for the benchmark:
//
//	go run ./bench/pgload < dump.ndjson        # prints NAME postgres://...
//	go run ./bench/pgload -drop NAME           # drops it again
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/estuary/schedtool/catalog/pgsource/pgtest"
)

func main() {
	drop := flag.String("drop", "", "drop the database of this name (and its roles)")
	flag.Parse()
	ctx := context.Background()
	if err := run(ctx, *drop); err != nil {
		fmt.Fprintln(os.Stderr, "pgload:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, drop string) error {
	super := os.Getenv(pgtest.EnvVar)
	if super == "" {
		return pgtest.ErrNoServer
	}
	if drop != "" {
		return pgtest.Open(super, drop).Drop(ctx)
	}
	db, err := pgtest.Create(ctx, super)
	if err != nil {
		return err
	}
	n, err := db.Load(ctx, os.Stdin)
	if err != nil {
		db.Drop(ctx)
		return err
	}
	fmt.Fprintf(os.Stderr, "pgload: %d rows into database %s\n", n, db.Name)
	fmt.Printf("%s %s\n", db.Name, db.BypassURL)
	return nil
}
