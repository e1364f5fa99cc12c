package jitter

import (
	"testing"

	"github.com/estuary/schedtool/schedule/connector"
)

// docs/behaviour.md §10's vectors.
func TestVectors(t *testing.T) {
	for seed, want := range map[string]string{
		"":       "9h50m27.03868846s",
		"abc123": "10h58m36.187140457s",
		"orgname-accountname.snowflakecomputing.comCOMPUTE_WH": "7h46m48.757509846s",
	} {
		if got := Connector([]byte(seed)).String(); got != want {
			t.Errorf("Connector(%q) = %s, want %s", seed, got, want)
		}
	}
	if Connector(nil) != 0 {
		t.Error("a nil seed has jitter")
	}
	for tenant, want := range map[string]int64{"acmeCo/": 68366, "estuary/": 61898} {
		if got := Runtime(RuntimeSeed(tenant + "x/materialize-y")); got != want {
			t.Errorf("Runtime(%s) = %d, want %d", tenant, got, want)
		}
	}
}

func TestSeed(t *testing.T) {
	reg := connector.Builtin()
	sf, _, _ := reg.Lookup("ghcr.io/estuary/materialize-snowflake:v4")
	seed, ok := Seed(sf, map[string]any{"host": "orgname-accountname.snowflakecomputing.com", "warehouse": "COMPUTE_WH"})
	if !ok || Connector(seed).String() != "7h46m48.757509846s" {
		t.Errorf("snowflake seed %q", seed)
	}
	db, _, _ := reg.Lookup("ghcr.io/estuary/materialize-databricks:v3")
	if seed, _ := Seed(db, map[string]any{"http_path": "/sql/1.0/warehouses/abc123"}); string(seed) != "abc123" {
		t.Errorf("databricks seed %q", seed)
	}
	s3, _, _ := reg.Lookup("ghcr.io/estuary/materialize-s3-csv:v1")
	if seed, ok := Seed(s3, map[string]any{}); seed != nil || !ok {
		t.Errorf("file sinks have no seed: %q", seed)
	}
	md, _, _ := reg.Lookup("ghcr.io/estuary/materialize-motherduck:v1")
	if _, ok := Seed(md, map[string]any{"token": connector.Encrypted{Text: "ENC[...]"}}); ok {
		t.Error("an encrypted seed is known")
	}
}
