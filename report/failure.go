package report

import (
	"encoding/json"
	"io"
)

// Failure writes the document of a machine format for a run that failed
// before writing its own (exit 1): a script reading standard output still
// gets one document to parse. json is {"error": msg}; sarif is a SARIF
// log whose one run has no results and an invocation that did not
// succeed, with msg as its error notification (SARIF 2.1.0, 3.20). Other
// formats are for people and get nothing (the message is on standard
// error); ok says whether format has a failure document.
func Failure(w io.Writer, format, version, msg string) (ok bool, err error) {
	var doc any
	switch format {
	case "json":
		doc = struct {
			Error string `json:"error"`
		}{msg}
	case "sarif":
		type notification struct {
			Level   string    `json:"level"`
			Message sarifText `json:"message"`
		}
		type invocation struct {
			ExecutionSuccessful        bool           `json:"executionSuccessful"`
			ToolExecutionNotifications []notification `json:"toolExecutionNotifications"`
		}
		type run struct {
			Tool        sarifTool     `json:"tool"`
			Results     []sarifResult `json:"results"`
			Invocations []invocation  `json:"invocations"`
		}
		doc = struct {
			Schema  string `json:"$schema"`
			Version string `json:"version"`
			Runs    []run  `json:"runs"`
		}{"https://json.schemastore.org/sarif-2.1.0.json", "2.1.0", []run{{
			Tool:        sarifTool{newSARIF(nil, version).driver},
			Results:     []sarifResult{},
			Invocations: []invocation{{false, []notification{{"error", sarifText{msg}}}}},
		}}}
	default:
		return false, nil
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // "<stdin>" stays as the message on standard error says it
	if format == "sarif" {
		enc.SetIndent("", "  ")
	}
	return true, enc.Encode(doc)
}
