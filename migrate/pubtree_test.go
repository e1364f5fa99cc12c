package migrate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/catalog/tree"
)

func TestPubID(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"1234ff4b568003a5", "1234ff4b568003a5", true},
		{"12:34:ff:4b:56:80:03:a5", "1234ff4b568003a5", true}, // PostgreSQL's macaddr8 text
		{"12-34-FF-4B-56-80-03-A5", "1234ff4b568003a5", true},
		{"1234FF4B:568003A5", "1234ff4b568003a5", true},
		{"00:00:00:00:00:00:00:00", "0000000000000000", true},
		{"", "", false},
		{"1234ff4b568003a", "", false},   // 15 digits
		{"1234ff4b568003a5f", "", false}, // 17
		{"1234ff4b568003g5", "", false},
		{"12.34.ff.4b.56.80.03.a5", "", false},
		{" 1234ff4b568003a5", "", false},
		{"+234ff4b568003a5", "", false},
	} {
		got, ok := PubID(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("PubID(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestTaskPath(t *testing.T) {
	for _, tc := range []struct {
		name, want, err string
	}{
		{"acmeCo/orders/snowflake", "acmeCo/orders/snowflake/flow.yaml", ""},
		{"acmeCo/a.b-c_d/x", "acmeCo/a.b-c_d/x/flow.yaml", ""},
		{"ünïcødé/名前/٣", "ünïcødé/名前/٣/flow.yaml", ""},
		{"", "", "empty"},
		{"/etc/passwd", "", "empty component"},
		{"acmeCo//x", "", "empty component"},
		{"acmeCo/x/", "", "empty component"},
		{"acmeCo/../../x", "", `".."`},
		{"..", "", `".."`},
		{"acmeCo/./x", "", `"."`},
		{"acmeCo/flow.yaml/x", "", "flow.yaml"},
		{"acmeCo/FLOW.YAML", "", "flow.yaml"},
		{`acmeCo\..\x`, "", `'\\'`},
		{"acmeCo/a b", "", `' '`},
		{"acmeCo/x\x00", "", `'\x00'`},
		{"acmeCo/\xff", "", "UTF-8"},
		{"acmeCo/~x", "", `'~'`},
	} {
		got, err := TaskPath(tc.name)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("TaskPath(%q) = %q, %v; want %q", tc.name, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("TaskPath(%q) = %q, %v; want an error with %s", tc.name, got, err, tc.err)
		}
	}
}

// yamlEquivalent checks that the source written for spec reads back, with
// the catalog's YAML reader, as exactly the JSON value of spec.
func yamlEquivalent(t testing.TB, name string, spec []byte) {
	t.Helper()
	want, err := tree.ParseJSON("spec.json", spec, tree.DefaultLimits)
	if err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	src, err := SpecSource(name, spec)
	if err != nil {
		if bytes.Contains(spec, []byte(`\u`)) && strings.Contains(err.Error(), "lone UTF-16 surrogate") {
			return
		}
		// A number a float64 cannot hold, read exactly (math/big).
		if strings.Contains(err.Error(), "beyond a 64-bit float's range") && hasHugeNumber(spec) {
			return
		}
		t.Fatal(err)
	}
	if n := bytes.Count(src, []byte("\n")); n != 2 && (n != 3 || len(name) <= maxSimpleKey) {
		t.Errorf("the source has %d lines, want 2:\n%s", n, src)
	}
	if err := strictYAML11(src); err != nil {
		t.Errorf("not strict YAML 1.1: %v\n%.300s", err, src)
	}
	doc, err := tree.Parse("flow.yaml", src, tree.DefaultLimits)
	if err != nil {
		t.Fatalf("the source does not parse: %v\n%s", err, src)
	}
	got := doc.Root.Path("materializations", name)
	if got == nil {
		t.Fatalf("no materializations.%s in:\n%s", name, src)
	}
	// Numbers compare by value: the YAML reader keeps them as floats.
	g, _ := json.Marshal(got.Interface(nil))
	w, _ := json.Marshal(want.Root.Interface(nil))
	var gv, wv any
	json.Unmarshal(g, &gv)
	json.Unmarshal(w, &wv)
	if !reflect.DeepEqual(gv, wv) {
		t.Errorf("the source of %s reads as\n%s\nwant\n%s\nsource:\n%s", spec, g, w, src)
	}
}

func TestSpecSourceReadsAsTheSpec(t *testing.T) {
	for _, spec := range []string{
		`{"a":1,"b":[true,false,null],"c":{"d":"e"}}`,
		`{ "a" : 1 ,	"b":	[ 1 , 2 ] }`,
		"{\r\n  \"a\": 1,\n\t\"b\": {\n    \"c\": [\n      1\n    ]\n  }\n}",
		`{"emoji":"\ud83d\ude00","raw":"😀","bmp":"\u00e9é"}`,
		`{"slash":"a\/b","esc":"\"\\\b\f\n\r\t"}`,
		"{\"ls\":\"a\u2028b\u2029c\",\"nel\":\"x\u0085y\",\"del\":\"\x7f\",\"c1\":\"\u009b31m\",\"bom\":\"\ufeff\",\"nc\":\"\uffff\"}",
		`{"n":-0.5e+10,"big":123456789012345678901234567890,"neg":-1,"z":0}`,
		`{"key: with colon":"v: w","#":"# not a comment","&a":"*a","?":"- x","%":"@"}`,
		`{"empty":{},"list":[],"s":""}`,
		`{"plain":"yes","on":"off","tilde":"~","null":"null","num":"1e3"}`,
		`{"expectPubId":"1234ff4b568003a5"}`,
		`{"tiny":[1e-400,-2.5E-999],"max":1.7976931348623157e308,"min":-4.9e-324}`,
		`{"long":-1` + strings.Repeat("0", 308) + `}`, // -1e308, 309 digits
	} {
		yamlEquivalent(t, "acmeCo/x", []byte(spec))
	}
	// A number a float64 cannot hold reads as a string in go-yaml and
	// serde_yaml, as infinity in PyYAML: the task is not written.
	for _, spec := range []string{
		`{"0":[1e700]}`,
		`{"a":{"b":-1E+400}}`,
		`{"a":1.7976931348623159e308}`,
		`{"a":1` + strings.Repeat("0", 400) + `}`,
	} {
		if src, err := SpecSource("acmeCo/x", []byte(spec)); err == nil || !strings.Contains(err.Error(), "beyond a 64-bit float's range") {
			t.Errorf("SpecSource(%s) = %q, %v; want the range error", spec, src, err)
		}
	}
	// A long number is shown cut, with its magnitude, not cut to look
	// like a smaller one.
	_, err := SpecSource("acmeCo/x", []byte(`{"a":1`+strings.Repeat("0", 891)+`e-491}`))
	if want := "the spec has the number 10000000000000000000…0000000e-491 (about 1e400), beyond"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("SpecSource(1e400 in 897 bytes) = %v, want %s", err, want)
	}
	if _, err := SpecSource("acmeCo/x", []byte(`{"a":"\ud800x"}`)); err == nil {
		t.Error("a lone surrogate escape was written")
	}
	if _, err := SpecSource("acmeCo/x", []byte(`{"a":"\udc00\ud800"}`)); err == nil {
		t.Error("a reversed surrogate pair was written")
	}
	// The name is quoted too.
	yamlEquivalent(t, "ünï/名前", []byte(`{}`))
}

// hasHugeNumber reports whether a JSON text has a number bigOutOfRange.
func hasHugeNumber(spec []byte) bool {
	d := json.NewDecoder(bytes.NewReader(spec))
	d.UseNumber()
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		if n, ok := tok.(json.Number); ok && bigOutOfRange(string(n)) {
			return true
		}
	}
}

