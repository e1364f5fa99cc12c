package arch

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the longest a function of the module's own code may be
// (tests aside): one concern a function, read in one screen or two.
const maxFuncLines = 120

// TestFuncLength fails naming every function of the module's non-test
// code longer than maxFuncLines, counted from its func line to its
// closing brace.
func TestFuncLength(t *testing.T) {
	for _, p := range longFuncs(t, filepath.Join("..", "..")) {
		t.Error(p)
	}
}

// TestFuncLengthFail shows the check can fail on a long function, and
// leaves a long test alone.
func TestFuncLengthFail(t *testing.T) {
	root := t.TempDir()
	body := "func f() {\n" + strings.Repeat("\t_ = 1\n", maxFuncLines-1) + "}\n"
	for name, text := range map[string]string{"a/a.go": "package a\n\n" + body, "a/a_test.go": "package a\n\nfunc g() {\n" + strings.Repeat("\t_ = 1\n", 2*maxFuncLines) + "}\n"} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := longFuncs(t, root)
	if want := fmt.Sprintf("a/a.go:3: f is %d lines, over %d", maxFuncLines+1, maxFuncLines); len(got) != 1 || got[0] != want {
		t.Errorf("got %q, want [%q]", got, want)
	}
}

func longFuncs(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			from, to := fset.Position(fn.Pos()).Line, fset.Position(fn.End()).Line
			if n := to - from + 1; n > maxFuncLines {
				out = append(out, fmt.Sprintf("%s:%d: %s is %d lines, over %d", filepath.ToSlash(rel), from, fn.Name.Name, n, maxFuncLines))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
