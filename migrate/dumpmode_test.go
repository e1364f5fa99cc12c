package migrate

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/estuary/schedtool/catalog"
)

// What is written from stored specs gets the narrowest mode of the dumps,
// owner read-write, never executable; 0600 from standard input or a
// database (issue 24 §3).
func TestDumpMode(t *testing.T) {
	dir := t.TempDir()
	file := func(name string, mode fs.FileMode) catalog.Input {
		p := filepath.Join(dir, name)
		os.WriteFile(p, nil, 0o600)
		os.Chmod(p, mode)
		return catalog.Input{Arg: p, Dump: p}
	}
	open, private, exec, none := file("open", 0o644), file("private", 0o600), file("exec", 0o755), file("none", 0o000)
	for _, c := range []struct {
		name   string
		inputs []catalog.Input
		want   fs.FileMode
	}{
		{"0644", []catalog.Input{open}, 0o644},
		{"0600", []catalog.Input{private}, 0o600},
		{"0644 and 0600", []catalog.Input{open, private}, 0o600},
		{"0755", []catalog.Input{exec}, 0o644},
		{"0000", []catalog.Input{none}, 0o600},
		{"standard input", []catalog.Input{open, {Arg: "-", Dump: "-"}}, 0o600},
		{"a database", []catalog.Input{{Arg: "postgres://h/db", Dump: "postgres://h/db", DB: "postgres://h/db"}}, 0o600},
	} {
		if got := dumpMode(c.inputs); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
