// Shell completion: flag values, and task names read from the PATHs
// already on the command line (names only).

package main

import (
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/catalog/livespecs"
)

// completeValues offers a flag's fixed values.
func completeValues(cmd *cobra.Command, flag string, values ...string) {
	_ = cmd.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
}

// completeCommon registers the completions of the flags every command
// has: --color, and --name from the PATHs given.
func completeCommon(root *cobra.Command, c *common) {
	completeValues(root, "color", colorModes...)
	_ = root.RegisterFlagCompletionFunc("name", func(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
		if cmd.Name() == "explain" && len(args) > 0 {
			args = args[1:]
		}
		if len(args) == 0 {
			args = []string{"."} // the PATHs come after the cursor
		}
		return c.taskNames(args, prefix), cobra.ShellCompDirectiveNoFileComp
	})
}

// completeExplain offers task names for explain's NAME. Its PATHs come
// after it, and the shell gives only what is before the cursor: NAME's
// names are those of the catalog under the current directory. The PATHs
// complete as files.
func completeExplain(cmd *cobra.Command, c *common) {
	cmd.ValidArgsFunction = func(_ *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveDefault
		}
		return c.taskNames([]string{"."}, prefix), cobra.ShellCompDirectiveNoFileComp
	}
}

// taskNames lists the names of the tasks under paths starting with
// prefix, sorted; an unreadable PATH offers nothing (completion must
// not fail loudly). Completion never reads standard input: it is the
// terminal, and reading it would block the shell. A "-" PATH offers
// nothing.
func (c *common) taskNames(paths []string, prefix string) []string {
	paths = slices.DeleteFunc(slices.Clone(paths), func(p string) bool { return p == "-" })
	if len(paths) == 0 {
		return nil
	}
	opts := c.loadOptions()
	opts.Select = nil
	opts.Stdin = nil
	inputs, err := input.Resolve(paths, opts)
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	add := func(name string) {
		if strings.HasPrefix(name, prefix) {
			seen[name] = true
		}
	}
	for _, m := range catalog.Load(inputs, opts).Materializations {
		add(m.Name)
	}
	_ = livespecs.EachDump(inputs, func(r io.Reader, name string) error {
		return livespecs.ScanDump(r, name, livespecs.DumpOptions{Options: opts, Lean: true}, func(rr *livespecs.RowResult) string {
			if rr.Mat == nil {
				return ""
			}
			return rr.Mat.Name
		}, func(n string) {
			if n != "" {
				add(n)
			}
		})
	})
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
