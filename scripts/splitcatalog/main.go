// Command splitcatalog splits catalog/ into packages by concern, as
// plan.go says, on whatever tree it is run on: it moves declarations (with
// their comments) between files and packages, qualifies and exports the
// names a move makes cross a package, rewrites every importer of catalog,
// moves fuzz corpora, writes the new packages' docs and updates
// docs/design.md's package table. scripts/split-catalog runs it, then
// builds and vets the tree.
//
//	splitcatalog ROOT
package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: splitcatalog ROOT")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "splitcatalog:", err)
		os.Exit(1)
	}
}

// decl is one top-level declaration of catalog/ and where it goes.
type decl struct {
	file       string // relative source file
	node       ast.Decl
	start, end int // byte range in the source: leading comments and blank lines to the end of its line
	names      []string
	to         dest
}

// edit replaces a byte range of a source file.
type edit struct {
	start, end int
	text       string
}

type splitter struct {
	root  string
	p     *pkgInfo
	decls []*decl
	byPos []*decl // sorted by file, start
	// exported are the objects of catalog a move makes another package
	// use, by their new names.
	names map[types.Object]string
	edits map[string][]edit // by source file
	// out are the assembled files, by relative path: their imports and
	// chunks.
	out map[string]*outFile
	// topNames are the top-level names of each destination package.
	topNames map[pkgDest]map[string]types.Object
	// rewritten are the importers of catalog, rewritten.
	rewritten []rewrite
}

type rewrite struct {
	path string
	src  []byte
}

type outFile struct {
	pkg     pkgDest
	header  string            // comments before the package clause
	imports map[string]string // path -> name ("" for the default)
	chunks  []string
}

func run(root string) error {
	if _, err := os.Stat(filepath.Join(root, "catalog", "resolve.go")); err != nil {
		return fmt.Errorf("%s: no catalog/resolve.go: already split, or not schedtool's tree", root)
	}
	p, err := load(root, module, "catalog")
	if err != nil {
		return err
	}
	s := &splitter{root: root, p: p, names: map[types.Object]string{}, edits: map[string][]edit{}, out: map[string]*outFile{}}
	if err := s.collect(); err != nil {
		return err
	}
	if err := s.rename(); err != nil {
		return err
	}
	if err := s.assemble(); err != nil {
		return err
	}
	if err := s.importers(); err != nil {
		return err
	}
	if err := s.write(); err != nil {
		return err
	}
	return s.docs()
}

// collect lists catalog's top-level declarations with their
// destinations.
func (s *splitter) collect() error {
	var files []string
	for f := range s.p.files {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, rel := range files {
		f := s.p.files[rel]
		src := s.p.src[rel]
		tf := s.p.fset.File(f.Pos())
		base := filepath.Base(rel)
		home, ok := fileMoves[base]
		if !ok {
			home = dest{catalogPkg, base}
		}
		prev := 0
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
				prev = tf.Offset(g.End())
				continue
			}
			if prev == 0 {
				prev = tf.Offset(f.Name.End())
			}
			end := lineEnd(src, tf.Offset(d.End()))
			dd := &decl{file: rel, node: d, start: prev, end: end, names: declNames(d), to: home}
			for _, n := range dd.names {
				if to, ok := declMoves[n]; ok {
					dd.to = to
				}
			}
			prev = end
			s.decls = append(s.decls, dd)
		}
	}
	// A method goes with its receiver's type.
	types := map[string]*decl{}
	for _, d := range s.decls {
		if g, ok := d.node.(*ast.GenDecl); ok && g.Tok == token.TYPE {
			for _, n := range d.names {
				types[n] = d
			}
		}
	}
	for _, d := range s.decls {
		if fd, ok := d.node.(*ast.FuncDecl); ok && fd.Recv != nil {
			t := recvType(fd)
			td := types[t]
			if td == nil {
				return fmt.Errorf("%s: method %s.%s of an unknown type", d.file, t, fd.Name.Name)
			}
			// In its own file when that goes to the type's package,
			// else beside the type.
			if d.to.pkg != td.to.pkg {
				d.to.pkg = td.to.pkg
				if !strings.HasSuffix(d.file, "_test.go") {
					d.to.file = td.to.file
				}
			}
		}
	}
	// Tests stay tests.
	for _, d := range s.decls {
		if strings.HasSuffix(d.file, "_test.go") && !strings.HasSuffix(d.to.file, "_test.go") {
			return fmt.Errorf("%s: %v would leave a test file for %s", d.file, d.names, d.to.file)
		}
		if !strings.HasSuffix(d.file, "_test.go") && (strings.HasSuffix(d.to.file, "_test.go") || d.to.pkg.name == catalogTest.name) {
			return fmt.Errorf("%s: %v would go into a test file", d.file, d.names)
		}
	}
	s.byPos = append([]*decl(nil), s.decls...)
	return nil
}

