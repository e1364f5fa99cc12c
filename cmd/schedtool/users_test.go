package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The users of a config file are every task under the root that
// references it (docs/behaviour.md §7, issue 18): a user that a run leaves out, or
// cannot read, parse or edit, holds the file back. Each case below used
// to zero shared.config.yaml under a task that was not migrated with it
// (no pacing at all, exit 0 or exit 1 after the write).

const sharedConfig = "host: h\nsyncSchedule:\n  syncFrequency: 4h\n"

// sealedShared is shared.config.yaml sealed by sops: the schedule is
// plaintext, a change goes into sops.overlay.
const sealedShared = "host: h\npassword_sops: ENC[AES256_GCM,data:eA==,iv:eA==,tag:eA==,type:str]\nsyncSchedule:\n  syncFrequency: 4h\nsops:\n  encrypted_suffix: _sops\n  mac: ENC[AES256_GCM,data:eA==,iv:eA==,tag:eA==,type:str]\n  version: 3.9.0\n"

// taskWith is task with another image.
func taskWith(name, image, config string, v2 bool) string {
	return strings.Replace(task(name, config, v2), "ghcr.io/estuary/materialize-snowflake:v4", image, 1)
}

// threeUsers is the tree: prod and staging (V2) and legacy (V1)
// share shared.config.yaml.
func threeUsers(config string) map[string]string {
	return map[string]string{
		"flow.yaml": "materializations:\n" +
			task("acmeCo/prod/orders", "shared.config.yaml", true) +
			taskWith("acmeCo/staging/orders", "ghcr.io/estuary/materialize-redshift:v2", "shared.config.yaml", true) +
			task("acmeCo/legacy/orders", "shared.config.yaml", false),
		"shared.config.yaml": config,
	}
}

// reviewReason is the reason migrate's notes give a task: reasons are
// grouped ("  N tasks: REASON"), each followed by its tasks
// ("    NAME (FILE:LINE)").
func reviewReason(stderr, task string) string {
	reason := ""
	for _, l := range strings.Split(stderr, "\n") {
		if rest, ok := strings.CutPrefix(l, "  "); ok && !strings.HasPrefix(rest, " ") {
			if _, r, ok := strings.Cut(rest, ": "); ok {
				reason = r
			}
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(l), task+" (") {
			return reason
		}
	}
	return ""
}

// heldBack checks a run that must leave the tree as it was, with each
// task of tasks needing review naming each holder.
func heldBack(t *testing.T, r run, code int, before, after map[string]string, tasks, holders []string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit %d, want %d\n%s%s", r.code, code, r.stdout, r.stderr)
	}
	sameTree(t, "the run", after, before)
	for _, tk := range tasks {
		line := reviewReason(r.stderr, tk)
		if !strings.Contains(line, "is shared: also used by") || !strings.Contains(line, "give this task a config file of its own") {
			t.Errorf("%s does not need review for the shared file:\n%s", tk, r.stderr)
		}
		for _, h := range holders {
			if !strings.Contains(line, h) {
				t.Errorf("%s's reason does not name %q:\n%s", tk, h, line)
			}
		}
	}
}

