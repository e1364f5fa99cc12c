package migrate

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/catalog/livespecs"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/schedule/connector"
)

// planted finds what the test planted: a config value, ciphertext, a
// sops MAC or a data key, none of which any review may show.
var planted = regexp.MustCompile(`SECRET|ENC\[|BEGIN AGE`)

// plant puts secrets into a materialization's config: plaintext values
// beside the schedule (nested, in arrays, under advanced), and for some
// a sops stanza with ciphertext, a MAC and a data key.
func (g *gen) plant(m obj, n *int) {
	secret := func() string { *n++; return fmt.Sprintf("SECRET-%d", *n) }
	for i := range m {
		if m[i].k != "endpoint" {
			continue
		}
		conn := m[i].v.(obj)[0].v.(obj)
		for j := range conn {
			if conn[j].k != "config" {
				continue
			}
			cfg := conn[j].v.(obj)
			cfg = append(cfg, kv{"password", secret()}, kv{"credentials", obj{{"private_key", secret()}, {"user", secret()}}},
				kv{"hosts", []any{obj{{"name", secret()}}}})
			for k := range cfg {
				if cfg[k].k == "advanced" {
					cfg[k].v = append(cfg[k].v.(obj), kv{"token", secret()})
				}
			}
			if g.r.IntN(3) == 0 {
				cfg = append(cfg, kv{"api_key_sops", "ENC[AES256_GCM,data:" + secret() + ",iv:x,tag:y,type:str]"},
					kv{"sops", obj{{"age", []any{obj{{"recipient", "age1xyz"}, {"enc", "-----BEGIN AGE ENCRYPTED FILE----- " + secret() + " -----END AGE ENCRYPTED FILE-----"}}}},
						{"encrypted_suffix", "_sops"}, {"lastmodified", "2026-12-02T10:17:25Z"},
						{"mac", "ENC[AES256_GCM,data:" + secret() + ",iv:x,tag:y,type:str]"}, {"version", "3.13.3"}}})
			}
			g.r.Shuffle(len(cfg), func(a, b int) { cfg[a], cfg[b] = cfg[b], cfg[a] })
			conn[j].v = cfg
		}
	}
}

// TestPropertyNothingHiddenShown plants secrets in the configs of random
// catalogs and stored specs and checks every renderer of a review: the
// Markdown's diff of catalog files (ReviewDiff), the field diff of rows
// (RowDiff), and the edits a saved plan keeps of both.
func TestPropertyNothingHiddenShown(t *testing.T) {
	reg := connector.Builtin()
	mg := &Migrator{Planner: &plan.Planner{Registry: reg, Options: plan.Options{ZeroFileSinks: true}}, Registry: reg}
	runs := 120
	if testing.Short() {
		runs = 25
	}
	files, overlays := 0, 0
	for seed := range runs {
		g := &gen{r: rand.New(rand.NewPCG(uint64(seed), 33)), inSched: map[string]bool{}}
		n := 0
		mats := make(obj, 1+g.r.IntN(5))
		for i := range mats {
			m := g.materialization(i)
			g.plant(m, &n)
			mats[i] = kv{fmt.Sprintf("acmeCo/m%d", i), m}
		}
		check := func(what, out string) {
			t.Helper()
			if loc := planted.FindStringIndex(out); loc != nil {
				t.Fatalf("seed %d: %s shows %q:\n%s", seed, what, out[max(loc[0]-80, 0):min(loc[1]+40, len(out))], out)
			}
		}

		// A catalog source.
		name, text := g.source(mats)
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
		inputs, err := input.Resolve([]string{dir}, catalog.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		res := mg.Catalog(catalog.Load(inputs, catalog.DefaultOptions()))
		for _, f := range res.Files {
			var b bytes.Buffer
			ReviewDiff(&b, f.Path, f.Old, f.Edits, 3)
			check("the review diff of "+name, b.String())
			files++
			if strings.Contains(b.String(), "overlay") {
				overlays++
			}
			for _, e := range f.Edits {
				check("an edit of "+name, string(e.NewText))
			}
		}

		// The same materializations as stored-spec rows.
		var rows strings.Builder
		for i, m := range mats {
			var spec strings.Builder
			jsonOut(&spec, m.v, "", "")
			fmt.Fprintf(&rows, `{"catalog_name":%q,"spec_type":"materialization","last_pub_id":"%016x","spec":%s}`+"\n", m.k, i+1, spec.String())
		}
		err = mg.Dump(strings.NewReader(rows.String()), "d.ndjson", livespecs.DumpOptions{Options: catalog.DefaultOptions(), Workers: 1}, func(r Row) {
			if r.New == nil {
				return
			}
			var b bytes.Buffer
			RowDiff(&b, r.Line, r.Task.Task, r.PubID, r.Old, r.New, r.SpecStart, r.SpecEnd)
			check("the field diff of a row", b.String())
			if strings.Contains(b.String(), "/sops/overlay") {
				overlays++
			}
			for _, e := range r.Edits {
				check("an edit of a row", string(e.NewText))
			}
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files == 0 || overlays == 0 {
		t.Fatalf("%d file diffs, %d sealed configs' overlays: the property was not checked on each", files, overlays)
	}
}
