// Package finding is the one model of what schedtool has to say: validate
// reports findings, migrate applies their fixes, census counts them.
package finding

import (
	"fmt"
	"sort"
)

// Severity of a finding; higher is worse.
type Severity int

const (
	Info Severity = iota
	Warning
	Error
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	}
	return "info"
}

// ParseSeverity reads "error", "warning" or "info".
func ParseSeverity(s string) (Severity, error) {
	switch s {
	case "error":
		return Error, nil
	case "warning":
		return Warning, nil
	case "info":
		return Info, nil
	}
	return 0, fmt.Errorf("unknown severity %q (want error, warning or info)", s)
}

// Rule ids. They are stable: tests and users depend on them.
const (
	ParseError               = "parse-error"
	InvalidSyncSchedule      = "invalid-sync-schedule"
	RequiresRuntimeV2        = "requires-runtime-v2"
	SyncScheduleConflict     = "sync-schedule-conflict"
	InvalidConnectorSchedule = "invalid-connector-schedule"
	AckDelayStacks           = "ack-delay-stacks"
	LegacyUpdateDelay        = "legacy-update-delay"
	OffEnumScheduleValue     = "off-enum-schedule-value"
	ConnectorScheduleInUse   = "connector-schedule-in-use"
	SealedSchedule           = "sealed-schedule"
	SecretSchedule           = "secret-schedule"
	InvalidShardFlag         = "invalid-shard-flag"
	ConnectorScheduleCrashes = "connector-schedule-crashes"
	DefinedInSeveralCatalogs = "defined-in-several-catalogs"
)

// RuleInfo describes a rule.
type RuleInfo struct {
	ID       string
	Severity Severity
	Summary  string
}

// Rules lists every rule, in the order of docs/behaviour.md §5.
var Rules = []RuleInfo{
	{ParseError, Error, "A source, config file or stored-spec row cannot be read or parsed, an import cycle, a path escaping the root, or a materialization's delete, shards or shards.disable of a type Flow's model refuses."},
	{InvalidSyncSchedule, Error, "The materialization syncSchedule does not decode or fails Flow's validation."},
	{RequiresRuntimeV2, Error, "A materialization syncSchedule on a task that is not on the V2 runtime."},
	{InvalidShardFlag, Error, "shards.flags is not an object of strings, which Flow refuses: enable-runtime-v2 or another flag is not a string (an unquoted YAML true is a boolean), or flags is not an object."},
	{SyncScheduleConflict, Error, "A materialization syncSchedule beside a configured connector schedule."},
	{InvalidConnectorSchedule, Error, "A connector schedule that its connector would refuse."},
	{AckDelayStacks, Warning, "A materialization syncSchedule while the connector still delays its acknowledgements."},
	{LegacyUpdateDelay, Warning, "advanced.updateDelay, which current images reject."},
	{OffEnumScheduleValue, Warning, "A schedule value the connector accepts but its published schema does not list."},
	{ConnectorScheduleCrashes, Warning, "An alternating connector schedule that makes the connector panic within the next 366 days."},
	{ConnectorScheduleInUse, Info, "A V2 task paced by its connector: a migration candidate."},
	{SealedSchedule, Info, "An encrypted schedule value, whose effect is unknown."},
	{SecretSchedule, Info, "A secret merged into the connector config at task start covers a schedule location, so the schedule's value is unknown."},
	{DefinedInSeveralCatalogs, Info, "A task defined in several catalogs (sources no other source imports, each built on its own): each definition is read, validated and migrated as itself."},
}

// Position locates a finding: a file, a 1-based line and character column,
// and a JSON pointer into that file (into the row, for a stored-spec dump).
type Position struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Pointer string `json:"pointer"`
}

func (p Position) String() string {
	if p.File == "" {
		return "-"
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column)
}

// TextEdit replaces the bytes [Start, End) of File with NewText.
type TextEdit struct {
	File    string
	Start   int
	End     int
	NewText []byte
}

// Finding is one thing schedtool reports.
type Finding struct {
	Rule     string
	Severity Severity
	Task     string // "" when the finding is not about one task
	Pos      Position
	Message  string
	// Excerpt is the source line at Pos, for a syntax error: text output
	// shows it with a caret under the column.
	Excerpt string
}

// Summary counts findings.
type Summary struct {
	Errors, Warnings, Infos int
	Tasks, Files            int
	// Unreadable counts the unreadable inputs, as census and migrate
	// count them (catalog.Catalog.Unreadable, and each row that cannot be
	// read).
	Unreadable int
	// Excepted counts the findings the project file excepts (not in
	// Errors, Warnings or Infos: not counted against --fail-on).
	Excepted int
	// Definitions counts every definition read (Tasks counts names: a
	// name defined in several catalogs is one task).
	Definitions int
	// Paced counts the V1 tasks still paced by their connector (no rule
	// finds them; census counts them as remaining), PacedNames are the
	// first MaxPacedNames of them.
	Paced      int
	PacedNames []string
}

// MaxPacedNames bounds the names a summary lists.
const MaxPacedNames = 5

// AddPaced counts a V1 task paced by its connector.
func (s *Summary) AddPaced(name string) {
	s.Paced++
	if len(s.PacedNames) < MaxPacedNames {
		s.PacedNames = append(s.PacedNames, name)
	}
}

// Add counts a finding.
func (s *Summary) Add(f *Finding) {
	switch f.Severity {
	case Error:
		s.Errors++
	case Warning:
		s.Warnings++
	default:
		s.Infos++
	}
}

// AtLeast reports whether any counted finding is at or above sev.
func (s Summary) AtLeast(sev Severity) bool {
	switch sev {
	case Error:
		return s.Errors > 0
	case Warning:
		return s.Errors+s.Warnings > 0
	}
	return s.Errors+s.Warnings+s.Infos > 0
}

// Less orders findings by file, line, column, rule and message.
func Less(a, b *Finding) bool {
	if a.Pos.File != b.Pos.File {
		return a.Pos.File < b.Pos.File
	}
	if a.Pos.Line != b.Pos.Line {
		return a.Pos.Line < b.Pos.Line
	}
	if a.Pos.Column != b.Pos.Column {
		return a.Pos.Column < b.Pos.Column
	}
	if a.Rule != b.Rule {
		return a.Rule < b.Rule
	}
	return a.Message < b.Message
}

// Sort orders findings deterministically.
func Sort(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool { return Less(&fs[i], &fs[j]) })
}