func TestSelectorsDoNotHideUsers(t *testing.T) {
	for _, tc := range []struct {
		name    string
		config  string
		args    []string
		holders []string
	}{
		{"limit and prefix", sharedConfig, []string{"--limit", "50", "--prefix", "acmeCo/prod/"},
			[]string{"acmeCo/staging/orders (flow.yaml:", "acmeCo/legacy/orders (flow.yaml:", "not selected by --name/--prefix/--image"}},
		{"name", sharedConfig, []string{"--name", "acmeCo/prod/orders"}, []string{"acmeCo/staging/orders", "acmeCo/legacy/orders"}},
		{"image", sharedConfig, []string{"--image", "ghcr.io/estuary/materialize-snowflake", "--enable-runtime-v2"}, []string{"acmeCo/staging/orders"}},
		{"sealed config", sealedShared, []string{"--prefix", "acmeCo/prod/"}, []string{"acmeCo/staging/orders", "acmeCo/legacy/orders"}},
		{"V1 among the selected", sharedConfig, []string{"--prefix", "acmeCo/"}, []string{"acmeCo/legacy/orders (flow.yaml:", "V1, skipped without --enable-runtime-v2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, threeUsers(tc.config))
			before := treeState(t, dir)
			r := schedtoolIn(t, dir, append(append([]string{"migrate", "--write"}, tc.args...), ".")...)
			tasks := []string{"acmeCo/prod/orders"}
			heldBack(t, r, 2, before, treeState(t, dir), tasks, tc.holders)
			// The gate does not pass: every task still has its work to do.
			if c := schedtoolIn(t, dir, "census", "--fail-if-remaining", "."); c.code == 0 {
				t.Errorf("census --fail-if-remaining passed after the run:\n%s", c.stdout)
			}
		})
	}
	t.Run("out dir", func(t *testing.T) {
		dir := t.TempDir()
		writeFiles(t, dir, threeUsers(sharedConfig))
		before := treeState(t, dir)
		out := filepath.Join(t.TempDir(), "out")
		r := schedtoolIn(t, dir, "migrate", "--out", out, "--prefix", "acmeCo/prod/", ".")
		heldBack(t, r, 2, before, treeState(t, dir), []string{"acmeCo/prod/orders"}, []string{"acmeCo/staging/orders", "acmeCo/legacy/orders"})
		if b, err := os.ReadFile(filepath.Join(out, "shared.config.yaml")); err == nil && string(b) != sharedConfig {
			t.Errorf("--out DIR zeroed the shared file:\n%s", b)
		}
	})
	// Selecting every user migrates them together (the way out).
	t.Run("every user selected", func(t *testing.T) {
		dir := t.TempDir()
		writeFiles(t, dir, threeUsers(sharedConfig))
		if r := schedtoolIn(t, dir, "migrate", "--write", "--enable-runtime-v2", "--prefix", "acmeCo/", "."); r.code != 0 {
			t.Errorf("exit %d\n%s", r.code, r.stderr)
		}
		if c := schedtoolIn(t, dir, "census", "--fail-if-remaining", "."); c.code != 0 {
			t.Errorf("census after: exit %d\n%s%s", c.code, c.stdout, c.stderr)
		}
	})
}

