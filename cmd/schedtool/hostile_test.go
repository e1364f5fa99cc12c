package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// hostile lists the cases of testdata/hostile: the message each command
// must give (a regexp naming the file and the problem), and the exit
// codes of validate, migrate (dry run) and census.
var hostile = map[string]struct {
	msg   string
	codes [3]int // validate, migrate, census; zero for the default below
	flags []string
	// review: a task needs a person, so migrate --write exits 2 too
	// (a dry run's 2 is otherwise its pending changes, which --write makes).
	review bool
}{
	"alias-bomb":           {msg: `alias-bomb/flow.yaml:1:12: .*alias bomb`},
	"bad-merge":            {msg: `bad-merge/flow.yaml:3:9: .*merge key`},
	"big-config":           {msg: `big-config/big.config.yaml: file is (\d+ bytes|\d+\.\d KiB \(\d+ bytes\)), over the limit of 1000 bytes`, flags: []string{"--max-file-size", "1000"}},
	"big-file":             {msg: `big-file/flow.yaml:1:1: .*over the limit of 1000 bytes`, flags: []string{"--max-file-size", "1000"}},
	"binary-garbage":       {msg: `binary-garbage/flow.yaml:2:\d+: not UTF-8 text`},
	"config-absolute":      {msg: `config-absolute/flow.yaml:7:17: .*"/etc/passwd" is an absolute path`},
	"config-dotdot":        {msg: `config-dotdot/flow.yaml:7:17: .*escapes the root directory`},
	"config-file-list":     {msg: `config-file-list/list.config.yaml:1:1: .*must hold an object, not an array`},
	"config-file-multidoc": {msg: `config-file-multidoc/two.config.yaml:2:1: several YAML documents`},
	"config-list":          {msg: `config-list/flow.yaml:7:17: .*must be an object or a relative path to a config file, not an array`},
	"config-missing":       {msg: `config-missing/flow.yaml:7:17: cannot read config file .*no such file`},
	"config-number":        {msg: `config-number/flow.yaml:7:17: .*not a number`},
	"config-symlink-out":   {msg: `config-symlink-out/flow.yaml:7:17: .*resolves through a symlink .*outside the root`},
	"deep-json":            {msg: `deep-json/flow.json:1:\d+: nesting deeper than 200 levels`},
	"deep-yaml":            {msg: `deep-yaml/flow.yaml:1:\d+: nesting deeper than 200 levels`},
	"dup-keys-json":        {msg: `dup-keys-json/flow.json:1:52: duplicate key "endpoint"`},
	"dup-keys-row":         {msg: `dup-keys-row/live_specs.ndjson:1:\d+: row does not parse: duplicate key "host"`},
	// In the bindings, which the dump reader checks without building.
	"dup-keys-bindings":     {msg: `dup-keys-bindings/live_specs.ndjson:1:343: row does not parse: duplicate key "source" \(first at line 1\)`},
	"dup-keys-yaml":         {msg: `dup-keys-yaml/flow.yaml:7:\d+: duplicate key "host"`},
	"huge-number":           {msg: `cannot unmarshal number`, codes: [3]int{2, 2, 0}, review: true},
	"image-not-string":      {msg: `image-not-string/flow.yaml:6:16: endpoint.connector.image must be a string`},
	"import-absolute":       {msg: `import-absolute/flow.yaml:2:5: import "/etc/passwd" is an absolute path`},
	"import-cycle":          {msg: `import-cycle/b.yaml:1:10: import cycle: .*a.yaml`},
	"import-directory":      {msg: `import-directory/flow.yaml:1:10: cannot read import .*is a directory`},
	"import-dotdot":         {msg: `import-dotdot/flow.yaml:2:5: .*escapes the root directory`},
	"import-missing":        {msg: `import-missing/flow.yaml:1:10: cannot read import .*no such file`},
	"import-self":           {msg: `import-self/flow.yaml:1:10: import cycle`},
	"import-symlink-out":    {msg: `import-symlink-out/flow.yaml:1:10: .*resolves through a symlink .*outside the root`},
	"import-url":            {msg: `import-url/flow.yaml:1:10: .*is a URL`},
	"invalid-utf8-json":     {msg: `invalid-utf8-json/flow.json:1:\d+: not UTF-8 text \(an invalid byte 0xff`},
	"invalid-utf8-row":      {msg: `invalid-utf8-row/live_specs.ndjson:2:\d+: row does not parse: invalid UTF-8`},
	"invalid-utf8-yaml":     {msg: `invalid-utf8-yaml/flow.yaml:7:\d+: not UTF-8 text \(an invalid byte 0xff`},
	"json-syntax":           {msg: `json-syntax/flow.json:1:28: unexpected '\}', expected a value`},
	"long-row":              {msg: `long-row/live_specs.ndjson:2:1: row is longer than 500 bytes`, flags: []string{"--max-row-size", "500"}},
	"materializations-list": {msg: `materializations-list/flow.yaml:1:19: materializations must be an object`},
	"message-control":       {msg: `invalid duration "\\x07\\x1b\[2J"`, codes: [3]int{2, 2, 0}, review: true},
	"multi-doc":             {msg: `multi-doc/flow.yaml:9:1: several YAML documents`},
	"name-ansi":             {msg: `acmeCo/\\x1b\[31mred\\x1b\[0m`, codes: [3]int{0, 2, 0}},
	"name-csv-formula":      {msg: `=HYPERLINK`, codes: [3]int{0, 2, 0}},
	"name-newline":          {msg: `acmeCo/a\\nFAKE: line`, codes: [3]int{0, 2, 0}},
	"name-percent":          {msg: `acmeCo/100%\\r\\n::error::x`, codes: [3]int{0, 2, 0}},
	"name-pipe":             {msg: `acmeCo/a\|b\|c`, codes: [3]int{0, 2, 0}},
	"nul-byte":              {msg: `nul-byte/flow.yaml:8:17: not a text file \(a NUL byte`},
	"row-config-path":       {msg: `row-config-path/live_specs.ndjson:1:\d+: a stored spec's config must be inline`},
	"row-garbage":           {msg: `row-garbage/live_specs.ndjson:1:1: row does not parse`},
	"row-not-object":        {msg: `row-not-object/live_specs.ndjson: it is a JSON array whose first element is a number, not a stored-spec row`, codes: [3]int{1, 1, 1}}, // [1, 2, 3]: a JSON array not of rows is no input
	"row-spec-not-object":   {msg: `row-spec-not-object/live_specs.ndjson:1:\d+: materialization row acmeCo/r has no spec object`},
	"row-truncated":         {msg: `row-truncated/live_specs.ndjson:1:\d+: row does not parse: unexpected end of input`},
	"source-scalar":         {msg: `source-scalar/flow.yaml:1:1: a catalog source must be an object`},
	"symlink-loop":          {msg: `symlink-loop/flow.yaml:1:10: import "a.yaml": a symlink loop`},
	"unknown-anchor":        {msg: `unknown-anchor/flow.yaml:2:13: unknown anchor 'nope'`},
	"yaml-syntax":           {msg: `yaml-syntax/flow.yaml:3:1: .*flow sequence started at line 2 column 6`},
	"yaml-tabs":             {msg: `yaml-tabs/flow.yaml:2:1: .*a tab in the indentation`},
	"walk-symlink-out":      {msg: `walk-symlink-out/flow.yaml:1:1: resolves through a symlink to .*_outside/secret.yaml, outside the root directory`},
}

