// Package testreq decides what a test does when a part from outside the
// repository is missing (a PostgreSQL server, sops, PyYAML, the real
// catalogs, chromium, pre-commit, Go 1.25): it skips with one line saying
// so, so that `go test ./...` passes in a user's clone, also under CI=true
// as GitHub sets it, unless the part's SCHEDTOOL_REQUIRE_* variable asks for
// it. .ci/run sets each variable after installing its part, so CI cannot
// pass without running those tests.
package testreq

import (
	"os"
	"testing"
)

// The variables that make a missing part a failure.
const (
	PG           = "SCHEDTOOL_REQUIRE_PG"
	Sops         = "SCHEDTOOL_REQUIRE_SOPS"
	PyYAML       = "SCHEDTOOL_REQUIRE_PYYAML"
	RealCatalogs = "SCHEDTOOL_REQUIRE_REAL_CATALOGS"
	Chromium     = "SCHEDTOOL_REQUIRE_CHROMIUM"
	PreCommit    = "SCHEDTOOL_REQUIRE_PRECOMMIT"
	Go125        = "SCHEDTOOL_REQUIRE_GO125" // the connectors' Go toolchain, go1.25.8
)

// Requested reports whether the part env names is required: set and not
// "0".
func Requested(env string) bool {
	v := os.Getenv(env)
	return v != "" && v != "0"
}

// Missing ends a test whose part is missing: it fails when env requires
// the part, and skips otherwise. why says what is missing and how to get
// it, in one line.
func Missing(t testing.TB, env, why string) {
	t.Helper()
	if Requested(env) {
		t.Fatalf("%s (%s is set, so this fails rather than skips)", why, env)
		return
	}
	t.Skipf("skipped: %s (set %s=1 to make this a failure)", why, env)
}
