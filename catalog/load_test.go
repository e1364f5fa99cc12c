package catalog

import (
	"fmt"
	"testing"
)

func TestCycleText(t *testing.T) {
	chain := func(n int) []string {
		var c []string
		for i := 0; i < n; i++ {
			c = append(c, fmt.Sprintf("f%d.yaml", i))
		}
		return c
	}
	for _, tc := range []struct {
		chain []string
		path  string
		want  string
	}{
		{[]string{"a.yaml"}, "a.yaml", "a.yaml -> a.yaml"},
		{[]string{"x.yaml", "a.yaml", "b.yaml"}, "a.yaml", "a.yaml -> b.yaml -> a.yaml"},
		{chain(8), "f0.yaml", "f0.yaml -> f1.yaml -> f2.yaml -> f3.yaml -> f4.yaml -> f5.yaml -> f6.yaml -> f7.yaml -> f0.yaml"},
		{chain(9), "f0.yaml", "f0.yaml -> f1.yaml -> f2.yaml -> f3.yaml -> (1 more) -> f5.yaml -> f6.yaml -> f7.yaml -> f8.yaml -> f0.yaml"},
		{chain(10000), "f2.yaml", "f2.yaml -> f3.yaml -> f4.yaml -> f5.yaml -> (9990 more) -> f9996.yaml -> f9997.yaml -> f9998.yaml -> f9999.yaml -> f2.yaml"},
	} {
		if got := cycleText(tc.chain, tc.path, func(s string) string { return s }); got != tc.want {
			t.Errorf("cycleText(%d files, %s) = %q, want %q", len(tc.chain), tc.path, got, tc.want)
		}
	}
}
