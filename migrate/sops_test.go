package migrate

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/catalog/tree"
	"github.com/estuary/schedtool/internal/testreq"
	"github.com/estuary/schedtool/plan"
	"github.com/estuary/schedtool/schedule/connector"
)

// The sealed-config tests run the real sops (.ci/run installs it from the
// Go module proxy). SCHEDTOOL_REQUIRE_SOPS=1 makes a missing sops a
// failure, not a skip, so CI cannot pass without running them.
func sopsBin(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("sops")
	if err != nil {
		testreq.Missing(t, testreq.Sops, "sops is not on PATH (go install github.com/getsops/sops/v3/cmd/sops@v3.13.3)")
	}
	return p
}

func ageKey(t *testing.T) (file, recipient string) {
	t.Helper()
	file, _ = filepath.Abs("../testdata/sops/age-test-key.txt")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if r, ok := strings.CutPrefix(line, "# public key: "); ok {
			return file, strings.TrimSpace(r)
		}
	}
	t.Fatal("no public key in the test key file")
	return
}

func sops(t *testing.T, keyFile string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(sopsBin(t), args...)
	cmd.Env = append(os.Environ(), "SOPS_AGE_KEY_FILE="+keyFile)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil {
		return errb.String(), err
	}
	return out.String(), nil
}

// sealedCatalog writes a catalog whose one V2 snowflake task reads its
// config from a file sealed by sops with the given extra arguments.
func sealedCatalog(t *testing.T, ext, plain string, sopsArgs ...string) (dir, cfg string) {
	t.Helper()
	keyFile, recipient := ageKey(t)
	dir = t.TempDir()
	cfg = filepath.Join(dir, "config."+ext)
	if err := os.WriteFile(cfg, []byte(plain), 0o600); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"encrypt", "--age", recipient, "--in-place"}, sopsArgs...)
	if out, err := sops(t, keyFile, append(args, cfg)...); err != nil {
		t.Fatalf("sops encrypt: %v\n%s", err, out)
	}
	flow := `materializations:
  acmeCo/sealed:
    shards:
      flags:
        enable-runtime-v2: "true"
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config: config.` + ext + `
    bindings: []
`
	if err := os.WriteFile(filepath.Join(dir, "flow.yaml"), []byte(flow), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, cfg
}

func runWrite(t *testing.T, dir string) *Summary {
	t.Helper()
	sum, err := crashRun(dir)
	if err != nil || !sum.OK() {
		t.Fatalf("migrate: %v %+v", err, sum)
	}
	return sum
}

// effective decrypts a sealed config and merge-patches its overlay over it.
func effective(t *testing.T, cfg string) map[string]any {
	t.Helper()
	keyFile, _ := ageKey(t)
	out, err := sops(t, keyFile, "decrypt", "--output-type", "json", cfg)
	if err != nil {
		t.Fatalf("sops decrypt after migration: %v\n%s", err, out)
	}
	var dec map[string]any
	if err := json.Unmarshal([]byte(out), &dec); err != nil {
		t.Fatal(err)
	}
	src, _ := os.ReadFile(cfg)
	doc, err := tree.Parse(cfg, src, catalog.DefaultOptions().Limits)
	if err != nil {
		t.Fatal(err)
	}
	ov, _ := doc.Root.Path("sops", "overlay").Interface(nil).(map[string]any)
	if ov == nil {
		t.Fatalf("no sops.overlay in %s:\n%s", cfg, src)
	}
	return mergePatch(dec, ov).(map[string]any)
}

func mergePatch(base, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	b, _ := base.(map[string]any)
	out := map[string]any{}
	for k, v := range b {
		out[k] = v
	}
	for k, v := range p {
		if v == nil {
			delete(out, k)
			continue
		}
		out[k] = mergePatch(out[k], v)
	}
	return out
}

func TestSealedSuffixMigratesThroughOverlay(t *testing.T) {
	for _, ext := range []string{"yaml", "json"} {
		t.Run(ext, func(t *testing.T) {
			plain := "host: h.example\npassword_sops: hunter2\nsyncSchedule:\n  syncFrequency: 1h\n  timezone: \"\"\n"
			if ext == "json" {
				plain = `{"host": "h.example", "password_sops": "hunter2", "syncSchedule": {"syncFrequency": "1h", "timezone": ""}}`
			}
			dir, cfg := sealedCatalog(t, ext, plain, "--encrypted-suffix", "_sops")
			before, _ := os.ReadFile(cfg)
			runWrite(t, dir)
			after, _ := os.ReadFile(cfg)
			if bytes.Equal(before, after) {
				t.Fatal("the sealed config was not changed")
			}
			// Every byte before the sops stanza is as sops wrote it.
			cut := bytes.Index(before, []byte("sops"))
			if !bytes.Equal(before[:cut], after[:cut]) {
				t.Errorf("values of the sealed config changed:\n%s", after)
			}
			eff := effective(t, cfg)
			want := map[string]any{"syncFrequency": "0s"}
			if got := eff["syncSchedule"]; !equalJSON(got, want) {
				t.Errorf("effective syncSchedule = %v, want %v", got, want)
			}
			if eff["password"] != "hunter2" && eff["password_sops"] != "hunter2" {
				t.Errorf("the secret did not survive: %v", eff)
			}
			flow, _ := os.ReadFile(filepath.Join(dir, "flow.yaml"))
			if !strings.Contains(string(flow), "syncSchedule:\n      baseInterval: 1h\n") {
				t.Errorf("no model schedule written:\n%s", flow)
			}
			// A second run finds nothing to do.
			if sum := runWrite(t, dir); sum.Pending != 0 {
				t.Errorf("second run: %d changes pending", sum.Pending)
			}
		})
	}
}

