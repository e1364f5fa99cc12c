package report

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/estuary/schedtool/finding"
)

// SARIF writes SARIF 2.1.0, as GitHub code scanning accepts it.
type SARIF struct {
	w      *bufio.Writer
	driver sarifDriver
	index  map[string]int
	n      int
	// PathPrefix is put before every path (--path-prefix: the
	// directory's path in the repository, when schedtool runs in one).
	PathPrefix string
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID                   string      `json:"id"`
	ShortDescription     sarifText   `json:"shortDescription"`
	FullDescription      sarifText   `json:"fullDescription"`
	Help                 sarifHelp   `json:"help"`
	DefaultConfiguration sarifConfig `json:"defaultConfiguration"`
}

type sarifHelp struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations"`
	// PartialFingerprints identify the finding across runs, from its
	// task, rule and pointer, never its line: code scanning keeps one
	// alert when lines above it move.
	PartialFingerprints map[string]string `json:"partialFingerprints,omitempty"`
	Properties          map[string]string `json:"properties,omitempty"`
}

// Fingerprint is a finding's partial fingerprint: a hash of its task (its
// file when it has none), rule and JSON pointer.
func Fingerprint(f *finding.Finding) string {
	who := f.Task
	if who == "" {
		who = "file:" + filepath.ToSlash(f.Pos.File)
	}
	h := sha256.Sum256([]byte(who + "\x00" + f.Rule + "\x00" + f.Pos.Pointer))
	return hex.EncodeToString(h[:16])
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical  `json:"physicalLocation"`
	LogicalLocations []sarifLogical `json:"logicalLocations,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
}

type sarifLogical struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

func sarifLevel(s finding.Severity) string {
	switch s {
	case finding.Error:
		return "error"
	case finding.Warning:
		return "warning"
	}
	return "note"
}

func newSARIF(w *bufio.Writer, version string) *SARIF {
	driver := sarifDriver{Name: "schedtool", Version: version, InformationURI: "https://github.com/estuary/flow", Rules: []sarifRule{}}
	index := map[string]int{}
	for _, rule := range finding.Rules {
		index[rule.ID] = len(driver.Rules)
		fix := finding.HowToFix(rule.ID)
		driver.Rules = append(driver.Rules, sarifRule{ID: rule.ID, ShortDescription: sarifText{rule.Summary},
			FullDescription: sarifText{rule.Summary},
			Help: sarifHelp{Text: rule.Summary + "\n\nHow to fix: " + fix,
				Markdown: "**" + rule.ID + "** (" + rule.Severity.String() + "): " + rule.Summary + "\n\n**How to fix:** " + fix},
			DefaultConfiguration: sarifConfig{sarifLevel(rule.Severity)}})
	}
	return &SARIF{w: w, driver: driver, index: index}
}

func (s *SARIF) Finding(f *finding.Finding) {
	res := sarifResult{RuleID: f.Rule, RuleIndex: s.index[f.Rule], Level: sarifLevel(f.Severity), Message: sarifText{f.Message}}
	uri := filepath.ToSlash(f.Pos.File)
	if uri == "<stdin>" {
		uri = "stdin"
	}
	uri = sarifURI(joinPrefix(s.PathPrefix, strings.TrimPrefix(uri, "./")))
	loc := sarifLocation{PhysicalLocation: sarifPhysical{
		ArtifactLocation: sarifArtifact{URI: uri, URIBaseID: "%SRCROOT%"},
		Region:           sarifRegion{StartLine: max(f.Pos.Line, 1), StartColumn: max(f.Pos.Column, 1)},
	}}
	if f.Task != "" {
		loc.LogicalLocations = []sarifLogical{{FullyQualifiedName: f.Task, Kind: "resource"}}
	}
	res.Locations = []sarifLocation{loc}
	res.PartialFingerprints = map[string]string{"schedtool/v1": Fingerprint(f)}
	if f.Pos.Pointer != "" {
		res.Properties = map[string]string{"pointer": f.Pos.Pointer}
	}
	if s.n == 0 {
		s.head()
	} else {
		s.w.WriteString(",")
	}
	s.n++
	b, _ := json.MarshalIndent(res, "        ", "  ")
	s.w.WriteString("\n        ")
	s.w.Write(b)
}

// head writes the document up to the opening of the run's results.
func (s *SARIF) head() {
	tool, _ := json.MarshalIndent(sarifTool{s.driver}, "      ", "  ")
	s.w.WriteString("{\n  \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n  \"version\": \"2.1.0\",\n  \"runs\": [\n    {\n      \"tool\": ")
	s.w.Write(tool)
	s.w.WriteString(",\n      \"originalUriBaseIds\": ")
	bases, _ := json.MarshalIndent(sarifBases(s.PathPrefix), "      ", "  ")
	s.w.Write(bases)
	s.w.WriteString(",\n      \"results\": [")
}

func (s *SARIF) End(finding.Summary) error {
	if s.n == 0 {
		s.head()
		s.w.WriteString("]\n    }\n  ]\n}\n")
		return s.w.Flush()
	}
	s.w.WriteString("\n      ]\n    }\n  ]\n}\n")
	return s.w.Flush()
}

// sarifURI percent-encodes a path into a relative URI reference: every
// byte but the unreserved characters and "/" is written %XX, so a name
// with a space, "#", "?", "%", ":" or a non-ASCII letter is still a valid
// URI (SARIF section 3.10) that resolves to the same file. Leading
// slashes are made one: "//host/x" would be a network-path reference,
// naming host "host" (Linux reads a path's leading "//" as "/").
func sarifURI(p string) string {
	const hex = "0123456789ABCDEF"
	if strings.HasPrefix(p, "//") {
		p = "/" + strings.TrimLeft(p, "/")
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' || c == '/' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// sarifBases describes %SRCROOT%, the base of every result's path: the
// directory schedtool ran in, or with --path-prefix the repository root.
func sarifBases(prefix string) map[string]any {
	what := "The directory schedtool ran in: every path is relative to it."
	if prefix != "" {
		what = "The repository root: every path is relative to it (--path-prefix " + prefix + ")."
	}
	return map[string]any{"%SRCROOT%": map[string]any{"description": sarifText{what}}}
}

// joinPrefix puts --path-prefix before a relative path ("" leaves it;
// an absolute path is not the repository's and keeps its own).
func joinPrefix(prefix, p string) string {
	if prefix == "" || strings.HasPrefix(p, "/") {
		return p
	}
	return strings.TrimSuffix(filepath.ToSlash(prefix), "/") + "/" + p
}