func declNames(d ast.Decl) []string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv != nil {
			return []string{recvType(d) + "." + d.Name.Name}
		}
		return []string{d.Name.Name}
	case *ast.GenDecl:
		var ns []string
		for _, sp := range d.Specs {
			switch sp := sp.(type) {
			case *ast.TypeSpec:
				ns = append(ns, sp.Name.Name)
			case *ast.ValueSpec:
				for _, n := range sp.Names {
					ns = append(ns, n.Name)
				}
			}
		}
		return ns
	}
	return nil
}

func recvType(fd *ast.FuncDecl) string {
	t := fd.Recv.List[0].Type
	if st, ok := t.(*ast.StarExpr); ok {
		t = st.X
	}
	switch t := t.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.IndexExpr:
		return t.X.(*ast.Ident).Name
	case *ast.IndexListExpr:
		return t.X.(*ast.Ident).Name
	}
	return "?"
}

// lineEnd is the offset just past the end of the line holding off (its
// trailing comment and newline included).
func lineEnd(src []byte, off int) int {
	i := bytes.IndexByte(src[off:], '\n')
	if i < 0 {
		return len(src)
	}
	return off + i + 1
}

// declAt is the declaration holding a position of catalog/.
func (s *splitter) declAt(pos token.Pos) *decl {
	position := s.p.fset.Position(pos)
	for _, d := range s.decls {
		if d.file == position.Filename && d.start <= position.Offset && position.Offset < d.end {
			return d
		}
	}
	return nil
}

