package pgsource_test

import (
	"os/exec"
	"strings"
	"testing"
)

// pgx stays in this package (and what imports it: the command, the test
// and bench helpers): schedule/, boilerplate/ and the readers of files
// never link a database driver.
func TestDriverStaysHere(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}: {{join .Imports \" \"}}", "github.com/estuary/schedtool/...").Output()
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{"github.com/estuary/schedtool/catalog/pgsource": true, "github.com/estuary/schedtool/catalog/pgsource/pgtest": true}
	seen := 0
	for _, line := range strings.Split(string(out), "\n") {
		pkg, imports, _ := strings.Cut(line, ": ")
		if !strings.HasPrefix(pkg, "github.com/estuary/schedtool/") {
			continue
		}
		seen++
		if strings.Contains(imports, "github.com/jackc/") && !allowed[pkg] {
			t.Errorf("%s imports pgx; only catalog/pgsource may", pkg)
		}
	}
	if seen < 10 {
		t.Fatalf("go list saw %d packages of schedtool", seen)
	}
	for _, pkg := range []string{"./schedule/...", "./boilerplate/...", "./catalog", "./census", "./migrate", "./validate"} {
		out, err := exec.Command("go", "list", "-deps", "../../"+strings.TrimPrefix(pkg, "./")).Output()
		if err != nil {
			t.Fatal(pkg, err)
		}
		if strings.Contains(string(out), "github.com/jackc/") {
			t.Errorf("%s depends on pgx", pkg)
		}
	}
}
