package migrate

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/catalog/selection"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/schedule/connector"
)

// usersTree is a random catalog of shared config files for the users
// property: sources in several directories (one reached only through an
// import from another directory), tasks whose configs are inline, in a
// file of their own, or shared by several tasks through every spelling
// (../, ./, an escape, a symlink, a hard link), some sealed with a sops
// stanza; V1 and V2 tasks; a source that cannot be parsed (a duplicate
// key) and one whose edit is refused (CR-only line ends).
type usersTree struct {
	files   map[string]string
	clean   map[string]string // the parseable text of each broken source
	names   []string
	links   [][2]string // symlink name, target
	hards   [][2]string // hard link name, existing file
	runs    []usersRun
	sources []string
}

// usersRun is one run over a tree: its PATHs, selectors and flags.
type usersRun struct {
	paths     []string
	sel       selection.Selector
	limit     int
	enableV2  bool
	outDir    bool
	noRoot    bool // each PATH its own root: references to ../ are refused
	twice     bool
	describes string
}

// usersGen draws the choices of a tree: from math/rand for the property
// test, from the fuzzer's bytes for FuzzUsersNeverUnpaced.
type usersGen func(n int) int

func (g usersGen) pick(xs ...string) string { return xs[g(len(xs))] }

// Each source, with the prefix that leads from its directory to the root.
var usersSources = []struct{ path, up string }{
	{"flow.yaml", ""},
	{"a/flow.yaml", "../"},
	{"b/tasks/orders.yaml", "../../"}, // imported by b/flow.yaml only
	{"c/x.flow.yaml", "../"},
	{"d/main.yaml", "../"},             // a source by its content (issue 24)
	{"e/sub/Prod.Flow.YAML", "../../"}, // by its name, in another case
}

func genUsersTree(g usersGen) *usersTree {
	t := &usersTree{files: map[string]string{
		"shared.config.yaml": "host: s\nsyncSchedule:\n  syncFrequency: 4h\n",
		"other.config.yaml":  "host: o\nsyncSchedule:\n  syncFrequency: 2h\n",
		"sealed.config.yaml": "host: z\npassword_sops: ENC[AES256_GCM,data:eA==,iv:eA==,tag:eA==,type:str]\nsyncSchedule:\n  syncFrequency: 1h\nsops:\n  encrypted_suffix: _sops\n  mac: ENC[AES256_GCM,data:eA==,iv:eA==,tag:eA==,type:str]\n  version: 3.9.0\n",
		"b/flow.yaml":        "import: [tasks/orders.yaml]\n",
	}, clean: map[string]string{}}
	t.links = [][2]string{{"link.config.yaml", "shared.config.yaml"}}
	t.hards = [][2]string{{"hard.config.yaml", "other.config.yaml"}}
	body := map[string]string{}
	n := 1 + g(7)
	for i := 0; i < n; i++ {
		src := usersSources[g(len(usersSources))]
		name := fmt.Sprintf("acmeCo/%s/t%d", g.pick("prod", "staging", "legacy"), i)
		t.names = append(t.names, name)
		image := g.pick("ghcr.io/estuary/materialize-snowflake:v4", "ghcr.io/estuary/materialize-redshift:v2")
		var config string
		switch g(10) {
		case 0:
			config = "{host: i, syncSchedule: {syncFrequency: 30m}}"
		case 1:
			own := fmt.Sprintf("own-%d.yaml", i)
			t.files[own] = "host: own\nsyncSchedule:\n  syncFrequency: 45m\n"
			config = src.up + own
		case 2, 3:
			config = src.up + "shared.config.yaml"
		case 4:
			config = `"` + src.up + `shared\u002econfig.yaml"`
		case 5:
			config = src.up + "./link.config.yaml"
		case 6:
			config = src.up + g.pick("other.config.yaml", "hard.config.yaml")
		case 7:
			config = src.up + "sealed.config.yaml"
		case 8:
			config = "./" + src.up + "shared.config.yaml"
		default:
			// Merge keys, as Flow applies them to a catalog source
			// (issue 24): an inline config whose schedule is merged.
			config = `{"<<": {host: m, syncSchedule: {syncFrequency: 2h}}}`
		}
		v2 := ""
		if g(4) != 0 {
			v2 = "    shards: {flags: {enable-runtime-v2: \"true\"}}\n"
		}
		endpoint := fmt.Sprintf("    endpoint:\n      connector:\n        image: %s\n        config: %s\n", image, config)
		if g(5) == 0 {
			// The whole endpoint merged: a reference to a shared file
			// that only merge keys reveal.
			endpoint = fmt.Sprintf("    \"<<\": {endpoint: {connector: {image: %q, config: %s}}}\n", image, config)
		}
		body[src.path] += fmt.Sprintf("  %s:\n%s%s    bindings: []\n", name, v2, endpoint)
	}
	for _, s := range usersSources {
		text := "materializations:\n" + body[s.path]
		if body[s.path] == "" {
			text = "materializations: {}\n"
		}
		t.files[s.path] = text
	}
	// A source that cannot be parsed (a duplicate key), or whose edit is
	// refused (CR-only line ends, UTF-16), or that cannot be decoded (a
	// UTF-16 text cut in a character).
	switch g(6) {
	case 0:
		s := usersSources[g(len(usersSources))].path
		t.clean[s] = t.files[s]
		t.files[s] += "materializations: {}\n"
	case 1:
		s := usersSources[g(len(usersSources))].path
		t.files[s] = strings.ReplaceAll(t.files[s], "\n", "\r")
	case 2:
		s := usersSources[g(len(usersSources))].path
		t.files[s] = utf16Text(t.files[s], g(2) == 0)
	case 3:
		s := usersSources[g(len(usersSources))].path
		t.clean[s] = t.files[s]
		t.files[s] = utf16Text(t.files[s], g(2) == 0) + "x"
	}
	if g(3) == 0 {
		// A symlinked directory: its sources are read through it too.
		t.links = append(t.links, [2]string{"lnk", "c"})
	}
	for range 1 + g(3) {
		r := usersRun{limit: g(4), enableV2: g(3) == 0, outDir: g(3) == 0, twice: g(2) == 0, noRoot: g(3) == 0}
		switch g(4) {
		case 0:
			r.paths = []string{"."}
			if r.noRoot {
				// Each PATH its own root: the sources beside flow.yaml
				// name the shared files through ../, refused.
				r.paths = []string{"a", "b", "c", "flow.yaml"}
			}
		case 1:
			r.paths = []string{"a"}
		case 2:
			r.paths = []string{"b", "c"}
			if len(t.links) > 1 {
				r.paths = []string{"b", "lnk"}
			}
		default:
			r.paths = []string{"a", "b", "c", "flow.yaml"}
		}
		switch g(5) {
		case 0:
			r.sel.Names = []string{t.names[g(len(t.names))]}
		case 1:
			r.sel.Prefixes = []string{g.pick("acmeCo/prod/", "acmeCo/staging/", "acmeCo/legacy/")}
		case 2:
			r.sel.Images = []string{g.pick("ghcr.io/estuary/materialize-snowflake", "ghcr.io/estuary/materialize-redshift")}
		}
		r.describes = fmt.Sprintf("%+v", r)
		t.runs = append(t.runs, r)
	}
	return t
}

