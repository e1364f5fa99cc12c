package main

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// /dev/null is a character device, not a terminal: no colour, no
// progress when output goes there.
func TestDevNullIsNoTerminal(t *testing.T) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Error("/dev/null counted as a terminal")
	}
	if isTerminal(&bytes.Buffer{}) {
		t.Error("a buffer counted as a terminal")
	}
}

func TestUseColor(t *testing.T) {
	for _, c := range []struct {
		mode, noColor string
		terminal      bool
		want          bool
	}{
		{"auto", "", true, true},
		{"auto", "", false, false},
		{"auto", "1", true, false}, // NO_COLOR set: off
		{"auto", "", true, true},
		{"always", "1", false, true}, // a flag beats the variable
		{"never", "", true, false},
	} {
		t.Setenv("NO_COLOR", c.noColor)
		if got, err := useColor(c.mode, c.terminal); err != nil || got != c.want {
			t.Errorf("useColor(%s, NO_COLOR=%q, terminal %v) = %v, %v", c.mode, c.noColor, c.terminal, got, err)
		}
	}
	if _, err := useColor("sometimes", true); err == nil {
		t.Error("--color sometimes accepted")
	}
}

func TestDiffColor(t *testing.T) {
	var b bytes.Buffer
	d := &diffColor{w: &b}
	for _, part := range []string{"--- a/f\n+++ b/f\n@@ -1 +1 @@\n ctx\n-old\n+ne", "w\n-last\n=== d: rows\n@@ a (line 1) @@\n~ /x: 1 -> 2\n+ /y: 3"} {
		d.Write([]byte(part))
	}
	d.Close()
	want := "\033[1m--- a/f\033[0m\n\033[1m+++ b/f\033[0m\n\033[36m@@ -1 +1 @@\033[0m\n ctx\n\033[31m-old\033[0m\n\033[32m+new\033[0m\n\033[31m-last\033[0m\n" +
		"\033[1m=== d: rows\033[0m\n\033[36m@@ a (line 1) @@\033[0m\n\033[33m~ /x: 1 -> 2\033[0m\n\033[32m+ /y: 3\033[0m"
	if b.String() != want {
		t.Errorf("got %q\nwant %q", b.String(), want)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The progress line is written on a terminal only, and cleared at the end.
func TestProgressOnTerminalOnly(t *testing.T) {
	for _, terminal := range []bool{true, false} {
		var b syncBuffer
		c := &common{Streams: Streams{Err: &b, ErrTerminal: terminal}}
		stop := c.progress(func(time.Duration) string { return "validate: 1.0 MiB read" })
		time.Sleep(700 * time.Millisecond)
		stop()
		got := b.String()
		if terminal && (!strings.Contains(got, "\r\033[Kvalidate: 1.0 MiB read") || !strings.HasSuffix(got, "\r\033[K")) {
			t.Errorf("on a terminal: %q", got)
		}
		if !terminal && got != "" {
			t.Errorf("not a terminal: %q", got)
		}
	}
}
