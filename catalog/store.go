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

// libpqURL is a libpq URL cut where its passwords stand: the user
// information ends at the last '@' before the query (a password may hold
// '/' or '@' when it is not percent-encoded).
type libpqURL struct {
	scheme, user, password, host string // host: from the '@' on, or all when no '@'
	hasPassword                  bool
	params                       []string // the query's key=value parts
}

func parseLibpqURL(s string) (u libpqURL, ok bool) {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return u, false
	}
	u.scheme = scheme
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		if q := rest[i+1:]; q != "" {
			u.params = strings.Split(q, "&")
		}
		rest = rest[:i]
	}
	u.host = rest
	if at := strings.LastIndexByte(rest, '@'); at >= 0 {
		u.user, u.host = rest[:at], rest[at:]
		u.user, u.password, u.hasPassword = strings.Cut(u.user, ":")
	}
	return u, true
}

// isPasswordParam reports whether a query part sets password=.
func isPasswordParam(kv string) (value string, ok bool) {
	k, v, _ := strings.Cut(kv, "=")
	uk, err := url.QueryUnescape(k)
	return v, err == nil && strings.EqualFold(uk, "password")
}

// RedactURL returns a libpq URL without its password (in the user
// information or a password= parameter), for messages and positions.
func RedactURL(s string) string {
	u, ok := parseLibpqURL(s)
	if !ok {
		return s
	}
	rest := u.user + u.host
	var kept []string
	for _, kv := range u.params {
		if _, pw := isPasswordParam(kv); !pw {
			kept = append(kept, kv)
		}
	}
	if len(kept) > 0 {
		rest += "?" + strings.Join(kept, "&")
	}
	return u.scheme + "://" + rest
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
	u, ok := parseLibpqURL(s)
	if !ok {
		return nil
	}
	if u.hasPassword {
		add(u.password)
	}
	for _, kv := range u.params {
		if v, pw := isPasswordParam(kv); pw {
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
