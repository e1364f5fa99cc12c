package migrate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/estuary/schedtool/internal/testreq"
)

// YAML 1.1's resolvers (PyYAML's), for the plain scalars a JSON value
// can give: a number must read as a number, true/false/null as such.
var (
	yaml11Int   = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)
	yaml11Float = regexp.MustCompile(`^-?[0-9]+\.[0-9]*([eE][-+][0-9]+)?$`)
)

// strictYAML11 checks, without a YAML 1.1 parser, what PyYAML (a strict
// YAML 1.1 reader) needs of a source SpecSource or IndexSource writes:
// only printable characters, and none that YAML 1.1 reads as a line
// break or a byte order mark; no tab outside a quoted string (YAML 1.1
// does not separate tokens with tabs); only YAML 1.1 escapes in quoted
// strings; plain scalars that resolve as the JSON literal or number they
// stand for; and no implicit key longer than 1024 characters.
func strictYAML11(src []byte) error {
	if !utf8.Valid(src) {
		return fmt.Errorf("not UTF-8")
	}
	s := string(src)
	for i, r := range s {
		switch {
		case r == '\n':
		case r == '\t':
			return fmt.Errorf("a raw tab at byte %d", i)
		case r < 0x20 || r == 0x7F || (r >= 0x80 && r <= 0x9F) || r == 0x2028 || r == 0x2029 || r == 0xFEFF || r == 0xFFFE || r == 0xFFFF || (r >= 0xD800 && r < 0xE000):
			return fmt.Errorf("%U raw at byte %d", r, i)
		}
	}
	prev := byte(0) // the last non-space byte outside strings
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"':
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' {
					j++
					if j >= len(s) || !strings.ContainsRune("0abtnvfre \"\\N_LPxuU", rune(s[j])) {
						return fmt.Errorf("an escape YAML 1.1 lacks at byte %d", j)
					}
				}
			}
			if j >= len(s) {
				return fmt.Errorf("an unterminated string at byte %d", i)
			}
			k := j + 1
			for k < len(s) && s[k] == ' ' {
				k++
			}
			if k < len(s) && s[k] == ':' && prev != '?' && utf8.RuneCountInString(s[i:k]) > 1024 {
				return fmt.Errorf("an implicit key of %d characters at byte %d", utf8.RuneCountInString(s[i:k]), i)
			}
			prev = '"'
			i = j + 1
		case strings.IndexByte("{}[],:?\n -", c) >= 0 && !(c == '-' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9'):
			if c != ' ' && c != '\n' {
				prev = c
			}
			i++
		default:
			j := i
			for j < len(s) && strings.IndexByte("{}[],: \n", s[j]) < 0 {
				j++
			}
			tok := s[i:j]
			if s[j-1] == ':' || (j < len(s) && s[j] == ':' && (prev == '\n' || prev == 0)) {
				i = j // a block key: materializations, import
				prev = 'k'
				continue
			}
			if tok != "true" && tok != "false" && tok != "null" && !yaml11Int.MatchString(tok) && !yaml11Float.MatchString(tok) {
				return fmt.Errorf("the plain scalar %q is not a YAML 1.1 number or literal", tok)
			}
			prev = 'p'
			i = j
		}
	}
	return nil
}

func TestStrictYAML11(t *testing.T) {
	for _, tc := range []struct {
		src string
		ok  bool
	}{
		{"materializations:\n  \"a/b\": {\"x\": 1.0e+5, \"y\": [true, null, -1]}\n", true},
		{"materializations:\n  \"a/b\": {\"x\":\t1}\n", false},
		{"materializations:\n  \"a/b\": {\"x\": 1e5}\n", false},
		{"materializations:\n  \"a/b\": {\"x\": 1.5E5}\n", false},
		{"materializations:\n  \"a/b\": {\"x\": \"\\/\"}\n", false},
		{"materializations:\n  \"a/b\": {\"x\": \"\u2028\"}\n", false},
		{"materializations:\n  \"a/b\": {\"" + strings.Repeat("k", 1100) + "\": 1}\n", false},
		{"materializations:\n  \"a/b\": {? \"" + strings.Repeat("k", 1100) + "\": 1}\n", true},
		{"import:\n  - \"a/flow.yaml\"\n", true},
	} {
		if err := strictYAML11([]byte(tc.src)); (err == nil) != tc.ok {
			t.Errorf("strictYAML11(%.60q) = %v, want ok %v", tc.src, err, tc.ok)
		}
	}
}