// rename decides every object's new name and qualifier, and records the
// edits of catalog's sources.
func (s *splitter) rename() error {
	// Which objects another package uses.
	type use struct {
		id  *ast.Ident
		obj types.Object
		at  *decl
	}
	var uses []use
	crossing := map[types.Object]bool{}
	home := map[types.Object]*decl{}
	for id, obj := range s.p.info.Uses {
		if obj == nil || obj.Pkg() != s.p.pkg || !obj.Pos().IsValid() {
			continue
		}
		at, def := s.declAt(id.Pos()), s.declAt(obj.Pos())
		if at == nil || def == nil {
			continue // the package clause, say
		}
		home[obj] = def
		uses = append(uses, use{id, obj, at})
		if at.to.pkg != def.to.pkg {
			crossing[obj] = true
		}
	}
	for id, obj := range s.p.info.Defs {
		if obj == nil || id.Name == "_" {
			continue
		}
		if _, embedded := s.p.info.Uses[id]; embedded {
			continue // an embedded field: named by its type
		}
		if def := s.declAt(obj.Pos()); def != nil {
			home[obj] = def
			uses = append(uses, use{id, obj, def})
		}
	}
	// New names: renames first, then exported where a use crosses.
	for obj := range home {
		n := obj.Name()
		if obj.Parent() == s.p.pkg.Scope() {
			if r, ok := renames[n]; ok {
				s.names[obj] = r
				continue
			}
		}
		if crossing[obj] && !token.IsExported(n) {
			if r, ok := renames[n]; ok {
				s.names[obj] = r
			} else {
				s.names[obj] = string(unicode.ToUpper(rune(n[0]))) + n[1:]
			}
		}
	}
	// Clashes in the destination packages.
	if err := s.clashes(home); err != nil {
		return err
	}
	// An interface's methods renamed only with every method of that
	// name: a method raised must be raised everywhere.
	raised := map[string]string{}
	for obj, n := range s.names {
		if f, ok := obj.(*types.Func); ok && f.Type().(*types.Signature).Recv() != nil {
			raised[obj.Name()] = n
		}
	}
	for obj := range home {
		if f, ok := obj.(*types.Func); ok && f.Type().(*types.Signature).Recv() != nil {
			if n, ok := raised[obj.Name()]; ok {
				s.names[obj] = n
			}
		}
	}
	for _, u := range uses {
		def := home[u.obj]
		name := u.obj.Name()
		if n, ok := s.names[u.obj]; ok {
			name = n
		}
		pkgLevel := u.obj.Parent() == s.p.pkg.Scope()
		tf := s.p.fset.File(u.id.Pos())
		start, end := tf.Offset(u.id.Pos()), tf.Offset(u.id.End())
		if pkgLevel {
			if target, ok := inlined[u.obj.Name()]; ok {
				if s.p.info.Defs[u.id] == u.obj {
					continue // the alias's own declaration: dropped
				}
				s.edits[u.at.file] = append(s.edits[u.at.file], edit{start, end, s.qualify(u.at, pathsPkg) + target})
				continue
			}
			if u.at.to.pkg != def.to.pkg && s.p.info.Defs[u.id] != u.obj {
				s.edits[u.at.file] = append(s.edits[u.at.file], edit{start, end, s.qualify(u.at, def.to.pkg) + name})
				continue
			}
		}
		if name != u.obj.Name() {
			s.edits[u.at.file] = append(s.edits[u.at.file], edit{start, end, name})
		}
	}
	// A renamed declaration's doc comment starts with its new name.
	for _, d := range s.decls {
		for _, cg := range docsOf(d.node) {
			first := cg.List[0]
			for obj, n := range s.names {
				if home[obj] != d || obj.Name() == n || !strings.HasPrefix(first.Text, "// "+obj.Name()+" ") {
					continue
				}
				if f, ok := obj.(*types.Func); ok && f.Type().(*types.Signature).Recv() != nil {
					if fd, ok := d.node.(*ast.FuncDecl); !ok || fd.Doc != cg {
						continue
					}
				}
				tf := s.p.fset.File(first.Pos())
				off := tf.Offset(first.Pos()) + 3
				s.edits[d.file] = append(s.edits[d.file], edit{off, off + len(obj.Name()), n})
			}
		}
	}
	// A package's own name unqualified in code that moves into it.
	for id, obj := range s.p.info.Uses {
		pn, ok := obj.(*types.PkgName)
		if !ok {
			continue
		}
		at := s.declAt(id.Pos())
		if at == nil || at.to.pkg.importPath() != pn.Imported().Path() || strings.HasSuffix(at.to.pkg.name, "_test") {
			continue
		}
		tf := s.p.fset.File(id.Pos())
		start := tf.Offset(id.Pos())
		end := tf.Offset(id.End())
		if src := s.p.src[at.file]; end < len(src) && src[end] == '.' {
			s.edits[at.file] = append(s.edits[at.file], edit{start, end + 1, ""})
		}
	}
	// Relative paths in tests that go deeper.
	for _, d := range s.decls {
		extra := strings.Count(d.to.pkg.dir, "/")
		if extra == 0 || !strings.HasSuffix(d.file, "_test.go") {
			continue
		}
		tf := s.p.fset.File(d.node.Pos())
		ast.Inspect(d.node, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && strings.HasPrefix(lit.Value, `"../`) && s.exists(lit.Value) {
				off := tf.Offset(lit.Pos()) + 1
				s.edits[d.file] = append(s.edits[d.file], edit{off, off, strings.Repeat("../", extra)})
			}
			return true
		})
	}
	return nil
}

// qualify is the qualifier of a name of pkg in code going to at's
// destination ("" within pkg), and notes the import.
func (s *splitter) qualify(at *decl, pkg pkgDest) string {
	if at.to.pkg == pkg {
		return ""
	}
	return s.alias(at.to, pkg) + "."
}

// aliases are the names a destination file imports a moved package by.
var aliases = map[dest]map[string]string{}

// alias is the name dst imports pkg by: its own, unless dst's code has
// another use of that name.
func (s *splitter) alias(dst dest, pkg pkgDest) string {
	if aliases[dst] == nil {
		aliases[dst] = map[string]string{}
	}
	if a, ok := aliases[dst][pkg.importPath()]; ok {
		return a
	}
	a := pkg.name
	if s.nameUsed(dst, a, pkg.importPath()) {
		a = "cat" + pkg.name
		if pkg == pathsPkg {
			a = "ipaths"
		}
	}
	aliases[dst][pkg.importPath()] = a
	return a
}

