package catalog

import (
	"io"
	"net/url"
	"strings"
)

// IsDBURL reports whether a PATH is a libpq URL (postgres:// or
// postgresql://): a database whose live_specs table is read as a dump.
func IsDBURL(p string) bool {
	l := strings.ToLower(p)
	return strings.HasPrefix(l, "postgres://") || strings.HasPrefix(l, "postgresql://")
}

// OpenDB opens a database PATH (a libpq URL) as a stream of dump rows,
// one JSON object a line, with the selector pushed into its query. Rows
// stream: the reader's error, if any, is the server's (or the
// connection's) message, never the password. It is set by the package
// that reads the database (catalog/pgsource), so that this package and
// everything that only reads files stay free of a database driver.
var OpenDB func(url string, sel Selector) (io.ReadCloser, error)

// RedactURL returns a libpq URL without its password (in the user
// information or a password= parameter), for messages and positions.
func RedactURL(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return s
	}
	query := ""
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		rest, query = rest[:i], rest[i+1:]
	}
	// The user information ends at the last '@' before the query: a
	// password may hold '/' or '@' when it is not percent-encoded.
	if at := strings.LastIndexByte(rest, '@'); at >= 0 {
		user := rest[:at]
		if c := strings.IndexByte(user, ':'); c >= 0 {
			user = user[:c]
		}
		rest = user + rest[at:]
	}
	if query != "" {
		var kept []string
		for _, kv := range strings.Split(query, "&") {
			k, _, _ := strings.Cut(kv, "=")
			if uk, err := url.QueryUnescape(k); err == nil && strings.EqualFold(uk, "password") {
				continue
			}
			kept = append(kept, kv)
		}
		if len(kept) > 0 {
			rest += "?" + strings.Join(kept, "&")
		}
	}
	return scheme + "://" + rest
}

// URLSecrets lists the passwords written in a libpq URL (user
// information, password= parameters), raw and decoded, for scrubbing
// them from messages that might quote them.
func URLSecrets(s string) []string {
	var out []string
	add := func(v string) {
		if v == "" {
			return
		}
		out = append(out, v)
		if d, err := url.PathUnescape(v); err == nil && d != v {
			out = append(out, d)
		}
		if d, err := url.QueryUnescape(v); err == nil && d != v {
			out = append(out, d)
		}
	}
	_, rest, ok := strings.Cut(s, "://")
	if !ok {
		return nil
	}
	query := ""
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		rest, query = rest[:i], rest[i+1:]
	}
	if at := strings.LastIndexByte(rest, '@'); at >= 0 {
		if _, pw, ok := strings.Cut(rest[:at], ":"); ok {
			add(pw)
		}
	}
	for _, kv := range strings.Split(query, "&") {
		k, v, _ := strings.Cut(kv, "=")
		if uk, err := url.QueryUnescape(k); err == nil && strings.EqualFold(uk, "password") {
			add(v)
		}
	}
	return out
}

// Scrub replaces every secret (of 3 bytes or more) in msg.
func Scrub(msg string, secrets ...string) string {
	for _, s := range secrets {
		if len(s) >= 3 {
			msg = strings.ReplaceAll(msg, s, "[password]")
		}
	}
	return msg
}
