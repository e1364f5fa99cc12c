package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/estuary/schedtool/catalog/livespecs"
	"github.com/estuary/schedtool/census"
	"github.com/estuary/schedtool/finding"
	"github.com/estuary/schedtool/internal/paths"
	"github.com/estuary/schedtool/project"
)

// loadProject finds and reads the project file (docs/behaviour.md §13):
// --config FILE, else .schedtool.yaml (.yml, .json) in the first PATH's
// directory or any directory above it, up to the git work tree's top.
// What the file says fills in the flags the command line did not give.
func (c *common) loadProject(cmd *cobra.Command, args []string) error {
	switch cmd.Name() {
	case "schema", "completion", "help", "__complete", "apply", "show": // a saved plan holds its choices
		return nil
	}
	path := c.config
	if path == "" {
		paths := args
		if cmd.Name() == "explain" && len(paths) > 0 {
			paths = paths[1:] // NAME PATH...
		}
		start := "."
		if len(paths) > 0 && paths[0] != "-" && !livespecs.IsDBURL(paths[0]) {
			start = paths[0]
			if st, err := os.Stat(start); err != nil || !st.IsDir() {
				start = filepath.Dir(start)
			}
		}
		if path = project.Find(start); path == "" {
			return nil
		}
	}
	// Shown as outputs show paths (paths.Display), and so are the PATHs,
	// root and registry it names, which are relative to it: a project
	// file under the working directory gives PATHs relative to it, as
	// typed ones would be.
	p, err := project.Load(paths.Display(path))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && c.config != "" {
			return &usageError{fmt.Sprintf("--config %s: no such file", c.config)}
		}
		return &usageError{"project file " + err.Error()}
	}
	rules := make([]string, len(finding.Rules))
	for i, r := range finding.Rules {
		rules[i] = r.ID
	}
	if err := p.CheckNames(rules, census.Statuses); err != nil {
		return &usageError{"project file " + err.Error()}
	}
	c.project = p
	changed := func(name string) bool {
		f := cmd.Flag(name)
		return f != nil && f.Changed
	}
	if p.Root != "" && !changed("root") {
		c.root = p.Path(p.Root)
	}
	if p.Connectors != "" && !changed("connectors") {
		c.connectors = p.Path(p.Connectors)
	}
	return nil
}

// projectPaths are the project file's default PATHs, for a command given
// none.
func (c *common) projectPaths() []string {
	if c.project == nil {
		return nil
	}
	var out []string
	for _, p := range c.project.Paths {
		out = append(out, c.project.Path(p))
	}
	return out
}

// exceptions are the project file's exceptions in use by one run: which
// matched, and which had expired.
type exceptions struct {
	list    []project.Exception
	now     time.Time
	used    []bool
	expired []bool
}

func (c *common) exceptions(now time.Time) *exceptions {
	if c.project == nil || len(c.project.Exceptions) == 0 {
		return nil
	}
	n := len(c.project.Exceptions)
	return &exceptions{list: c.project.Exceptions, now: now, used: make([]bool, n), expired: make([]bool, n)}
}

// finding reports whether an unexpired exception covers f (its rule, on
// its task); an expired one that would is noted, and f counts again.
func (x *exceptions) finding(f *finding.Finding) bool {
	for i, e := range x.list {
		if e.Rule != "" && e.Rule == f.Rule && f.Task != "" && project.Matches(e.Task, f.Task) && x.take(i) {
			return true
		}
	}
	return false
}

// take marks the exception i as matched, and reports whether it is
// unexpired (an expired one is noted).
func (x *exceptions) take(i int) bool {
	x.used[i] = true
	if x.now.After(x.list[i].Until) {
		x.expired[i] = true
		return false
	}
	return true
}

// status is the unexpired exception for a census status of a task, nil
// when none.
func (x *exceptions) status(task, status string) *project.Exception {
	for i, e := range x.list {
		if e.Status != "" && e.Status == status && project.Matches(e.Task, task) && x.take(i) {
			return &x.list[i]
		}
	}
	return nil
}

// notes are what a run says about its exceptions on standard error: the
// expired ones that matched (they count again), and the ones of its kind
// (rule for validate, status for census) that matched nothing, as
// golangci-lint's warn-unused.
func (x *exceptions) notes(kind string) []string {
	var out []string
	for i, e := range x.list {
		what := "rule " + e.Rule
		if e.Status != "" {
			what = "status " + e.Status
		}
		switch {
		case x.expired[i]:
			out = append(out, fmt.Sprintf("%s: the exception for %s (%s, owner %s) expired on %s: what it covered counts again", e.Pos, e.Task, what, e.Owner, e.Expires))
		case !x.used[i] && (kind == "rule" && e.Rule != "" || kind == "status" && e.Status != ""):
			out = append(out, fmt.Sprintf("%s: the exception for %s (%s) matches nothing in this run: remove it, or check the task and the %s", e.Pos, e.Task, what, kind))
		}
	}
	return out
}
