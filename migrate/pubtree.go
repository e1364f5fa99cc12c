package migrate

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/estuary/schedtool/internal/groupwrite"
	"github.com/estuary/schedtool/internal/jsonstr"
)

// PubID normalises a stored last_pub_id to the 16 lowercase hex digits
// flowctl writes: PostgreSQL prints the flowid domain (a macaddr8) as
// 12:34:ff:4b:56:80:03:a5, and other tools separate with '-'. Anything
// that is not 16 hex digits once ':' and '-' are removed is refused.
func PubID(s string) (string, bool) {
	b := make([]byte, 0, 16)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ':' || c == '-':
			continue
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f':
		case c >= 'A' && c <= 'F':
			c += 'a' - 'A'
		default:
			return "", false
		}
		if len(b) == 16 {
			return "", false
		}
		b = append(b, c)
	}
	if len(b) != 16 {
		return "", false
	}
	return string(b), true
}

// TaskPath is where a task's catalog source goes under --out DIR:
// <catalog name>/flow.yaml, as a slash path. A name that is not a Flow
// catalog name made of plain tokens (letters, digits, '-', '_', '.'
// joined by single '/'), that has a '.' or '..' component, or a
// component named like the file itself, could escape DIR or collide,
// and is refused.
func TaskPath(name string) (string, error) {
	if name == "" {
		return "", errors.New("the catalog name is empty")
	}
	if !utf8.ValidString(name) {
		return "", errors.New("the catalog name is not valid UTF-8")
	}
	for _, seg := range strings.Split(name, "/") {
		switch {
		case seg == "":
			return "", errors.New("the catalog name has an empty component (a leading, trailing or double '/')")
		case seg == "." || seg == "..":
			return "", fmt.Errorf("the catalog name has a %q component, which would lead out of its directory", seg)
		case strings.EqualFold(seg, "flow.yaml"):
			return "", errors.New("a component of the catalog name is flow.yaml, the file every task directory holds")
		}
		for _, r := range seg {
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_' && r != '.' {
				return "", fmt.Errorf("the catalog name has %q, which Flow does not allow in a name", r)
			}
		}
	}
	return name + "/flow.yaml", nil
}