// specsForYAML are stored specs whose sources every YAML reader must
// read as the spec: tabs between tokens, exponents, escapes, characters
// YAML reads as line breaks, long keys.
var specsForYAML = []string{
	`{"a":1,"b":[true,false,null],"c":{"d":"e"}}`,
	"{\t\"a\"\t:\t1 ,\t\"b\":\t[ 1 ,\t2 ]\t}",
	"{\r\n  \"a\": 1,\n\t\"b\": {\n    \"c\": [\n      1\n    ]\n  }\n}",
	`{"e":1e5,"E":2.5E3,"n":-1e-3,"s":1.5e+10,"z":0E0,"i":-0,"f":-0.25}`,
	`{"emoji":"\ud83d\ude00","raw":"😀","bmp":"\u00e9é","tab":"a\tb","c0":"\u0000\u001f"}`,
	`{"slash":"a\/b","esc":"\"\\\b\f\n\r\t"}`,
	"{\"ls\":\"a\u2028b\u2029c\",\"nel\":\"x\u0085y\",\"del\":\"\x7f\",\"c1\":\"\u009b31m\",\"bom\":\"\ufeff\",\"nc\":\"\uffff\"}",
	`{"key: with colon":"v: w","#":"# not a comment","&a":"*a","?":"- x","%":"@","- a":"? b"}`,
	`{"plain":"yes","on":"off","tilde":"~","null":"null","num":"1e3","y":"y","n":"N"}`,
	`{"` + strings.Repeat("k", 1023) + `":{"` + strings.Repeat("é", 600) + `" :	1},"x":"` + strings.Repeat("v", 2000) + `"}`,
	`{"` + strings.Repeat(`\u00e9`, 200) + `":1}`,
}

func TestSpecSourceIsStrictYAML11(t *testing.T) {
	for _, spec := range specsForYAML {
		yamlEquivalent(t, "acmeCo/x", []byte(spec))
	}
	yamlEquivalent(t, "acmeCo/"+strings.Repeat("n", 1100), []byte(`{"a":1e1}`))
}

// TestSpecSourcePyYAML reads the sources with PyYAML, a strict YAML 1.1
// reader, and compares each with the spec as Python's json reads it.
// Without python3 and its yaml module it skips, unless
// SCHEDTOOL_REQUIRE_PYYAML is set.
func TestSpecSourcePyYAML(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err == nil {
		err = exec.Command(py, "-c", "import yaml").Run()
	}
	if err != nil {
		testreq.Missing(t, testreq.PyYAML, "python3 with PyYAML is missing (apt-get install python3-yaml): "+err.Error())
	}
	type pair struct{ Name, Spec, Src string }
	var pairs []pair
	add := func(name, spec string) {
		src, err := SpecSource(name, []byte(spec))
		if err != nil {
			t.Fatal(err)
		}
		pairs = append(pairs, pair{name, spec, string(src)})
	}
	for _, spec := range specsForYAML {
		add("acmeCo/x", spec)
	}
	add("acmeCo/"+strings.Repeat("n", 1100), `{"a":1e1}`)
	idx := IndexSource([]string{"acmeCo/a/flow.yaml", "ünï/名前/flow.yaml"})
	pairs = append(pairs, pair{"", `{"import":["acmeCo/a/flow.yaml","ünï/名前/flow.yaml"]}`, string(idx)})
	in := filepath.Join(t.TempDir(), "pairs.json")
	b, _ := json.Marshal(pairs)
	if err := os.WriteFile(in, b, 0o644); err != nil {
		t.Fatal(err)
	}
	const script = `
import json, sys, yaml
bad = 0
for p in json.load(open(sys.argv[1])):
    try:
        doc = yaml.safe_load(p["Src"])
        got = doc["materializations"][p["Name"]] if p["Name"] else doc
    except Exception as e:
        print("%r: %s" % (p["Src"][:200], str(e).replace("\n", " ")))
        bad += 1
        continue
    want = json.loads(p["Spec"])
    if got != want:
        print("%r reads as %r, want %r" % (p["Src"][:200], got, want))
        bad += 1
sys.exit(1 if bad else 0)
`
	var out bytes.Buffer
	cmd := exec.Command(py, "-c", script, in)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Errorf("PyYAML: %v\n%s", err, out.String())
	}
}

