package paths

import (
	"testing"
)

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 bytes", 1000: "1000 bytes", 1024: "1 KiB", 2030: "2.0 KiB (2030 bytes)", 1536: "1.5 KiB (1536 bytes)", 64 << 20: "64 MiB", 3 << 30: "3 GiB", 1<<30 + 1<<29: "1.5 GiB (1610612736 bytes)"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}