// a/flow.yaml uses ../shared.config.yaml; b's task uses the same file
// by another route. migrate a (the root is the enclosing git work tree)
// must see b's task.
func TestUsersBehindImportsAndSpellings(t *testing.T) {
	for _, tc := range []struct {
		name   string
		b      map[string]string
		holder string
	}{
		{"import from another directory", map[string]string{
			"b/flow.yaml":         "import: [tasks/orders.yaml]\n",
			"b/tasks/orders.yaml": "materializations:\n" + task("acmeCo/b", "../../shared.config.yaml", true),
		}, "acmeCo/b (b/tasks/orders.yaml:"},
		{"escape", map[string]string{
			"b/flow.yaml": "materializations:\n" + task("acmeCo/b", `"../shared\u002econfig.yaml"`, true),
		}, "acmeCo/b (b/flow.yaml:"},
		{"duplicate key elsewhere", map[string]string{
			"b/flow.yaml": "materializations:\n" + task("acmeCo/b", "../shared.config.yaml", true) + "    bindings: []\n",
		}, "b/flow.yaml (a catalog source that does not parse"},
		{"%YAML 1.2 directive", map[string]string{
			"b/flow.yaml": "%YAML 1.2\n---\nmaterializations:\n" + task("acmeCo/b", "../shared.config.yaml", true),
		}, "acmeCo/b (b/flow.yaml:"},
		// Spelled as Flow's loader reads them (Url::join, then the path).
		{"percent escape", map[string]string{
			"b/flow.yaml": "materializations:\n" + task("acmeCo/b", "../shared%2Econfig.yaml", true),
		}, "acmeCo/b (b/flow.yaml:"},
		{"backslash", map[string]string{
			"b/flow.yaml": "materializations:\n" + task("acmeCo/b", `'..\shared.config.yaml'`, true),
		}, "acmeCo/b (b/flow.yaml:"},
		{"query", map[string]string{
			"b/flow.yaml": "materializations:\n" + task("acmeCo/b", "../shared.config.yaml?v=1", true),
		}, "acmeCo/b (b/flow.yaml:"},
		{"relative file: URL", map[string]string{
			"b/flow.yaml": "materializations:\n" + task("acmeCo/b", "file:../shared.config.yaml", true),
		}, "acmeCo/b (b/flow.yaml:"},
		{"absolute file: URL", map[string]string{
			"b/flow.yaml": "materializations:\n" + task("acmeCo/b", "file://@D@/shared.config.yaml", true),
		}, "acmeCo/b (b/flow.yaml:"},
		{"import spelled with a backslash and an escape", map[string]string{
			"b/flow.yaml":      `import: ['sub\tasks%2Eyaml?x=1']` + "\n",
			"b/sub/tasks.yaml": "materializations:\n" + task("acmeCo/b", "../../shared.config.yaml", true),
		}, "acmeCo/b (b/sub/tasks.yaml:"},
		// Sources discovery does not see.
		{"hidden directory", map[string]string{
			".private/flow.yaml": "materializations:\n" + task("acmeCo/p", "../shared.config.yaml", true),
		}, "acmeCo/p (.private/flow.yaml:"},
		{"a source by another name", map[string]string{
			"b/main.yaml":  "import: [tasks.yaml]\n",
			"b/tasks.yaml": "materializations:\n" + task("acmeCo/b", "../shared.config.yaml", true),
		}, "acmeCo/b (b/tasks.yaml:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{
				"a/flow.yaml":        "materializations:\n" + task("acmeCo/a", "../shared.config.yaml", true),
				"shared.config.yaml": sharedConfig,
				".git/HEAD":          "ref: refs/heads/main\n",
			}
			for k, v := range tc.b {
				files[k] = strings.ReplaceAll(v, "@D@", dir)
			}
			writeFiles(t, dir, files)
			before := treeState(t, dir)
			r := schedtoolIn(t, dir, "migrate", "--write", "a")
			heldBack(t, r, 2, before, treeState(t, dir), []string{"acmeCo/a"}, []string{tc.holder})
		})
	}
}

// Users the run reads but cannot edit, or whose reference it refuses.
func TestUsersThatCannotBeEditedHoldBack(t *testing.T) {
	t.Run("CR-only source", func(t *testing.T) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{
			"a/flow.yaml":        "materializations:\n" + task("acmeCo/a", "../shared.config.yaml", true),
			"b/flow.yaml":        strings.ReplaceAll("materializations:\n"+task("acmeCo/b", "../shared.config.yaml", true), "\n", "\r"),
			"shared.config.yaml": sharedConfig,
		})
		before := treeState(t, dir)
		// The refused file makes the run exit 1 (it could not do all of
		// its job); nothing of the group is written.
		r := schedtoolIn(t, dir, "migrate", "--write", ".")
		heldBack(t, r, 1, before, treeState(t, dir), []string{"acmeCo/a"}, []string{"acmeCo/b (b/flow.yaml:", "needs review: file b/flow.yaml cannot be edited safely"})
	})
	t.Run("reference refused as escaping its root", func(t *testing.T) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{
			"a/flow.yaml":          "materializations:\n" + task("acmeCo/a", "shared.config.yaml", true),
			"a/shared.config.yaml": sharedConfig,
			"b/flow.yaml":          "materializations:\n" + task("acmeCo/b", "../a/shared.config.yaml", true),
		})
		before := treeState(t, dir)
		// b's refused reference is a problem of the run (exit 1).
		r := schedtoolIn(t, dir, "migrate", "--write", "a", "b")
		heldBack(t, r, 1, before, treeState(t, dir), []string{"acmeCo/a"}, []string{"acmeCo/b (b/flow.yaml:", "its reference was refused", "escapes the root directory b"})
	})
	t.Run("capture", func(t *testing.T) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{
			"flow.yaml": "captures:\n  acmeCo/c:\n    endpoint:\n      connector:\n        image: ghcr.io/estuary/source-x:v1\n        config: shared.config.yaml\n    bindings: []\nmaterializations:\n" +
				task("acmeCo/a", "shared.config.yaml", true),
			"shared.config.yaml": sharedConfig,
		})
		before := treeState(t, dir)
		r := schedtoolIn(t, dir, "migrate", "--write", ".")
		heldBack(t, r, 2, before, treeState(t, dir), []string{"acmeCo/a"}, []string{"acmeCo/c (flow.yaml:6: a capture"})
	})
}