// utf16Text is s in UTF-16 with a byte order mark.
func utf16Text(s string, big bool) string {
	var b []byte
	if big {
		b = []byte{0xFE, 0xFF}
	} else {
		b = []byte{0xFF, 0xFE}
	}
	for _, u := range utf16.Encode([]rune(s)) {
		if big {
			b = append(b, byte(u>>8), byte(u))
		} else {
			b = append(b, byte(u), byte(u>>8))
		}
	}
	return string(b)
}

func (ut *usersTree) write(tb *testing.T, dir string) {
	tb.Helper()
	writeTree(tb, dir, ut.files)
	for _, l := range ut.links {
		if err := os.Symlink(l[1], filepath.Join(dir, l[0])); err != nil {
			tb.Fatal(err)
		}
	}
	for _, h := range ut.hards {
		if err := os.Link(filepath.Join(dir, h[1]), filepath.Join(dir, h[0])); err != nil {
			tb.Fatal(err)
		}
	}
}

// paced is, for every task of the tree under dir, whether it has pacing:
// a model schedule, or a connector delay that is not known to be zero.
// In place, broken sources are read as their clean text (so that their
// tasks are judged against the config files as they are now). A tree
// --out DIR wrote is read as it is: its layout is its root's, which need
// not be dir's (a PATH that is its own root), and a broken source there
// holds no task to judge.
func (ut *usersTree) paced(t *testing.T, dir string, inPlace bool) map[string]bool {
	t.Helper()
	for p, text := range ut.clean {
		if !inPlace {
			break
		}
		b, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			continue // not in this tree (--out DIR mirrors what it needs)
		}
		if string(b) != ut.files[p] {
			t.Fatalf("%s, which does not parse, was written:\n%s", p, b)
		}
		os.WriteFile(filepath.Join(dir, p), []byte(text), 0o644)
		defer os.WriteFile(filepath.Join(dir, p), b, 0o644)
	}
	opts := catalog.DefaultOptions()
	opts.Root = dir
	inputs, err := input.Resolve([]string{dir}, opts)
	if err != nil {
		t.Fatal(err)
	}
	cat := catalog.Load(inputs, opts)
	reg := connector.Builtin()
	out := map[string]bool{}
	for _, m := range cat.Materializations {
		_, _, res := m.ConnectorSchedule(reg)
		out[m.Name] = m.ModelSchedule() != nil || !(res.Known && res.Delay == 0)
	}
	return out
}