// nameUsed reports whether the code going to dst uses name for anything
// but the package of path.
func (s *splitter) nameUsed(dst dest, name, path string) bool {
	for _, d := range s.decls {
		if d.to != dst {
			continue
		}
		used := false
		ast.Inspect(d.node, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok || id.Name != name {
				return true
			}
			obj := s.p.info.Uses[id]
			if obj == nil {
				obj = s.p.info.Defs[id]
			}
			if pn, ok := obj.(*types.PkgName); ok && pn.Imported().Path() == path {
				return true
			}
			used = true
			return false
		})
		if used {
			return true
		}
	}
	return false
}

// clashes fails when a name would be declared twice in a destination
// package.
func (s *splitter) clashes(home map[types.Object]*decl) error {
	s.topNames = map[pkgDest]map[string]types.Object{}
	seen := map[pkgDest]map[string]string{}
	add := func(pkg pkgDest, name, where string) error {
		if seen[pkg] == nil {
			seen[pkg] = map[string]string{}
		}
		if w, ok := seen[pkg][name]; ok && w != where {
			return fmt.Errorf("%s would be declared twice in %s: %s and %s (add a rename to plan.go)", name, pkg.dir, w, where)
		}
		seen[pkg][name] = where
		return nil
	}
	for _, obj := range s.p.pkg.Scope().Names() {
		o := s.p.pkg.Scope().Lookup(obj)
		d := home[o]
		if d == nil {
			d = s.declAt(o.Pos())
		}
		if d == nil {
			continue
		}
		if _, ok := inlined[o.Name()]; ok {
			continue
		}
		name := o.Name()
		if n, ok := s.names[o]; ok {
			name = n
		}
		pkg := d.to.pkg
		if pkg == catalogTest {
			pkg = catalogPkg // one scope with its package's tests
		}
		if err := add(pkg, name, "catalog/"+filepath.Base(d.file)); err != nil {
			return err
		}
	}
	// The destination packages' own names.
	for _, pkg := range []pkgDest{pathsPkg, migratePkg, treePkg} {
		names, err := topLevel(filepath.Join(s.root, pkg.dir))
		if err != nil {
			return err
		}
		for n, f := range names {
			if err := add(pkg, n, f); err != nil {
				return err
			}
		}
	}
	return nil
}

// topLevel are the top-level names of the package (and its in-package
// tests) in dir, with their files.
func topLevel(dir string) (map[string]string, error) {
	fset := token.NewFileSet()
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		if strings.HasSuffix(f.Name.Name, "_test") {
			continue
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil {
				continue
			}
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
				continue
			}
			for _, n := range declNames(d) {
				if n != "_" && n != "init" {
					out[n] = filepath.Join(filepath.Base(dir), e.Name())
				}
			}
		}
	}
	return out, nil
}

// assemble builds the destination files from the declarations' edited
// text.
func (s *splitter) assemble() error {
	for _, d := range s.decls {
		if d.isInlined() {
			continue
		}
		src := s.p.src[d.file]
		text := applyEdits(src[d.start:d.end], d.start, s.edits[d.file])
		path := filepath.Join(d.to.pkg.dir, d.to.file)
		of := s.out[path]
		if of == nil {
			if _, err := os.Stat(filepath.Join(s.root, path)); err == nil && filepath.Dir(path) != "catalog" {
				return fmt.Errorf("%s: %v would go into a file there already (name a new one in plan.go)", path, d.names)
			}
			of = &outFile{pkg: d.to.pkg, imports: map[string]string{}}
			s.out[path] = of
		}
		if of.pkg != d.to.pkg {
			return fmt.Errorf("%s: both package %s and %s", path, of.pkg.name, d.to.pkg.name)
		}
		// The file's imports, and those its names now need.
		f := s.p.files[d.file]
		for _, im := range f.Imports {
			ip, _ := strconv.Unquote(im.Path.Value)
			name := ""
			if im.Name != nil {
				name = im.Name.Name
			}
			of.imports[ip] = name
		}
		for ip, a := range aliases[d.to] {
			if a == lastElem(ip) {
				a = ""
			}
			of.imports[ip] = a
		}
		of.chunks = append(of.chunks, text)
	}
	// Headers: a file that goes whole keeps its comments before the
	// package clause (not catalog's package doc, which docs() writes).
	for rel, f := range s.p.files {
		home, ok := fileMoves[filepath.Base(rel)]
		if !ok {
			home = dest{catalogPkg, filepath.Base(rel)}
		}
		of := s.out[filepath.Join(home.pkg.dir, home.file)]
		if of == nil {
			continue
		}
		tf := s.p.fset.File(f.Pos())
		head := string(s.p.src[rel][:tf.Offset(f.Package)])
		if f.Doc != nil {
			head = string(s.p.src[rel][:tf.Offset(f.Doc.Pos())]) + string(s.p.src[rel][tf.Offset(f.Doc.End()):tf.Offset(f.Package)])
		}
		of.header = strings.TrimLeft(head, "\n")
	}
	return nil
}