// A source may begin with a %YAML 1.1 or 1.2 directive, as Flow's reader
// accepts: validate, census and migrate read it, and migrate keeps the
// directive's bytes.
func TestYAMLDirective(t *testing.T) {
	for _, v := range []string{"1.1", "1.2"} {
		t.Run(v, func(t *testing.T) {
			dir := t.TempDir()
			src := "%YAML " + v + "\n---\n# a comment\nmaterializations:\n" + task("acmeCo/a", "{host: h, syncSchedule: {syncFrequency: 2h}}", true)
			writeFiles(t, dir, map[string]string{"flow.yaml": src})
			if r := schedtoolIn(t, dir, "validate", "."); strings.Contains(r.stdout+r.stderr, "parse-error") || !strings.Contains(r.stdout+r.stderr, "1 materialization") {
				t.Errorf("validate: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			if r := schedtoolIn(t, dir, "census", "-o", "json", "."); r.code != 0 || !strings.Contains(r.stdout, `"ready"`) {
				t.Errorf("census: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			if r := schedtoolIn(t, dir, "migrate", "--write", "."); r.code != 0 {
				t.Errorf("migrate: exit %d\n%s", r.code, r.stderr)
			}
			b := string(mustRead(t, filepath.Join(dir, "flow.yaml")))
			if !strings.HasPrefix(b, "%YAML "+v+"\n---\n# a comment\n") || !strings.Contains(b, "baseInterval: 2h") {
				t.Errorf("migrated source:\n%s", b)
			}
			if c := schedtoolIn(t, dir, "census", "--fail-if-remaining", "."); c.code != 0 {
				t.Errorf("census after: exit %d\n%s%s", c.code, c.stdout, c.stderr)
			}
		})
	}
}

// A catalog source under the root that schedtool does not read holds
// every config file back, whatever made it unread: a source found by
// walking that resolves outside the root (a symlink), an import refused
// for the same reason (Flow reads both through the symlink), a FIFO where
// a source is expected. The run names it; the shared file stays as it was.
func TestUnreadSourcesHoldBack(t *testing.T) {
	for _, tc := range []struct {
		name   string
		make   func(t *testing.T, dir, ext string)
		holder string
	}{
		{"walked source outside the root", func(t *testing.T, dir, ext string) {
			if err := os.Symlink(filepath.Join(ext, "real.yaml"), filepath.Join(dir, "b", "flow.yaml")); err != nil {
				t.Fatal(err)
			}
		}, "b/flow.yaml (a catalog source that is not read: "},
		{"import outside the root", func(t *testing.T, dir, ext string) {
			if err := os.Symlink(filepath.Join(ext, "real.yaml"), filepath.Join(dir, "b", "tasks.yaml")); err != nil {
				t.Fatal(err)
			}
			writeFiles(t, dir, map[string]string{"b/flow.yaml": "import: [tasks.yaml]\n"})
		}, "tasks.yaml (imported by b/flow.yaml) (a catalog source that is refused: "},
		{"FIFO", func(t *testing.T, dir, ext string) {
			if err := syscall.Mkfifo(filepath.Join(dir, "b", "flow.yaml"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "b/flow.yaml (a catalog source that cannot be read: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, ext := t.TempDir(), t.TempDir()
			writeFiles(t, dir, map[string]string{
				"a/flow.yaml":        "materializations:\n" + task("acmeCo/a", "../shared.config.yaml", true),
				"shared.config.yaml": sharedConfig,
			})
			writeFiles(t, ext, map[string]string{"real.yaml": "materializations:\n" + task("acmeCo/b", "../shared.config.yaml", true)})
			if err := os.MkdirAll(filepath.Join(dir, "b"), 0o755); err != nil {
				t.Fatal(err)
			}
			tc.make(t, dir, ext)
			before := treeState(t, dir)
			r := schedtoolIn(t, dir, "migrate", "--write", "--root", ".", "a")
			heldBack(t, r, 2, before, treeState(t, dir), []string{"acmeCo/a"}, []string{tc.holder, "it might use any config file"})
		})
	}
}

// Tasks sharing a config file migrate together, so a group larger than
// --limit never fits: no wave takes it, and the run says so with exit 2
// (a person must raise the limit), after --write as in a dry run; at a
// limit it fits, the group migrates and the run exits 0.
func TestLimitSmallerThanAGroup(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"flow.yaml":          "materializations:\n" + task("acmeCo/a", "shared.config.yaml", true) + task("acmeCo/b", "shared.config.yaml", true),
		"shared.config.yaml": sharedConfig,
	})
	before := treeState(t, dir)
	for _, args := range [][]string{{"migrate", "--limit", "1", "."}, {"migrate", "--write", "--limit", "1", "."}} {
		r := schedtoolIn(t, dir, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "2 tasks share config files with more tasks than --limit 1 takes") {
			t.Errorf("%v: exit %d\n%s", args, r.code, r.stderr)
		}
	}
	sameTree(t, "--limit 1", treeState(t, dir), before)
	if r := schedtoolIn(t, dir, "migrate", "--write", "--limit", "2", "."); r.code != 0 || !strings.Contains(r.stderr, "2 to migrate") {
		t.Errorf("--limit 2: exit %d\n%s", r.code, r.stderr)
	}
}

// migrate --out FILE from a dump where no row migrates writes no file and
// no "written:" line, so the next --out is not blocked by an empty file
// (which census would refuse as holding no rows); the run that migrates
// the row then writes it.
func TestOutFileNothingMigrated(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"live.ndjson": `{"catalog_name":"acmeCo/v1","spec_type":"materialization","last_pub_id":"0011223344556678","spec":{"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{"host":"h","warehouse":"w","syncSchedule":{"syncFrequency":"4h"}}}},"bindings":[]}}` + "\n"})
	r := schedtoolIn(t, dir, "migrate", "--out", "out.ndjson", "live.ndjson")
	if r.code != 2 || strings.Contains(r.stderr, "written: ") || !strings.Contains(r.stderr, "0 written") {
		t.Errorf("exit %d, want 2, 0 written and no written: line\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "out.ndjson")); !os.IsNotExist(err) {
		t.Errorf("out.ndjson: %v, want no file", err)
	}
	r = schedtoolIn(t, dir, "migrate", "--enable-runtime-v2", "--out", "out.ndjson", "live.ndjson")
	if r.code != 0 || !strings.Contains(r.stderr, "written: out.ndjson") {
		t.Errorf("with --enable-runtime-v2: exit %d, want 0 and out.ndjson written\n%s", r.code, r.stderr)
	}
	if r := schedtoolIn(t, dir, "census", "out.ndjson"); r.code != 0 {
		t.Errorf("census out.ndjson: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// With no --root and no git work tree, the root is the PATH's own
// directory: a task beside it that uses one of its config files is not
// seen, and the run says so (a near miss: --root, and no config file).
func TestRootOwnDirectoryNote(t *testing.T) {
	const note = "the PATH's own directory (no --root, no git work tree): a task outside it that uses one of its config files is not seen"
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a/flow.yaml":          "materializations:\n" + task("acmeCo/a", "shared.config.yaml", true),
		"a/shared.config.yaml": sharedConfig,
		"c/flow.yaml":          "materializations:\n" + task("acmeCo/c", "{host: h, syncSchedule: {syncFrequency: 1h}}", true),
	})
	if r := schedtoolIn(t, dir, "migrate", "a"); !strings.Contains(r.stderr, "schedtool: the root is a, "+note) {
		t.Errorf("no note of the root:\n%s", r.stderr)
	}
	for _, args := range [][]string{{"migrate", "--root", ".", "a"}, {"migrate", "c"}} {
		if r := schedtoolIn(t, dir, args...); strings.Contains(r.stderr, note) {
			t.Errorf("%v: a note of the root:\n%s", args, r.stderr)
		}
	}
}

// A config file the run knows by a symlink (link.config.yaml) is named by
// its own name in a source that does not parse (shared.config.yaml): that
// source might use it, so it holds the file back (FuzzUsersNeverUnpaced).
func TestUnparsedSourceNamesTheFileALinkLeadsTo(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a/flow.yaml":        "materializations:\n" + task("acmeCo/a", "../link.config.yaml", true),
		"b/flow.yaml":        "materializations:\n" + task("acmeCo/b", "../shared.config.yaml", false) + "materializations: {}\n",
		"shared.config.yaml": sharedConfig,
	})
	if err := os.Symlink("shared.config.yaml", filepath.Join(dir, "link.config.yaml")); err != nil {
		t.Fatal(err)
	}
	before := treeState(t, dir)
	r := schedtoolIn(t, dir, "migrate", "--write", "--root", ".", "a")
	heldBack(t, r, 2, before, treeState(t, dir), []string{"acmeCo/a"}, []string{"b/flow.yaml (a catalog source that does not parse", "names shared.config.yaml"})
}