// do runs one migration of the tree under dir; for --out DIR, out is the
// tree written.
func (r usersRun) do(t *testing.T, dir string) (out string, msg string) {
	t.Helper()
	reg := connector.Builtin()
	mg := &Migrator{Planner: &plan.Planner{Registry: reg, Options: plan.Options{EnableRuntimeV2: r.enableV2}}, Registry: reg}
	opts := catalog.DefaultOptions()
	if !r.noRoot {
		opts.Root = dir
	}
	opts.Select = selection.New(r.sel)
	var paths []string
	for _, p := range r.paths {
		paths = append(paths, filepath.Join(dir, p))
	}
	inputs, err := input.Resolve(paths, opts)
	if err != nil {
		return "", err.Error() // a PATH with no source: nothing to run
	}
	ro := RunOptions{Load: opts, Mode: Write, Limit: r.limit}
	if r.outDir {
		ro.Mode, ro.Out = OutDir, filepath.Join(t.TempDir(), "out")
		out = ro.Out
	}
	var o, e bytes.Buffer
	if _, err := mg.Run(inputs, ro, &o, &e); err != nil {
		return "", err.Error() + "\n" + e.String()
	}
	return out, e.String()
}

// checkUsers runs every run of the tree (twice when it says so) and checks
// that no task paced before is left without pacing, in place after
// --write and in the tree --out DIR wrote.
func checkUsers(t *testing.T, ut *usersTree) {
	dir := fuzzDir(t)
	ut.write(t, dir)
	before := ut.paced(t, dir, true)
	for _, r := range ut.runs {
		for range 1 + btoi(r.twice) {
			out, msg := r.do(t, dir)
			check := func(where string) {
				for task, p := range ut.paced(t, where, where == dir) {
					if before[task] && !p {
						var names []string
						for n := range ut.files {
							names = append(names, n)
						}
						sort.Strings(names)
						var tree strings.Builder
						for _, n := range names {
							fmt.Fprintf(&tree, "--- %s\n%s", n, ut.files[n])
						}
						t.Fatalf("%s lost its pacing in %s after %s\n%s\n%s", task, where, r.describes, msg, tree.String())
					}
				}
			}
			check(dir)
			if out != "" {
				if _, err := os.Stat(out); err == nil {
					check(out)
				}
			}
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestUsersNeverUnpaced: whatever the PATHs, selectors, --limit and
// flags of a run, and whatever the tree (sources that do not parse or
// cannot be edited, shared config files reached by every spelling), no
// task under the root that was paced is left without pacing (docs/behaviour.md §7).
func TestUsersNeverUnpaced(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 7))
	for i := range 80 {
		ut := genUsersTree(func(n int) int { return r.IntN(n) })
		t.Run(fmt.Sprint(i), func(t *testing.T) { checkUsers(t, ut) })
	}
}

// FuzzUsersNeverUnpaced is TestUsersNeverUnpaced's property over trees
// and runs drawn from the fuzzer's bytes (0 once they run out).
func FuzzUsersNeverUnpaced(f *testing.F) {
	f.Add([]byte{3, 0, 2, 1, 0, 0, 3, 2, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1})
	f.Add([]byte{5, 1, 4, 4, 1, 2, 2, 4, 1, 3, 0, 7, 2, 0, 1, 1, 2, 0, 1, 1, 0, 0, 1})
	f.Add([]byte{2, 2, 0, 2, 1, 0, 6, 0, 1, 0, 0, 0, 0, 2, 0, 0, 3, 1, 1, 2})
	f.Fuzz(func(t *testing.T, b []byte) {
		i := 0
		ut := genUsersTree(func(n int) int {
			if i >= len(b) {
				return 0
			}
			i++
			return int(b[i-1]) % n
		})
		checkUsers(t, ut)
	})
}

// A reason names at most maxHolders holders of a file, then how many
// more: a fleet on one file must not make each reason as long as it.
func TestSharedReasonNamesTenHolders(t *testing.T) {
	for _, tc := range []struct{ users, named int }{{11, 10}, {12, 10}, {3, 2}} {
		dir := t.TempDir()
		src := "materializations:\n"
		for i := range tc.users {
			src += fmt.Sprintf("  acmeCo/t%02d:\n    shards: {flags: {enable-runtime-v2: \"true\"}}\n    endpoint:\n      connector:\n        image: ghcr.io/estuary/materialize-snowflake:v4\n        config: s.yaml\n    bindings: []\n", i)
		}
		writeTree(t, dir, map[string]string{"flow.yaml": src, "s.yaml": "host: h\nsyncSchedule:\n  syncFrequency: 1h\n"})
		r := usersRun{paths: []string{"."}, sel: selection.Selector{Names: []string{"acmeCo/t00"}}}
		_, msg := r.do(t, dir)
		named := strings.Count(msg, "not selected by")
		more := fmt.Sprintf("and %d more,", tc.users-1-tc.named)
		if named != tc.named || (tc.users-1 > tc.named) != strings.Contains(msg, more) {
			t.Errorf("%d users: %d named (want %d), %q: %v\n%s", tc.users, named, tc.named, more, strings.Contains(msg, more), msg)
		}
	}
}