// A sealed config stored as sops writes it (tab-indented) with a number
// in exponent form outside the encrypted keys: the written source turns
// the tabs into spaces and the number into 1.0e+3, which changes no
// value, so the real sops still verifies the MAC and decrypts.
func TestOutTreeSealedConfigWithTabsAndExponents(t *testing.T) {
	keyFile, recipient := ageKey(t)
	work := t.TempDir()
	cfg := filepath.Join(work, "config.json")
	plain := `{"host": "h.example", "port": 1000, "password_sops": "hunter2", "syncSchedule": {"syncFrequency": "1h", "timezone": ""}}`
	os.WriteFile(cfg, []byte(plain), 0o600)
	if out, err := sops(t, keyFile, "encrypt", "--age", recipient, "--encrypted-suffix", "_sops", "--in-place", cfg); err != nil {
		t.Fatalf("sops encrypt: %v\n%s", err, out)
	}
	sealed, _ := os.ReadFile(cfg)
	if !bytes.Contains(sealed, []byte("\t")) || !bytes.Contains(sealed, []byte(`"port": 1000`)) {
		t.Fatalf("sops no longer writes tabs and the port as is:\n%s", sealed)
	}
	// One line, as a dump row is; the tabs stay, the port in exponent form.
	stored := bytes.ReplaceAll(bytes.ReplaceAll(sealed, []byte("\n"), nil), []byte(`"port": 1000`), []byte(`"port":	1e3`))
	dir, sum, _, notes := runTree(t, []string{storedRow("acmeCo/sealed", "1234ff4b568003a5", string(stored))})
	if sum.Written != 1 {
		t.Fatalf("%+v\n%s", sum, notes)
	}
	src, err := os.ReadFile(filepath.Join(dir, "acmeCo/sealed/flow.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := strictYAML11(src); err != nil {
		t.Errorf("not strict YAML 1.1: %v\n%s", err, src)
	}
	if !bytes.Contains(src, []byte(`"port": 1.0e+3`)) {
		t.Errorf("the port is not written as 1.0e+3:\n%s", src)
	}
	// The config as the catalog reader reads it, written out for sops.
	cat := loadTree(t, filepath.Join(dir, "flow.yaml"))
	if len(cat.Materializations) != 1 {
		t.Fatalf("%d materializations", len(cat.Materializations))
	}
	m := cat.Materializations[0]
	checkMigrated(t, m, "1234ff4b568003a5")
	if !m.Config.Sealed {
		t.Error("the config is not read as sealed")
	}
	// The written spec is still JSON here (sops's MAC follows key order,
	// so the config's own text goes to sops, not a re-encoding).
	out := filepath.Join(work, "written.json")
	os.WriteFile(out, writtenConfig(t, src), 0o600)
	eff := effective(t, out) // fails if the MAC does not verify
	if eff["password_sops"] != "hunter2" && eff["password"] != "hunter2" {
		t.Errorf("the secret did not survive: %v", eff)
	}
	if eff["port"] != 1000.0 {
		t.Errorf("port = %v, want 1000", eff["port"])
	}
	if got := eff["syncSchedule"]; !equalJSON(got, map[string]any{"syncFrequency": "0s"}) {
		t.Errorf("effective syncSchedule = %v", got)
	}
}
