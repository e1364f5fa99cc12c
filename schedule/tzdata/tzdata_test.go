package tzdata

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"
	"time"
)

// zipSHA256 is the SHA-256 of Go 1.26's lib/time/zoneinfo.zip, tzdata
// 2025c: changing the embedded data without Version fails here.
var zipSHA256 = map[string]string{
	"2025c": "8f55634d05f8bca1f7bc7c69c5933428c69357e0bdf565e5ba224e3f88ff12e8",
}

func TestVersionIsTheZips(t *testing.T) {
	sum := sha256.Sum256(zoneinfoZip)
	if got := hex.EncodeToString(sum[:]); zipSHA256[Version] != got {
		t.Fatalf("embedded zoneinfo.zip has SHA-256 %s, not the one of tzdata %s (%s): update Version and zipSHA256 together", got, Version, zipSHA256[Version])
	}
	// The toolchain's copy, when it is the same zip, says its release
	// in lib/time/update.bash (DATA=2025c).
	goZip, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "lib", "time", "zoneinfo.zip"))
	if err != nil || !bytes.Equal(goZip, zoneinfoZip) {
		t.Skip("the toolchain's lib/time/zoneinfo.zip is absent or another release")
	}
	script, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "lib", "time", "update.bash"))
	if err != nil {
		t.Skip("no lib/time/update.bash in GOROOT")
	}
	m := regexp.MustCompile(`(?m)^DATA=(\S+)$`).FindSubmatch(script)
	if m == nil || string(m[1]) != Version {
		t.Errorf("update.bash says DATA=%s, Version is %s", m, Version)
	}
}

// Load reads the embedded data only: names the host may have (right/,
// posix/, localtime) are unknown, whatever $ZONEINFO says.
func TestLoadIsEmbeddedOnly(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "right"), 0o755)
	os.WriteFile(filepath.Join(dir, "right", "UTC"), []byte("TZif"), 0o644)
	t.Setenv("ZONEINFO", dir)
	for _, name := range []string{"right/UTC", "posix/Europe/Paris", "localtime", "posixrules", "zone.tab", "", "america/new_york"} {
		if _, ok := Load(name); ok {
			t.Errorf("Load(%q) loaded", name)
		}
	}
	loc, ok := Load("America/New_York")
	if !ok {
		t.Fatal("America/New_York does not load")
	}
	if _, off := time.Date(2026, 1, 15, 12, 0, 0, 0, loc).Zone(); off != -5*3600 {
		t.Errorf("New York offset %d in January", off)
	}
	if n := len(Names()); n < 590 {
		t.Errorf("%d names", n)
	}
}
