package main

import (
	"os"
	"path/filepath"
	"testing"
)

// docPictures are the reports the pictures of docs/reports.md are made
// from: scripts/screenshots writes them to docs/img/src (go test
// ./cmd/schedtool -run TestDocPictures -update) and photographs them. Every
// input is fixed (--now, --at, the shipped fixtures and history).
var docPictures = []struct {
	src  string
	args []string
}{
	{"census.html", append([]string{"census", "-o", "html", "--now", "2026-12-01T00:00:00Z"}, historyArgs("fixtures/catalog", "fixtures/live_specs.ndjson")...)},
	{"explain-dst.html", []string{"explain", "-o", "html", "--at", "2026-10-28T05:00:00Z", "acmeCo/warehouse/materialize-iceberg", "fixtures/catalog"}},
	{"explain-crash.svg", []string{"explain", "-o", "svg", "--at", "2026-10-24T12:00:00Z", "acmeCo/crash/materialize-snowflake", "cmd/schedtool/testdata/inputs/crash/flow.yaml"}},
	{"explain-preview.html", []string{"explain", "-o", "html", "--at", "2026-10-28T05:00:00Z", "--enable-runtime-v2", "--zero-file-sinks", "acmeCo/lake/materialize-s3-iceberg", "fixtures/catalog"}},
}

// The committed pictures' sources are what the committed inputs give
// today: a report that changes makes this fail until the pictures are
// taken again (scripts/screenshots), as TestReference does for the
// command reference. The schedtool version in a census's scope is the
// build's, and is not compared.
func TestDocPictures(t *testing.T) {
	for _, p := range docPictures {
		r := schedtool(t, "", p.args...)
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", p.src, r.code, r.stderr)
		}
		path := filepath.Join("..", "..", "docs", "img", "src", p.src)
		if *update {
			if err := os.WriteFile(path, []byte(r.stdout), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v: run scripts/screenshots", err)
		}
		norm := func(s string) string { return scopeVersionTextRe.ReplaceAllString(s, `${1}VERSION${2}`) }
		if norm(string(want)) != norm(r.stdout) {
			t.Errorf("docs/img/src/%s is stale (the report changed): run scripts/screenshots and commit docs/img", p.src)
		}
	}
}
