package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestCIPlanWorkflow runs the plan-and-apply workflow of docs/ci.md: each
// `run:` step but schedtool's install and the git ones, with bash as
// GitHub does, a stand-in gh on PATH, in a copy of the shipped catalog:
// the plan job's steps, then the apply job's, which must leave the tree
// migrate --write leaves. The post step is also run on a body in parts.
func TestCIPlanWorkflow(t *testing.T) {
	doc := string(mustRead(t, "../../docs/ci.md"))
	blocks := fenced(section(t, doc, "## Plan on a pull request, apply on merge"), "yaml")
	if len(blocks) == 0 {
		t.Fatal("docs/ci.md: the plan-and-apply section has no yaml block")
	}
	var wf workflow
	if err := yaml.Unmarshal([]byte(blocks[0]), &wf); err != nil || wf.Jobs["plan"].Steps == nil || wf.Jobs["apply"].Steps == nil {
		t.Fatalf("docs/ci.md: no workflow with jobs plan and apply: %v", err)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not on PATH")
	}
	dir := filepath.Join(copyFixtures(t), "fixtures", "catalog")
	want := filepath.Join(copyFixtures(t), "fixtures", "catalog")
	bin := t.TempDir()
	ghLog := filepath.Join(t.TempDir(), "gh.log")
	os.WriteFile(filepath.Join(bin, "gh"), []byte("#!/bin/sh\ntest -s \"$5\" || exit 1\necho \"$@\" >> \""+ghLog+"\"\n"), 0o755)
	env := append(os.Environ(), "PATH="+filepath.Dir(binary)+string(os.PathListSeparator)+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	runStep := func(run string) run {
		cmd := exec.Command(bash, "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", run)
		cmd.Dir, cmd.Env = dir, env
		return execRun(t, cmd)
	}
	var post string
	steps := 0
	for _, job := range []string{"plan", "apply"} {
		for _, step := range wf.Jobs[job].Steps {
			run := strings.TrimSpace(step.Run)
			switch {
			case run == "" || strings.Contains(run, "go install ./cmd/schedtool") || strings.HasPrefix(run, "git "):
				continue
			case strings.Contains(run, "gh pr comment"):
				post = run
			}
			steps++
			if r := runStep(run); r.code != 0 {
				t.Errorf("docs/ci.md: %s: %q exited %d\n%s", job, run, r.code, r.stderr)
			}
		}
	}
	if steps != 3 || post == "" {
		t.Fatalf("docs/ci.md: %d steps run (want plan, post, apply), post step %v", steps, post != "")
	}
	if body := string(mustRead(t, filepath.Join(dir, "plan.md"))); !strings.Contains(body, "## schedtool migrate plan") || !strings.Contains(body, "```diff") {
		t.Errorf("plan.md is no plan body:\n%s", body)
	}
	if log := string(mustRead(t, ghLog)); log != "pr comment  --body-file plan-part-0.md\n" {
		t.Errorf("gh was called:\n%s", log)
	}
	if r := schedtoolIn(t, want, "migrate", "--write", "--limit", "50", "."); r.code > 2 {
		t.Fatalf("migrate --write: %d\n%s", r.code, r.stderr)
	}
	got := treeFiles(t, dir)
	for _, extra := range []string{"plan.md", "plan-part-0.md", "wave.plan"} {
		delete(got, extra)
	}
	sameTrees(t, "the workflow's apply against migrate --write", got, treeFiles(t, want))

	// A body in parts: one comment a part, in order.
	os.Remove(ghLog)
	var body strings.Builder
	for i := 1; i <= 3; i++ {
		body.WriteString("<!-- schedtool part " + string(rune('0'+i)) + " of 3 -->\npart text\n")
	}
	os.WriteFile(filepath.Join(dir, "plan.md"), []byte(body.String()), 0o644)
	if r := runStep(post); r.code != 0 {
		t.Fatalf("the post step on 3 parts: exit %d\n%s", r.code, r.stderr)
	}
	if log := string(mustRead(t, ghLog)); log != "pr comment  --body-file plan-part-1.md\npr comment  --body-file plan-part-2.md\npr comment  --body-file plan-part-3.md\n" {
		t.Errorf("gh was called:\n%s", log)
	}
}
