package selection

import (
	"strings"
	"testing"
)

func TestSelectorMatch(t *testing.T) {
	s := Selector{Names: []string{"acme/a"}, Prefixes: []string{"beta/"}, Images: []string{"ghcr.io/estuary/materialize-snowflake"}}
	for _, tc := range []struct {
		name, image string
		want        bool
	}{
		{"acme/a", "ghcr.io/estuary/materialize-snowflake:v4", true},
		{"acme/a", "ghcr.io/estuary/materialize-snowflake@sha256:abc", true},
		{"acme/a", "ghcr.io/estuary/materialize-snowflake:v4@sha256:abc", true}, // pinned
		{"acme/ab", "ghcr.io/estuary/materialize-snowflake:v4", false},          // a name is exact
		{"beta/x", "ghcr.io/estuary/materialize-snowflake", true},               // a prefix
		{"betax", "ghcr.io/estuary/materialize-snowflake", false},               // just misses the prefix
		{"beta/x", "ghcr.io/estuary/materialize-snowflake-v2:v1", false},        // another image
		{"beta/x", "", false},
	} {
		if got := s.Match(tc.name, tc.image); got != tc.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tc.name, tc.image, got, tc.want)
		}
	}
	if !(Selector{}).Match("anything", "") || !(Selector{}).IsZero() {
		t.Error("the zero selector picks everything")
	}
	if (Selector{Images: []string{"x"}}).Match("a", "y:v1") {
		t.Error("an image selector alone narrows")
	}
}

func TestSelectorCheck(t *testing.T) {
	for _, tc := range []struct {
		s   Selector
		err string
	}{
		{Selector{Images: []string{"ghcr.io/estuary/materialize-snowflake"}}, ""},
		{Selector{Images: []string{"localhost:5000/x"}}, ""}, // a registry port is not a tag
		{Selector{Images: []string{"ghcr.io/estuary/materialize-snowflake:v4"}}, "without its tag v4"},
		{Selector{Images: []string{"x@sha256:00"}}, "without its digest"},
		{Selector{Images: []string{"x:v4@sha256:00"}}, "without its tag v4 and digest (--image x)"},
		{Selector{Prefixes: []string{" "}}, "--prefix: an empty value"},
	} {
		err := tc.s.Check()
		if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%+v: %v, want %q", tc.s, err, tc.err)
		}
	}
}

func TestSelectionUnmatched(t *testing.T) {
	var none *Selection
	if !none.Take("a", "") || none.Err() != nil {
		t.Error("a nil selection picks everything")
	}
	s := New(Selector{Names: []string{"a/x", "a/typo"}, Prefixes: []string{"b/"}})
	s.Take("a/x", "img")
	s.Take("c/y", "img")
	if got := strings.Join(s.Unmatched(), ","); got != "--name a/typo,--prefix b/" {
		t.Errorf("unmatched %q", got)
	}
	s.Take("b/z", "")
	if err := s.Err(); err == nil || !strings.Contains(err.Error(), "--name a/typo selects no materialization") {
		t.Errorf("err %v", err)
	}
}

// A value that picks nothing names the nearest names (prefixes), and
// none when nothing is near.
func TestSelectionSuggests(t *testing.T) {
	s := New(Selector{Names: []string{"acmeCo/warehouse/materialize-snowflak", "zzz/unrelated/name"}, Prefixes: []string{"acmeCo/warehous/"}})
	for _, n := range []string{"acmeCo/warehouse/materialize-snowflake", "acmeCo/warehouse/materialize-bigquery", "acmeCo/lake/materialize-s3"} {
		s.Take(n, "")
	}
	want := "--name acmeCo/warehouse/materialize-snowflak (closest: acmeCo/warehouse/materialize-snowflake)," +
		"--name zzz/unrelated/name," +
		"--prefix acmeCo/warehous/ (closest: acmeCo/warehouse/)"
	if got := strings.Join(s.Unmatched(), ","); got != want {
		t.Errorf("unmatched\n%s\nwant\n%s", got, want)
	}
}
