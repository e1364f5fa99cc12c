package catalog

import (
	"strings"
	"testing"
)

func TestRedactURL(t *testing.T) {
	for _, tc := range []struct{ in, want, secret string }{
		{"postgres://u:s3cret@db.example:5432/flow", "postgres://u@db.example:5432/flow", "s3cret"},
		{"postgresql://u:p%40ss@h/db?sslmode=require", "postgresql://u@h/db?sslmode=require", "p%40ss"},
		{"postgres://u:a/b@c@h/db", "postgres://u@h/db", "a/b@c"},
		{"postgres://u@/db?host=/tmp/x&password=hunter22&port=5", "postgres://u@/db?host=/tmp/x&port=5", "hunter22"},
		{"postgres://h/db?PassWord=hunter22", "postgres://h/db", "hunter22"},
		{"postgres://u@h/db", "postgres://u@h/db", ""},
		{"postgres:///db", "postgres:///db", ""},
	} {
		got := RedactURL(tc.in)
		if got != tc.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if tc.secret != "" {
			if strings.Contains(got, tc.secret) {
				t.Errorf("RedactURL(%q) keeps the password", tc.in)
			}
			found := false
			for _, s := range URLSecrets(tc.in) {
				found = found || s == tc.secret
			}
			if !found {
				t.Errorf("URLSecrets(%q) = %q, misses %q", tc.in, URLSecrets(tc.in), tc.secret)
			}
			if msg := Scrub("connect as "+tc.in+" failed", URLSecrets(tc.in)...); strings.Contains(msg, tc.secret) {
				t.Errorf("Scrub leaves the password: %s", msg)
			}
		}
	}
}

func TestIsDBURL(t *testing.T) {
	for in, want := range map[string]bool{
		"postgres://h/db": true, "POSTGRESQL://h/db": true, "postgresql:///db": true,
		"postgres.ndjson": false, "./postgres://x": false, "pg://h/db": false, "-": false,
	} {
		if got := IsDBURL(in); got != want {
			t.Errorf("IsDBURL(%q) = %v, want %v", in, got, want)
		}
	}
}
