package catalog_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/estuary/schedtool/catalog"
)

// SpecProblems finds the values whose type Flow's model refuses, each at
// its node, and says what is wrong.
func TestSpecProblems(t *testing.T) {
	for _, tc := range []struct {
		name, spec string
		want       []string // "line:col path: description; runtime flag? flag?"
	}{
		{"plain", "    shards: {disable: true, flags: {enable-runtime-v2: \"true\", other: x}}\n    delete: false\n", nil},
		{"nothing", "", nil},
		{"flags a string", "    shards:\n      flags: \"x\"\n", []string{`4:14 shards.flags must be an object of string values, not the string "x" flag`}},
		{"flags null", "    shards:\n      flags:\n", []string{`4:13 shards.flags must be an object of string values, not null flag`}},
		{"boolean runtime flag", "    shards: {flags: {enable-runtime-v2: true}}\n", []string{`3:41 shards.flags.enable-runtime-v2 must be a string, not the boolean true runtime flag`}},
		{"other flags", "    shards: {flags: {a: 3, b: [x], c: ok}}\n", []string{`3:25 shards.flags.a must be a string, not the number 3 flag`, `3:31 shards.flags.b must be a string, not an array flag`}},
		{"disable a string", "    shards:\n      disable: \"true\"\n", []string{`4:16 shards.disable must be a boolean, not the string "true"`}},
		{"shards a list", "    shards: [x]\n", []string{`3:13 shards must be an object, not an array`}},
		{"delete a string", "    delete: \"yes\"\n", []string{`3:13 delete must be a boolean, not the string "yes"`}},
		{"all at once", "    delete: 1\n    shards: {disable: \"no\", flags: \"x\"}\n", []string{`3:13 delete must be a boolean, not the number 1`,
			`4:23 shards.disable must be a boolean, not the string "no"`, `4:36 shards.flags must be an object of string values, not the string "x" flag`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			src := "materializations:\n  acmeCo/t:\n" + tc.spec + "    endpoint: {connector: {image: ghcr.io/estuary/materialize-snowflake:v4, config: {host: h}}}\n"
			if err := os.WriteFile(filepath.Join(dir, "flow.yaml"), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			cat := loadDir(t, dir, catalog.DefaultOptions())
			if len(cat.Materializations) != 1 {
				t.Fatalf("%d materializations, problems %+v", len(cat.Materializations), cat.Problems)
			}
			var got []string
			for _, p := range cat.Materializations[0].SpecProblems() {
				s := strings.TrimSpace(p.Describe())
				if p.RuntimeFlag() {
					s += " runtime"
				}
				if p.Flag() {
					s += " flag"
				}
				pos := catalog.Pos(p.Node)
				got = append(got, strconv.Itoa(pos.Line)+":"+strconv.Itoa(pos.Column)+" "+s)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
