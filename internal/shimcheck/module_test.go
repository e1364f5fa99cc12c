package shimcheck

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	schedshim "github.com/estuary/schedtool/boilerplate"
	"github.com/estuary/schedtool/internal/testreq"
)

// toolchain is the connectors' Go: their images build FROM golang:1.25.
const toolchain = "go1.25.8"

// shimDir is the shim's module directory.
func shimDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../../boilerplate")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// goCmd runs go in dir, outside any workspace, with env added.
func goCmd(t *testing.T, dir string, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod"), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// go125 is the environment that runs Go 1.25, or the test ends (skips with
// one line, or fails under SCHEDTOOL_REQUIRE_GO125) when that toolchain
// cannot be had (the Go module proxy serves it).
func go125(t *testing.T) []string {
	t.Helper()
	env := []string{"GOTOOLCHAIN=" + toolchain}
	out, err := goCmd(t, t.TempDir(), env, "env", "GOVERSION")
	if err != nil || strings.TrimSpace(out) != toolchain {
		testreq.Missing(t, testreq.Go125, "the Go toolchain "+toolchain+" cannot be had (GOTOOLCHAIN="+toolchain+" go env GOVERSION: "+lastLine(out)+")")
	}
	// Downloaded now, so nothing below reaches the network.
	return append(env, "GOPROXY=off")
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndex(s, "\n")+1:]
}

// An outside module, as a connector's is (go 1.25.0), requires the shim
// (through a replace to this directory, as it is not published yet): its
// build list gains the shim and nothing else, go mod tidy adds no other
// requirement, and it builds and vets with Go 1.25.
func TestOutsideModuleRequiresShimAlone(t *testing.T) {
	env := go125(t)
	dir := t.TempDir()
	gomod := "module example.com/connector\n\ngo 1.25.0\n\n" +
		"require github.com/estuary/schedtool/boilerplate v0.0.0-00010101000000-000000000000\n\n" +
		"replace github.com/estuary/schedtool/boilerplate => " + shimDir(t) + "\n"
	write(t, filepath.Join(dir, "go.mod"), gomod)
	write(t, filepath.Join(dir, "main.go"), `package main

import (
	"fmt"

	schedshim "github.com/estuary/schedtool/boilerplate"
)

func main() {
	fmt.Println(schedshim.RuntimePaces([]byte("{}"), "true"), len(schedshim.DecisionTable()))
}
`)

	out, err := goCmd(t, dir, env, "list", "-m", "-f", "{{.Path}}", "all")
	if err != nil {
		t.Fatalf("go list -m all: %v\n%s", err, out)
	}
	if got := strings.Fields(out); strings.Join(got, " ") != "example.com/connector github.com/estuary/schedtool/boilerplate" {
		t.Errorf("the build list is %q, want the module and the shim alone", got)
	}
	for _, args := range [][]string{{"mod", "tidy"}, {"build", "./..."}, {"vet", "./..."}} {
		if out, err := goCmd(t, dir, env, args...); err != nil {
			t.Fatalf("go %s with %s: %v\n%s", strings.Join(args, " "), toolchain, err, out)
		}
	}
	out, err = goCmd(t, dir, env, "run", ".")
	if want := fmt.Sprintf("true %d\n", len(schedshim.DecisionTable())); err != nil || out != want {
		t.Errorf("go run . with %s: %v\n%s\nwant %q", toolchain, err, out, want)
	}
	tidied, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if string(tidied) != gomod {
		t.Errorf("go mod tidy changed go.mod:\n%s\nwas:\n%s", tidied, gomod)
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The command builds without the shim: `go install
// github.com/estuary/schedtool/cmd/schedtool@latest` reads the main
// module alone (no go.work, no replace), so no package of it but a test
// may import the shim.
func TestMainModuleBuildsWithoutShim(t *testing.T) {
	out, err := goCmd(t, "../..", []string{"GOFLAGS=-mod=readonly", "GOPROXY=off"}, "list", "-deps", "-f", "{{.ImportPath}}", "./...")
	if err != nil {
		t.Fatalf("GOWORK=off go list -deps ./...: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(out) {
		if strings.HasPrefix(pkg, "github.com/estuary/schedtool/boilerplate") {
			t.Errorf("a package of the main module imports %s: only tests may", pkg)
		}
	}
}
