package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// docs writes the packages' comments and docs/design.md's rows.
func (s *splitter) docs() error {
	for pkg, text := range docs {
		p := filepath.Join(s.root, pkg.dir, "doc.go")
		if err := os.WriteFile(p, []byte(text+"package "+pkg.name+"\n"), 0o644); err != nil {
			return err
		}
	}
	p := filepath.Join(s.root, "docs", "design.md")
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	lines := strings.Split(string(b), "\n")
	for _, r := range docRows {
		at := rowOf(lines, r.cell)
		if at >= 0 {
			lines[at] = r.text
			continue
		}
		after := rowOf(lines, r.after)
		if after < 0 {
			return fmt.Errorf("docs/design.md: no row %s to put %s after", r.after, r.cell)
		}
		lines = append(lines[:after+1], append([]string{r.text}, lines[after+1:]...)...)
	}
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		return err
	}
	for _, f := range textFixes {
		p := filepath.Join(s.root, f.file)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if !strings.Contains(string(b), f.old) {
			fmt.Fprintf(os.Stderr, "splitcatalog: warning: %s no longer says %q: not changed\n", f.file, f.old)
			continue
		}
		if err := os.WriteFile(p, []byte(strings.Replace(string(b), f.old, f.new, -1)), 0o644); err != nil {
			return err
		}
	}
	return s.git("add", "-A", "catalog", "internal/paths", "migrate", "docs/design.md")
}

// rowOf is the line of the package table whose first cell is cell.
func rowOf(lines []string, cell string) int {
	inTable := false
	for i, l := range lines {
		if strings.HasPrefix(l, "| package | layer |") {
			inTable = true
			continue
		}
		if inTable && !strings.HasPrefix(l, "|") {
			return -1
		}
		if inTable && strings.HasPrefix(l, "| "+cell+" |") {
			return i
		}
	}
	return -1
}
