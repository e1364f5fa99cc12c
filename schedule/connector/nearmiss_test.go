package connector

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// goFileSink is a file sink's config as far as its schedule goes.
type goFileSink struct {
	UploadInterval string `json:"uploadInterval"`
	Bucket         string `json:"bucket"`
}

// A key reported as a near miss is one encoding/json refuses as an
// unknown field (DisallowUnknownFields, as the connectors decode), with
// the same text before the key to use; the image's own key in any case
// that encoding/json folds is never one (issue 24 §4).
func FuzzNearMiss(f *testing.F) {
	for _, k := range []string{"uploadInterval", "upload_interval", "uploadInterval ", "ｕploadInterval", "UPLOADINTERVAL", "syncSchedule", "sync_schedule", "bucket", "upload\u200bInterval", "uploadİnterval", "uploadInterva\u212a"} {
		f.Add(k)
	}
	reg := Builtin()
	e, _, _ := reg.Lookup("ghcr.io/estuary/materialize-gcs-csv:v1")
	f.Fuzz(func(t *testing.T, key string) {
		msg := reg.nearMiss(e, key)
		src, err := json.Marshal(map[string]string{key: "5m"})
		if err != nil {
			return
		}
		var c goFileSink
		d := json.NewDecoder(bytes.NewReader(src))
		d.DisallowUnknownFields()
		jerr := d.Decode(&c)
		if msg == "" {
			return
		}
		if jerr == nil || !strings.HasPrefix(jerr.Error(), "json: unknown field ") {
			t.Fatalf("key %q: near miss %q, but encoding/json says %v", key, msg, jerr)
		}
		// json.Marshal replaces invalid UTF-8, which names another key.
		if utf8.ValidString(key) && !strings.HasPrefix(msg, jerr.Error()+"; ") {
			t.Fatalf("key %q: %q does not start with encoding/json's %q", key, msg, jerr)
		}
	})
}

func mustJSON(s string) []byte { b, _ := json.Marshal(s); return b }
