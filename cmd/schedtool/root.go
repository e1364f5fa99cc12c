package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/catalog/livespecs"
	"github.com/estuary/schedtool/catalog/pgsource"
	"github.com/estuary/schedtool/catalog/selection"
	"github.com/estuary/schedtool/internal/groupwrite"
	ipaths "github.com/estuary/schedtool/internal/paths"
	"github.com/estuary/schedtool/internal/safefile"
	"github.com/estuary/schedtool/internal/suggest"
	"github.com/estuary/schedtool/internal/usage"
	"github.com/estuary/schedtool/project"
	"github.com/estuary/schedtool/report"
	"github.com/estuary/schedtool/schedule/connector"
	"github.com/estuary/schedtool/schedule/tzdata"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// Streams are a command's standard input, output and error.
type Streams struct {
	In       io.Reader
	Out, Err io.Writer
	// OutTerminal and ErrTerminal say whether Out and Err are terminals
	// (Main finds out, before it wraps them).
	OutTerminal, ErrTerminal bool
}

// common holds the flags every command reads.
type common struct {
	Streams
	connectors  string
	maxFileSize int64
	maxRowSize  int64
	quiet       bool
	dbTimeout   time.Duration
	dbRows      atomic.Int64 // rows a database has sent, for the progress line
	stopDB      func()
	color       string
	root        string
	selector    selection.Selector
	selection   *selection.Selection
	cpuprofile  string
	stopProfile func()
	// config is --config; project the project file read (nil: none).
	config  string
	project *project.Config
	// replayRun, when set, is what migrate runs instead of itself once
	// its options are complete: a saved plan's apply or show, replaying
	// migrate's planning (apply.go).
	replayRun func(*migrateOptions) error
	// guard refuses report files (-o FORMAT=FILE, --plan FILE) that are
	// symlinks or inputs; nil when the command writes none.
	guard *outputGuard
}

func (c *common) stop() {
	if c.stopDB != nil {
		c.stopDB()
		c.stopDB = nil
	}
	if c.stopProfile != nil {
		c.stopProfile()
		c.stopProfile = nil
	}
}

// registry returns the builtin registry, extended by --connectors.
func (c *common) registry() (*connector.Registry, error) {
	reg := connector.Builtin()
	if c.connectors == "" {
		return reg, nil
	}
	// Only a regular file, and no larger than --max-file-size, checked
	// before it is read: --connectors /dev/zero or a FIFO is refused.
	b, err := ipaths.ReadRegular(c.connectors, c.maxFileSize, "--max-file-size")
	if err != nil {
		return nil, &usageError{fmt.Sprintf("--connectors %s: %s", c.connectors, catalog.Describe(err))}
	}
	ext, err := connector.ParseRegistry(b)
	if err != nil {
		return nil, &usageError{fmt.Sprintf("--connectors %s: %v", c.connectors, err)}
	}
	if reg, err = reg.Extend(ext); err != nil {
		return nil, &usageError{fmt.Sprintf("--connectors %s: %v", c.connectors, err)}
	}
	return reg, nil
}

// crashFinder reads an --at value: connector crashes are looked for in the
// 366 days from that instant (RFC 3339), or from now when it is empty.
func crashFinder(at string) (*connector.CrashFinder, error) {
	when, err := parseAt(at)
	if err != nil {
		return nil, err
	}
	return connector.NewCrashFinder(when), nil
}

// atUsage documents --at on the commands that look for connector crashes.
const atUsage = "look for connector crashes in the 366 days from this instant (RFC 3339; default now)"

// streamMemoryLimit is the Go runtime's soft memory limit for a run that
// reads only stored-spec streams (dumps, flowctl raw arrays, databases),
// unless the user sets GOMEMLIMIT: their live heap is bounded by design,
// but GOGC=400 lets the heap grow to five times what is live, so a
// stream whose live part grows a little with its rows (a million rows)
// would take hundreds of MiB; with it, 64 MiB of resident memory
// whatever the length (bench/migrate-rss.sh). A catalog tree's live heap
// is the catalog itself: a limit below it would make the collector run
// without end (3x the CPU on an 80,000-task file), so it gets none.
const streamMemoryLimit = 48 << 20