// bigOutOfRange is outOfRange by math/big: whether num's magnitude,
// exactly, is at least 2^1024 - 2^970, which rounds to infinity.
func bigOutOfRange(num string) bool {
	f, _, err := big.ParseFloat(num, 10, 4096, big.ToNearestEven)
	if err != nil {
		// An exponent past big.Float's range: past one end or the other.
		e := strings.IndexAny(num, "eE")
		return e >= 0 && !strings.HasPrefix(num[e+1:], "-") && strings.Trim(num[:e], "-0.") != ""
	}
	limit := new(big.Float).SetInt(new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 1024), new(big.Int).Lsh(big.NewInt(1), 970)))
	return f.Abs(f).Cmp(limit) >= 0
}

// outOfRange reads numbers exactly: it agrees with math/big, also where
// strconv.ParseFloat misreads (over 800 digits, exponents past 10,000;
// a hostile test's "1" and 891 zeros "e-491" read as 1e308).
func TestOutOfRange(t *testing.T) {
	limit := "17976931348623158079372897140530341507993413271003782693617377898044496184902" // the threshold's first digits
	nines := strings.Repeat("9", 309)
	for _, num := range []string{
		"0", "-0", "0.0", "0e999", "-0e400", "1", "1.5", "1e5", "1.5E+2", "-2E-3", "1e-400", "1e307", "1e308", "1e309", "1e700", "-1E+400",
		"0.0000001e400", "0.1e309", "0.1e310", "123.456e306", "123.456e305", "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308",
		"1" + strings.Repeat("0", 298), "1" + strings.Repeat("0", 308), "1" + strings.Repeat("0", 309), "-1" + strings.Repeat("0", 309), nines, "-" + nines,
		"1" + strings.Repeat("0", 309) + "e-10", "1" + strings.Repeat("0", 309) + ".5e-2", "1e00000000000000000000000309", "1e99999999999999999999", "1e-99999999999999999999",
		"1" + strings.Repeat("0", 891) + "e-491", "1" + strings.Repeat("0", 890) + "e-490", "-1" + strings.Repeat("0", 1000) + "e-600", "1" + strings.Repeat("0", 891) + "e-800",
		"0." + strings.Repeat("0", 99600) + "1e100400", "0." + strings.Repeat("0", 99600) + "1e99000",
		limit[:1] + "." + limit[1:] + "e308", limit[:1] + "." + limit[1:] + "0000e308", limit[:1] + "." + limit[1:len(limit)-1] + "e308",
		"0.0" + limit + "e310", limit + strings.Repeat("0", 309-len(limit)), limit + strings.Repeat("0", 309-len(limit)) + ".0000001",
	} {
		want := bigOutOfRange(num)
		if got, _ := outOfRange([]byte(num)); got != want {
			t.Errorf("outOfRange(%.40s… %d bytes) = %v, want %v", num, len(num), got, want)
		}
	}
	// The exact threshold, and one below it.
	exact := float64Overflow
	if got, _ := outOfRange([]byte(exact)); !got {
		t.Error("2^1024 - 2^970 is in range: it rounds to infinity (a tie, to even)")
	}
	below := exact[:len(exact)-1] + string(exact[len(exact)-1]-1)
	if got, _ := outOfRange([]byte(below)); got {
		t.Error("2^1024 - 2^970 - 1 is out of range")
	}
	if got, _ := outOfRange([]byte(below + ".99999")); got {
		t.Error("2^1024 - 2^970 - 0.00001 is out of range")
	}
}

