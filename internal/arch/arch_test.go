package arch

import (
	"bufio"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestLayers fails, naming the arrow, when a package imports one of a
// higher layer (its own code and its in-package tests: an external test
// package, foo_test, is a consumer and may import anything above), when a
// package of the lowest layer (schedule/...) imports anything outside the
// standard library and that layer, tests included, or when a package has
// no layer in the table.
func TestLayers(t *testing.T) {
	root := filepath.Join("..", "..")
	layers, err := readLayers(filepath.Join(root, "docs", "design.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range check(t, root, layers) {
		t.Error(p)
	}
}

// TestLayersFail shows the check can fail: a tree with an arrow up, a
// schedule package importing a module, and a package without a layer.
func TestLayersFail(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n\ngo 1.22\n")
	write("docs/design.md", "# D\n\n### Layers\n\n| folder | layer | may import |\n|---|---|---|\n"+
		"| `schedule/...` | 0 schedule | stdlib |\n| `internal/...`, `finding` | 1 leaves | 0-1 |\n"+
		"| `catalog/...` | 2 catalog | 0-2 |\n| `report` | 3 commands | 0-3 |\n\n## Next\n")
	write("schedule/a/a.go", "package a\n\nimport (\n\t\"strings\"\n\n\t\"example.com/m/schedule/b\"\n)\n")
	write("schedule/b/b.go", "package b\n")
	write("schedule/b/b_test.go", "package b_test\n\nimport \"github.com/x/hash\"\n")
	write("catalog/c.go", "package catalog\n\nimport \"example.com/m/finding\"\n")
	write("catalog/c_test.go", "package catalog_test\n\nimport \"example.com/m/report\"\n")
	write("internal/w/w.go", "package w\n\nimport \"example.com/m/catalog\"\n")
	write("internal/w/w_test.go", "package w\n\nimport \"example.com/m/report\"\n")
	write("report/r.go", "package report\n\nimport \"example.com/m/catalog\"\n")
	write("finding/f.go", "package finding\n")
	write("extra/e.go", "package extra\n")
	write("testdata/x/x.go", "package x\n\nimport \"example.com/m/report\"\n")
	write("nested/go.mod", "module example.com/nested\n")
	write("nested/n.go", "package n\n\nimport \"example.com/m/report\"\n")
	layers, err := readLayers(filepath.Join(root, "docs", "design.md"))
	if err != nil {
		t.Fatal(err)
	}
	got := check(t, root, layers)
	want := []string{
		"extra has no layer in docs/design.md's Layers table",
		"internal/w (layer 1 leaves) imports catalog (layer 2 catalog), an arrow up: internal/w/w.go",
		"internal/w (layer 1 leaves) imports report (layer 3 commands), an arrow up: internal/w/w_test.go",
		"schedule/b imports github.com/x/hash, outside the standard library and layer 0 (schedule): schedule/b/b_test.go",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A layer is one row's: its number and name.
type layer struct {
	n    int
	name string
}

func (l layer) String() string { return fmt.Sprintf("layer %d %s", l.n, l.name) }

// layers maps the folder patterns of the table to their layer: "x" is the
// package x, "x/..." x and every package below it.
type layers map[string]layer

// of is the layer of a package (its path in the module), by the longest
// matching pattern; an exact row wins over a "/..." row of the same folder.
func (ls layers) of(pkg string) (layer, bool) {
	best, bestLen, ok := layer{}, -1, false
	for pat, l := range ls {
		n := -1
		if base, sub := strings.CutSuffix(pat, "/..."); sub {
			if pkg == base || strings.HasPrefix(pkg, base+"/") {
				n = 2 * len(base)
			}
		} else if pkg == pat {
			n = 2*len(pat) + 1
		}
		if n > bestLen {
			best, bestLen, ok = l, n, true
		}
	}
	return best, ok
}

var (
	rowLayer = regexp.MustCompile(`^(\d+)\s+(.*)$`)
	ticked   = regexp.MustCompile("`([^`]+)`")
)

// readLayers reads the table of the "Layers" section of the design
// document: | `folder`, `folder/...` | N name | what it may import |.
func readLayers(doc string) (layers, error) {
	f, err := os.Open(doc)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ls := layers{}
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") {
			in = strings.TrimLeft(line, "# ") == "Layers"
			continue
		}
		if !in || !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) < 2 {
			continue
		}
		m := rowLayer.FindStringSubmatch(strings.TrimSpace(cells[1]))
		if m == nil {
			continue // the header and its rule
		}
		n, _ := strconv.Atoi(m[1])
		for _, tm := range ticked.FindAllStringSubmatch(cells[0], -1) {
			if prev, dup := ls[tm[1]]; dup {
				return nil, fmt.Errorf("%s: %s is in two rows (%v, layer %d)", doc, tm[1], prev, n)
			}
			ls[tm[1]] = layer{n, strings.TrimSpace(m[2])}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(ls) == 0 {
		return nil, fmt.Errorf("%s: no Layers table", doc)
	}
	return ls, nil
}

// check walks the module at root (not testdata, hidden folders or nested
// modules) and returns every problem, sorted.
func check(t *testing.T, root string, ls layers) []string {
	t.Helper()
	mod, err := modulePath(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	var problems []string
	fset := token.NewFileSet()
	noLayer := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if path != root {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir // a module of its own
				}
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		pkg := filepath.ToSlash(filepath.Dir(rel))
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		from, ok := ls.of(pkg)
		if !ok {
			if !noLayer[pkg] {
				noLayer[pkg] = true
				problems = append(problems, fmt.Sprintf("%s has no layer in docs/design.md's Layers table", pkg))
			}
			return nil
		}
		external := strings.HasSuffix(f.Name.Name, "_test")
		for _, spec := range f.Imports {
			imp, _ := strconv.Unquote(spec.Path.Value)
			inMod := imp == mod || strings.HasPrefix(imp, mod+"/")
			target := strings.TrimPrefix(strings.TrimPrefix(imp, mod), "/")
			if from.n == 0 {
				// The bottom layer: the standard library and itself only,
				// external tests too.
				if l, ok := ls.of(target); inMod && ok && l.n == 0 {
					continue
				}
				if !inMod && !strings.Contains(strings.SplitN(imp, "/", 2)[0], ".") {
					continue
				}
				problems = append(problems, fmt.Sprintf("%s imports %s, outside the standard library and layer 0 (%s): %s", pkg, imp, from.name, rel))
				continue
			}
			if !inMod || external {
				continue
			}
			to, ok := ls.of(target)
			if !ok {
				continue // reported as the package without a layer
			}
			if to.n > from.n {
				problems = append(problems, fmt.Sprintf("%s (%v) imports %s (%v), an arrow up: %s", pkg, from, target, to, rel))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(problems)
	return problems
}

func modulePath(gomod string) (string, error) {
	b, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	return "", fmt.Errorf("%s: no module line", gomod)
}