// SpecSource is the catalog source of one stored materialization: its
// spec JSON, as stored, under materializations.<name>. JSON is YAML's
// flow style, so the bytes are kept except where YAML parsers read JSON
// differently (see yamlFlow): a sealed config keeps its ciphertext and
// sops stanza, value for value, so its MAC still verifies.
func SpecSource(name string, spec []byte) ([]byte, error) {
	b := make([]byte, 0, len(spec)+len(name)+40)
	b = append(b, "materializations:\n  "...)
	at := len(b)
	b, _ = yamlFlow(b, jsonstr.Append(nil, name)) // a string of valid UTF-8
	if len(b)-at > maxSimpleKey {
		// An implicit key is at most 1024 characters (YAML 1.1 and
		// libyaml, which serde_yaml ports): say it is a key instead.
		b = slices.Insert(b, at, '?', ' ')
		b = append(b, "\n  : "...)
	} else {
		b = append(b, ": "...)
	}
	b, err := yamlFlow(b, spec)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// maxSimpleKey is the longest implicit (simple) key written, in bytes:
// YAML 1.1 limits one to 1024 characters up to its ':', and libyaml
// (go-yaml, serde_yaml's unsafe-libyaml) and PyYAML refuse a longer one.
// A longer key is written as an explicit one, "? key : value".
const maxSimpleKey = 1000

// IndexSource is DIR/flow.yaml: an import of every task's source, in
// order of the paths.
func IndexSource(paths []string) []byte {
	sorted := append([]string(nil), paths...)
	sort.Strings(sorted)
	b := []byte("import:")
	if len(sorted) == 0 {
		return append(b, " []\n"...)
	}
	b = append(b, '\n')
	for _, p := range sorted {
		b = append(b, "  - "...)
		b, _ = yamlFlow(b, jsonstr.Append(nil, p)) // a string of valid UTF-8
		b = append(b, '\n')
	}
	return b
}

// yamlFlow appends JSON text (already checked as JSON) as one line of
// YAML flow style that decodes to the same value in YAML 1.2 parsers
// (go-yaml, serde_yaml) and strict YAML 1.1 ones (PyYAML) alike:
//   - whitespace between tokens becomes spaces: a line break (a flow node
//     spread over lines would have to be indented) and a tab (YAML 1.1
//     parsers do not separate tokens with tabs);
//   - a number with an exponent gets a fraction and a signed exponent
//     (1e5 is 1.0e+5): YAML 1.1 reads 1e5 or 1.5E5 as a string;
//   - a key longer than maxSimpleKey is made explicit ("? key");
//   - inside strings, a UTF-16 surrogate pair escape becomes one \U
//     escape (YAML parsers refuse surrogate escapes), \/ becomes /
//     (an escape YAML 1.1 parsers lack), and characters YAML
//     does not allow raw or reads as line breaks (C0 controls, DEL, C1
//     controls, NEL, U+2028, U+2029, U+FEFF, U+FFFE, U+FFFF) are escaped.
//
// Everything else, escapes included, is copied. None of this changes a
// value, so a sealed config's MAC (over its values) still verifies.
//
// It fails on what has no YAML form that reads back as the same value:
//   - a string with a lone UTF-16 surrogate escape (which Flow, as
//     serde_json, refuses too);
//   - a number beyond a 64-bit float's range (1e400, or 400 digits):
//     go-yaml and serde_yaml read it as a string, PyYAML as infinity (and
//     serde_json refuses it). One too small (1e-400) reads as 0 in every
//     parser, as it does in JSON ones, and is kept.
func yamlFlow(b, src []byte) ([]byte, error) {
	const hex = "0123456789ABCDEF"
	in := false
	str := -1 // where the last string began in b, while only blanks follow it
	for i := 0; i < len(src); {
		c := src[i]
		if !in {
			switch {
			case c == '"':
				in = true
				str = len(b)
			case c == ' ' || c == '\t' || c == '\n' || c == '\r':
				c = ' '
			case c == ':':
				if str >= 0 && len(b)-str > maxSimpleKey {
					b = slices.Insert(b, str, '?', ' ')
				}
				str = -1
			case c == '-' || c >= '0' && c <= '9':
				n := numberLen(src[i:])
				if out, m := outOfRange(src[i : i+n]); out {
					return b, fmt.Errorf("the spec has the number %s, beyond a 64-bit float's range, which YAML readers take for a string or infinity (and Flow refuses)", shortNumber(src[i:i+n], m))
				}
				b = appendNumber(b, src[i:i+n])
				str = -1
				i += n
				continue
			default:
				str = -1
			}
			b = append(b, c)
			i++
			continue
		}
		switch {
		case c == '"':
			in = false
			b = append(b, c)
			i++
		case c == '\\':
			if i+1 < len(src) && src[i+1] == 'u' {
				if hi, ok := hex4(src[i+2:]); ok && hi >= 0xD800 && hi < 0xDC00 && i+7 < len(src) && src[i+6] == '\\' && src[i+7] == 'u' {
					if lo, ok := hex4(src[i+8:]); ok && lo >= 0xDC00 && lo < 0xE000 {
						r := 0x10000 + (hi-0xD800)<<10 + (lo - 0xDC00)
						b = append(b, '\\', 'U')
						for s := 28; s >= 0; s -= 4 {
							b = append(b, hex[(r>>s)&0xF])
						}
						i += 12
						continue
					}
				}
				if r, ok := hex4(src[i+2:]); ok && r >= 0xD800 && r < 0xE000 {
					return b, errors.New("the spec has a lone UTF-16 surrogate escape (\\uD800-\\uDFFF), which neither YAML nor Flow reads")
				}
				end := min(i+6, len(src))
				b = append(b, src[i:end]...)
				i = end
				continue
			}
			if i+1 < len(src) && src[i+1] == '/' {
				b = append(b, '/') // YAML parsers do not all know \/
				i += 2
				continue
			}
			end := min(i+2, len(src))
			b = append(b, src[i:end]...)
			i = end
		case c < utf8.RuneSelf:
			if c < 0x20 || c == 0x7F {
				// Not JSON raw, but SpecSource is not the place to fail.
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			} else {
				b = append(b, c)
			}
			i++
		default:
			r, size := utf8.DecodeRune(src[i:])
			if (r >= 0x80 && r <= 0x9F) || r == 0x2028 || r == 0x2029 || r == 0xFEFF || r == 0xFFFE || r == 0xFFFF {
				b = append(b, '\\', 'u', hex[r>>12], hex[(r>>8)&0xF], hex[(r>>4)&0xF], hex[r&0xF])
			} else {
				b = append(b, src[i:i+size]...)
			}
			i += size
		}
	}
	return b, nil
}

// outOfRange reports whether a JSON number is beyond a float64's range:
// whether its magnitude is at least 2^1024 - 2^970, which rounds to
// infinity. It reads the digits exactly, as serde_yaml's and PyYAML's
// float parsers do, not with strconv.ParseFloat, which misreads some
// numbers of over 800 digits or an exponent past 10,000 ("1" and 891
// zeros "e-491", 1e400, reads as 1e308). m is the number's decimal
// magnitude (it is at least 10^m and under 10^(m+1)), for messages.
func outOfRange(num []byte) (out bool, m int) {
	mant, exp := num, 0
	if e := bytes.IndexAny(num, "eE"); e >= 0 {
		mant = num[:e]
		neg := false
		for _, c := range num[e+1:] {
			switch {
			case c == '-':
				neg = true
			case c >= '0' && c <= '9':
				exp = min(exp*10+int(c-'0'), 1<<40) // saturates: far past either end
			}
		}
		if neg {
			exp = -exp
		}
	}
	// The mantissa's digits: how many are whole, and which is the first
	// that is not zero.
	whole, first, n := 0, -1, 0
	point := false
	for _, c := range mant {
		switch {
		case c == '.':
			point = true
		case c >= '0' && c <= '9':
			if !point {
				whole++
			}
			if c != '0' && first < 0 {
				first = n
			}
			n++
		}
	}
	if first < 0 {
		return false, 0 // zero
	}
	m = whole - 1 - first + exp
	switch {
	case m > 308:
		return true, m
	case m < 308:
		return false, m
	}
	// 10^308 <= |num| < 10^309: compare its first 309 significant digits
	// with the threshold's; equal, then with any digit after them or none
	// (a tie, which rounds to even: infinity), it is at least the threshold.
	i, n := 0, 0
	for _, c := range mant {
		if c < '0' || c > '9' {
			continue
		}
		if n++; n <= first {
			continue // the zeros before the first significant digit
		}
		if i == len(float64Overflow) {
			return true, m
		}
		if c != float64Overflow[i] {
			return c > float64Overflow[i], m
		}
		i++
	}
	for ; i < len(float64Overflow); i++ {
		if float64Overflow[i] != '0' {
			return false, m // the digits ran out below it
		}
	}
	return true, m
}

// float64Overflow is 2^1024 - 2^970 in decimal (309 digits): the least
// magnitude that rounds to infinity as a float64.
var float64Overflow = func() string {
	t := new(big.Int).Lsh(big.NewInt(1), 1024)
	return t.Sub(t, new(big.Int).Lsh(big.NewInt(1), 970)).String()
}()

// shortNumber is a number for a message: as it is when short, else its
// first and last digits around an ellipsis, and its magnitude.
func shortNumber(num []byte, m int) string {
	s := string(num) // a copy: the spec does not escape
	if len(s) <= 40 {
		return s
	}
	return s[:20] + "…" + s[len(s)-12:] + " (about 1e" + strconv.Itoa(m) + ")"
}

// numberLen is the length of the JSON number (or what stands for one) at
// the start of b: its sign, digits, '.', exponent letters and signs.
func numberLen(b []byte) int {
	n := 0
	for n < len(b) && (b[n] >= '0' && b[n] <= '9' || b[n] == '-' || b[n] == '+' || b[n] == '.' || b[n] == 'e' || b[n] == 'E') {
		n++
	}
	return max(n, 1)
}

// appendNumber appends a JSON number so that YAML 1.1 reads it as one: an
// exponent needs a '.' before it and a sign after (YAML 1.1's float is
// [-+]?[0-9]+\.[0-9]*([eE][-+][0-9]+)?). 1e5 becomes 1.0e+5, 2E-3 2.0E-3;
// a number without an exponent is copied.
func appendNumber(b, num []byte) []byte {
	e := bytes.IndexAny(num, "eE")
	if e < 0 {
		return append(b, num...)
	}
	b = append(b, num[:e]...)
	if bytes.IndexByte(num[:e], '.') < 0 {
		b = append(b, '.', '0')
	}
	b = append(b, num[e])
	if e+1 < len(num) && num[e+1] != '+' && num[e+1] != '-' {
		b = append(b, '+')
	}
	return append(b, num[e+1:]...)
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// pubTree writes the publishable tree of --out DIR: one source per task,
// each created once and never over an existing file, then the index. The
// tree is written all or nothing: each task's source is staged as a temp
// file beside its place while the rows stream, and put in place only
// once every row is read (commit). A read that fails part way (a lost
// database connection, a statement timeout) or a signal leaves no source
// behind: a partial tree would look complete to whoever publishes its
// sources one by one.
type pubTree struct {
	dir     string
	created bool
	paths   map[string]string // slash path -> the task written there
	order   []string
	staged  []staged
	dirs    []string    // directories made for the tree, in order
	force   bool        // replace a file already there (--force)
	mode    fs.FileMode // of every file written (the dumps' own, dumpMode)
	// clash holds the names that differ from others only in case, which
	// are not written (CaseClashes).
	clash map[string][]string
}

// staged is a task's source written to a temp file, not yet in place.
type staged struct{ tmp, dst string }

func newPubTree(dir string, mode fs.FileMode) *pubTree {
	return &pubTree{dir: dir, mode: mode, paths: map[string]string{}}
}

// refusal is a task add will not write (its name), as opposed to a
// write that failed.
type refusal struct{ error }

// add stages a task's source; it returns the file it goes to.
func (p *pubTree) add(name string, spec []byte) (string, error) {
	rel, err := TaskPath(name)
	if err != nil {
		return "", &refusal{fmt.Errorf("%v; not written under %s", err, p.dir)}
	}
	src, err := SpecSource(name, spec)
	if err != nil {
		return "", &refusal{err}
	}
	if other, dup := p.paths[rel]; dup {
		return "", &refusal{fmt.Errorf("%s was already written for another row of %s; the catalog name appears twice", filepath.Join(p.dir, filepath.FromSlash(rel)), other)}
	}
	made := len(p.dirs)
	if err := p.mkdirs(filepath.Dir(filepath.FromSlash(rel))); err != nil {
		p.dropDirs(made)
		return "", err
	}
	dst := filepath.Join(p.dir, filepath.FromSlash(rel))
	if !p.force {
		if _, err := os.Lstat(dst); err == nil {
			p.dropDirs(made)
			return "", existsError(dst)
		}
	}
	tmp, err := stageNew(dst, src, p.mode)
	if err != nil {
		p.dropDirs(made)
		return "", err
	}
	p.paths[rel] = name
	p.order = append(p.order, rel)
	p.staged = append(p.staged, staged{tmp, dst})
	return dst, nil
}

// dropDirs removes the directories made for a task that could not be
// staged (those registered from the from-th on), newest first, each only
// while it is empty: the run leaves no empty directory behind, and never
// removes one it did not make.
func (p *pubTree) dropDirs(from int) {
	gone := map[string]bool{}
	for i := len(p.dirs) - 1; i >= from; i-- {
		if os.Remove(p.dirs[i]) == nil {
			gone[p.dirs[i]] = true
		}
	}
	if gone[filepath.Clean(p.dir)] {
		p.created = false // made again for the next task
	}
	p.dirs = slices.DeleteFunc(p.dirs, func(d string) bool { return gone[d] })
}

// commit puts every staged source in place, calling done with each file
// and the error that kept it out, if any. The caller makes it and the
// index one group (groupwrite.BeginCommit), so that a signal lets the tree finish.
func (p *pubTree) commit(done func(dst string, err error)) {
	for _, s := range p.staged {
		done(s.dst, place(s.tmp, s.dst, p.force))
	}
	p.staged = nil
	groupwrite.ForgetDirs()
}

// abort removes every staged source and the directories made for them
// that are left empty.
func (p *pubTree) abort() {
	for _, s := range p.staged {
		groupwrite.DropTemp(s.tmp)
	}
	p.staged = nil
	for i := len(p.dirs) - 1; i >= 0; i-- {
		os.Remove(p.dirs[i]) // only an empty directory goes
	}
	groupwrite.ForgetDirs()
}

// mkdirs creates DIR (and its parents) the first time, then each
// directory of rel inside it, refusing any that exists as something
// other than a plain directory (a symlink would lead elsewhere). The
// directories it makes are registered, so that a signal removes them
// again while they hold nothing but temp files.
func (p *pubTree) mkdirs(rel string) error {
	if !p.created {
		// DIR's parents stay; DIR itself, made here, goes with a signal.
		if err := os.MkdirAll(filepath.Dir(filepath.Clean(p.dir)), 0o755); err != nil {
			return err
		}
		if err := p.mkdir(filepath.Clean(p.dir)); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		if st, err := os.Lstat(p.dir); err != nil {
			return err
		} else if !st.IsDir() {
			return fmt.Errorf("%s is not a directory", p.dir)
		}
		p.created = true
	}
	if rel == "." {
		return nil
	}
	at, err := mkdirEach(p.dir, rel, p.mkdir)
	if err != nil || at == "" {
		return err
	}
	return fmt.Errorf("%s exists and is not a directory; not written through it", at)
}

// mkdir makes a directory and registers it in one step, so that a
// signal never misses one.
func (p *pubTree) mkdir(d string) error {
	err := groupwrite.MkdirRegistered(d)
	if err == nil {
		p.dirs = append(p.dirs, d)
	}
	return err
}

// index writes DIR/flow.yaml, importing every source written.
func (p *pubTree) index() (string, error) {
	if err := p.mkdirs("."); err != nil {
		return "", err
	}
	dst := filepath.Join(p.dir, "flow.yaml")
	return dst, createNew(dst, IndexSource(p.order), p.mode, p.force)
}

func existsError(dst string) error {
	return fmt.Errorf("%s already exists; schedtool never writes over a file (--force replaces it)", dst)
}

// createNew writes a new file at dst, atomically and never over an
// existing one: a temp file beside it, synced, then put in place (place).
// The temp file is registered, so a signal removes it.
func createNew(dst string, data []byte, mode fs.FileMode, replace bool) error {
	tmp, err := stageNew(dst, data, mode)
	if err != nil {
		return err
	}
	return place(tmp, dst, replace)
}

// stageNew writes data to a registered temp file beside dst, created
// with mode (narrowed by the umask) and synced, and returns its name;
// place puts it at dst.
func stageNew(dst string, data []byte, mode fs.FileMode) (string, error) {
	dir, base := filepath.Split(dst)
	tmp, err := groupwrite.CreateTemp(dir, base, mode)
	if err != nil {
		return "", err
	}
	if err := groupwrite.Fill(tmp, data); err != nil {
		groupwrite.DropTemp(tmp.Name())
		return "", err
	}
	return tmp.Name(), nil
}

// place puts the registered temp file tmp at dst and removes it: hard-
// linked to dst (which fails when dst exists), or with replace renamed
// over dst (never through it: a rename replaces a symlink itself).
func place(tmp, dst string, replace bool) error {
	defer groupwrite.DropTemp(tmp)
	if replace {
		if st, err := os.Lstat(dst); err == nil && st.IsDir() {
			return fmt.Errorf("%s is a directory", dst)
		}
		if err := os.Rename(tmp, dst); err != nil {
			return err
		}
		groupwrite.ForgetTemp(tmp)
		written.Add(1)
		return nil
	}
	if err := os.Link(tmp, dst); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return existsError(dst)
		}
		return err
	}
	written.Add(1)
	return nil
}

// PublishEach is the command that publishes one task's source.
func PublishEach(source string) string {
	return "flowctl draft create && flowctl draft author --source " + shellQuote(source) + " && flowctl draft publish"
}

// PublishAll is the command that publishes the whole tree at once.
func PublishAll(dir string) string {
	return "flowctl catalog publish --source " + shellQuote(filepath.Join(dir, "flow.yaml"))
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	plain := s != ""
	for _, r := range s {
		if !(r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@%+=,", r))) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
