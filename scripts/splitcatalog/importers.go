package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// importers rewrites every Go file of the module that imports catalog:
// a name that moved is named in its new package, whose import is added;
// catalog's import goes when nothing else of it is used.
func (s *splitter) importers() error {
	catPath := catalogPkg.importPath()
	return filepath.WalkDir(s.root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(s.root, path)
		if d.IsDir() {
			if rel == "." {
				return nil
			}
			base := d.Name()
			if strings.HasPrefix(base, ".") || base == "testdata" || base == "vendor" || rel == "catalog" && false {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || filepath.Dir(rel) == "catalog" {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !bytes.Contains(src, []byte(strconv.Quote(catPath))) {
			return nil
		}
		out, changed, err := s.rewriteImporter(rel, src)
		if err != nil {
			return fmt.Errorf("%s: %v", rel, err)
		}
		if changed {
			s.rewritten = append(s.rewritten, rewrite{rel, out})
		}
		return nil
	})
}

func (s *splitter) rewriteImporter(rel string, src []byte) ([]byte, bool, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, rel, src, parser.ParseComments)
	if err != nil {
		return nil, false, err
	}
	tf := fset.File(f.Pos())
	own := pkgDest{filepath.Dir(rel), f.Name.Name}
	var catSpec *ast.ImportSpec
	local := map[string]string{} // import path -> name used
	for _, im := range f.Imports {
		ip, _ := strconv.Unquote(im.Path.Value)
		name := lastElem(ip)
		if im.Name != nil {
			name = im.Name.Name
		}
		local[ip] = name
		if ip == catalogPkg.importPath() {
			catSpec = im
		}
	}
	if catSpec == nil {
		return nil, false, nil
	}
	L := local[catalogPkg.importPath()]
	if L == "_" || L == "." {
		return nil, false, fmt.Errorf("imports catalog as %s", L)
	}
	// Names the file uses for anything but an import.
	used := map[string]bool{}
	sels := map[*ast.Ident]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if se, ok := n.(*ast.SelectorExpr); ok {
			sels[se.Sel] = true
			if id, ok := se.X.(*ast.Ident); ok && id.Obj == nil {
				for _, name := range local {
					if name == id.Name {
						sels[id] = true
					}
				}
			}
		}
		return true
	})
	for _, im := range f.Imports {
		if im.Name != nil {
			sels[im.Name] = true
		}
	}
	sels[f.Name] = true
	ast.Inspect(f, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && !sels[id] {
			used[id.Name] = true
		}
		return true
	})
	added := map[string]string{} // import path -> alias ("" for its name)
	qual := func(pkg pkgDest) string {
		if pkg == own {
			return ""
		}
		if n, ok := local[pkg.importPath()]; ok {
			return n + "."
		}
		if a, ok := added[pkg.importPath()]; ok {
			if a == "" {
				a = pkg.name
			}
			return a + "."
		}
		a := pkg.name
		if used[a] || local[a] != "" || a == L {
			a = "cat" + pkg.name
			if pkg == pathsPkg {
				a = "ipaths"
			}
			added[pkg.importPath()] = a
		} else {
			added[pkg.importPath()] = ""
		}
		return a + "."
	}
	var edits []edit
	remaining := 0
	ast.Inspect(f, func(n ast.Node) bool {
		se, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := se.X.(*ast.Ident)
		if !ok || id.Name != L || id.Obj != nil {
			return true
		}
		start, end := tf.Offset(se.Pos()), tf.Offset(se.End())
		name := se.Sel.Name
		if target, ok := inlined[name]; ok {
			edits = append(edits, edit{start, end, qual(pathsPkg) + target})
			return true
		}
		obj := s.p.pkg.Scope().Lookup(name)
		if obj == nil {
			remaining++
			return true
		}
		def := s.declAt(obj.Pos())
		if def == nil || def.to.pkg == catalogPkg {
			remaining++
			return true
		}
		if n, ok := s.names[obj]; ok {
			name = n
		}
		edits = append(edits, edit{start, end, qual(def.to.pkg) + name})
		return true
	})
	if len(edits) == 0 {
		return nil, false, nil
	}
	// The imports: beside catalog's, which goes when unused.
	var ips []string
	for ip := range added {
		ips = append(ips, ip)
	}
	sort.Strings(ips)
	var specs []string
	if remaining > 0 {
		specs = append(specs, string(src[tf.Offset(catSpec.Pos()):tf.Offset(catSpec.End())]))
	}
	for _, ip := range ips {
		if added[ip] != "" {
			specs = append(specs, fmt.Sprintf("%s %q", added[ip], ip))
		} else {
			specs = append(specs, strconv.Quote(ip))
		}
	}
	repl := strings.Join(specs, "\n\t")
	if len(specs) > 1 && !importParen(f, catSpec) {
		repl = "(\n\t" + repl + "\n)"
	}
	edits = append(edits, edit{tf.Offset(catSpec.Pos()), tf.Offset(catSpec.End()), repl})
	sort.Slice(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	out := applyEdits(src, 0, edits)
	b, err := format.Source([]byte(out))
	if err != nil {
		return nil, false, fmt.Errorf("%v\n%s", err, out)
	}
	return b, true, nil
}

// importParen reports whether spec is in a parenthesized import.
func importParen(f *ast.File, spec *ast.ImportSpec) bool {
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
			for _, sp := range g.Specs {
				if sp == spec {
					return g.Lparen.IsValid()
				}
			}
		}
	}
	return true
}
