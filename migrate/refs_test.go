package migrate

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/catalog/tree"
	"github.com/estuary/schedtool/internal/paths"
)

// Every kind of name Flow's loader follows is found, relative to the
// document that holds it, and the near misses are not: an inline
// config, module or lambda (text, with whitespace), a URL, a $ref inside
// the same document, a file that is not there.
func TestRefs(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"cat/flow.yaml": `import: [../shared/imported.flow.yaml, ../shared/gone.flow.yaml]
captures:
  a/cap:
    endpoint: {connector: {image: ghcr.io/estuary/source-x:v1, config: ../shared/capture.config.yaml}}
    bindings: [{resource: ../shared/resource.yaml, target: a/col}, {resource: {stream: s}, target: a/col}]
  a/cap-local:
    endpoint: {local: {command: [go, run, .], config: ../shared/local.config.yaml}}
    bindings: []
materializations:
  a/mat:
    endpoint: {local: {command: [x], config: ../shared/mat-local.config.yaml}}
    bindings: [{resource: "table: t\n", source: a/col}]
  a/dekaf:
    endpoint: {dekaf: {variant: x, config: ../shared/dekaf.yaml}}
    bindings: []
collections:
  a/col:
    schema: ../shared/col.schema.yaml#/$defs/row
    readSchema: "../shared/read%20schema.yaml"
    writeSchema:
      type: object
      properties:
        x: {$ref: ../shared/inline-ref.schema.yaml}
        y: {$ref: "#/definitions/local"}
        z: {$ref: "https://example.com/remote.json"}
    key: [/id]
  a/ts:
    schema: {type: object}
    key: [/id]
    derive:
      using: {typescript: {module: ../shared/ts.ts}}
      transforms:
        - {name: t, source: a/col, lambda: ../shared/lambda.sql, shuffle: {lambda: ../shared/shuffle.sql}}
        - {name: u, source: a/col, lambda: "select 1;\n"}
  a/sql:
    schema: {type: object}
    key: [/id]
    derive:
      using: {sqlite: {migrations: [../shared/m1.sql, "create table t (x);\n"]}}
      transforms: []
  a/py:
    schema: {type: object}
    key: [/id]
    derive:
      using: {python: {module: ../shared/mod.py}}
      transforms: []
  a/inline-py:
    schema: {type: object}
    key: [/id]
    derive:
      using: {python: {module: "def f():\n  pass\n"}}
      transforms: []
tests:
  a/test:
    - ingest: {collection: a/col, documents: ../shared/ingest.json}
    - verify: {collection: a/col, documents: [{id: 1}]}
  a/test-steps:
    description: steps form
    steps:
      - verify: {collection: a/col, documents: ../shared/verify.json}
`,
		"shared/imported.flow.yaml":          "collections:\n  b/col:\n    schema: nested/b.schema.json\n    key: [/id]\n",
		"shared/nested/b.schema.json":        `{"$ref": "../deep.schema.yaml"}`,
		"shared/deep.schema.yaml":            "type: object\n",
		"shared/capture.config.yaml":         "a: 1\n",
		"shared/resource.yaml":               "stream: s\n",
		"shared/local.config.yaml":           "a: 1\n",
		"shared/mat-local.config.yaml":       "a: 1\n",
		"shared/dekaf.yaml":                  "a: 1\n",
		"shared/col.schema.yaml":             "$defs:\n  row: {$ref: row.schema.yaml}\n",
		"shared/row.schema.yaml":             "type: object\n",
		"shared/read schema.yaml":            "type: object\n",
		"shared/inline-ref.schema.yaml":      "type: string\n",
		"shared/ts.ts":                       "export {}\n",
		"shared/lambda.sql":                  "select 1;\n",
		"shared/shuffle.sql":                 "select 2;\n",
		"shared/m1.sql":                      "create table t (x);\n",
		"shared/mod.py":                      "pass\n",
		"shared/ingest.json":                 "[]\n",
		"shared/verify.json":                 "[]\n",
		"shared/not-named.yaml":              "a: 1\n",
		"shared/definitions/local":           "a trap: a $ref inside the document is no file\n",
		"cat/https:/example.com/remote.json": "a trap: a URL is no file\n",
	}
	for p, c := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts := catalog.DefaultOptions()
	opts.Root = root
	inputs, err := input.Resolve([]string{filepath.Join(root, "cat", "flow.yaml")}, opts)
	if err != nil {
		t.Fatal(err)
	}
	cat := catalog.Load(inputs, opts)
	var got []string
	for _, f := range Refs(inputs, cat, opts) {
		rel, _ := filepath.Rel(root, f.Path)
		if f.Left != "" || f.Refused != "" || f.By == "" {
			t.Errorf("%s: left %q, refused %q, by %q", rel, f.Left, f.Refused, f.By)
		}
		got = append(got, filepath.ToSlash(rel))
	}
	want := []string{
		"shared/capture.config.yaml", "shared/col.schema.yaml", "shared/dekaf.yaml", "shared/deep.schema.yaml",
		"shared/imported.flow.yaml", "shared/ingest.json", "shared/inline-ref.schema.yaml", "shared/lambda.sql",
		"shared/local.config.yaml", "shared/m1.sql", "shared/mat-local.config.yaml", "shared/mod.py",
		"shared/nested/b.schema.json", "shared/read schema.yaml", "shared/resource.yaml", "shared/row.schema.yaml",
		"shared/shuffle.sql", "shared/ts.ts", "shared/verify.json",
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Refs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A name that leaves the root is left out with the reason, never read.
func TestRefsOutsideRoot(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	os.MkdirAll(root, 0o755)
	os.WriteFile(filepath.Join(dir, "outside.yaml"), []byte("a: 1\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "abs.yaml"), []byte("a: 1\n"), 0o644)
	os.Symlink(filepath.Join(dir, "outside.yaml"), filepath.Join(root, "link.yaml"))
	os.WriteFile(filepath.Join(root, "flow.yaml"), []byte(`collections:
  a/col: {schema: ../outside.yaml, key: [/id]}
  a/abs: {schema: `+filepath.Join(dir, "abs.yaml")+`, key: [/id]}
  a/link: {schema: link.yaml, key: [/id]}
`), 0o644)
	opts := catalog.DefaultOptions()
	inputs, err := input.Resolve([]string{root}, opts)
	if err != nil {
		t.Fatal(err)
	}
	refs := Refs(inputs, catalog.Load(inputs, opts), opts)
	if len(refs) != 3 {
		t.Fatalf("%d refs, want 3: %+v", len(refs), refs)
	}
	for _, f := range refs {
		if f.Left == "" || !strings.Contains(f.Left, "root") {
			t.Errorf("%s: left %q, want a reason naming the root", f.Path, f.Left)
		}
	}
}

// The walk of a tree: hidden directories and what skip names are left
// out; a symlink to a file inside the root is a file of the tree, one
// leading out of the root or to something other than a file is said.
func TestTreeFilesWalk(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	for p, c := range map[string]string{
		"flow.yaml": "{}\n", ".hidden-file": "x\n", ".git/config": "x\n", "sub/.cache/x": "x\n",
		"sub/a.txt": "a\n", "skipme/b.txt": "b\n", "target.txt": "t\n",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755)
		os.WriteFile(filepath.Join(root, p), []byte(c), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "secret"), []byte("s\n"), 0o600)
	os.Symlink("target.txt", filepath.Join(root, "in-link"))
	os.Symlink(filepath.Join(dir, "secret"), filepath.Join(root, "out-link"))
	os.Symlink("nowhere", filepath.Join(root, "dangling"))
	os.Symlink("sub", filepath.Join(root, "dir-link"))
	opts := catalog.DefaultOptions()
	inputs, err := input.Resolve([]string{root}, opts)
	if err != nil {
		t.Fatal(err)
	}
	skip := func(p string, d fs.DirEntry) bool { return d.Name() == "skipme" }
	got := map[string]string{}
	for _, f := range TreeFiles(inputs, catalog.Load(inputs, opts), opts, skip) {
		rel, _ := filepath.Rel(root, f.Path)
		switch {
		case f.Refused != "":
			got[rel] = "refused"
		case f.Left != "":
			got[rel] = "left"
		default:
			got[rel] = "copy"
		}
	}
	want := map[string]string{
		"flow.yaml": "copy", ".hidden-file": "copy", "sub/a.txt": "copy", "target.txt": "copy", "in-link": "copy",
		"out-link": "refused", "dangling": "left", "dir-link": "left",
	}
	if len(got) != len(want) {
		t.Errorf("TreeFiles = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
}

// Any source, however shaped, gives its names without a panic, and every
// file listed to copy lies inside the root.
func FuzzRefs(f *testing.F) {
	f.Add([]byte("import: [a.yaml]\ncollections:\n  a/b: {schema: s.yaml#/x, key: [/id]}\n"))
	f.Add([]byte("captures: {a/c: {endpoint: {local: {config: ../x}}, bindings: [{resource: r}]}}\n"))
	f.Add([]byte("collections: {a: {derive: {using: {sqlite: {migrations: 3}}, transforms: [null, {shuffle: 1}]}}}\n"))
	f.Add([]byte("tests: {a: {steps: {ingest: 1}}, b: [1, {verify: {documents: '%zz'}}]}\n"))
	f.Add([]byte(`{"collections": {"a": {"writeSchema": {"$ref": "/etc/passwd"}}}}`))
	root := f.TempDir()
	os.WriteFile(filepath.Join(root, "s.yaml"), []byte("$ref: s.yaml\n"), 0o644)
	os.WriteFile(filepath.Join(root, "r"), []byte("x\n"), 0o644)
	opts := catalog.DefaultOptions()
	f.Fuzz(func(t *testing.T, src []byte) {
		file := filepath.Join(root, "flow.yaml")
		d, err := tree.Parse(file, src, opts.Limits)
		if err != nil {
			return
		}
		cat := &catalog.Catalog{Files: []string{file}, Docs: map[string]*tree.Doc{file: d}, Configs: map[string]*catalog.ConfigFile{}}
		for _, r := range Refs([]catalog.Input{{Root: root, RootWhy: "test"}}, cat, opts) {
			if _, ok := paths.Under(root, r.Path); !ok && r.Left == "" {
				t.Errorf("%s listed to copy, outside the root %s", r.Path, root)
			}
		}
	})
}
