package pgsource_test

import (
	"io"
	"strings"
	"testing"

	"schedtool/catalog"
	"schedtool/catalog/pgsource"
	"schedtool/catalog/pgsource/pgtest"
)

// A connection that breaks part way through the rows (a proxy closing
// the socket) fails the read with a message saying the connection was
// lost and how many rows came before, never a bare "unexpected EOF" and
// never the password; a read cut before the rows (during the startup) is
// an error too.
func TestConnectionLost(t *testing.T) {
	db, _ := load(t, 2000)
	for _, tc := range []struct {
		name  string
		after int64
		want  string
	}{
		{"during the rows", 300 << 10, "the connection to the server was lost after "},
		{"during the startup", 50, "failed to connect"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc, err := pgsource.Open(pgtest.CutAfter(t, db.BypassURL, tc.after, 0), catalog.Selector{})
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(rc)
			rc.Close()
			if err == nil {
				t.Fatalf("no error after %d bytes", len(b))
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
			if strings.Contains(err.Error(), db.BypassPassword) {
				t.Errorf("error %q shows the password", err)
			}
			if tc.after > 1000 && (len(b) == 0 || !strings.Contains(err.Error(), "rows of public.live_specs")) {
				t.Errorf("read %d bytes before %q", len(b), err)
			}
		})
	}
}
