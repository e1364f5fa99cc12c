package pgtest

import (
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// CutAfter returns u (a URL of the test cluster, on a Unix socket) made to
// go through a proxy that closes both sockets once the server has sent n
// bytes of a connection: a connection that dies in the middle of a read,
// as when a proxy, a firewall or an administrator ends it. The proxy stops
// at the end of the test. The first skip connections go through whole (a
// command that reads the table twice).
func CutAfter(t testing.TB, u string, n int64, skip int) string {
	t.Helper()
	return proxy(t, u, n, false, skip)
}

// StallAfter is CutAfter, except that the proxy keeps the connection
// open and sends nothing more: a read that hangs part way (a server or
// network stalled), for a test to interrupt.
func StallAfter(t testing.TB, u string, n int64, skip int) string {
	t.Helper()
	return proxy(t, u, n, true, skip)
}

func proxy(t testing.TB, u string, n int64, stall bool, skip int) string {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	q := p.Query()
	host, port := q.Get("host"), q.Get("port")
	if host == "" || port == "" {
		t.Fatalf("CutAfter needs a Unix socket URL with host and port parameters: %s", p.Redacted())
	}
	target := filepath.Join(host, ".s.PGSQL."+port)
	// A short directory: a socket path is limited to about 100 bytes.
	dir, err := os.MkdirTemp("", "pgcut")
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", filepath.Join(dir, ".s.PGSQL."+port))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var open []net.Conn
	track := func(c ...net.Conn) {
		mu.Lock()
		open = append(open, c...)
		mu.Unlock()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("unix", target)
			if err != nil {
				c.Close()
				continue
			}
			track(c, s)
			limit := n
			if skip > 0 {
				skip--
				limit = 1 << 62
			}
			wg.Add(2)
			go func() { defer wg.Done(); io.Copy(s, c); s.Close() }()
			go func() {
				defer wg.Done()
				io.CopyN(c, s, limit)
				if stall {
					return // the cleanup closes both
				}
				c.Close()
				s.Close()
			}()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range open {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
		os.RemoveAll(dir)
	})
	q.Set("host", dir)
	p.RawQuery = q.Encode()
	return p.String()
}
