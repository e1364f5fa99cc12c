package tree

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// A skipped value is checked for duplicate keys as a built one is: Flow
// (serde) refuses a spec with one anywhere, bindings included. Each case
// that has a duplicate has a near miss beside it.
func TestSkippedDuplicateKeys(t *testing.T) {
	var many, manyDup strings.Builder
	for i := range 40 {
		fmt.Fprintf(&many, `"k%d":%d,`, i, i)
	}
	manyDup.WriteString(many.String() + `"k7":0,`)
	for _, tc := range []struct{ name, src, err string }{
		{"plain", `{"spec":{"bindings":[{"source":"a","source":"b"}]}}`, `f:1:36: duplicate key "source" (first at line 1)`},
		{"plain near miss", `{"spec":{"bindings":[{"source":"a","sourc":"b","Source":"c","source ":"d"}]}}`, ""},
		{"escaped", `{"spec":{"bindings":[{"source":"a","\u0073ource":"b"}]}}`, `f:1:36: duplicate key "source" (first at line 1)`},
		{"both escaped", `{"spec":{"bindings":[{"\u0073ource":"a","sourc\u0065":"b"}]}}`, `f:1:41: duplicate key "source" (first at line 1)`},
		{"escaped near miss", `{"spec":{"bindings":[{"source":"a","\u0053ource":"b","\/source":"c"}]}}`, ""},
		{"nested", `{"spec":{"bindings":[{"resource":{"table":"t","x":{"y":1,"y":2}}}]}}`, `f:1:58: duplicate key "y" (first at line 1)`},
		{"same key in sibling objects", `{"spec":{"bindings":[{"source":"a"},{"source":"b"}],"x":[{"a":1},{"a":{"a":{"a":1}}}]}}`, ""},
		{"an object of many keys", `{"spec":{"bindings":[{` + manyDup.String() + `"z":1}]}}`, `duplicate key "k7"`},
		{"an object of many keys near miss", `{"spec":{"bindings":[{` + many.String() + `"z":1}]}}`, ""},
		{"first on another line", "{\"spec\":{\"bindings\":[{\"source\":\"a\",\n\"source\":\"b\"}]}}", `f:2:1: duplicate key "source" (first at line 1)`},
	} {
		skip := func(path []string, key string) bool { return len(path) == 1 && key == "bindings" }
		for _, parse := range []struct {
			how string
			err func() error
		}{
			{"skipped", func() error {
				_, err := ParseJSONWith("f", []byte(tc.src), JSONOptions{Limits: DefaultLimits, Skip: skip})
				return err
			}},
			{"built", func() error { _, err := ParseJSON("f", []byte(tc.src), DefaultLimits); return err }},
		} {
			err := parse.err()
			switch {
			case tc.err == "" && err != nil:
				t.Errorf("%s, %s: %v", tc.name, parse.how, err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("%s, %s: %v, want %s", tc.name, parse.how, err, tc.err)
			}
		}
		if Valid([]byte(tc.src), DefaultLimits) != (tc.err == "") {
			t.Errorf("%s: Valid = %v", tc.name, !(tc.err == ""))
		}
		// The row scanner (census's and validate's fast path) leaves
		// such a row to the slow path, which reports the duplicate.
		row := `{"catalog_name":"a/b","spec_type":"materialization","spec":` + tc.src[len(`{"spec":`):] + `}`
		if _, ok := ScanRow([]byte(row), DefaultLimits, nil, nil); tc.err != "" && ok {
			t.Errorf("%s: ScanRow read a row with a duplicate key as plain", tc.name)
		}
	}
}

// ScanRow runs on every worker at once: a row it leaves to the slow path
// (here a syntax error, then a duplicate key, in the skipped bindings)
// must not write to what they share. Before errScan, each error built
// the shared Doc's line table: a data race under go test -race.
func TestScanRowErrorsConcurrently(t *testing.T) {
	rows := [][]byte{
		[]byte(`{"catalog_name":"a/b","spec_type":"materialization","spec":{"bindings":[{"x":tru}]}}`),
		[]byte(`{"catalog_name":"a/b","spec_type":"materialization","spec":{"bindings":[{"x":1,"x":2}]}}`),
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for i := range 100 {
				if _, ok := ScanRow(rows[i%2], DefaultLimits, nil, nil); ok {
					t.Error("a bad row scanned as plain")
					return
				}
			}
		})
	}
	wg.Wait()
}
