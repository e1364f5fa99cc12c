package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// The command and flag reference (docs/reference, Markdown) and the man
// pages (docs/man) are generated from the cobra commands themselves, so
// they cannot say what the commands do not do. TestReference fails when
// the committed copy is stale; -update-reference rewrites it.
//
//go:generate go test -run ^TestReference$ . -update-reference

var updateReference = flag.Bool("update-reference", false, "rewrite docs/reference and docs/man from the cobra commands")

// referenceDirs are where each form of the reference is committed,
// relative to this package.
var referenceDirs = map[string]func(*cobra.Command, string) error{
	"../../docs/reference": func(root *cobra.Command, dir string) error {
		return doc.GenMarkdownTree(root, dir)
	},
	"../../docs/man": func(root *cobra.Command, dir string) error {
		return doc.GenManTree(root, &doc.GenManHeader{
			Title:   "SCHEDTOOL",
			Section: "1",
			Source:  "schedtool",
			Manual:  "schedtool manual",
			// A fixed date: the pages are the same whenever they are
			// generated, so a stale copy is the only thing the test sees.
			Date: &referenceDate,
		}, dir)
	},
}

var referenceDate = time.Date(2026, time.December, 1, 0, 0, 0, 0, time.UTC)

// referenceRoot is the command tree as a user's schedtool has it,
// completion and --version included, without the generated-on date
// footer.
func referenceRoot() *cobra.Command {
	root := newRoot(Streams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}})
	root.InitDefaultCompletionCmd()
	root.InitDefaultVersionFlag()
	var noDate func(*cobra.Command)
	noDate = func(c *cobra.Command) {
		c.DisableAutoGenTag = true
		for _, sub := range c.Commands() {
			noDate(sub)
		}
	}
	noDate(root)
	return root
}

func TestReference(t *testing.T) {
	for dir, gen := range referenceDirs {
		tmp := t.TempDir()
		if err := gen(referenceRoot(), tmp); err != nil {
			t.Fatal(err)
		}
		if *updateReference {
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		want := readDir(t, tmp)
		if *updateReference {
			for name, b := range want {
				if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			continue
		}
		if stale := staleFiles(want, readDir(t, dir)); len(stale) > 0 {
			t.Errorf("%s is stale (%s): run `go generate ./cmd/schedtool` and commit the result", strings.TrimPrefix(dir, "../../"), strings.Join(stale, ", "))
		}
	}
}

// staleFiles names the files that differ between the generated and the
// committed copy: changed, missing or left over.
func staleFiles(generated, committed map[string][]byte) []string {
	var stale []string
	for name, b := range generated {
		c, ok := committed[name]
		switch {
		case !ok:
			stale = append(stale, name+" missing")
		case !bytes.Equal(b, c):
			stale = append(stale, name+" differs")
		}
	}
	for name := range committed {
		if _, ok := generated[name]; !ok {
			stale = append(stale, name+" no longer generated")
		}
	}
	sort.Strings(stale)
	return stale
}

func TestStaleFiles(t *testing.T) {
	gen := map[string][]byte{"a.md": []byte("a"), "b.md": []byte("b"), "c.md": []byte("c")}
	com := map[string][]byte{"a.md": []byte("a"), "b.md": []byte("B"), "d.md": []byte("d")}
	got := strings.Join(staleFiles(gen, com), "; ")
	if want := "b.md differs; c.md missing; d.md no longer generated"; got != want {
		t.Errorf("staleFiles = %q, want %q", got, want)
	}
	if s := staleFiles(gen, gen); len(s) != 0 {
		t.Errorf("staleFiles of one copy = %q", s)
	}
}

// readDir reads every file of dir by name; a missing dir is empty.
func readDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return files
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = b
	}
	return files
}
