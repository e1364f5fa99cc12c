package shimcheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	schedshim "github.com/estuary/schedtool/boilerplate"
)

// docs/connectors.md is the change a connector engineer applies: its
// pieces must work with the shim as it is. The fallback's go mod edit is
// run on a module shaped like the connectors' (a block of direct and one
// of indirect requirements) and the module built with -mod=readonly. The
// diff's added lines go into a stand-in of RunTransactions (the real one's
// steps from NewTransactor to open.Validate(), and a createSchedule that
// logs as the connectors' does), beside stand-ins of the Flow, Gazette,
// logrus and testify identifiers they and the page's test use (their
// shapes as the connectors' code uses them); the page's test runs there
// with the real shim, passes, and fails with the call site's lines
// deleted, in exactly the cases where the runtime paces. The diff itself
// cannot be applied here (the connectors' file is not in this
// repository); its hunks are checked to add up, which a hand edit of the
// page breaks.
func TestConnectorsPage(t *testing.T) {
	page := string(read(t, "../../docs/connectors.md"))
	if !strings.Contains(page, "\ngo get github.com/estuary/schedtool/boilerplate@latest\n") {
		t.Error("docs/connectors.md: no go get github.com/estuary/schedtool/boilerplate@latest line")
	}
	diff := only(t, fenced(page, "diff"), "diff")
	added := checkHunks(t, diff)
	test := only(t, fenced(page, "go"), "go")

	// The added lines: the import, the function, the lines at the call site.
	var imp, fn, site []string
	in := &site
	for _, line := range added {
		switch {
		case regexp.MustCompile(`^\t\w+ "github.com/estuary/schedtool/boilerplate"$`).MatchString(line):
			imp = append(imp, line)
			continue
		case strings.HasPrefix(line, "// runtimePacesCommits") || strings.HasPrefix(line, "func "):
			in = &fn
		}
		*in = append(*in, line)
		if line == "}" {
			in = &site
		}
	}
	if len(imp) != 1 || !strings.HasPrefix(imp[0], "\tschedshim ") {
		t.Fatalf("docs/connectors.md: the diff imports the shim as %q, want one line, aliased schedshim", imp)
	}
	for _, want := range []string{"runtimePacesCommits(open)", "AckSchedule = nil"} {
		if !strings.Contains(strings.Join(site, "\n"), want) {
			t.Fatalf("docs/connectors.md: the call site has no %s:\n%s", want, strings.Join(site, "\n"))
		}
	}

	dir := t.TempDir()
	for path, src := range stubs {
		write(t, filepath.Join(dir, "stubs", path), src)
	}
	mod := filepath.Join(dir, "connectors")
	write(t, filepath.Join(mod, "go.mod"), `module github.com/estuary/connectors

go 1.25.0

require (
	github.com/estuary/flow v0.0.0
	github.com/sirupsen/logrus v0.0.0
	github.com/stretchr/testify v0.0.0
	go.gazette.dev/core v0.0.0
)

require example.com/indirect v0.0.0 // indirect

replace (
	example.com/indirect => ../stubs/indirect
	github.com/estuary/flow => ../stubs/flow
	github.com/sirupsen/logrus => ../stubs/logrus
	github.com/stretchr/testify => ../stubs/testify
	go.gazette.dev/core => ../stubs/gazette
)
`)
	pkg := filepath.Join(mod, "go", "materialize")
	writeSite := func(site []string) {
		write(t, filepath.Join(pkg, "transactor.go"), strings.NewReplacer(
			"\t// IMPORT\n", imp[0]+"\n", "\t// SITE\n", strings.Join(site, "\n")+"\n", "// FUNC\n", strings.Join(fn, "\n")+"\n").Replace(transactorStandIn))
	}
	writeSite(site)
	write(t, filepath.Join(pkg, "runtime_paces_test.go"), test)
	readonly := []string{"GOPROXY=off", "GOFLAGS=-mod=readonly"}

	// The fallback, as the page gives it: the replace alone is refused.
	edit := fallbackEdit(t, page)
	if out, err := goCmd(t, mod, readonly, "mod", "edit", edit[len(edit)-1]); err != nil {
		t.Fatalf("go mod edit %s: %v\n%s", edit[len(edit)-1], err, out)
	}
	if out, err := goCmd(t, mod, readonly, "build", "./..."); err == nil || !strings.Contains(out, "is replaced but not required") {
		t.Fatalf("a replace alone builds (%v):\n%s", err, out)
	}
	if out, err := goCmd(t, mod, readonly, append([]string{"mod"}, edit...)...); err != nil {
		t.Fatalf("go mod %s: %v\n%s", strings.Join(edit, " "), err, out)
	}
	if gomod := string(read(t, filepath.Join(mod, "go.mod"))); !strings.Contains(gomod, "require (\n\texample.com/indirect v0.0.0 // indirect\n\tgithub.com/estuary/schedtool/boilerplate v0.0.0-00010101000000-000000000000\n)") {
		t.Errorf("go mod edit put the require elsewhere than the page says (the block of indirect ones):\n%s", gomod)
	}
	if out, err := goCmd(t, mod, readonly, "vet", "./..."); err != nil {
		t.Fatalf("go vet of the patched package: %v\n%s", err, out)
	}
	out, err := goCmd(t, mod, readonly, "test", "-count=1", "-v", "./go/materialize")
	if err != nil {
		t.Fatalf("go test of the patched package: %v\n%s", err, out)
	}
	table := schedshim.DecisionTable()
	paced := 0
	for _, c := range table {
		if c.RuntimePaces {
			paced++
		}
	}
	if n := strings.Count(out, "--- PASS: TestRunTransactionsRuntimePaces/"); n != 2*len(table) {
		t.Errorf("the connector's test ran %d cases, want the decision table's %d twice (configured, default):\n%s", n, len(table), out)
	}

	// Without the call site (the function and the import stay, so it
	// compiles), the test fails where the runtime paces, and only there.
	writeSite([]string{"\t_ = runtimePacesCommits"})
	out, err = goCmd(t, mod, readonly, "test", "-count=1", "-v", "./go/materialize")
	if err == nil {
		t.Fatalf("the connector's test passes without the call site:\n%s", out)
	}
	if n := strings.Count(out, "--- FAIL: TestRunTransactionsRuntimePaces/"); n != 2*paced {
		t.Errorf("without the call site, %d cases fail, want the %d where the runtime paces, twice:\n%s", n, paced, out)
	}
}