func TestSealedWholeDocumentDefault(t *testing.T) {
	// Every value encrypted; no schedule at all: the 30m default, turned
	// off by an overlay that sops ignores and Flow applies.
	dir, cfg := sealedCatalog(t, "yaml", "host: h.example\npassword: hunter2\n")
	runWrite(t, dir)
	eff := effective(t, cfg)
	if got, want := eff["syncSchedule"], map[string]any{"syncFrequency": "0s"}; !equalJSON(got, want) {
		t.Errorf("effective syncSchedule = %v, want %v", got, want)
	}
	flow, _ := os.ReadFile(filepath.Join(dir, "flow.yaml"))
	if !strings.Contains(string(flow), "baseInterval: 30m") {
		t.Errorf("no model schedule written:\n%s", flow)
	}
}

func TestSealedWholeDocumentEncryptedScheduleNeedsReview(t *testing.T) {
	dir, cfg := sealedCatalog(t, "yaml", "host: h.example\nsyncSchedule:\n  syncFrequency: 1h\n")
	before, _ := os.ReadFile(cfg)
	reg := connector.Builtin()
	mg := &Migrator{Planner: &plan.Planner{Registry: reg}, Registry: reg}
	inputs, _ := input.Resolve([]string{dir}, catalog.DefaultOptions())
	res := mg.Catalog(catalog.Load(inputs, catalog.DefaultOptions()))
	if len(res.Tasks) != 1 || res.Tasks[0].Action != "review" || !strings.Contains(res.Tasks[0].Reason, "encrypted") {
		t.Fatalf("tasks = %+v", res.Tasks)
	}
	if len(res.Files) != 0 {
		t.Errorf("files changed: %v", res.Files)
	}
	after, _ := os.ReadFile(cfg)
	if !bytes.Equal(before, after) {
		t.Error("the config changed")
	}
}

// Editing a plaintext value of a suffix-encrypted config breaks its MAC:
// the reason migrate writes sops.overlay instead.
func TestDirectEditBreaksTheMAC(t *testing.T) {
	keyFile, _ := ageKey(t)
	_, cfg := sealedCatalog(t, "yaml", "host: h.example\npassword_sops: hunter2\nsyncSchedule:\n  syncFrequency: 1h\n", "--encrypted-suffix", "_sops")
	if out, err := sops(t, keyFile, "decrypt", cfg); err != nil {
		t.Fatalf("decrypt before the edit: %v\n%s", err, out)
	}
	src, _ := os.ReadFile(cfg)
	edited := bytes.Replace(src, []byte("syncFrequency: 1h"), []byte(`syncFrequency: "0s"`), 1)
	if bytes.Equal(src, edited) {
		t.Fatalf("no plaintext syncFrequency in:\n%s", src)
	}
	os.WriteFile(cfg, edited, 0o600)
	out, err := sops(t, keyFile, "decrypt", cfg)
	if err == nil {
		t.Fatal("sops decrypt succeeded after a direct edit")
	}
	if !strings.Contains(out, "MAC mismatch") {
		t.Errorf("sops failed, but not with a MAC mismatch:\n%s", out)
	}
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// A file sink sealed by the real sops, its interval left plaintext
// (--encrypted-regex), migrates with --zero-file-sinks: the zero goes
// into sops.overlay, sops still decrypts the file, and the effective
// config has the interval off; the same config in plaintext needs review
// and is left as it is (docs/behaviour.md §7: Flow refuses "0s" there).
func TestSealedFileSinkMigratesPlaintextDoesNot(t *testing.T) {
	plain := "bucket: acme-lake\nuploadInterval: 15m\n"
	dir, cfg := sealedCatalog(t, "yaml", plain, "--encrypted-regex", "^bucket$")
	flowPath := filepath.Join(dir, "flow.yaml")
	flow, _ := os.ReadFile(flowPath)
	flow = bytes.Replace(flow, []byte("materialize-snowflake:v4"), []byte("materialize-s3-csv:v1"), 1)
	// The same sink with a plaintext config beside it.
	flow = append(flow, []byte(strings.ReplaceAll(strings.SplitN(string(flow), "\n", 2)[1], "config.yaml", "plain.yaml"))...)
	flow = bytes.Replace(flow, []byte("acmeCo/sealed:\n"), []byte("acmeCo/plain:\n"), 1)
	if err := os.WriteFile(flowPath, flow, 0o644); err != nil {
		t.Fatal(err)
	}
	plainPath := filepath.Join(dir, "plain.yaml")
	if err := os.WriteFile(plainPath, []byte(plain), 0o600); err != nil {
		t.Fatal(err)
	}
	reg := connector.Builtin()
	mg := &Migrator{Planner: &plan.Planner{Registry: reg, Options: plan.Options{ZeroFileSinks: true}}, Registry: reg}
	inputs, err := input.Resolve([]string{dir}, catalog.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	sum, err := mg.Run(inputs, RunOptions{Load: catalog.DefaultOptions(), Mode: Write, Quiet: true}, &out, &errb)
	if err != nil || !sum.OK() || sum.Review() != 1 || sum.Actions["migrate"] != 1 {
		t.Fatalf("migrate: %v %+v\n%s", err, sum, errb.String())
	}
	eff := effective(t, cfg)
	if eff["uploadInterval"] != "0s" || eff["bucket"] != "acme-lake" {
		t.Errorf("effective config after migration: %v", eff)
	}
	if got, _ := os.ReadFile(plainPath); string(got) != plain {
		t.Errorf("the plaintext config changed:\n%s", got)
	}
	after, _ := os.ReadFile(flowPath)
	if strings.Count(string(after), "baseInterval: 15m") != 1 {
		t.Errorf("one model schedule, for the sealed sink:\n%s", after)
	}
}
