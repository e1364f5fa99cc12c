package livespecs

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
		// libpq's sslpassword is the client key's passphrase: a secret too.
		{"postgres://u@h/db?sslkey=/k.pem&sslpassword=Key-Secret-55&sslmode=require", "postgres://u@h/db?sslkey=/k.pem&sslmode=require", "Key-Secret-55"},
		{"postgres://u@h/db?SSLPassword=Key%2DSecret", "postgres://u@h/db", "Key%2DSecret"},
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

// FuzzRedactURL: never panics; a password in the user information or a
// password= parameter is neither in the redacted URL nor in a scrubbed
// message quoting the URL.
func FuzzRedactURL(f *testing.F) {
	f.Add("u", "s3cret", "db.example:5432", "sslmode=require")
	f.Add("ops", "a/b@c?d", "", "host=/tmp/x")
	f.Add("", "p%40ss", "h", "")
	f.Add("0", "]@0", "0", "0") // the fuzzer's: "[password]@0" is not a leak of "]@0"
	f.Fuzz(func(t *testing.T, user, pw, host, query string) {
		RedactURL(user + pw + host + query) // any text: no panic
		if strings.ContainsAny(user, ":@/?&") || strings.ContainsAny(host, "@?") || strings.ContainsAny(pw, "?") ||
			strings.ContainsAny(query, "@") || len(pw) < 3 {
			return
		}
		u := "postgres://" + user + ":" + pw + "@" + host + "/db"
		if query != "" {
			u += "?" + query
		}
		want := "postgres://" + user + "@" + host + "/db"
		if query != "" {
			want += "?" + query
		}
		got := RedactURL(u)
		if !strings.Contains(strings.ToLower(query), "password") && got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", u, got, want)
		}
		if strings.Contains(want, pw) {
			return // the password is also something else in the URL
		}
		if strings.Contains(got, pw) {
			t.Errorf("RedactURL(%q) = %q keeps the password", u, got)
		}
		if msg := Scrub("cannot connect to "+u, URLSecrets(u)...); leaks(msg, pw) {
			t.Errorf("Scrub leaves %q in %q", pw, msg)
		}
		withParam := "postgres://" + user + "@" + host + "/db?password=" + pw
		if got := RedactURL(withParam); strings.Contains(got, pw) && !strings.ContainsAny(pw, "&=") {
			t.Errorf("RedactURL(%q) = %q keeps the password parameter", withParam, got)
		}
	})
}

func TestRedactConninfo(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"host=/tmp password=hunter22 dbname=flow", "host=/tmp password=[password] dbname=flow", true},
		{"password = 'a b\\' c' user=me", "password = [password] user=me", true},
		{"PASSWORD=hunter22", "PASSWORD=[password]", true},
		{"host=h sslpassword=Key-Secret-55 sslkey=/k.pem", "host=h sslpassword=[password] sslkey=/k.pem", true},
		{"password='unterminated", "password=[password]", true},
		{"a=b.yaml", "a=b.yaml", false},
		{"flow.yaml", "flow.yaml", false},
		{"x y=", "x y=", false},
	} {
		got, ok := redactConninfo(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("redactConninfo(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// FuzzRedactConninfo: never panics, and a bare password value is never
// kept.
// leaks reports whether msg has pw outside the "[password]" marks that
// replaced it: pw may be a part of a mark and what follows it (the fuzzer
// found "postgres://0:]@0@0/db" scrubbed to "postgres://0:[password]@0/db").
func leaks(msg, pw string) bool {
	for _, part := range strings.Split(msg, "[password]") {
		if strings.Contains(part, pw) {
			return true
		}
	}
	return false
}

func FuzzRedactConninfo(f *testing.F) {
	f.Add("host=/tmp user=me", "hunter22")
	f.Add("dbname = 'a b'", "s3cret")
	f.Add("host=h", "rd]") // a part of the "[password]" mark
	f.Fuzz(func(t *testing.T, prefix, pw string) {
		redactConninfo(prefix + pw) // any text: no panic
		if len(pw) < 3 || strings.ContainsAny(pw, " \t\r\n'\\=") || strings.Contains(prefix+" password=", pw) ||
			strings.ContainsAny(prefix, "'\\") {
			return
		}
		got, _ := redactConninfo(prefix + " password=" + pw)
		if leaks(got, pw) {
			t.Errorf("redactConninfo keeps %q: %q", pw, got)
		}
	})
}

func TestRedactNearURL(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"postgres:/ops:PW@db/postgres", "postgres:/ops:[password]@db/postgres", true},
		{"postgres//ops:PW@db", "postgres//ops:[password]@db", true},
		{"postgres:ops:PW@db", "postgres:ops:[password]@db", true},
		{"postgresql:/ops:a@b/c?d@db?sslmode=require&password=x2", "postgresql:/ops:[password]@db?sslmode=require&password=[password]", true},
		{"postgres:PW@db", "postgres:[password]@db", true},    // only the scheme's ':' before the '@'
		{"postgres:/ops@db", "postgres:/[password]@db", true}, // between the scheme's ':' and the '@'
		{"postgres:/db", "postgres:/db", true},
		{"postgres/ops:PW@db", "postgres/ops:[password]@db", true}, // one slash (FuzzRedactNearURL)
		{"postgres/flow.yaml", "postgres/flow.yaml", false},        // a directory named postgres
		{"postgres::00:@0", "postgres::[password]@0", true},        // an empty user: the password is 00: (FuzzRedactNearURL)
		{"postgres//:PW@db", "postgres//:[password]@db", true},
		{"other/ops:PW@db", "other/ops:PW@db", false}, // a path: no database's scheme
		{"Postgres:/ops:PW@db", "Postgres:/ops:[password]@db", true},
		{"mysql:u:PW@h", "mysql:u:[password]@h", true},
		{"postgres.ndjson", "postgres.ndjson", false},
		{"dir/flow.yaml", "dir/flow.yaml", false},
		{"dir//flow.yaml", "dir//flow.yaml", false},
		{"a:b.yaml", "a:b.yaml", false},
		{":x@y", ":x@y", false},
	} {
		got, ok := redactNearURL(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("redactNearURL(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// FuzzRedactNearURL: never panics, and whatever stands between the user
// information's ':' and the last '@' of a URL-like PATH is never kept.
func FuzzRedactNearURL(f *testing.F) {
	f.Add("postgres", ":/", "ops", "PW-secret", "db/postgres")
	f.Add("postgres", "//", "ops", "a@b?c", "db")
	f.Add("postgresql", ":", "", "hunter22", "h?sslmode=x")
	f.Fuzz(func(t *testing.T, scheme, sep, user, pw, host string) {
		redactNearURL(scheme + sep + user + pw + host) // any text: no panic
		s := scheme + sep + user + ":" + pw + "@" + host
		if !strings.HasPrefix(strings.ToLower(scheme), "postgres") || strings.Trim(scheme, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-") != "" ||
			sep == "" || strings.Trim(sep, ":/") != "" || strings.Contains(sep, "://") ||
			strings.ContainsAny(user, ":@/") || strings.Contains(host, "@") || len(pw) < 3 {
			return
		}
		got, ok := redactNearURL(s)
		if !ok {
			t.Fatalf("redactNearURL(%q) does not see a near-URL", s)
		}
		if strings.Contains(scheme+sep+user+":@"+host, pw) {
			return // the password is also something else in the PATH (its '@' and host: "@00" in ...@000)
		}
		if leaks(got, pw) {
			t.Errorf("redactNearURL(%q) = %q keeps %q", s, got, pw)
		}
	})
}
