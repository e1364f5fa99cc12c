package catalog

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/estuary/schedtool/internal/paths"
)

// containRef resolves a path named in file from as Flow's loader does (see
// FlowPath) and checks that the file it names stays inside the input's
// root, symlinks resolved. It returns the resolved path, and why it is
// refused ("" when it is not); the path is set even when refused, so a
// refused reference can still be identified (stat'ed, never read), and
// is "" only for an empty reference or a URL that names no file.
func containRef(in Input, from, rel, what string) (string, string) {
	if rel == "" {
		return "", what + " path is empty"
	}
	fp, abs, ok := FlowPath(rel)
	if !ok {
		return "", fmt.Sprintf("%s %q is a URL; schedtool reads only paths relative to the importing file", what, rel)
	}
	if fp == "" {
		return "", what + " path is empty"
	}
	var p string
	if abs {
		p = filepath.Clean(filepath.FromSlash(fp))
		if !within(in.Root, p) {
			return p, fmt.Sprintf("%s %q is an absolute path; it must be relative and stay inside %s", what, rel, in.Root)
		}
	} else {
		dir := "."
		if from != "-" {
			dir = filepath.Dir(from)
		}
		p = filepath.Join(dir, filepath.FromSlash(fp))
		if !within(in.Root, p) {
			return p, fmt.Sprintf("%s %q escapes the root directory %s (%s); give a wider one with --root DIR", what, rel, in.Root, in.RootWhy)
		}
	}
	if real, outside, err := outsideRoot(in.Root, p); outside {
		return p, fmt.Sprintf("%s %q resolves through a symlink to %s, outside the root directory %s (%s; --root DIR sets it)", what, rel, real, in.Root, in.RootWhy)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return p, fmt.Sprintf("%s %q: %s", what, rel, Describe(err))
	}
	return p, ""
}

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

func within(root, p string) bool {
	if _, err := filepath.Rel(root, p); err != nil {
		// Relative paths Rel cannot relate (a root above the working
		// directory: --root ..) are compared absolute.
		ar, err1 := filepath.Abs(root)
		ap, err2 := filepath.Abs(p)
		if err1 != nil || err2 != nil {
			return false
		}
		root, p = ar, ap
	}
	_, ok := Under(root, p)
	return ok
}

// Under reports whether the path p is dir or below it, lexically (no
// symlink is resolved), and gives p relative to dir. Paths Rel cannot
// relate (one absolute, one not) are not under.
func Under(dir, p string) (rel string, ok bool) { return paths.Under(dir, p) }