// hostileCodes are a case's exit codes. By default a problem is a
// finding for validate (2), an incomplete job for migrate (1), and a
// listed unreadable input for census (0).
func hostileCodes(name string) (v, m, c int) {
	codes := hostile[name].codes
	if codes == ([3]int{}) {
		codes = [3]int{2, 1, 0}
	}
	return codes[0], codes[1], codes[2]
}

// copyTreeLinks copies a tree, symlinks as symlinks.
func copyTreeLinks(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, dst)
		case d.IsDir():
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// treeHashes hashes every file of a tree but those under skip.
func treeHashes(t *testing.T, dir, skip string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && p == skip {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			out[p] = fmt.Sprintf("%x", sha256.Sum256(b))
		}
		return nil
	})
	return out
}

func runTimed(t *testing.T, dir string, args ...string) run {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = dir
	r := execRun(t, cmd)
	if ctx.Err() != nil {
		t.Fatalf("%v: timed out", args)
	}
	return r
}

// TestHostileInputs runs validate, migrate (dry run, then --write on a
// copy) and census over every hostile input: the exit code, a message
// naming the file and the problem, no panic, no escape sequence or bare
// control character in any output, and no file outside the case touched.
func TestHostileInputs(t *testing.T) {
	src, _ := filepath.Abs("../../testdata/hostile")
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || name == "_outside" {
			continue
		}
		n++
		t.Run(name, func(t *testing.T) {
			h, ok := hostile[name]
			if !ok {
				t.Fatalf("testdata/hostile/%s has no expectation in hostile_test.go", name)
			}
			root := t.TempDir()
			copyTreeLinks(t, src, root)
			path := name
			if _, err := os.Stat(filepath.Join(root, name, "live_specs.ndjson")); err == nil {
				path = name + "/live_specs.ndjson"
			}
			msg := regexp.MustCompile(h.msg)
			before := treeHashes(t, root, filepath.Join(root, name))
			wantV, wantM, wantC := hostileCodes(name)
			check := func(what string, r run, code int) {
				t.Helper()
				if r.code != code {
					t.Errorf("%s: exit %d, want %d\nstdout: %s\nstderr: %s", what, r.code, code, r.stdout, r.stderr)
				}
				all := r.stdout + r.stderr
				if strings.Contains(all, "panic:") || strings.Contains(all, "goroutine ") {
					t.Errorf("%s panicked:\n%s", what, r.stderr)
				}
				if strings.ContainsAny(all, "\x1b\x07\x00\r") {
					t.Errorf("%s wrote a raw control character:\n%q", what, all)
				}
				for _, line := range strings.Split(all, "\n") {
					if strings.HasPrefix(line, "FAKE") || strings.HasPrefix(line, "::error::x") {
						t.Errorf("%s: a name's newline made a line of its own: %q", what, line)
					}
				}
			}
			findingPrefix := regexp.MustCompile(`: (error|warning|info) [a-z-]+: `)
			needMsg := func(what string, r run) {
				t.Helper()
				if !msg.MatchString(findingPrefix.ReplaceAllString(r.stdout+r.stderr, ": ")) {
					t.Errorf("%s: no message matching %s in\nstdout: %s\nstderr: %s", what, h.msg, r.stdout, r.stderr)
				}
			}
			args := func(cmd ...string) []string { return append(append(cmd, h.flags...), path) }
			r := runTimed(t, root, args("validate")...)
			check("validate", r, wantV)
			needMsg("validate", r)
			for _, format := range []string{"json", "sarif", "github"} {
				r := runTimed(t, root, args("validate", "-o", format)...)
				check("validate -o "+format, r, wantV)
				if format != "github" && !json.Valid([]byte(r.stdout)) {
					t.Errorf("validate -o %s is not valid JSON:\n%s", format, r.stdout)
				}
			}
			r = runTimed(t, root, args("migrate")...)
			check("migrate", r, wantM)
			if wantM != 2 {
				needMsg("migrate", r)
			}
			r = runTimed(t, root, args("migrate", "-o", "json")...)
			check("migrate -o json", r, wantM)
			if !json.Valid([]byte(r.stdout)) {
				t.Errorf("migrate -o json is not valid JSON:\n%s", r.stdout)
			}
			r = runTimed(t, root, args("census")...)
			check("census", r, wantC)
			wide := runTimed(t, root, args("census", "-o", "wide")...)
			needMsg("census", run{r.code, r.stdout + wide.stdout, r.stderr + wide.stderr})
			for _, format := range []string{"wide", "json", "csv", "markdown"} {
				r := runTimed(t, root, args("census", "-o", format)...)
				check("census -o "+format, r, wantC)
				if format == "json" && !json.Valid([]byte(r.stdout)) {
					t.Errorf("census -o json is not valid JSON:\n%s", r.stdout)
				}
			}
			writeCode := wantM
			if writeCode == 2 && !h.review {
				writeCode = 0
			}
			check("migrate --write", runTimed(t, root, args("migrate", "--write")...), writeCode)
			if after := treeHashes(t, root, filepath.Join(root, name)); fmt.Sprint(after) != fmt.Sprint(before) {
				t.Errorf("a file outside %s changed", name)
			}
			// No temp file is left in the case.
			filepath.WalkDir(filepath.Join(root, name), func(p string, d fs.DirEntry, err error) error {
				if err == nil && strings.Contains(d.Name(), ".schedtool-") {
					t.Errorf("temp file left behind: %s", p)
				}
				return nil
			})
		})
	}
	if n < 40 {
		t.Errorf("the hostile corpus has %d inputs, want at least 40", n)
	}
}

// In process, no command leaves a goroutine behind on hostile input.
func TestHostileNoGoroutineLeak(t *testing.T) {
	src, _ := filepath.Abs("../../testdata/hostile")
	entries, _ := os.ReadDir(src)
	base := runtime.NumGoroutine()
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "_outside" {
			continue
		}
		h := hostile[e.Name()]
		path := filepath.Join(src, e.Name())
		if _, err := os.Stat(filepath.Join(path, "live_specs.ndjson")); err == nil {
			path = filepath.Join(path, "live_specs.ndjson")
		}
		for _, cmd := range []string{"validate", "migrate", "census"} {
			var out, errb bytes.Buffer
			Main(append(append([]string{cmd}, h.flags...), path), Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > base {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines after the runs, %d before:\n%s", n, base, buf[:runtime.Stack(buf, true)])
	}
}