// fallbackEdit returns the page's go mod edit, without "go mod", PATH/TO/schedtool
// put where this repository is.
func fallbackEdit(t *testing.T, page string) []string {
	t.Helper()
	for _, block := range fenced(page, "sh") {
		line := strings.ReplaceAll(block, "\\\n", " ")
		if !strings.HasPrefix(line, "go mod edit ") {
			continue
		}
		root := filepath.Dir(shimDir(t))
		f := strings.Fields(strings.ReplaceAll(line, "PATH/TO/schedtool", root))
		if len(f) != 5 || !strings.HasPrefix(f[3], "-require=") || f[4] != "-replace=github.com/estuary/schedtool/boilerplate="+shimDir(t) {
			t.Fatalf("docs/connectors.md: the fallback is %q, want go mod edit -require=... -replace=...", line)
		}
		return f[2:]
	}
	t.Fatal("docs/connectors.md: no go mod edit block")
	return nil
}

// transactorStandIn is the connectors' go/materialize/transactor.go cut to
// what the patch and its test touch: RunTransactions from NewTransactor
// to open.Validate(), as the real one runs them, with the places of the
// diff's added lines marked.
const transactorStandIn = `package materialize

import (
	"context"
	"encoding/json"
	"fmt"

	pm "github.com/estuary/flow/go/protocols/materialize"
	// IMPORT
	log "github.com/sirupsen/logrus"
)

type Transactor interface {
	UnmarshalState(json.RawMessage) error
	Destroy()
}

type BindingEvents struct{}

func NewBindingEvents() *BindingEvents { return &BindingEvents{} }

type Stream interface {
	Send(*pm.Response) error
	RecvMsg(*pm.Request) error
}

type newTransactorer interface {
	NewTransactor(context.Context, pm.Request_Open, *BindingEvents) (Transactor, *pm.Response_Opened, *MaterializeOptions, error)
}

type ScheduleConfig struct {
	SyncFrequency       string ` + "`json:\"syncFrequency,omitempty\"`" + `
	Timezone            string ` + "`json:\"timezone,omitempty\"`" + `
	FastSyncStartTime   string ` + "`json:\"fastSyncStartTime,omitempty\"`" + `
	FastSyncStopTime    string ` + "`json:\"fastSyncStopTime,omitempty\"`" + `
	FastSyncEnabledDays string ` + "`json:\"fastSyncEnabledDays,omitempty\"`" + `
}

type AckScheduleOption struct {
	Config ScheduleConfig
	Jitter []byte
}

type MaterializeOptions struct {
	ExtendedLogging bool
	AckSchedule     *AckScheduleOption
}

// createSchedule logs as the connectors' does (schedule_config.go), for a
// fixed schedule; "0s" is no delay.
func createSchedule(cfg ScheduleConfig, jitter []byte) (any, error) {
	freq := cfg.SyncFrequency
	if freq == "" {
		freq = "30m"
	}
	if freq == "0s" {
		return nil, nil
	}
	log.WithFields(log.Fields{"syncFrequency": freq}).Info("created fixed schedule for acknowledgements")
	return freq, nil
}

type transactionsStream struct {
	Stream
	ackSchedule any
}

func newTransactionsStream(ctx context.Context, stream Stream, lvl log.Level, options MaterializeOptions, be *BindingEvents) (*transactionsStream, error) {
	s := &transactionsStream{Stream: stream}
	if options.AckSchedule != nil {
		sched, err := createSchedule(options.AckSchedule.Config, options.AckSchedule.Jitter)
		if err != nil {
			return nil, fmt.Errorf("creating ack schedule: %w", err)
		}
		s.ackSchedule = sched
	}
	return s, nil
}

// FUNC

func RunTransactions(
	ctx context.Context,
	connector newTransactorer,
	stream Stream,
	open *pm.Request_Open,
	lvl log.Level,
) (_err error) {
	be := NewBindingEvents()
	var transactor, opened, options, err = connector.NewTransactor(ctx, *open, be)
	if err != nil {
		return err
	}
	defer transactor.Destroy()

	if options == nil {
		options = &MaterializeOptions{}
	}
	// SITE

	// Wrap ` + "`stream`" + ` with additional logging and auxiliary capabilities.
	stream, err = newTransactionsStream(ctx, stream, lvl, *options, be)
	if err != nil {
		return fmt.Errorf("creating transactions stream: %w", err)
	}

	if err := open.Validate(); err != nil {
		return fmt.Errorf("open is invalid: %w", err)
	} else if err := opened.Validate(); err != nil {
		return fmt.Errorf("opened is invalid: %w", err)
	}
	// The transactions loop is not stood in for.
	return nil
}
`

