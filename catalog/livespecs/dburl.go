package livespecs

import (
	"net/url"
	"strings"

	"github.com/estuary/schedtool/catalog"
)

// IsDBURL reports whether a PATH is a libpq URL (postgres:// or
// postgresql://): a database whose live_specs table is read as a dump.
func IsDBURL(p string) bool {
	l := strings.ToLower(p)
	return strings.HasPrefix(l, "postgres://") || strings.HasPrefix(l, "postgresql://")
}

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
	return v, err == nil && isPasswordKey(uk)
}

// isPasswordKey reports whether a libpq connection keyword holds a
// secret: password, or sslpassword (the client key's passphrase).
func isPasswordKey(k string) bool {
	return strings.EqualFold(k, "password") || strings.EqualFold(k, "sslpassword")
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

// MissingPath is the message for a PATH that cannot be stat'ed. A PATH
// that is a connection string in another form (libpq's keyword/value
// string, a URL with another scheme) is named without its password.
func MissingPath(arg string, err error) string {
	if strings.Contains(arg, "://") {
		return RedactURL(arg) + ": " + catalog.Describe(err)
	}
	if redacted, ok := redactNearURL(arg); ok {
		return redacted + ": " + catalog.Describe(err) + "; a database is given as a URL, postgres://USER@HOST:PORT/DBNAME (the password from PGPASSWORD or ~/.pgpass)"
	}
	if redacted, ok := redactConninfo(arg); ok {
		return redacted + ": " + catalog.Describe(err) + "; a libpq keyword/value connection string is not a PATH: give the database as a URL, postgres://USER@HOST:PORT/DBNAME (the password from PGPASSWORD or ~/.pgpass)"
	}
	return arg + ": " + catalog.Describe(err)
}

// redactNearURL masks the password of a PATH that only resembles a URL:
// a scheme and ':' or '/' without the "://" (postgres:/u:PW@h,
// postgres//u:PW@h, postgres:u:PW@h), a typo that names no file and is
// echoed in the message that says so. Whatever stands between a ':' and
// the last '@' (the first ':' of the user information, else the scheme's
// own) is masked, as is a password= parameter. It reports whether s
// looks so.
func redactNearURL(s string) (string, bool) {
	scheme := 0
	for scheme < len(s) && (isAlpha(s[scheme]) || scheme > 0 && (s[scheme] >= '0' && s[scheme] <= '9' || strings.IndexByte("+.-", s[scheme]) >= 0)) {
		scheme++
	}
	sep := scheme
	for sep < len(s) && (s[sep] == ':' || s[sep] == '/') {
		sep++
	}
	colon := strings.Contains(s[scheme:sep], ":")
	// postgres/u:PW@h has one slash, as a relative path would: with a
	// database's scheme and an '@' it is taken for a URL all the same.
	pgSlash := sep > scheme && strings.HasPrefix(strings.ToLower(s[:scheme]), "postgres") && strings.Contains(s[sep:], "@")
	if scheme == 0 || !colon && !strings.Contains(s[scheme:sep], "//") && !pgSlash {
		return s, false // a word, a relative path (a/b), or no separator at all
	}
	if !strings.HasPrefix(strings.ToLower(s[:scheme]), "postgres") && !strings.Contains(s, "@") {
		return s, false // no database's, and no password to mask
	}
	// The user information ends at the last '@' (a password may hold
	// '?', '/' or '@'); the query starts after it.
	rest := s[sep:]
	at := strings.LastIndexByte(rest, '@')
	body, query, hasQuery := rest, "", false
	if q := strings.IndexByte(rest[max(at, 0):], '?'); q >= 0 {
		body, query, hasQuery = rest[:max(at, 0)+q], rest[max(at, 0)+q+1:], true
	}
	var b strings.Builder
	b.WriteString(s[:sep])
	// A ':' in the separator other than the scheme's own (postgres::PW@h,
	// postgres//:PW@h) ends an empty user: the password starts after it.
	userColon := strings.Count(s[scheme:sep], ":") > 0 && !strings.HasPrefix(s[scheme:sep], ":") || strings.Count(s[scheme:sep], ":") > 1
	if at >= 0 {
		if userColon && at > 0 {
			body = "[password]" + body[at:]
		} else if c := strings.IndexByte(body[:at], ':'); c >= 0 {
			body = body[:c+1] + "[password]" + body[at:]
		} else if colon && at > 0 {
			body = "[password]" + body[at:]
		}
	}
	b.WriteString(body)
	if hasQuery {
		b.WriteByte('?')
		for i, kv := range strings.Split(query, "&") {
			if i > 0 {
				b.WriteByte('&')
			}
			if _, pw := isPasswordParam(kv); pw {
				k, _, _ := strings.Cut(kv, "=")
				kv = k + "=[password]"
			}
			b.WriteString(kv)
		}
	}
	return b.String(), true
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// redactConninfo reads s as a libpq keyword/value connection string
// (keyword = value, a value bare or single-quoted with backslash
// escapes) and returns it with every password value replaced. It
// reports whether s has a keyword=value pair with one of libpq's
// connection keywords.
func redactConninfo(s string) (string, bool) {
	var b strings.Builder
	known := false
	i := 0
	space := func() {
		for i < len(s) && conninfoSpace(s[i]) {
			b.WriteByte(s[i])
			i++
		}
	}
	for {
		space()
		if i >= len(s) {
			break
		}
		start := i
		for i < len(s) && s[i] != '=' && !conninfoSpace(s[i]) {
			i++
		}
		key := s[start:i]
		b.WriteString(key)
		space()
		if i >= len(s) || s[i] != '=' {
			continue // a word that is not keyword=value
		}
		b.WriteByte('=')
		i++
		if key == "" {
			continue
		}
		space()
		vstart := i
		if i < len(s) && s[i] == '\'' {
			for i++; i < len(s) && s[i] != '\''; i++ {
				if s[i] == '\\' {
					i++
				}
			}
			if i < len(s) {
				i++
			}
		} else {
			for i < len(s) && !conninfoSpace(s[i]) {
				i++
			}
			if !isPasswordKey(key) && strings.IndexByte(s[vstart:i], '=') >= 0 {
				// "key= password=x": read the word as a pair of its own
				// rather than risk keeping a password.
				i = vstart
				continue
			}
		}
		if i > len(s) {
			i = len(s)
		}
		known = known || libpqKeywords[strings.ToLower(key)]
		if isPasswordKey(key) {
			b.WriteString("[password]")
		} else {
			b.WriteString(s[vstart:i])
		}
	}
	return b.String(), known
}

// conninfoSpace reports whether c separates the pairs of a keyword/value
// connection string.
func conninfoSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// libpqKeywords are the connection keywords a keyword/value string is
// most often written with.
var libpqKeywords = map[string]bool{"host": true, "hostaddr": true, "port": true, "dbname": true,
	"user": true, "password": true, "sslpassword": true, "passfile": true, "sslmode": true, "service": true,
	"connect_timeout": true, "options": true, "application_name": true}