func FuzzSpecSource(f *testing.F) {
	f.Add([]byte(`{"a":"\ud83d\ude00\u2028","b":[1,{"c":null}]}`))
	f.Add([]byte("{\n\"a\":\t\"\x7f\u0085\"}"))
	f.Add([]byte(`{"e":[1e5,-2.5E-3,0e+0],"\t":"\u0000"}`))
	f.Add([]byte(`{"` + strings.Repeat("k", 1030) + `"	:1}`))
	f.Add([]byte(`{"0":[1e700]}`)) // found by CI's fuzz run: read back as a string
	f.Fuzz(func(t *testing.T, spec []byte) {
		if _, err := tree.ParseJSON("spec.json", spec, tree.DefaultLimits); err != nil {
			return
		}
		if bytes.TrimSpace(spec)[0] != '{' {
			return
		}
		yamlEquivalent(t, "acmeCo/x", spec)
	})
}

// storedRow is a V2 snowflake row migrating from syncFrequency 1h.
func storedRow(name, pubID, config string) string {
	if config == "" {
		config = `{"host":"h.example","warehouse":"WH","syncSchedule":{"syncFrequency":"1h"}}`
	}
	return fmt.Sprintf(`{"catalog_name":%q,"spec_type":"materialization","last_pub_id":%q,"spec":{"shards":{"flags":{"enable-runtime-v2":"true"}},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":%s}},"bindings":[{"resource":{"table":"t"},"source":"acmeCo/c"}]}}`, name, pubID, config)
}