func (d *decl) isInlined() bool {
	for _, n := range d.names {
		if _, ok := inlined[n]; ok {
			return true
		}
	}
	return false
}

func lastElem(ip string) string { return ip[strings.LastIndex(ip, "/")+1:] }

// applyEdits applies the edits within [base, base+len(b)) to b.
func applyEdits(b []byte, base int, edits []edit) string {
	var in []edit
	for _, e := range edits {
		if e.start >= base && e.end <= base+len(b) {
			in = append(in, e)
		}
	}
	sort.Slice(in, func(i, j int) bool { return in[i].start < in[j].start })
	var out strings.Builder
	at := 0
	for _, e := range in {
		if e.start-base < at {
			continue // the same identifier twice (Uses and Defs)
		}
		out.Write(b[at : e.start-base])
		out.WriteString(e.text)
		at = e.end - base
	}
	out.Write(b[at:])
	return out.String()
}

// render is an assembled file's Go text, its unused imports dropped,
// gofmt'ed.
func (s *splitter) render(path string, of *outFile) ([]byte, error) {
	var b strings.Builder
	b.WriteString(of.header)
	fmt.Fprintf(&b, "package %s\n\nimport (\n", of.pkg.name)
	var ips []string
	for ip := range of.imports {
		ips = append(ips, ip)
	}
	sort.Strings(ips)
	body := strings.Join(of.chunks, "")
	for _, ip := range ips {
		if ip == of.pkg.importPath() && !strings.HasSuffix(of.pkg.name, "_test") {
			continue
		}
		name := of.imports[ip]
		q := name
		if q == "" {
			q = s.pkgName(ip)
		}
		if q != "_" && !usesQualifier(body, q) {
			continue
		}
		if name != "" {
			fmt.Fprintf(&b, "\t%s %q\n", name, ip)
		} else {
			fmt.Fprintf(&b, "\t%q\n", ip)
		}
	}
	b.WriteString(")\n")
	b.WriteString(body)
	out, err := format.Source([]byte(b.String()))
	if err != nil {
		return nil, fmt.Errorf("%s: %v\n%s", path, err, b.String())
	}
	return groupImports(out), nil
}

// pkgName is the name of an imported package.
func (s *splitter) pkgName(ip string) string {
	for _, im := range s.p.pkg.Imports() {
		if im.Path() == ip {
			return im.Name()
		}
	}
	return lastElem(ip)
}

// usesQualifier reports whether Go code uses q as a package qualifier.
func usesQualifier(body, q string) bool {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", "package x\n"+body, 0)
	if err != nil {
		return true
	}
	used := false
	ast.Inspect(f, func(n ast.Node) bool {
		if se, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := se.X.(*ast.Ident); ok && id.Name == q && id.Obj == nil {
				used = true
			}
		}
		return !used
	})
	return used
}

// groupImports puts the standard library's imports first and the
// others after a blank line, as the tree has them.
func groupImports(src []byte) []byte {
	start := bytes.Index(src, []byte("\nimport (\n"))
	if start < 0 {
		return src
	}
	start += len("\nimport (\n")
	end := bytes.Index(src[start:], []byte("\n)\n"))
	if end < 0 {
		return src
	}
	end += start
	var std, other []string
	for _, l := range strings.Split(string(src[start:end]), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		q := l[strings.Index(l, `"`)+1:]
		if strings.Contains(q[:strings.Index(q, `"`)], ".") {
			other = append(other, l)
		} else {
			std = append(std, l)
		}
	}
	block := strings.Join(std, "\n")
	if len(std) > 0 && len(other) > 0 {
		block += "\n\n"
	}
	block += strings.Join(other, "\n")
	out := append([]byte{}, src[:start]...)
	out = append(out, block...)
	out = append(out, src[end:]...)
	res, err := format.Source(out)
	if err != nil {
		return src
	}
	return res
}