// A capture on a local endpoint, or a materialization on one (it runs the
// connector's own code, which reads the schedule), that names the shared
// config file holds it back, as a capture on an image does.
func TestLocalEndpointsHoldBack(t *testing.T) {
	for name, src := range map[string]string{
		"a capture":               "captures:\n  acmeCo/c:\n    endpoint:\n      local:\n        command: [go, run, ./cmd/connector]\n        config: ../shared.config.yaml\n    bindings: []\n",
		"a local materialization": "materializations:\n  acmeCo/l:\n    endpoint:\n      local:\n        command: [go, run, ./cmd/connector]\n        config: ../shared.config.yaml\n    bindings: []\n",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{
				"a/flow.yaml":        "materializations:\n" + task("acmeCo/a", "../shared.config.yaml", true),
				"b/flow.yaml":        src,
				"shared.config.yaml": sharedConfig,
			})
			before := treeState(t, dir)
			r := schedtoolIn(t, dir, "migrate", "--write", "--root", ".", "a")
			heldBack(t, r, 2, before, treeState(t, dir), []string{"acmeCo/a"}, []string{"(b/flow.yaml:6: " + name + ", which schedtool does not migrate)"})
		})
	}
}

// Sources found by what they hold, whatever their name, and names
// matched in any case (second hostile run): a catalog published from a
// file with no YAML name (b/catalog), a YAML body under an upper-case
// .JSON name, one over --max-file-size (unreadable: it holds every file),
// and a reference that names the file in another case (Flow opens it on
// a file system that ignores case).
func TestUsersWhateverTheirNames(t *testing.T) {
	user := "materializations:\n" + task("acmeCo/b", "../shared.config.yaml", true)
	for _, tc := range []struct {
		name, file, text string
		args             []string
		holder           string
	}{
		{"no YAML name", "b/catalog", user, nil, "acmeCo/b (b/catalog:"},
		{"YAML under .JSON", "b/main.JSON", user, nil, "b/main.JSON (a catalog source that does not parse"},
		{"over --max-file-size", "b/main.yaml", user + "# " + strings.Repeat("x", 2048) + "\n", []string{"--max-file-size", "1KiB"}, "b/main.yaml (a catalog source that cannot be read"},
		{"another case", "b/flow.yaml", "materializations:\n" + task("acmeCo/b", "../Shared.config.yaml", true), nil, "Shared.config.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{
				"a/flow.yaml":        "materializations:\n" + task("acmeCo/a", "../shared.config.yaml", true),
				tc.file:              tc.text,
				"shared.config.yaml": sharedConfig,
			})
			before := treeState(t, dir)
			r := schedtoolIn(t, dir, append(append([]string{"migrate", "--write", "--root", "."}, tc.args...), "a")...)
			heldBack(t, r, 2, before, treeState(t, dir), []string{"acmeCo/a"}, []string{tc.holder})
		})
	}
}
