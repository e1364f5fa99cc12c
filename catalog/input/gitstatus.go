package input

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"time"
)

// Uncommitted are the files among paths whose bytes differ from their
// work tree's last commit, as git says (git diff HEAD: staged or not),
// in paths' order: migrate --write over them mixes its changes with
// ones nobody committed (an earlier wave's), so that one git diff shows
// both. It asks git once per directory, with literal pathspecs and with
// no fsmonitor hook, external diff or textconv run; a file git does not
// track, a work tree without a commit, no git on PATH or a git that
// fails or takes over 10 seconds gives nothing.
func Uncommitted(paths []string) []string {
	git, err := exec.LookPath("git")
	if err != nil || len(paths) == 0 {
		return nil
	}
	byDir := map[string][]string{}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		d := filepath.Dir(abs)
		byDir[d] = append(byDir[d], filepath.Base(abs))
	}
	dirs := make([]string, 0, len(byDir))
	for d := range byDir {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	changed := map[string]bool{}
	for _, d := range dirs {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		args := append([]string{"--literal-pathspecs", "-c", "core.fsmonitor=false", "diff", "--name-only", "--relative", "-z", "--no-ext-diff", "--no-textconv", "HEAD", "--"}, byDir[d]...)
		cmd := exec.CommandContext(ctx, git, args...)
		cmd.Dir = d
		cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
		out, err := cmd.Output()
		cancel()
		if err != nil {
			continue
		}
		for _, name := range bytes.Split(out, []byte{0}) {
			if len(name) > 0 {
				changed[filepath.Join(d, string(name))] = true
			}
		}
	}
	var out []string
	for _, p := range paths {
		if abs, err := filepath.Abs(p); err == nil && changed[abs] {
			out = append(out, p)
		}
	}
	return out
}
