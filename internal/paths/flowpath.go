package paths

import (
	"bytes"
	"strconv"
	"strings"
)

// FlowPath reads a reference (an import, a config file) as Flow's loader
// does: it joins the string to the source's file URL (Url::join) and
// takes that URL's file path. So '\' is read as '/', a ?query and a
// #fragment are dropped, %-escapes are decoded, and a file: URL names a
// file (file:///abs/path, or file:../x.yaml relative to the source). It
// returns the path with '/' separators, whether it is absolute, and
// ok=false for a URL of another scheme or host (it names no file here).
func FlowPath(ref string) (path string, abs, ok bool) {
	s := strings.Trim(ref, "\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\v\f\r\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f ")
	s = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(s)
	s = strings.ReplaceAll(s, `\`, "/")
	s, _, _ = strings.Cut(s, "#")
	s, _, _ = strings.Cut(s, "?")
	if hasScheme(s) {
		i := strings.IndexByte(s, ':')
		if !strings.EqualFold(s[:i], "file") {
			return "", false, false
		}
		s = s[i+1:]
		if rest, ok := strings.CutPrefix(s, "//"); ok {
			host, p, _ := strings.Cut(rest, "/")
			if host != "" && !strings.EqualFold(host, "localhost") {
				return "", false, false
			}
			s = "/" + p
		}
	}
	return string(PercentDecode([]byte(s))), strings.HasPrefix(s, "/"), true
}

// hasScheme reports a URL with a scheme (http:, flow:, file:), which is
// not a path relative to the document.
func hasScheme(s string) bool {
	i := strings.IndexByte(s, ':')
	if i <= 0 {
		return false
	}
	for j, r := range s[:i] {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || j > 0 && (r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')) {
			return false
		}
	}
	return true
}

// PercentDecode decodes the %XX escapes of b as a file URL's path is
// decoded; a % not followed by two hex digits is kept as it is.
func PercentDecode(b []byte) []byte {
	if bytes.IndexByte(b, '%') < 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '%' && i+2 < len(b) && isHex(b[i+1]) && isHex(b[i+2]) {
			v, _ := strconv.ParseUint(string(b[i+1:i+3]), 16, 8)
			out = append(out, byte(v))
			i += 2
			continue
		}
		out = append(out, b[i])
	}
	return out
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