// resolveInputs turns the PATHs into inputs, and sets the memory limit of a
// run over streams only.
func (c *common) resolveInputs(paths []string) ([]catalog.Input, error) {
	if len(paths) == 0 {
		paths = c.projectPaths() // the project file's default PATHs
	}
	inputs, err := input.Resolve(paths, c.loadOptions())
	if err != nil {
		return nil, err
	}
	if err := c.guard.inputs(inputs); err != nil {
		return nil, err
	}
	said := map[string]bool{}
	for _, in := range inputs {
		// The root is not the PATH's own work tree: say which it is.
		if in.Inner != "" && !said[in.Root] && !c.quiet {
			said[in.Root] = true
			fmt.Fprintf(c.Err, "schedtool: %s is in the git work tree %s, inside another: the root is %s, the outermost work tree, whose tasks may use the inner one's files (--root DIR sets another)\n", report.Escape(in.Arg), report.Escape(in.Inner), report.Escape(in.Root))
		}
	}
	streams := len(inputs) > 0
	for _, in := range inputs {
		if len(in.Sources) > 0 {
			streams = false
		}
	}
	if streams && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(streamMemoryLimit)
	}
	return inputs, nil
}

func (c *common) loadOptions() catalog.Options {
	o := catalog.DefaultOptions()
	o.MaxFileSize = c.maxFileSize
	o.MaxRowSize = int(c.maxRowSize)
	o.Stdin = c.In
	o.Root = c.root
	o.Select = c.selection
	o.DBTimeout = c.dbTimeout
	o.DBRows = &c.dbRows
	o.OpenDB = pgsource.Open // postgres:// PATHs
	if c.project != nil {
		o.Exclude = c.project.Excluder()
	}
	if c.guard != nil && len(c.guard.files) > 0 {
		o.Reading = c.guard.reading
	}
	return o
}

// selected is the selector's verdict after a run: a value that picked
// no task is an error (exit 1), never a clean run.
func (c *common) selected() error {
	return c.selection.Err()
}

// Main runs schedtool with arguments and streams, and returns the exit code.
func Main(args []string, s Streams) int {
	s.OutTerminal, s.ErrTerminal = isTerminal(s.Out), isTerminal(s.Err)
	out := &report.CountingWriter{W: s.Out}
	s.Out = out
	// A database can fail part way through its rows (a lost connection,
	// a statement timeout), after a command has streamed part of its
	// output: standard output is held back until the rows are all read.
	var held *spool
	if readsDatabase(args) {
		held = &spool{}
		defer held.close()
		s.Out = held
	}
	root := newRoot(s)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	stopProfiles()
	if held != nil {
		var ue *usage.Error
		if errors.As(err, &ue) && ue.Incomplete {
			held.discard()
		} else if ferr := held.copyTo(out); ferr != nil && err == nil {
			err = fmt.Errorf("writing standard output: %w", ferr)
		}
	}
	code := exitCode(err, s.Err)
	if code != ExitOK && code != ExitReport && out.N == 0 {
		failureDocument(cmd, out, s.Err, errorText(err))
	}
	return code
}

// failureDocument gives a run that failed before writing anything to
// standard output the document of its machine format (-o json or sarif),
// so that a script reading it has one to parse; the message is on
// standard error as always, and the exit code is exitCode's.
func failureDocument(cmd *cobra.Command, out, stderr io.Writer, msg string) {
	if cmd == nil {
		return
	}
	f := cmd.Flags().Lookup("output")
	if f == nil {
		return
	}
	if ov, ok := f.Value.(*outputsValue); ok {
		ov.failure(stderr, msg) // the outputs to files get theirs
	}
	if _, err := report.Failure(out, f.Value.String(), toolVersion(), msg); err != nil {
		fmt.Fprintln(stderr, "schedtool: writing the failure document: "+err.Error())
	}
}

// stopProfiles ends a --cpuprofile also when the command failed (cobra
// skips PersistentPostRun then).
var stopProfiles = func() {}

func newRoot(s Streams) *cobra.Command { return newRootOf(&common{Streams: s}) }

