package livespecs

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/tree"
)

var scanKeys = []string{"advanced", "sops", "syncSchedule", "uploadInterval", "upload_interval"}

// ScanRow may say "read it the slow way" for anything, but when it says
// a row is fine, the lean parser must agree and find the same values.
func checkScanRow(t *testing.T, row []byte) {
	t.Helper()
	lim := tree.Limits{MaxDepth: 50, MaxNodes: 20000}
	shape, ok := tree.ScanRow(row, lim, scanKeys, nil)
	if !ok {
		return
	}
	opts := catalog.DefaultOptions()
	opts.Limits = lim
	doc, err := RowParser(DumpOptions{Options: opts, ConfigKeys: scanKeys, Lean: true})("r", row)
	if err != nil {
		t.Fatalf("ScanRow accepted a row the parser refuses (%v): %q", err, row)
	}
	if name, _ := doc.Root.Get("catalog_name").Str(); name != string(shape.Name) || name == "" {
		t.Fatalf("name %q, parser %q", shape.Name, name)
	}
	if typ, _ := doc.Root.Get("spec_type").Str(); typ != string(shape.SpecType) {
		t.Fatalf("spec_type %q, parser %q", shape.SpecType, typ)
	}
	spec := doc.Root.Get("spec")
	if spec == nil || spec.Kind != tree.Object {
		t.Fatalf("ScanRow accepted a row without a spec object: %q", row)
	}
	img := spec.Path("endpoint", "connector", "image")
	if img != nil && !bytes.Contains(shape.Key, []byte(img.Value)) {
		t.Fatalf("key %q lacks the image %q", shape.Key, img.Value)
	}
	if cfg := spec.Path("endpoint", "connector", "config"); cfg != nil && cfg.Kind != tree.Object && cfg.Kind != tree.Null {
		t.Fatalf("ScanRow accepted a config of kind %v", cfg.Kind)
	}
	// ScanRowAt places the shape's values where the parser finds them.
	at, ok := tree.ScanRowAt(row, lim, scanKeys, nil, nil)
	if !ok || !bytes.Equal(at.Key, shape.Key) {
		t.Fatalf("ScanRowAt disagrees with ScanRow on %q", row)
	}
	offset := func(n *tree.Node) int {
		if n == nil {
			return -1
		}
		return n.Offset
	}
	model := spec.Get("syncSchedule")
	cfg := spec.Path("endpoint", "connector", "config")
	for _, c := range []struct {
		what      string
		got, want int
	}{
		{"spec", at.At.Spec, offset(spec)},
		{"flag", at.At.Flag, offset(spec.Path("shards", "flags", "enable-runtime-v2"))},
		{"model", at.At.Model, offset(model)},
		{"image", at.At.Image, offset(img)},
		{"config", at.At.Config, offset(cfg)},
	} {
		if c.got != c.want {
			t.Fatalf("%s at %d, the parser has it at %d: %q", c.what, c.got, c.want, row)
		}
	}
	if model != nil && (!bytes.Equal(at.Model, row[model.Offset:model.End])) {
		t.Fatalf("model %q, the parser has %q", at.Model, row[model.Offset:model.End])
	}
	if n := bytes.IndexFunc(row, func(r rune) bool { return r >= 0x80 }); (n < 0 && at.At.ASCII != len(row)) || (n >= 0 && at.At.ASCII != n) {
		t.Fatalf("ASCII up to %d, the row's first non-ASCII byte is at %d: %q", at.At.ASCII, n, row)
	}
	for i := 0; i+1 < len(at.At.Keys); i += 2 {
		found := false
		for _, f := range cfg.Fields {
			if f.Value.Offset == at.At.Keys[i] && f.Value.End == at.At.Keys[i+1] && f.Value.Kind != tree.Raw {
				found = true
			}
		}
		if !found {
			t.Fatalf("config key value at %d-%d is no built value of the parser's: %q", at.At.Keys[i], at.At.Keys[i+1], row)
		}
	}
}

