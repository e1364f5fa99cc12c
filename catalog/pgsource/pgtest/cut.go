package pgtest

import (
	"bytes"
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
	return proxy(t, u, "", n, false, skip)
}

// StallAfter is CutAfter, except that the proxy keeps the connection
// open and sends nothing more: a read that hangs part way (a server or
// network stalled), for a test to interrupt.
func StallAfter(t testing.TB, u string, n int64, skip int) string {
	t.Helper()
	return proxy(t, u, "", n, true, skip)
}

// StallAt is StallAfter counting the n bytes from the first message of
// the client that holds query: a server that answers everything before
// a query, then stalls part way through its answer (n > 0) or before the
// first byte of it (n = 0). An empty query counts from the connection's
// start (n = 0 stalls the connecting).
func StallAt(t testing.TB, u, query string, n int64) string {
	t.Helper()
	return proxy(t, u, query, n, true, 0)
}

func proxy(t testing.TB, u, query string, n int64, stall bool, skip int) string {
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
			// seen is closed once the client has sent query: the count
			// of the server's bytes starts there.
			seen := make(chan struct{})
			if query == "" || limit == 1<<62 {
				close(seen)
			}
			wg.Add(2)
			go func() {
				defer wg.Done()
				copyWatching(s, c, query, seen)
				s.Close()
			}()
			go func() {
				defer wg.Done()
				copyUntil(c, s, seen, limit)
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

// copyWatching copies the client's bytes to the server, closing seen
// (before forwarding it) at the first read that holds query.
func copyWatching(dst io.Writer, src io.Reader, query string, seen chan struct{}) {
	buf := make([]byte, 64<<10)
	found := query == ""
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if !found && bytes.Contains(buf[:n], []byte(query)) {
				found = true
				close(seen)
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// copyUntil copies the server's bytes to the client: all of them until
// seen is closed, then limit more.
func copyUntil(dst io.Writer, src io.Reader, seen chan struct{}, limit int64) {
	buf := make([]byte, 64<<10)
	for {
		select {
		case <-seen:
			io.CopyN(dst, src, limit)
			return
		default:
		}
		n, err := src.Read(buf)
		if n > 0 {
			select {
			case <-seen:
				// The answer to the query began in this read.
				k := min(int64(n), limit)
				if _, werr := dst.Write(buf[:k]); werr != nil {
					return
				}
				if k < int64(n) {
					return
				}
				io.CopyN(dst, src, limit-k)
				return
			default:
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
