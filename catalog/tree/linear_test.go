package tree

import (
	"fmt"
	"strings"
	"testing"
)

// manyKeys writes one object of n keys in a format: JSON on one line,
// YAML in block style (a key a line) or flow style (all on one line). A
// non-ASCII key at the front makes the flow line a "wide" one, whose
// columns are counted in characters.
func manyKeys(format string, n int, dupLast bool) []byte {
	var b strings.Builder
	key := func(i int) string {
		if dupLast && i == n-1 {
			i = 0
		}
		if i == 0 {
			return "é0"
		}
		return fmt.Sprintf("k%07d", i)
	}
	switch format {
	case "json":
		b.WriteString("{")
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "%q:%d", key(i), i)
		}
		b.WriteString("}\n")
	case "yaml-block":
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "%s: %d\n", key(i), i)
		}
	case "yaml-flow":
		b.WriteString("{")
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s: %d", key(i), i)
		}
		b.WriteString("}\n")
	}
	return []byte(b.String())
}

// parseCounting parses src, returning the key comparisons and column
// steps it took.
func parseCounting(format string, src []byte) (*Doc, int, error) {
	if format == "json" {
		d := &Doc{File: "f", Src: src, Format: JSON}
		p := jsonParser{doc: d, src: src, lim: DefaultLimits, line: 1, arena: &Arena{}}
		p.ws()
		root, err := p.value(nil, "", 0)
		d.Root = root
		return d, p.compares + d.steps, err
	}
	d, c, err := parseYAML("f", src, DefaultLimits)
	if err != nil {
		return nil, 0, err
	}
	return d, c.compares + d.steps, nil
}

// Duplicate keys are found in linear time: 200,000 keys (a 2.6 MB file)
// compare each key with at most smallObject others, and columns on a
// long line are walked about once, not once per node. (Quadratic, this
// took 55 s.) The bound is on work counted, not on time; YAML runs with
// 50,000 keys to keep the test quick (go.yaml.in/yaml itself takes about
// a second for 200,000), which a quadratic cost would still exceed many
// times over.
func TestManyKeysLinear(t *testing.T) {
	for _, format := range []string{"json", "yaml-block", "yaml-flow"} {
		t.Run(format, func(t *testing.T) {
			n := 200_000
			if format != "json" {
				n = 50_000
			}
			src := manyKeys(format, n, false)
			d, work, err := parseCounting(format, src)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(d.Root.Fields); got != n {
				t.Fatalf("%d keys, want %d", got, n)
			}
			if limit := smallObject*smallObject + 2*len(src); work > limit {
				t.Errorf("%d key comparisons and column steps for %d keys (%d bytes), want at most %d (linear)", work, n, len(src), limit)
			}
			// The last key repeats the first: still found, with both places.
			_, err = parseFormat(format, manyKeys(format, n, true))
			if err == nil || !strings.Contains(err.Error(), `duplicate key "é0" (first at line 1)`) {
				t.Errorf("a duplicate of the first key among %d: %v", n, err)
			}
		})
	}
}

// parseFormat parses src as format (for the tests).
func parseFormat(format string, src []byte) (*Doc, error) {
	if format == "json" {
		return ParseJSON("f", src, DefaultLimits)
	}
	return ParseYAML("f", src, DefaultLimits)
}

// Benchmarks: time and memory per key stay flat from 25,000 to 200,000
// keys (ns/op and B/op grow with n, per key they do not).
func BenchmarkManyKeys(b *testing.B) {
	for _, format := range []string{"json", "yaml-block", "yaml-flow"} {
		for _, n := range []int{25_000, 50_000, 100_000, 200_000} {
			src := manyKeys(format, n, false)
			b.Run(fmt.Sprintf("%s/keys=%d", format, n), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(src)))
				for i := 0; i < b.N; i++ {
					if _, err := parseFormat(format, src); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/key")
			})
		}
	}
}
