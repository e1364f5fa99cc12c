package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
)

// treeFile is one file of a tree: its bytes and permission bits.
type treeFile struct {
	data []byte
	mode fs.FileMode
}

// listTree is every regular file under dir, relative to it, as --out DIR
// mirrors a directory: hidden directories and schedtool's temp files
// skipped, a symlink to a file read through.
func listTree(t *testing.T, dir string) map[string]treeFile {
	t.Helper()
	out := map[string]treeFile{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != dir && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") && strings.Contains(d.Name(), ".schedtool-") {
			return nil
		}
		st, err := os.Stat(p)
		if err != nil || !st.Mode().IsRegular() {
			return nil // a symlink to nothing or to a directory
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = treeFile{mustRead(t, p), st.Mode().Perm()}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// vFinding is a finding of validate -o json.
type vFinding struct {
	Rule, Task, File, Pointer, Message string
	Line, Column                       int
}

// validateJSON runs validate -o json with --root root on path and returns
// its findings, their files relative to root (and root taken out of
// their messages).
func validateJSON(t *testing.T, root, path string) []vFinding {
	t.Helper()
	r := schedtoolIn(t, root, "validate", "-o", "json", "--root", root, path)
	noCrash(t, "validate "+path, r)
	var doc struct{ Findings []vFinding }
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("validate -o json %s: %v\n%s%s", path, err, r.stdout, r.stderr)
	}
	for i, f := range doc.Findings {
		doc.Findings[i].Message = strings.ReplaceAll(f.Message, root+string(filepath.Separator), "")
		if rel, err := filepath.Rel(root, filepath.Join(root, f.File)); err == nil && !filepath.IsAbs(f.File) {
			doc.Findings[i].File = filepath.ToSlash(rel)
		} else if rel, err := filepath.Rel(root, f.File); err == nil {
			doc.Findings[i].File = filepath.ToSlash(rel)
		}
	}
	return doc.Findings
}

// migrateReport is what migrate -o json says: the tasks migrated and
// the files it wrote (relative to out).
type migrateReport struct {
	migrated map[string]bool
	written  map[string]bool
}

func parseMigrateReport(t *testing.T, out string, r run) migrateReport {
	t.Helper()
	var doc struct {
		Tasks []struct{ Task, Action string }
		Files []struct{ File, Status string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("migrate -o json: %v\n%s%s", err, r.stdout, r.stderr)
	}
	rep := migrateReport{migrated: map[string]bool{}, written: map[string]bool{}}
	for _, x := range doc.Tasks {
		if x.Action == "migrate" {
			rep.migrated[x.Task] = true
		}
	}
	for _, f := range doc.Files {
		if f.Status == "written" {
			// A file under the working directory is named relative to it
			// (paths in output): the runs that give one run beside out.
			file := f.File
			if !filepath.IsAbs(file) {
				file = filepath.Join(filepath.Dir(out), file)
			}
			rel, _ := filepath.Rel(out, file)
			rep.written[filepath.ToSlash(rel)] = true
		}
	}
	return rep
}

// sameValidate checks that validate on the output tree finds exactly
// what it finds on the input, minus what the migration fixed: every
// finding on the output is one on the input, and every finding of the
// input missing on the output is of a migrated task. In a migrated file
// lines move, so a finding there is known by its rule, task, file and
// pointer. It returns how many findings were fixed and how many kept.
func sameValidate(t *testing.T, in, out []vFinding, rep migrateReport) (fixed, kept int) {
	t.Helper()
	key := func(f vFinding) string {
		k := strings.Join([]string{f.Rule, f.Task, f.File, f.Pointer}, "|")
		if !rep.written[f.File] {
			k += fmt.Sprintf("|%d:%d|%s", f.Line, f.Column, f.Message)
		}
		return k
	}
	have := map[string]int{}
	for _, f := range in {
		have[key(f)]++
	}
	for _, f := range out {
		k := key(f)
		if have[k] == 0 {
			t.Errorf("validate on the output finds what it does not on the input: %+v", f)
			continue
		}
		have[k]--
		kept++
	}
	for _, f := range in {
		if k := key(f); have[k] > 0 {
			have[k]--
			if !rep.migrated[f.Task] {
				t.Errorf("validate on the output lost a finding of a task not migrated: %+v", f)
			}
			fixed++
		}
	}
	return fixed, kept
}

// sameMirror checks that the output holds every file of want (relative
// paths under the output), byte for byte and with its mode, unless the
// migration wrote it, and nothing else.
func sameMirror(t *testing.T, out string, want map[string]treeFile, rep migrateReport) {
	t.Helper()
	got := listTree(t, out) // a file named in a hidden directory is looked up below
	for p, w := range want {
		g, ok := got[p]
		if st, err := os.Lstat(filepath.Join(out, p)); !ok && err == nil && st.Mode().IsRegular() {
			g, ok = treeFile{mustRead(t, filepath.Join(out, p)), st.Mode().Perm()}, true
		}
		switch {
		case !ok:
			t.Errorf("%s: missing from the output tree", p)
		case !bytes.Equal(g.data, w.data) && !rep.written[p]:
			t.Errorf("%s: changed in the output tree, but not migrated", p)
		case g.mode != w.mode:
			t.Errorf("%s: mode %v in the output tree, want %v", p, g.mode, w.mode)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s: in the output tree, but not a file of the input's", p)
		}
	}
	for p := range rep.written {
		if _, ok := want[p]; !ok {
			t.Errorf("%s: written, but not a file of the tree", p)
		}
	}
}

// mirrorRepo is a repository whose catalog, under cat/, names files
// outside cat/ in shared/ of every kind: an import (itself naming a
// config file to migrate), configs of a capture, of an endpoint.local
// and of a binding's resource, schemas with a $ref, derivation modules,
// a sqlite migration, a lambda and test documents.
var mirrorRepo = map[string]string{
	"cat/flow.yaml": `import: [../shared/imported.flow.yaml]
captures:
  acme/cap:
    endpoint: {connector: {image: ghcr.io/estuary/source-postgres:v1, config: ../shared/capture.config.yaml}}
    bindings: [{resource: ../shared/resource.yaml, target: acme/col}, {resource: .local/resource.yaml, target: acme/col}]
collections:
  acme/col:
    schema: ../shared/col.schema.yaml
    readSchema: ../shared/read.schema.yaml#/$defs/row
    writeSchema: {$ref: ../shared/write.schema.yaml}
    key: [/id]
  acme/ts:
    schema: {type: object}
    key: [/id]
    derive:
      using: {typescript: {module: ../shared/ts.ts}}
      transforms: [{name: t, source: acme/col, lambda: ../shared/lambda.sql}]
  acme/sql:
    schema: {type: object}
    key: [/id]
    derive: {using: {sqlite: {migrations: [../shared/m1.sql]}}, transforms: []}
  acme/py:
    schema: {type: object}
    key: [/id]
    derive: {using: {python: {module: ../shared/mod.py}}, transforms: []}
tests:
  acme/test:
    - ingest: {collection: acme/col, documents: ../shared/docs.json}
    - verify: {collection: acme/col, documents: [{id: 1}]}
materializations:
  acme/local:
    endpoint: {local: {command: [go, run, .], config: ../shared/local.config.yaml}}
    bindings: []
` + v2Materialization("acme/inline", sfImage, "\n          host: h\n          syncSchedule:\n            syncFrequency: 1h") +
		v2Materialization("acme/broken", sfImage, "\n          host: h\n          syncSchedule:\n            syncFrequency: banana"),
	"cat/notes.txt":                 "not a catalog file, but part of the tree\n",
	"cat/sub/deep.yaml":             "a: 1\n",
	"cat/.hidden/skipped.yaml":      "a: 1\n",
	"cat/.local/resource.yaml":      "stream: named, in a hidden directory\n",
	"cat/.flow.yaml.schedtool-0a1b": "a killed run's temp file\n",
	"shared/imported.flow.yaml": "materializations:\n" +
		v2Materialization("acme/imported", sfImage, " snow.config.yaml"),
	"shared/snow.config.yaml":     "host: h\nsyncSchedule:\n  syncFrequency: 2h\n",
	"shared/capture.config.yaml":  "address: db:5432\n",
	"shared/resource.yaml":        "stream: s\n",
	"shared/col.schema.yaml":      "type: object\nproperties:\n  row: {$ref: defs/row.schema.yaml}\n",
	"shared/defs/row.schema.yaml": "type: object\n",
	"shared/read.schema.yaml":     "$defs:\n  row: {type: object}\n",
	"shared/write.schema.yaml":    "type: object\n",
	"shared/ts.ts":                "export {}\n",
	"shared/lambda.sql":           "select 1;\n",
	"shared/m1.sql":               "create table t (x);\n",
	"shared/mod.py":               "pass\n",
	"shared/docs.json":            "[{\"id\": 1}]\n",
	"shared/local.config.yaml":    "a: 1\n",
	"shared/linked.yaml":          "reached through a symlink in cat/\n",
	"shared/not-named.yaml":       "a: 1\n",
	"unrelated/x.txt":             "outside the PATH and named by nothing\n",
}

// migrate --out DIR on a directory PATH writes the whole tree: every
// file under the PATH (hidden directories and temp files skipped, a
// symlink to a file inside the root as a regular file with its bytes,
// modes kept) and every file the catalog names from outside it under
// --root, with the migrated files changed; validate on the output finds
// what it finds on the input minus what the migration fixed.
func TestOutDirMirrorsTheTree(t *testing.T) {
	work := t.TempDir()
	root := filepath.Join(work, "repo")
	writeTree(t, root, mirrorRepo)
	os.Chmod(filepath.Join(root, "cat/notes.txt"), 0o755)
	os.Chmod(filepath.Join(root, "shared/local.config.yaml"), 0o600)
	if err := os.Symlink("../shared/linked.yaml", filepath.Join(root, "cat/link.yaml")); err != nil {
		t.Fatal(err)
	}
	want := map[string]treeFile{}
	for p, f := range listTree(t, filepath.Join(root, "cat")) {
		want["cat/"+p] = f
	}
	for p := range mirrorRepo {
		if strings.HasPrefix(p, "shared/") && p != "shared/linked.yaml" && p != "shared/not-named.yaml" {
			st, _ := os.Stat(filepath.Join(root, p))
			want[p] = treeFile{mustRead(t, filepath.Join(root, p)), st.Mode().Perm()}
		}
	}
	want["cat/.local/resource.yaml"] = treeFile{mustRead(t, filepath.Join(root, "cat/.local/resource.yaml")), 0o644}
	if len(want) != 19 {
		t.Fatalf("the tree has %d files, want 19 (4 under cat/, one named in cat/.local/, 14 named in shared/)", len(want))
	}

	for _, tc := range []struct{ name, path string }{
		{"directory PATH", filepath.Join(root, "cat")},
		{"file PATH", filepath.Join(root, "cat", "flow.yaml")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			r := schedtoolIn(t, work, "migrate", "-o", "json", "--root", root, "--out", out, tc.path)
			noCrash(t, "migrate --out", r)
			if r.code != 2 || !strings.Contains(r.stderr, "2 to migrate, 1 needs review, 1 with nothing to do; 3 written") {
				t.Fatalf("migrate --out: exit %d, want 2 (one task needs review)\n%s", r.code, r.stderr)
			}
			rep := parseMigrateReport(t, out, r)
			if len(rep.migrated) != 2 || len(rep.written) != 3 || !rep.written["cat/flow.yaml"] || !rep.written["shared/imported.flow.yaml"] || !rep.written["shared/snow.config.yaml"] {
				t.Errorf("migrated %v, written %v; want the two Snowflake tasks, in cat/flow.yaml, and in shared/imported.flow.yaml with its shared/snow.config.yaml", rep.migrated, rep.written)
			}
			sameMirror(t, out, want, rep)
			if st, err := os.Lstat(filepath.Join(out, "cat/link.yaml")); err != nil || !st.Mode().IsRegular() {
				t.Errorf("cat/link.yaml in the output is not a regular file: %v", err)
			}
			fixed, kept := sameValidate(t, validateJSON(t, root, filepath.Join(root, "cat")), validateJSON(t, out, filepath.Join(out, "cat")), rep)
			if fixed == 0 || kept == 0 {
				t.Errorf("%d findings fixed, %d kept: the fixture should have both", fixed, kept)
			}
			// The tree builds on its own: a second migrate finds nothing.
			if r := schedtoolIn(t, work, "migrate", "--root", out, filepath.Join(out, "cat")); !strings.Contains(r.stderr, "0 files to change") {
				t.Errorf("migrate on the output tree: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
		})
	}
}

// What cannot be copied is said, and nothing is read outside the root:
// a symlink in the tree leading out of the root and a FIFO are not
// written (exit 1, the other files are); a symlink to nothing or to a
// directory and a name that leaves the root are left out with a note.
// An --out inside a file PATH's directory is not copied into itself.
func TestOutDirRefusesWhatItCannotCopy(t *testing.T) {
	work := t.TempDir()
	root := filepath.Join(work, "repo")
	writeTree(t, root, map[string]string{
		"cat/flow.yaml": "collections:\n  acme/col: {schema: ../../outside.schema.yaml, key: [/id]}\nmaterializations:\n" +
			v2Materialization("acme/inline", sfImage, "\n          host: h\n          syncSchedule:\n            syncFrequency: 1h"),
		"cat/kept.txt": "kept\n",
	})
	writeTree(t, work, map[string]string{"outside.schema.yaml": "secret: never read\n", "secret.txt": "never read\n"})
	os.Symlink(filepath.Join(work, "secret.txt"), filepath.Join(root, "cat/escape.txt"))
	os.Symlink("nowhere", filepath.Join(root, "cat/dangling"))
	os.Symlink(root, filepath.Join(root, "cat/dir-link"))
	if err := syscall.Mkfifo(filepath.Join(root, "cat/fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(work, "out")
	r := schedtoolIn(t, work, "migrate", "--root", root, "--out", out, filepath.Join(root, "cat"))
	noCrash(t, "migrate --out", r)
	if r.code != 1 {
		t.Errorf("exit %d, want 1 (two files of the tree not written)\n%s", r.code, r.stderr)
	}
	for _, s := range []string{
		"cat/escape.txt: not written: resolves through a symlink to " + filepath.Join(work, "secret.txt") + ", outside the root",
		"cat/fifo: not written: not a regular file (a FIFO)",
		"cat/dangling: not copied: a symlink to nothing",
		"cat/dir-link: not copied: a symlink to a directory",
		"outside.schema.yaml: not copied (named at repo/cat/flow.yaml:2:22): schema \"../../outside.schema.yaml\" escapes the root directory",
	} {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("stderr lacks %q:\n%s", s, r.stderr)
		}
	}
	got := listTree(t, out)
	var names []string
	for p := range got {
		names = append(names, p)
	}
	sort.Strings(names)
	if strings.Join(names, " ") != "cat/flow.yaml cat/kept.txt" {
		t.Errorf("output tree: %v, want cat/flow.yaml cat/kept.txt", names)
	}
	for _, p := range names {
		if bytes.Contains(got[p].data, []byte("never read")) {
			t.Errorf("%s: a file outside the root was read", p)
		}
	}

	// --out inside the directory of a file PATH: the walk leaves it out,
	// even on a second run with --force over the first one's tree.
	os.Remove(filepath.Join(root, "cat/fifo"))
	os.Remove(filepath.Join(root, "cat/escape.txt"))
	for i := range 2 {
		r = schedtoolIn(t, root, "migrate", "--force", "--out", "cat/out", "cat/flow.yaml")
		if r.code != 0 {
			t.Fatalf("run %d: migrate --out cat/out cat/flow.yaml: exit %d\n%s", i+1, r.code, r.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "cat/out/out")); err == nil {
		t.Error("the output directory was copied into itself")
	}
	if _, err := os.Stat(filepath.Join(root, "cat/out/kept.txt")); err != nil {
		t.Errorf("the file PATH's directory was not mirrored: %v", err)
	}
}

// A file the catalog names that is not there is not an error of --out:
// validate reports it the same way on the input and on the output.
func TestOutDirMissingReference(t *testing.T) {
	work := t.TempDir()
	root := filepath.Join(work, "repo")
	writeTree(t, root, map[string]string{
		"cat/flow.yaml": "collections:\n  acme/col: {schema: ../shared/gone.schema.yaml, key: [/id]}\nmaterializations:\n" +
			v2Materialization("acme/gone", sfImage, " ../shared/gone.config.yaml") +
			v2Materialization("acme/inline", sfImage, "\n          host: h\n          syncSchedule:\n            syncFrequency: 1h"),
	})
	out := filepath.Join(work, "out")
	r := schedtoolIn(t, work, "migrate", "-o", "json", "--root", root, "--out", out, filepath.Join(root, "cat"))
	noCrash(t, "migrate --out", r)
	if r.code != 1 || !strings.Contains(r.stderr, "cannot read config file") || strings.Contains(r.stderr, "not written:") || strings.Contains(r.stderr, "not copied") {
		t.Errorf("exit %d, want 1 for the unreadable config alone\n%s", r.code, r.stderr)
	}
	rep := parseMigrateReport(t, out, r)
	sameMirror(t, out, listTreeUnder(t, root, "cat"), rep)
	in := validateJSON(t, root, filepath.Join(root, "cat"))
	if len(in) == 0 || !strings.Contains(in[0].Message, "cannot read config file shared/gone.config.yaml") {
		t.Fatalf("validate on the input: %+v", in)
	}
	fixed, kept := sameValidate(t, in, validateJSON(t, out, filepath.Join(out, "cat")), rep)
	if fixed != 1 || kept != len(in)-1 {
		t.Errorf("%d findings fixed, %d kept, of %d: want the migrated task's one fixed, the missing config's kept", fixed, kept, len(in))
	}
}

// listTreeUnder is listTree of root/sub, its paths relative to root.
func listTreeUnder(t *testing.T, root, sub string) map[string]treeFile {
	t.Helper()
	out := map[string]treeFile{}
	for p, f := range listTree(t, filepath.Join(root, sub)) {
		out[filepath.ToSlash(filepath.Join(sub, p))] = f
	}
	return out
}

// migrate --out DIR on the real catalogs, as a whole and each repository
// alone (V1 tasks moved to V2, so that the Snowflake tasks migrate):
// every file of the tree is in the output, byte for byte unless
// migrated, and validate on the output finds what it finds on the
// input minus what the migration fixed.
func TestRealCatalogsOutDir(t *testing.T) {
	real := realCatalogs(t)
	repos, err := os.ReadDir(real)
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{real}
	for _, repo := range repos {
		if repo.IsDir() {
			paths = append(paths, filepath.Join(real, repo.Name()))
		}
	}
	migrated := 0
	for _, path := range paths {
		out := filepath.Join(t.TempDir(), "out")
		r := schedtoolIn(t, real, "migrate", "-o", "json", "--enable-runtime-v2", "--root", path, "--out", out, path)
		noCrash(t, "migrate --out "+path, r)
		if r.code != 0 {
			t.Errorf("migrate --out %s: exit %d\n%s", path, r.code, r.stderr)
			continue
		}
		rep := parseMigrateReport(t, out, r)
		if path == real {
			migrated = len(rep.migrated)
		}
		want := listTree(t, path)
		if path == real && len(want) < 100 {
			t.Errorf("%d files under %s, want the 100 or more of SOURCES.md", len(want), path)
		}
		sameMirror(t, out, want, rep)
		sameValidate(t, validateJSON(t, path, path), validateJSON(t, out, out), rep)
	}
	if migrated != 2 {
		t.Errorf("%d tasks migrated in the real catalogs, want the 2 Snowflake tasks", migrated)
	}
}
