package report

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strings"

	"schedtool/finding"
)

// SARIF writes SARIF 2.1.0, as GitHub code scanning accepts it.
type SARIF struct{}

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
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
	DefaultConfiguration sarifConfig `json:"defaultConfiguration"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifResult struct {
	RuleID     string            `json:"ruleId"`
	RuleIndex  int               `json:"ruleIndex"`
	Level      string            `json:"level"`
	Message    sarifText         `json:"message"`
	Locations  []sarifLocation   `json:"locations"`
	Properties map[string]string `json:"properties,omitempty"`
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

func (SARIF) Write(w io.Writer, r *Result) error {
	driver := sarifDriver{Name: "schedtool", Version: r.Version, InformationURI: "https://github.com/estuary/flow", Rules: []sarifRule{}}
	index := map[string]int{}
	for _, rule := range finding.Rules {
		index[rule.ID] = len(driver.Rules)
		driver.Rules = append(driver.Rules, sarifRule{ID: rule.ID, ShortDescription: sarifText{rule.Summary},
			DefaultConfiguration: sarifConfig{sarifLevel(rule.Severity)}})
	}
	results := []sarifResult{}
	for _, f := range r.Findings {
		res := sarifResult{RuleID: f.Rule, RuleIndex: index[f.Rule], Level: sarifLevel(f.Severity), Message: sarifText{f.Message}}
		uri := filepath.ToSlash(f.Pos.File)
		if uri == "<stdin>" {
			uri = "stdin"
		}
		uri = strings.TrimPrefix(uri, "./")
		loc := sarifLocation{PhysicalLocation: sarifPhysical{
			ArtifactLocation: sarifArtifact{URI: uri, URIBaseID: "%SRCROOT%"},
			Region:           sarifRegion{StartLine: max(f.Pos.Line, 1), StartColumn: max(f.Pos.Column, 1)},
		}}
		if f.Task != "" {
			loc.LogicalLocations = []sarifLogical{{FullyQualifiedName: f.Task, Kind: "resource"}}
		}
		res.Locations = []sarifLocation{loc}
		if f.Pos.Pointer != "" {
			res.Properties = map[string]string{"pointer": f.Pos.Pointer}
		}
		results = append(results, res)
	}
	log := sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0",
		Runs: []sarifRun{{Tool: sarifTool{driver}, Results: results}}}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}