// write replaces catalog's files by the assembled ones: a file that goes
// whole elsewhere is git mv'ed first, so its history follows.
func (s *splitter) write() error {
	whole := map[string]string{} // source -> destination, when all of it goes to one file
	for rel := range s.p.files {
		var dst string
		one := true
		for _, d := range s.decls {
			if d.file != rel || d.isInlined() {
				continue
			}
			p := filepath.Join(d.to.pkg.dir, d.to.file)
			if dst == "" {
				dst = p
			} else if dst != p {
				one = false
			}
		}
		if one && dst != "" && dst != rel {
			if _, err := os.Stat(filepath.Join(s.root, dst)); err == nil {
				continue // into a file there already
			}
			taken := false
			for r, d := range whole {
				if d == dst && r != rel {
					taken = true
				}
			}
			if !taken {
				whole[rel] = dst
			}
		}
	}
	var rels []string
	for rel := range whole {
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	for _, rel := range rels {
		if err := os.MkdirAll(filepath.Join(s.root, filepath.Dir(whole[rel])), 0o755); err != nil {
			return err
		}
		if err := s.git("mv", rel, whole[rel]); err != nil {
			return err
		}
	}
	for rel := range s.p.files {
		if _, moved := whole[rel]; moved {
			continue
		}
		if err := s.git("rm", "-q", rel); err != nil {
			return err
		}
	}
	var paths []string
	for p := range s.out {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		b, err := s.render(p, s.out[p])
		if err != nil {
			return err
		}
		full := filepath.Join(s.root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, b, 0o644); err != nil {
			return err
		}
	}
	for _, f := range s.rewritten {
		if err := os.WriteFile(filepath.Join(s.root, f.path), f.src, 0o644); err != nil {
			return err
		}
	}
	// Fuzz corpora follow their targets.
	for _, d := range s.decls {
		fd, ok := d.node.(*ast.FuncDecl)
		if !ok || !strings.HasPrefix(fd.Name.Name, "Fuzz") || d.to.pkg.dir == "catalog" {
			continue
		}
		from := filepath.Join("catalog", "testdata", "fuzz", fd.Name.Name)
		if _, err := os.Stat(filepath.Join(s.root, from)); err != nil {
			continue
		}
		to := filepath.Join(d.to.pkg.dir, "testdata", "fuzz", fd.Name.Name)
		if err := os.MkdirAll(filepath.Join(s.root, filepath.Dir(to)), 0o755); err != nil {
			return err
		}
		if err := s.git("mv", from, to); err != nil {
			return err
		}
	}
	return s.git("add", "-A", "catalog", "internal/paths", "migrate")
}

func (s *splitter) git(args ...string) error {
	cmd := exec.Command("git", args...)
	cmd.Dir = s.root
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("git %s: %v", strings.Join(args, " "), err)
	}
	return nil
}

// exists reports whether a quoted path relative to catalog/ names a
// file or directory of the tree (a test's input, not a test's datum).
func (s *splitter) exists(quoted string) bool {
	p, err := strconv.Unquote(quoted)
	if err != nil {
		return false
	}
	_, err = os.Stat(filepath.Join(s.root, "catalog", p))
	return err == nil
}

// docsOf are the doc comments of a declaration and of its specs.
func docsOf(d ast.Decl) []*ast.CommentGroup {
	var out []*ast.CommentGroup
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Doc != nil {
			out = append(out, d.Doc)
		}
	case *ast.GenDecl:
		if d.Doc != nil {
			out = append(out, d.Doc)
		}
		for _, sp := range d.Specs {
			switch sp := sp.(type) {
			case *ast.TypeSpec:
				if sp.Doc != nil {
					out = append(out, sp.Doc)
				}
			case *ast.ValueSpec:
				if sp.Doc != nil {
					out = append(out, sp.Doc)
				}
			}
		}
	}
	return out
}