func TestScanRow(t *testing.T) {
	good := `{"catalog_name":"a/b","spec_type":"materialization","spec":{"shards":{"flags":{"enable-runtime-v2":"true"}},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{"host":"h","syncSchedule":{"syncFrequency":"1h"}}}},"bindings":[{"x":1}]}}`
	shape, ok := tree.ScanRow([]byte(good), tree.DefaultLimits, scanKeys, nil)
	if !ok || string(shape.Name) != "a/b" || !bytes.Contains(shape.Key, []byte(`{"syncFrequency":"1h"}`)) || bytes.Contains(shape.Key, []byte(`"h"`)) {
		t.Fatalf("ok=%v shape=%q", ok, shape.Key)
	}
	for _, plain := range []string{
		strings.Replace(good, `"shards":{`, `"shards":{"disable":true,`, 1),
		strings.Replace(good, `"shards":{`, `"shards":{"disable":false,`, 1),
		strings.Replace(good, `"flags":{"enable-runtime-v2":"true"}`, `"flags":{"other":"x","enable-runtime-v2":true}`, 1),
		strings.Replace(good, `"flags":{"enable-runtime-v2":"true"}`, `"flags":{}`, 1),
	} {
		if _, ok := tree.ScanRow([]byte(plain), tree.DefaultLimits, scanKeys, nil); !ok {
			t.Errorf("ScanRow refused the plain row %q", plain)
		}
	}
	other := strings.Replace(good, `"host":"h"`, `"host":"other"`, 1)
	shape2, _ := tree.ScanRow([]byte(other), tree.DefaultLimits, scanKeys, nil)
	if !bytes.Equal(shape.Key, shape2.Key) {
		t.Error("a non-schedule config key changed the shape")
	}
	for _, bad := range []string{
		strings.Replace(good, `"spec_type":"materialization",`, `"spec_type":"materialization","spec_type":"x",`, 1), // duplicate root key
		strings.Replace(good, `"host":"h"`, `"host":"h","host":"i"`, 1),                                              // duplicate config key
		strings.Replace(good, `"a/b"`, `"a\/b"`, 1),                                                                  // an escape in the name
		strings.Replace(good, `{"host":"h","syncSchedule":{"syncFrequency":"1h"}}`, `"config.yaml"`, 1),              // a config path
		strings.Replace(good, `"image":"ghcr.io/estuary/materialize-snowflake:v4"`, `"image":5`, 1),                  // a non-string image
		good[:len(good)-1], // truncated
		good + "x",         // trailing bytes
		`{"catalog_name":"a/b","spec_type":"materialization"}`, // no spec
		strings.Replace(good, `"catalog_name":"a/b"`, `"catalog_name":""`, 1),
		strings.Replace(good, `"1h"`, "\"1\x01h\"", 1),
		// Values of a type Flow's model refuses, whose findings sit where
		// no shape key anchors them: the slow way reads them.
		strings.Replace(good, `"shards":{"flags":{"enable-runtime-v2":"true"}}`, `"shards":"x"`, 1),
		strings.Replace(good, `"shards":{"flags":{"enable-runtime-v2":"true"}}`, `"shards":null`, 1),
		strings.Replace(good, `"flags":{"enable-runtime-v2":"true"}`, `"flags":"x"`, 1),
		strings.Replace(good, `"flags":{"enable-runtime-v2":"true"}`, `"flags":null`, 1),
		strings.Replace(good, `"flags":{"enable-runtime-v2":"true"}`, `"flags":{"other":3,"enable-runtime-v2":"true"}`, 1),
		strings.Replace(good, `"flags":{"enable-runtime-v2":"true"}`, `"flags":{"enable-runtime-v2":"true","other":null}`, 1),
		strings.Replace(good, `"shards":{`, `"shards":{"disable":"true",`, 1),
		strings.Replace(good, `"shards":{`, `"shards":{"disable":null,`, 1),
		strings.Replace(good, `"spec":{`, `"spec":{"delete":"yes",`, 1),
		// Secrets merged at task start may cover the schedule, which the
		// shape does not hold (docs/behaviour.md §4.5).
		strings.Replace(good, `"spec":{`, `"spec":{"secrets":{"a/s":"/syncSchedule"},`, 1),
	} {
		if _, ok := tree.ScanRow([]byte(bad), tree.DefaultLimits, scanKeys, nil); ok {
			t.Errorf("ScanRow accepted %q", bad)
		}
		checkScanRow(t, []byte(bad))
	}
}

func FuzzScanRow(f *testing.F) {
	if b, err := os.ReadFile("../../migrate/testdata/golden/dump/in/live_specs.ndjson"); err == nil {
		for _, line := range bytes.Split(b, []byte("\n")) {
			f.Add(line)
		}
	}
	f.Fuzz(func(t *testing.T, row []byte) { checkScanRow(t, row) })
}
