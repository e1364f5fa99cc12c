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
// pieces must work with the shim as it is. The diff's added lines and the
// connector's test are compiled and run, with the real shim, against
// stand-ins of the Flow, Gazette, logrus and testify identifiers they use
// (their shapes as the connectors' code uses them: open.Materialization,
// SyncScheduleJson, ShardTemplate.LabelSet.ValueOf, pb.MustLabelSet). The
// diff itself cannot be applied here (the connectors' file is not in this
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
	if !strings.Contains(strings.Join(site, "\n"), "options.AckSchedule = nil") {
		t.Fatalf("docs/connectors.md: the diff does not set options.AckSchedule = nil:\n%s", strings.Join(site, "\n"))
	}

	dir := t.TempDir()
	for path, src := range stubs {
		write(t, filepath.Join(dir, "stubs", path), src)
	}
	write(t, filepath.Join(dir, "connectors", "go.mod"), `module github.com/estuary/connectors

go 1.25.0

require (
	github.com/estuary/flow v0.0.0
	github.com/estuary/schedtool/boilerplate v0.0.0
	github.com/sirupsen/logrus v0.0.0
	github.com/stretchr/testify v0.0.0
	go.gazette.dev/core v0.0.0
)

replace (
	github.com/estuary/flow => ../stubs/flow
	github.com/estuary/schedtool/boilerplate => `+shimDir(t)+`
	github.com/sirupsen/logrus => ../stubs/logrus
	github.com/stretchr/testify => ../stubs/testify
	go.gazette.dev/core => ../stubs/gazette
)
`)
	pkg := filepath.Join(dir, "connectors", "go", "materialize")
	write(t, filepath.Join(pkg, "transactor.go"), `package materialize

import (
	pm "github.com/estuary/flow/go/protocols/materialize"
`+imp[0]+`
	log "github.com/sirupsen/logrus"
)

type AckScheduleOption struct{ Config string }

type MaterializeOptions struct{ AckSchedule *AckScheduleOption }

// afterNewTransactor is RunTransactions from where NewTransactor has
// returned its options.
func afterNewTransactor(open *pm.Request_Open, options *MaterializeOptions) *MaterializeOptions {
	if options == nil {
		options = &MaterializeOptions{}
	}
`+strings.Join(site, "\n")+`
	return options
}

`+strings.Join(fn, "\n")+"\n")
	write(t, filepath.Join(pkg, "runtime_paces_test.go"), test)
	// And the call site itself: the delay goes exactly when the runtime
	// paces, with the reason logged.
	write(t, filepath.Join(pkg, "call_site_test.go"), `package materialize

import (
	"testing"

	pf "github.com/estuary/flow/go/protocols/flow"
	pm "github.com/estuary/flow/go/protocols/materialize"
	schedshim "github.com/estuary/schedtool/boilerplate"
	"github.com/sirupsen/logrus"
	pb "go.gazette.dev/core/broker/protocol"
	pc "go.gazette.dev/core/consumer/protocol"
)

func TestCallSite(t *testing.T) {
	for _, label := range []string{"true", "TRUE"} {
		logrus.Logged = nil
		open := &pm.Request_Open{Materialization: &pf.MaterializationSpec{
			SyncScheduleJson: []byte(`+"`"+`{"baseInterval":"4h"}`+"`"+`),
			ShardTemplate:    &pc.ShardSpec{LabelSet: pb.MustLabelSet(schedshim.RuntimeV2Label, label)},
		}}
		got := afterNewTransactor(open, &MaterializeOptions{AckSchedule: &AckScheduleOption{Config: "30m"}})
		if paced := label == "true"; (got.AckSchedule == nil) != paced {
			t.Errorf("label %q: AckSchedule = %+v", label, got.AckSchedule)
		} else if paced && (len(logrus.Logged) != 1 || logrus.Logged[0] != schedshim.RuntimePacesReason) {
			t.Errorf("label %q: logged %q", label, logrus.Logged)
		}
	}
	if got := afterNewTransactor(&pm.Request_Open{}, nil); got == nil || got.AckSchedule != nil {
		t.Errorf("no spec, no options: %+v", got)
	}
}
`)
	out, err := goCmd(t, filepath.Join(dir, "connectors"), []string{"GOPROXY=off"}, "vet", "./...")
	if err != nil {
		t.Fatalf("go vet of the patched package: %v\n%s", err, out)
	}
	out, err = goCmd(t, filepath.Join(dir, "connectors"), []string{"GOPROXY=off"}, "test", "-count=1", "-v", "./go/materialize")
	if err != nil {
		t.Fatalf("go test of the patched package: %v\n%s", err, out)
	}
	if n, want := strings.Count(out, "--- PASS: TestRuntimePacesCommits/"), len(schedshim.DecisionTable()); n != want {
		t.Errorf("the connector's test ran %d cases of the decision table, want %d:\n%s", n, want, out)
	}
}

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
// &pc.ShardSpec{LabelSet: pb.MustLabelSet(...)}).
var stubs = map[string]string{
	"flow/go.mod": "module github.com/estuary/flow\n\ngo 1.25.0\n\nrequire go.gazette.dev/core v0.0.0\n\nreplace go.gazette.dev/core => ../gazette\n",
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

import pf "github.com/estuary/flow/go/protocols/flow"

type Request_Open struct {
	Materialization *pf.MaterializationSpec
}
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

// Logged is what Info logged, for the test.
var Logged []string

type Entry struct{}

func WithField(key string, value interface{}) *Entry { return &Entry{} }

func (*Entry) Info(args ...interface{}) { Logged = append(Logged, fmt.Sprint(args...)) }

func Info(args ...interface{}) { Logged = append(Logged, fmt.Sprint(args...)) }
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

func False(t testing.TB, value bool, msgAndArgs ...interface{}) {
	t.Helper()
	if value {
		t.Fatalf("should be false %v", msgAndArgs)
	}
}
`,
}