// fenced returns the bodies of the page's code blocks of one language.
func fenced(page, lang string) []string {
	var out []string
	for _, m := range regexp.MustCompile("(?ms)^```"+lang+"\n(.*?)^```$").FindAllStringSubmatch(page, -1) {
		out = append(out, m[1])
	}
	return out
}

func only(t *testing.T, blocks []string, lang string) string {
	t.Helper()
	if len(blocks) != 1 {
		t.Fatalf("docs/connectors.md has %d %s blocks, want 1", len(blocks), lang)
	}
	return blocks[0]
}

// checkHunks checks that each hunk holds the lines its header counts, and
// returns the added lines.
func checkHunks(t *testing.T, diff string) (added []string) {
	t.Helper()
	header := regexp.MustCompile(`^@@ -(\d+),(\d+) \+(\d+),(\d+) @@`)
	lines := strings.Split(strings.TrimSuffix(diff, "\n"), "\n")
	hunks := 0
	for i := 0; i < len(lines); i++ {
		m := header.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		hunks++
		oldN, _ := strconv.Atoi(m[2])
		newN, _ := strconv.Atoi(m[4])
		j := i + 1
		for ; j < len(lines) && (oldN > 0 || newN > 0); j++ {
			line := lines[j]
			switch {
			case strings.HasPrefix(line, "+"):
				newN--
				added = append(added, line[1:])
			case strings.HasPrefix(line, "-"):
				oldN--
			case strings.HasPrefix(line, " ") || line == "":
				oldN--
				newN--
			default:
				t.Fatalf("docs/connectors.md: the diff's line %q is no hunk line", line)
			}
		}
		if oldN != 0 || newN != 0 {
			t.Errorf("docs/connectors.md: the hunk %q does not add up (%d old, %d new lines missing)", lines[i], oldN, newN)
		}
		i = j - 1
	}
	if hunks == 0 || !strings.HasPrefix(diff, "diff --git a/go/materialize/transactor.go b/go/materialize/transactor.go\n") {
		t.Fatalf("docs/connectors.md: the diff is not one of go/materialize/transactor.go")
	}
	return added
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// stubs stand in for the identifiers the patch and its test use, with the
// shapes the connectors' code gives them (materialize-boilerplate's
// runtime.go reads spec.ShardTemplate.LabelSet.ValueOf; its test builds
// &pc.ShardSpec{LabelSet: pb.MustLabelSet(...)}; logrus's hooks/test
// records entries with their Message and Data).
var stubs = map[string]string{
	"indirect/go.mod": "module example.com/indirect\n\ngo 1.25.0\n",
	"flow/go.mod":     "module github.com/estuary/flow\n\ngo 1.25.0\n\nrequire go.gazette.dev/core v0.0.0\n\nreplace go.gazette.dev/core => ../gazette\n",
	"flow/go/protocols/flow/flow.go": `package flow

import (
	"encoding/json"

	pc "go.gazette.dev/core/consumer/protocol"
)

type MaterializationSpec struct {
	SyncScheduleJson json.RawMessage
	ShardTemplate    *pc.ShardSpec
}
`,
	"flow/go/protocols/materialize/materialize.go": `package materialize

import (
	"errors"

	pf "github.com/estuary/flow/go/protocols/flow"
)

type Request_Open struct {
	Materialization *pf.MaterializationSpec
}

// Validate: the stand-in's Opens, like the test's, are never valid (they
// have no range, no version, no bindings).
func (m *Request_Open) Validate() error {
	if m.Materialization == nil {
		return errors.New("missing Materialization")
	}
	return errors.New("missing Range")
}

type Request struct{ Open *Request_Open }

type Response struct{}

type Response_Opened struct{}

func (m *Response_Opened) Validate() error { return nil }
`,
	"gazette/go.mod": "module go.gazette.dev/core\n\ngo 1.25.0\n",
	"gazette/broker/protocol/label.go": `package protocol

type Label struct{ Name, Value string }

type LabelSet struct{ Labels []Label }

func (m LabelSet) ValueOf(name string) string {
	for _, l := range m.Labels {
		if l.Name == name {
			return l.Value
		}
	}
	return ""
}

func MustLabelSet(nv ...string) LabelSet {
	var s LabelSet
	for i := 0; i+1 < len(nv); i += 2 {
		s.Labels = append(s.Labels, Label{nv[i], nv[i+1]})
	}
	return s
}
`,
	"gazette/consumer/protocol/shard.go": `package protocol

import pb "go.gazette.dev/core/broker/protocol"

type ShardSpec struct{ LabelSet pb.LabelSet }
`,
	"logrus/go.mod": "module github.com/sirupsen/logrus\n\ngo 1.25.0\n",
	"logrus/logrus.go": `package logrus

import "fmt"

type Level uint32

const (
	PanicLevel Level = iota
	FatalLevel
	ErrorLevel
	WarnLevel
	InfoLevel
	DebugLevel
)

type Fields map[string]interface{}

type Entry struct {
	Data    Fields
	Message string
}

type Hook interface{ Fire(*Entry) error }

var hooks []Hook

func AddHook(h Hook) { hooks = append(hooks, h) }

func WithField(key string, value interface{}) *Entry { return WithFields(Fields{key: value}) }

func WithFields(f Fields) *Entry {
	d := Fields{}
	for k, v := range f {
		d[k] = v
	}
	return &Entry{Data: d}
}

func (e *Entry) Info(args ...interface{}) {
	for _, h := range hooks {
		h.Fire(&Entry{Data: e.Data, Message: fmt.Sprint(args...)})
	}
}

func Info(args ...interface{}) { WithFields(nil).Info(args...) }
`,
	"logrus/hooks/test/test.go": `package test

import "github.com/sirupsen/logrus"

type Hook struct{ entries []*logrus.Entry }

func NewGlobal() *Hook {
	h := &Hook{}
	logrus.AddHook(h)
	return h
}

func (h *Hook) Fire(e *logrus.Entry) error {
	h.entries = append(h.entries, e)
	return nil
}

func (h *Hook) AllEntries() []*logrus.Entry { return append([]*logrus.Entry(nil), h.entries...) }

func (h *Hook) Reset() { h.entries = nil }
`,
	"testify/go.mod": "module github.com/stretchr/testify\n\ngo 1.25.0\n",
	"testify/require/require.go": `package require

import (
	"reflect"
	"testing"
)

func Equal(t testing.TB, expected, actual interface{}, msgAndArgs ...interface{}) {
	t.Helper()
	if !reflect.DeepEqual(expected, actual) {
		t.Fatalf("not equal: expected %v, actual %v %v", expected, actual, msgAndArgs)
	}
}

func Empty(t testing.TB, object interface{}, msgAndArgs ...interface{}) {
	t.Helper()
	if v := reflect.ValueOf(object); v.IsValid() && v.Len() != 0 {
		t.Fatalf("should be empty: %v %v", object, msgAndArgs)
	}
}

func NotNil(t testing.TB, object interface{}, msgAndArgs ...interface{}) {
	t.Helper()
	if v := reflect.ValueOf(object); !v.IsValid() || v.IsNil() {
		t.Fatalf("should not be nil %v", msgAndArgs)
	}
}
`,
}