// newRootOf is the root command over c.
func newRootOf(c *common) *cobra.Command {
	s := c.Streams
	stopProfiles = c.stop
	root := &cobra.Command{
		Use:   "schedtool",
		Short: "Validate, migrate and count the sync schedules of Estuary Flow materializations",
		Long: `schedtool works on Flow catalogs (YAML or JSON sources with their imports and
config files, sealed configs too) and on stored-spec dumps of live_specs
(newline-delimited JSON). A PATH is a catalog source, a directory (every
catalog source under it: flow.yaml, *.flow.yaml, and any file holding one),
a .ndjson or .jsonl dump, a PostgreSQL
URL (postgres://... or postgresql://...: the control plane's live_specs,
password from the URL, PGPASSWORD or ~/.pgpass), the JSON array that
flowctl raw get --table live_specs prints (told by its content), or - for
standard input.

Exit codes: 0 nothing to report; 1 schedtool could not do its job (a bad
flag, an unreadable PATH, nothing found); 2 findings at or above --fail-on,
changes pending in a dry run, or remaining users under --fail-if-remaining.`,
		Example: `  schedtool validate fixtures/catalog fixtures/live_specs.ndjson
  schedtool census postgres://ops@db.internal/postgres
  schedtool schema model`,
		Version:       versionString() + ", tz data " + tzdata.Version + " (embedded), connector timezones from " + tzdata.ImageRelease,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.Err)
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return &usageError{fmt.Sprintf("%v%s (see '%s --help')", err, closestFlag(cmd, err), cmd.CommandPath())}
	})
	pf := root.PersistentFlags()
	pf.StringVar(&c.connectors, "connectors", "", "a registry file (JSON) that extends or overrides the builtin table of scheduling images")
	c.maxFileSize, c.maxRowSize = 64<<20, 64<<20
	pf.Var(&sizeValue{&c.maxFileSize, math.MaxInt64}, "max-file-size", "refuse a source or config file larger than this (bytes, or with a unit: 64MiB, 512KiB)")
	pf.Var(&sizeValue{&c.maxRowSize, math.MaxInt32}, "max-row-size", "refuse a stored-spec row longer than this (bytes, or with a unit: 64MiB, 512KiB)")
	pf.StringVar(&c.root, "root", "", "the containment root: imports and config files must stay inside it (default: the outermost git work tree enclosing the PATH, else the PATH's directory)")
	pf.StringArrayVar(&c.selector.Names, "name", nil, "only the task with this catalog name (repeatable)")
	pf.StringArrayVar(&c.selector.Prefixes, "prefix", nil, "only the tasks whose catalog name starts with this prefix (repeatable)")
	pf.StringArrayVar(&c.selector.Images, "image", nil, "only the tasks on this connector image, named without tag (repeatable)")
	c.dbTimeout = time.Minute
	pf.Var(&durationValue{&c.dbTimeout}, "db-timeout", "fail a database read when the server has sent no row for this long (60s, 2m; 0 waits for ever)")
	pf.BoolVarP(&c.quiet, "quiet", "q", false, "no progress or notes on standard error")
	pf.StringVar(&c.color, "color", "auto", "colour severities and diff lines: auto (on a terminal, unless NO_COLOR is set), always or never")
	// --version has no -v: operators read -v as verbose.
	root.Flags().Bool("version", false, "print the version and exit")
	pf.StringVar(&c.config, "config", "", "the project file (default: .schedtool.yaml, .yml or .json in the PATH's directory or one above it, up to the git work tree's top)")
	pf.StringVar(&c.cpuprofile, "cpuprofile", "", "write a CPU profile to this file (for developers)")
	_ = pf.MarkHidden("cpuprofile")
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		if err := c.selector.Check(); err != nil {
			return err
		}
		if _, err := useColor(c.color, false); err != nil {
			return err
		}
		// Before anything is read: the project file is an input too.
		if err := c.guardOutputs(cmd, args); err != nil {
			return err
		}
		if err := c.loadProject(cmd, args); err != nil {
			return err
		}
		if c.project != nil {
			if err := c.guard.input(c.project.File); err != nil {
				return err
			}
		}
		c.selection = selection.New(c.selector)
		if readsDatabase(args) {
			c.stopDB = c.rowProgress(cmd.Name()+": %d rows from the database", &c.dbRows)
		}
		if c.cpuprofile == "" {
			return nil
		}
		f, err := groupwrite.CreateStream(c.cpuprofile, 0o644, groupwrite.Hooks{})
		if err != nil {
			return &usageError{"--cpuprofile: " + err.Error()}
		}
		c.stopProfile = func() { pprof.StopCPUProfile(); f.Commit() }
		return pprof.StartCPUProfile(f)
	}
	root.PersistentPostRun = func(cmd *cobra.Command, args []string) { c.stop() }
	root.AddCommand(newValidate(c), newMigrate(c), newApply(c), newShow(c), newCensus(c), newExplain(c), newSchema(c))
	completeCommon(root, c)
	return root
}

