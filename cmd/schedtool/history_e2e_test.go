package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// census --history reads regular files only: a FIFO (or a symlink to
// one) is refused at once, never opened for a read that blocks; a file
// over --max-file-size is refused before it is read (issue 24 §3: a FIFO
// used to hang the run).
func TestCensusHistoryRegularOnly(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "h.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	link := filepath.Join(dir, "h.json")
	os.Symlink(fifo, link)
	big := filepath.Join(dir, "big.json")
	os.WriteFile(big, []byte(strings.Repeat("\n", 2048)+`{"version":1}`), 0o644)
	catalog, _ := filepath.Abs("../../fixtures/catalog")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"FIFO", []string{"--history", fifo}, "--history: " + fifo + ": not a regular file (a FIFO)"},
		{"symlink to a FIFO", []string{"--history", link}, "--history: " + link + ": not a regular file (a FIFO)"},
		{"over --max-file-size", []string{"--max-file-size", "1KiB", "--history", big}, "--history: " + big + ": file is 2.0 KiB (2061 bytes), over the limit of 1 KiB (see --max-file-size)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, binary, append(append([]string{"census", "-o", "markdown"}, c.args...), catalog)...)
			r := execRun(t, cmd)
			if ctx.Err() != nil {
				t.Fatal("census hung on the history file (killed after 20s)")
			}
			if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, c.want) {
				t.Errorf("exit %d, stdout %.80q\nstderr %q\nwant %q", r.code, r.stdout, r.stderr, c.want)
			}
		})
	}
}