// runTree migrates dump rows into a fresh tree and returns it.
func runTree(t *testing.T, rows []string) (dir string, sum *Summary, report map[string]any, notes string) {
	t.Helper()
	return runTreeLimit(t, rows, 0)
}

// runTreeLimit is runTree with --limit.
func runTreeLimit(t *testing.T, rows []string, limit int) (dir string, sum *Summary, report map[string]any, notes string) {
	t.Helper()
	work := t.TempDir()
	dump := filepath.Join(work, "live_specs.ndjson")
	if err := os.WriteFile(dump, []byte(strings.Join(rows, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	inputs, err := input.Resolve([]string{dump}, catalog.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(work, "out")
	var out, errb bytes.Buffer
	sum, err = newMigrator(t, nil).Run(inputs, RunOptions{Load: catalog.DefaultOptions(), Mode: OutTree, Out: dir, Format: "json", Limit: limit}, &out, &errb)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, errb.String())
	}
	if err := json.Unmarshal(out.Bytes(), &report); err != nil {
		t.Fatalf("report: %v\n%s", err, out.String())
	}
	return dir, sum, report, errb.String()
}

// loadTree reads a source with the catalog reader.
func loadTree(t *testing.T, path string) *catalog.Catalog {
	t.Helper()
	inputs, err := input.Resolve([]string{path}, catalog.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	cat := catalog.Load(inputs, catalog.DefaultOptions())
	for _, p := range cat.Problems {
		t.Errorf("%s: %s:%d: %s", path, p.Pos.File, p.Pos.Line, p.Message)
	}
	return cat
}

func TestOutTreeLoadsWithTheCatalogReader(t *testing.T) {
	rows := []string{
		storedRow("acmeCo/plain", "1234ff4b568003a5", ""),
		storedRow("acmeCo/colons", "12:34:ff:4b:56:80:03:a6", ""),
		storedRow("acmeCo/dashes/UPPER", "12-34-FF-4B-56-80-03-A7", ""),
		storedRow("acmeCo/ünïcødé/名前", "1234ff4b568003a8", `{"host":"h\u2028\ud83d\ude00\/","warehouse":"WH","syncSchedule":{"syncFrequency":"30m"}}`),
		storedRow("acmeCo/default", "1234ff4b568003a9", `{"host":"h.example"}`),
		storedRow("acmeCo/bad-id", "12:34:ff", ""),
		storedRow("acmeCo/../../escape", "1234ff4b568003b0", ""),
		storedRow("/abs/x", "1234ff4b568003b1", ""),
		storedRow("acmeCo/flow.yaml", "1234ff4b568003b2", ""),
		storedRow("acmeCo/plain", "1234ff4b568003b3", ""), // the same name twice
		storedRow("acmeCo/plain/child", "1234ff4b568003b4", ""),
		storedRow("acmeCo/huge", "1234ff4b568003b5", `{"host":"h","retries":1e700,"syncSchedule":{"syncFrequency":"1h"}}`),
	}
	dir, sum, rep, notes := runTree(t, rows)
	wantIDs := map[string]string{
		"acmeCo/plain":        "1234ff4b568003a5",
		"acmeCo/colons":       "1234ff4b568003a6",
		"acmeCo/dashes/UPPER": "1234ff4b568003a7",
		"acmeCo/ünïcødé/名前":   "1234ff4b568003a8",
		"acmeCo/default":      "1234ff4b568003a9",
		"acmeCo/plain/child":  "1234ff4b568003b4",
	}
	if sum.Written != len(wantIDs) || sum.Refused != 5 || sum.Failed != 0 {
		t.Errorf("summary %+v, want %d written and 5 refused\n%s", sum, len(wantIDs), notes)
	}
	for _, want := range []string{
		`acmeCo/../../escape: not written: the catalog name has a ".." component`,
		`/abs/x: not written: the catalog name has an empty component`,
		`acmeCo/flow.yaml: not written: a component of the catalog name is flow.yaml`,
		`acmeCo/huge: not written: the spec has the number 1e700, beyond a 64-bit float's range`,
		`acmeCo/plain: not written: ` + filepath.Join(dir, "acmeCo/plain/flow.yaml") + ` was already written for another row`,
		`publish each task: flowctl draft create && flowctl draft author --source '` + filepath.Join(dir, "<name>/flow.yaml") + `' && flowctl draft publish`,
		`or all at once:    flowctl catalog publish --source ` + filepath.Join(dir, "flow.yaml"),
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	// A row whose id is not 16 hex digits needs review and is not written.
	for _, task := range rep["tasks"].([]any) {
		task := task.(map[string]any)
		if task["task"] == "acmeCo/bad-id" && (task["action"] != "review" || !strings.Contains(task["reason"].(string), "not 16 hex digits")) {
			t.Errorf("bad id: %v", task)
		}
		if _, ok := wantIDs[task["task"].(string)]; ok && task["files"] != nil {
			src := filepath.Join(dir, filepath.FromSlash(task["task"].(string)), "flow.yaml")
			if want := PublishEach(src); task["publish"] != want {
				t.Errorf("%s: publish %v, want %s", task["task"], task["publish"], want)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "acmeCo/bad-id")); err == nil {
		t.Error("a task that needs review was written")
	}
	pub, _ := rep["publish"].(map[string]any)
	if pub["all"] != "flowctl catalog publish --source "+filepath.Join(dir, "flow.yaml") {
		t.Errorf("report publish = %v", rep["publish"])
	}

	// Every task's own source: the task alone, its model schedule, its
	// connector zeroed, expectPubId as 16 hex digits.
	all := map[string]bool{}
	for name, id := range wantIDs {
		cat := loadTree(t, filepath.Join(dir, filepath.FromSlash(name), "flow.yaml"))
		if len(cat.Materializations) != 1 || cat.Materializations[0].Name != name {
			t.Errorf("%s: loaded %d materializations", name, len(cat.Materializations))
			continue
		}
		m := cat.Materializations[0]
		checkMigrated(t, m, id)
		all[name] = true
	}
	// The index imports them all, and nothing else.
	cat := loadTree(t, filepath.Join(dir, "flow.yaml"))
	got := map[string]bool{}
	for _, m := range cat.Materializations {
		got[m.Name] = true
		checkMigrated(t, m, wantIDs[m.Name])
	}
	if fmt.Sprint(got) != fmt.Sprint(all) {
		t.Errorf("flow.yaml loads %v, want %v", got, all)
	}
	// Loading the directory gives the same tasks, and a second migration
	// of the tree finds nothing to do.
	inputs, _ := input.Resolve([]string{dir}, catalog.DefaultOptions())
	again, err := newMigrator(t, nil).Run(inputs, RunOptions{Load: catalog.DefaultOptions(), Format: "diff"}, io.Discard, io.Discard)
	if err != nil || again.Pending != 0 || again.Tasks != len(wantIDs) || again.Actions["none"] != len(wantIDs) {
		t.Errorf("second run: %v %+v", err, again)
	}
}

func checkMigrated(t *testing.T, m *catalog.Materialization, id string) {
	t.Helper()
	if got, _ := m.Spec.Get("expectPubId").Str(); got != id {
		t.Errorf("%s: expectPubId %q, want %q", m.Name, got, id)
	}
	ms := m.ModelSchedule()
	if ms == nil {
		t.Errorf("%s: no model syncSchedule", m.Name)
	} else if b, _ := ms.Get("baseInterval").Str(); b == "" {
		t.Errorf("%s: model syncSchedule without baseInterval", m.Name)
	}
	if m.Config == nil || m.Config.Effective == nil {
		t.Fatalf("%s: no config", m.Name)
	}
	got, _ := json.Marshal(m.Config.Effective.Get("syncSchedule").Interface(nil))
	if string(got) != `{"syncFrequency":"0s"}` {
		t.Errorf("%s: connector syncSchedule %s, want zeroed", m.Name, got)
	}
}

func TestOutTreeRefusesToWriteOver(t *testing.T) {
	work := t.TempDir()
	dump := filepath.Join(work, "d.ndjson")
	os.WriteFile(dump, []byte(storedRow("acmeCo/a", "1234ff4b568003a5", "")+"\n"+storedRow("acmeCo/b", "1234ff4b568003a6", "")+"\n"), 0o644)
	dir := filepath.Join(work, "out")
	// A file already where a task goes, and a symlink where a directory goes.
	os.MkdirAll(filepath.Join(dir, "acmeCo/a"), 0o755)
	os.WriteFile(filepath.Join(dir, "acmeCo/a/flow.yaml"), []byte("mine\n"), 0o644)
	outside := filepath.Join(work, "outside")
	os.Mkdir(outside, 0o755)
	os.Symlink(outside, filepath.Join(dir, "acmeCo/b"))
	inputs, _ := input.Resolve([]string{dump}, catalog.DefaultOptions())
	var errb bytes.Buffer
	sum, err := newMigrator(t, nil).Run(inputs, RunOptions{Load: catalog.DefaultOptions(), Mode: OutTree, Out: dir}, io.Discard, &errb)
	if err != nil || sum.Failed != 2 || sum.Written != 0 {
		t.Errorf("%v %+v\n%s", err, sum, errb.String())
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "acmeCo/a/flow.yaml")); string(b) != "mine\n" {
		t.Errorf("an existing file was written over: %q", b)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("written through a symlink: %v", ents)
	}
	if _, err := os.Stat(filepath.Join(dir, "flow.yaml")); err == nil {
		t.Error("an index was written with nothing in it")
	}
	for _, want := range []string{"already exists; schedtool never writes over a file", "is not a directory; not written through it"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("notes lack %q:\n%s", want, errb.String())
		}
	}
	// --force replaces the file, and still writes nothing through the symlink.
	errb.Reset()
	sum, err = newMigrator(t, nil).Run(inputs, RunOptions{Load: catalog.DefaultOptions(), Mode: OutTree, Out: dir, Force: true}, io.Discard, &errb)
	if err != nil || sum.Failed != 1 || sum.Written != 1 {
		t.Errorf("--force: %v %+v\n%s", err, sum, errb.String())
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "acmeCo/a/flow.yaml")); !bytes.Contains(b, []byte(`"expectPubId":"1234ff4b568003a5"`)) {
		t.Errorf("--force did not replace the file: %q", b)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("written through a symlink: %v", ents)
	}
	// No temp file is left behind.
	var left []string
	filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error {
		if strings.Contains(p, ".schedtool-") {
			left = append(left, p)
		}
		return nil
	})
	if len(left) > 0 {
		t.Errorf("temp files left: %v", left)
	}
}

func TestIndexSource(t *testing.T) {
	for _, tc := range []struct {
		paths []string
		want  string
	}{
		{nil, "import: []\n"},
		{[]string{"b/flow.yaml", "a/flow.yaml"}, "import:\n  - \"a/flow.yaml\"\n  - \"b/flow.yaml\"\n"},
	} {
		if got := string(IndexSource(tc.paths)); got != tc.want {
			t.Errorf("IndexSource(%v) = %q, want %q", tc.paths, got, tc.want)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"out/acmeCo/x/flow.yaml": "out/acmeCo/x/flow.yaml",
		"my out/flow.yaml":       "'my out/flow.yaml'",
		"it's":                   `'it'\''s'`,
		"$(rm -rf /)":            "'$(rm -rf /)'",
		"名前/flow.yaml":           "'名前/flow.yaml'",
		"":                       "''",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// A sealed config in a stored spec is written into the task's source as
// stored, with only sops.overlay added: the real sops still decrypts it
// (its MAC verifies) and the overlay zeroes the connector.
func TestOutTreeSealedConfigStillDecrypts(t *testing.T) {
	keyFile, recipient := ageKey(t)
	work := t.TempDir()
	cfg := filepath.Join(work, "config.json")
	plain := `{"host": "h.example", "password_sops": "hunter2", "syncSchedule": {"syncFrequency": "1h", "timezone": ""}}`
	os.WriteFile(cfg, []byte(plain), 0o600)
	if out, err := sops(t, keyFile, "encrypt", "--age", recipient, "--encrypted-suffix", "_sops", "--in-place", cfg); err != nil {
		t.Fatalf("sops encrypt: %v\n%s", err, out)
	}
	sealed, _ := os.ReadFile(cfg)
	var stored bytes.Buffer
	if err := json.Compact(&stored, sealed); err != nil { // a dump row is one line
		t.Fatal(err)
	}
	dir, sum, _, notes := runTree(t, []string{storedRow("acmeCo/sealed", "12:34:ff:4b:56:80:03:a5", stored.String())})
	if sum.Written != 1 {
		t.Fatalf("%+v\n%s", sum, notes)
	}
	src, err := os.ReadFile(filepath.Join(dir, "acmeCo/sealed/flow.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	written := writtenConfig(t, src)

	// Byte for byte as stored, except sops.overlay.
	storedDoc, _ := tree.ParseJSON("stored", stored.Bytes(), tree.DefaultLimits)
	cut := storedDoc.Root.Get("sops").Offset
	if !bytes.Equal(stored.Bytes()[:cut], written[:cut]) {
		t.Errorf("the sealed values changed:\nstored  %s\nwritten %s", stored.Bytes()[:cut], written[:cut])
	}
	writtenDoc, err := tree.ParseJSON("written", written, tree.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	wsops := writtenDoc.Root.Get("sops")
	for _, f := range storedDoc.Root.Get("sops").Fields {
		w := wsops.Get(f.Key)
		if w == nil || string(written[w.Offset:w.End]) != stored.String()[f.Value.Offset:f.Value.End] {
			t.Errorf("sops.%s changed", f.Key)
		}
	}
	if wsops.Get("overlay") == nil || len(wsops.Fields) != len(storedDoc.Root.Get("sops").Fields)+1 {
		t.Errorf("sops stanza: want the stored one plus overlay, got %s", written[wsops.Offset:wsops.End])
	}

	// The real sops decrypts it: the MAC still verifies.
	out := filepath.Join(work, "written.json")
	os.WriteFile(out, written, 0o600)
	eff := effective(t, out)
	if got := eff["syncSchedule"]; !equalJSON(got, map[string]any{"syncFrequency": "0s"}) {
		t.Errorf("effective syncSchedule = %v", got)
	}
	if eff["password_sops"] != "hunter2" && eff["password"] != "hunter2" {
		t.Errorf("the secret did not survive: %v", eff)
	}
	// And the catalog reader sees the task migrated.
	cat := loadTree(t, filepath.Join(dir, "flow.yaml"))
	if len(cat.Materializations) != 1 {
		t.Fatalf("%d materializations", len(cat.Materializations))
	}
	checkMigrated(t, cat.Materializations[0], "1234ff4b568003a5")
	if !cat.Materializations[0].Config.Sealed {
		t.Error("the config is not read as sealed")
	}
}

// writtenConfig is the endpoint config's text in a written task source:
// the spec is line 2's JSON value, and its config is what the task
// publishes.
func writtenConfig(t *testing.T, src []byte) []byte {
	t.Helper()
	line := strings.Split(string(src), "\n")[1]
	specText := line[strings.Index(line, ": ")+2:]
	spec, err := tree.ParseJSON("spec", []byte(specText), tree.DefaultLimits)
	if err != nil {
		t.Fatalf("the spec is not JSON: %v\n%s", err, src)
	}
	node := spec.Root.Path("endpoint", "connector", "config")
	return []byte(specText[node.Offset:node.End])
}
