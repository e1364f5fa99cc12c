package safefile

import (
	"io/fs"
	"os"
	"strings"
	"syscall"
	"testing"
)

// A file is created with its mode narrowed by the umask, at open: never
// wider, and no chmod afterwards.
func TestCreateTempMode(t *testing.T) {
	dir := t.TempDir()
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	for _, c := range []struct {
		umask      int
		mode, want fs.FileMode
	}{
		{0o077, 0o644, 0o600},
		{0o077, 0o755, 0o700},
		{0o022, 0o600, 0o600},
		{0o022, 0o644, 0o644},
		{0o000, 0o640, 0o640},
	} {
		syscall.Umask(c.umask)
		f, err := CreateTemp(dir, ".x.schedtool-*.tmp", c.mode)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := f.Stat()
		f.Close()
		if st.Mode().Perm() != c.want {
			t.Errorf("umask %03o, mode %v: created %v, want %v", c.umask, c.mode, st.Mode().Perm(), c.want)
		}
		if name := st.Name(); !strings.HasPrefix(name, ".x.schedtool-") || !strings.HasSuffix(name, ".tmp") || len(name) != len(".x.schedtool-.tmp")+12 {
			t.Errorf("name %q", name)
		}
		os.Remove(f.Name())
	}
}
