package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// pkgInfo is one package of the tree, parsed and type-checked with its
// in-package tests.
type pkgInfo struct {
	dir   string // relative to the tree's root
	path  string // import path
	fset  *token.FileSet
	files map[string]*ast.File // by relative file path
	src   map[string][]byte
	info  *types.Info
	pkg   *types.Package
}

// exports maps import paths to their export data, from go list.
func exports(root string, pkgs ...string) (map[string]string, error) {
	args := append([]string{"list", "-e", "-export", "-deps", "-test", "-json=ImportPath,Export"}, pkgs...)
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v", err)
	}
	m := map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct{ ImportPath, Export string }
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		if p.Export != "" {
			m[p.ImportPath] = p.Export
		}
	}
	return m, nil
}

// load parses and type-checks the package in dir (its Go files and its
// in-package tests).
func load(root, module, dir string) (*pkgInfo, error) {
	exp, err := exports(root, "./"+dir)
	if err != nil {
		return nil, err
	}
	p := &pkgInfo{dir: dir, path: module + "/" + dir, fset: token.NewFileSet(), files: map[string]*ast.File{}, src: map[string][]byte{}}
	ents, err := os.ReadDir(filepath.Join(root, dir))
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		rel := filepath.Join(dir, e.Name())
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(p.fset, rel, b, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		if strings.HasSuffix(f.Name.Name, "_test") {
			continue // an external test package: a consumer
		}
		p.files[rel] = f
		p.src[rel] = b
		files = append(files, f)
	}
	sort.Slice(files, func(i, j int) bool { return p.fset.File(files[i].Pos()).Name() < p.fset.File(files[j].Pos()).Name() })
	lookup := func(path string) (io.ReadCloser, error) {
		f, ok := exp[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	}
	conf := types.Config{Importer: importer.ForCompiler(p.fset, "gc", lookup)}
	p.info = &types.Info{Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	p.pkg, err = conf.Check(p.path, p.fset, files, p.info)
	if err != nil {
		return nil, fmt.Errorf("type-checking %s: %v", dir, err)
	}
	return p, nil
}

// fileOf is the relative file an object of p is declared in ("" when
// elsewhere).
func (p *pkgInfo) fileOf(obj types.Object) string {
	if obj == nil || obj.Pkg() != p.pkg || !obj.Pos().IsValid() {
		return ""
	}
	return p.fset.Position(obj.Pos()).Filename
}
