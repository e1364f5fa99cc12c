package migrate

import (
	"bytes"
	"strings"
	"testing"

	"github.com/estuary/schedtool/finding"
)

// Shown: a config's schedule and what is outside configs may be shown;
// no other config value, and no ciphertext, MAC or data key anywhere.
func TestShown(t *testing.T) {
	for _, c := range []struct {
		ptr, v string
		want   bool
	}{
		{"/syncSchedule/baseInterval", "2h", true},
		{"/expectPubId", "00000000000000a1", true},
		{"/endpoint/connector/image", "ghcr.io/estuary/materialize-snowflake:v4", true},
		{"/endpoint/connector/config/syncSchedule/syncFrequency", "2h", true},
		{"/endpoint/connector/config/SyncSchedule/timezone", "UTC", true},
		{"/endpoint/connector/config/uploadInterval", "5m", true},
		{"/endpoint/connector/config/upload_interval", "PT1H", true},
		{"/endpoint/connector/config/advanced/updateDelay", "1h", true},
		{"/endpoint/connector/config/sops/overlay/syncSchedule/syncFrequency", "0s", true},
		{"/endpoint/connector/config", "own.config.yaml", true},
		{"/endpoint/connector/config", "ENC[AES256_GCM,data:x]", false},
		{"/endpoint/connector/config/password", "hunter2", false},
		{"/endpoint/connector/config/advanced/token", "x", false},
		{"/endpoint/connector/config/sops/overlay/password", "hunter2", false},
		{"/endpoint/connector/config/sops/mac", "x", false},
		{"/endpoint/connector/config/sops/age/0/enc", "x", false},
		{"/endpoint/local/config/host", "h", false},
		{"/endpoint/connector/config/syncSchedule/syncFrequency", "ENC[AES256_GCM,data:x]", false},
		{"/bindings/0/resource/table", "ENC[AES256_GCM,data:x]", false},
		{"/bindings/0/resource/table", "-----BEGIN AGE ENCRYPTED FILE-----", false},
	} {
		toks := strings.Split(strings.TrimPrefix(c.ptr, "/"), "/")
		if got := Shown(toks, c.v); got != c.want {
			t.Errorf("Shown(%s, %q) = %v, want %v", c.ptr, c.v, got, c.want)
		}
	}
}

// A sealed YAML config's data key is a block scalar over several lines:
// every line of it is hidden, as are the MAC and the ciphertext, and the
// review diff of an overlay written beside them shows none of them.
func TestHiddenLinesYAMLBlock(t *testing.T) {
	src := "host: h\n" + // 0
		"password_sops: ENC[AES256_GCM,data:abc,type:str]\n" + // 1
		"syncSchedule:\n" + // 2
		"  syncFrequency: 1h\n" + // 3
		"sops:\n" + // 4
		"  age:\n" + // 5
		"    - recipient: age1xyz\n" + // 6
		"      enc: |\n" + // 7
		"        -----BEGIN AGE ENCRYPTED FILE-----\n" + // 8
		"        YWdlLWVuY3J5cHRpb24ub3JnL3YxCi0\n" + // 9
		"\n" + // 10
		"        c1ZtY1U4a04zdEJVaHNuQUp4MldZT2l6\n" + // 11
		"        -----END AGE ENCRYPTED FILE-----\n" + // 12
		"  lastmodified: \"2026-12-02T10:17:25Z\"\n" + // 13
		"  mac: ENC[AES256_GCM,data:PHut,type:str]\n" + // 14
		"  encrypted_suffix: _sops\n" + // 15
		"  version: 3.13.3\n" // 16
	hide := HiddenLines("c.config.yaml", []byte(src))
	want := map[int]bool{0: true, 1: true, 6: true, 7: true, 8: true, 9: true, 10: true, 11: true, 12: true, 13: true, 14: true, 15: true, 16: true}
	for i := range 17 {
		if hide[i] != want[i] {
			t.Errorf("line %d %q: hidden %v, want %v", i+1, strings.Split(src, "\n")[i], hide[i], want[i])
		}
	}
	at := len(src)
	edit := finding.TextEdit{Start: at, End: at, NewText: []byte("  overlay:\n    syncSchedule:\n      syncFrequency: \"0s\"\n")}
	var b bytes.Buffer
	if err := ReviewDiff(&b, "c.config.yaml", []byte(src), []finding.TextEdit{edit}, 3); err != nil {
		t.Fatal(err)
	}
	want2 := "--- a/c.config.yaml\n+++ b/c.config.yaml\n@@ -15,3 +15,6 @@\n   mac: <hidden>\n   encrypted_suffix: <hidden>\n   version: <hidden>\n+  overlay:\n+    syncSchedule:\n+      syncFrequency: \"0s\"\n"
	if b.String() != want2 {
		t.Errorf("review diff:\n%s\nwant:\n%s", b.String(), want2)
	}
	// The diff git applies leaves the hidden context out: the hunk is
	// the added lines alone, at the end of the file.
	b.Reset()
	Diff(&b, "c.config.yaml", []byte(src), []finding.TextEdit{edit}, 3)
	if strings.Contains(b.String(), "ENC[") || strings.Contains(b.String(), "version") {
		t.Errorf("the diff shows hidden context:\n%s", b.String())
	}
}
