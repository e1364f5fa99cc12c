package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sync"

	"github.com/spf13/cobra"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/livespecs"
	"github.com/estuary/schedtool/internal/paths"
)

// reportFile is a file a run writes a report to, named as the command
// line names it: validate's -o FORMAT=FILE, migrate's --plan FILE. Each
// is written to a temp file beside it and renamed into place after the
// run (docs/behaviour.md §7, "Report outputs never clobber either").
type reportFile struct {
	flag string // "-o sarif=out.sarif", "--plan wave.plan"
	file string
	id   paths.FileID
}

// outputGuard refuses a report file that is a symlink (a symlink
// committed in a pull request must not make a CI step write outside the
// checkout), not a regular file, or an input of the run, judged by
// identity (a hard link or another spelling is no way round): a PATH,
// standard input, --connectors or the project file, before anything is
// read; a source found under a directory PATH, once the PATHs are
// resolved; an import or config file, as the loader reads it (said when
// the run ends, before any report file is renamed into place).
type outputGuard struct {
	files []reportFile // those that exist, the ones an input can be

	mu      sync.Mutex
	refused error // the first refusal: no report file is then written
}

// reportFiles are the report files a command's flags name.
func reportFiles(cmd *cobra.Command) []reportFile {
	var out []reportFile
	if f := cmd.Flags().Lookup("output"); f != nil {
		if ov, ok := f.Value.(*outputsValue); ok {
			for _, s := range ov.specs {
				if s.file != "" {
					out = append(out, reportFile{flag: "-o " + s.format + "=" + s.file, file: s.file})
				}
			}
		}
	}
	if f := cmd.Flags().Lookup("plan"); f != nil && f.Value.String() != "" {
		out = append(out, reportFile{flag: "--plan " + f.Value.String(), file: f.Value.String()})
	}
	return out
}

// guardOutputs checks the report files of cmd before anything is read:
// none may be a symlink or a special file, or one of the files the
// command line names (PATHs, standard input, --connectors, --config).
// The guard is kept (c.guard) for the checks that follow.
func (c *common) guardOutputs(cmd *cobra.Command, args []string) error {
	files := reportFiles(cmd)
	if len(files) == 0 {
		return nil
	}
	g := &outputGuard{}
	c.guard = g
	if f := cmd.Flags().Lookup("output"); f != nil {
		if ov, ok := f.Value.(*outputsValue); ok {
			ov.guard = g
		}
	}
	for _, rf := range files {
		st, err := os.Lstat(rf.file)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue // a new file: no input can be it
		case err != nil:
			return g.refuse(&usageError{fmt.Sprintf("%s: %v", rf.flag, err)})
		case st.Mode()&fs.ModeSymlink != 0:
			return g.refuse(&usageError{fmt.Sprintf("%s is a symlink; schedtool does not write through one (it would write wherever the link points): name a file that is not a link", rf.flag)})
		case !st.Mode().IsRegular():
			return g.refuse(&usageError{fmt.Sprintf("%s is not a regular file; name the file to write", rf.flag)})
		}
		rf.id, _ = paths.IdentifyInfo(st)
		g.files = append(g.files, rf)
	}
	named := append([]string{c.connectors, c.config}, args...)
	for _, p := range named {
		if err := g.input(p); err != nil {
			return err
		}
	}
	if in, ok := c.In.(*os.File); ok && slices.Contains(args, "-") {
		if st, err := in.Stat(); err == nil {
			if id, ok := paths.IdentifyInfo(st); ok {
				if rf := g.match(id); rf != nil {
					return g.refuse(&usageError{fmt.Sprintf("%s is the input - (standard input reads it): writing it would replace the input; name another file", rf.flag)})
				}
			}
		}
	}
	return nil
}

// refuse records the first refusal and returns err.
func (g *outputGuard) refuse(err error) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.refused == nil {
		g.refused = err
	}
	return err
}

// match is the report file whose identity is id, or nil.
func (g *outputGuard) match(id paths.FileID) *reportFile {
	for i := range g.files {
		if g.files[i].id == id {
			return &g.files[i]
		}
	}
	return nil
}

// input refuses a report file that is the file p (by identity); "", a
// directory or a name that is no file is none.
func (g *outputGuard) input(p string) error {
	if g == nil || len(g.files) == 0 || p == "" || p == "-" || livespecs.IsDBURL(p) {
		return nil
	}
	id, ok := paths.Identify(p)
	if !ok {
		return nil
	}
	if rf := g.match(id); rf != nil {
		return g.refuse(&usageError{fmt.Sprintf("%s is the input %s: writing it would replace the input; name another file", rf.flag, p)})
	}
	return nil
}

// inputs refuses a report file that is one of the resolved inputs' files:
// a dump, or a source found under a directory PATH.
func (g *outputGuard) inputs(ins []catalog.Input) error {
	if g == nil {
		return nil
	}
	for _, in := range ins {
		if in.DB == "" {
			if err := g.input(in.Dump); err != nil {
				return err
			}
		}
		for _, s := range in.Sources {
			if err := g.input(s); err != nil {
				return err
			}
		}
	}
	return nil
}

// reading is the loader's hook (catalog.Options.Reading): an import or a
// config file that is a report file refuses it when the run ends.
func (g *outputGuard) reading(p string) { g.input(p) }

// err is the refusal of a report file, if any: checked when the run
// ends, before a report file is renamed into place.
func (g *outputGuard) err() error {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.refused
}