// noArgsOK makes cobra's argument errors usage errors.
func wrapArgs(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := v(cmd, args); err != nil {
			return &usageError{fmt.Sprintf("%v (see '%s --help')", err, cmd.CommandPath())}
		}
		return nil
	}
}

// options is a command in kubectl's shape: fill in, check, run.
type options interface {
	Complete(args []string) error
	Validate() error
	Run() error
}

// runOptions is the RunE of a command with options.
func runOptions(o options) func(*cobra.Command, []string) error {
	return func(_ *cobra.Command, args []string) error {
		if err := o.Complete(args); err != nil {
			return err
		}
		if err := o.Validate(); err != nil {
			return err
		}
		return o.Run()
	}
}

// readsDatabase reports whether an argument is a database PATH.
func readsDatabase(args []string) bool {
	for _, a := range args {
		if livespecs.IsDBURL(a) {
			return true
		}
	}
	return false
}

// spool holds standard output back: in memory up to spoolMemory, then in
// an unlinked temp file, written through a buffer (commands write a line
// at a time; a system call each cost census over a database a third of
// its time), so that it costs no memory to speak of.
type spool struct {
	mem  bytes.Buffer
	file *os.File
	buf  *bufio.Writer // in front of file
	err  error
}

const spoolMemory = 1 << 20

func (s *spool) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if s.file == nil && s.mem.Len()+len(p) <= spoolMemory {
		return s.mem.Write(p)
	}
	if s.file == nil {
		f, err := safefile.CreateTemp("", "schedtool-stdout-*", 0o600)
		if err != nil {
			s.err = fmt.Errorf("holding standard output back: %w", err)
			return 0, s.err
		}
		os.Remove(f.Name()) // unlinked: gone with the process, however it ends
		s.file = f
		s.buf = bufio.NewWriterSize(f, 256<<10)
		if _, err := s.buf.Write(s.mem.Bytes()); err != nil {
			s.err = fmt.Errorf("holding standard output back: %w", err)
			return 0, s.err
		}
		s.mem = bytes.Buffer{}
	}
	n, err := s.buf.Write(p)
	if err != nil {
		s.err = fmt.Errorf("holding standard output back: %w", err)
	}
	return n, s.err
}

// copyTo writes what was held to w.
func (s *spool) copyTo(w io.Writer) error {
	if s.err != nil {
		return s.err
	}
	if s.file == nil {
		_, err := w.Write(s.mem.Bytes())
		return err
	}
	if err := s.buf.Flush(); err != nil {
		return err
	}
	if _, err := s.file.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, err := io.Copy(w, s.file)
	return err
}

// discard drops what was held.
func (s *spool) discard() {
	s.close()
	s.mem = bytes.Buffer{}
}

func (s *spool) close() {
	if s.file != nil {
		s.file.Close()
		s.file = nil
	}
}

// closestFlag is, for an unknown flag, the flags nearest its spelling
// ("; did you mean --enable-runtime-v2?"), "" for another error.
func closestFlag(cmd *cobra.Command, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return ""
	}
	var names []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	cmd.InheritedFlags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	near := suggest.Closest(name, names, 3)
	if len(near) == 0 {
		return ""
	}
	return "; did you mean --" + strings.Join(near, " or --") + "?"
}
