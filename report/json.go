package report

import (
	"bufio"
	"encoding/json"
	"strconv"

	"github.com/estuary/schedtool/finding"
	"github.com/estuary/schedtool/internal/jsonstr"
)

// JSON writes {"findings": [...], "summary": {...}}.
type JSON struct {
	w   *bufio.Writer
	buf []byte
	n   int
}

// AppendJSONString appends s as a JSON string (no HTML escaping).
func AppendJSONString(b []byte, s string) []byte { return jsonstr.Append(b, s) }

func jsonString(b []byte, s string) []byte { return jsonstr.Append(b, s) }

func (j *JSON) Finding(f *finding.Finding) {
	j.buf = j.Render(j.buf[:0], f)
	j.Rendered(j.buf)
}

// Render appends a finding's JSON object to dst. It keeps no state, so
// many goroutines may render ahead of Rendered.
func (j *JSON) Render(buf []byte, f *finding.Finding) []byte {
	buf = append(buf, "{\"rule\":"...)
	buf = jsonString(buf, f.Rule)
	buf = append(buf, `,"severity":`...)
	buf = jsonString(buf, f.Severity.String())
	buf = append(buf, `,"task":`...)
	if f.Task == "" {
		buf = append(buf, "null"...)
	} else {
		buf = jsonString(buf, f.Task)
	}
	buf = append(buf, `,"file":`...)
	buf = jsonString(buf, f.Pos.File)
	buf = append(buf, `,"line":`...)
	buf = strconv.AppendInt(buf, int64(f.Pos.Line), 10)
	buf = append(buf, `,"column":`...)
	buf = strconv.AppendInt(buf, int64(f.Pos.Column), 10)
	buf = append(buf, `,"pointer":`...)
	buf = jsonString(buf, f.Pos.Pointer)
	buf = append(buf, `,"message":`...)
	buf = jsonString(buf, f.Message)
	return append(buf, '}')
}

// Escape appends a string as Render writes it inside a JSON string.
func (j *JSON) Escape(b []byte, s string) []byte { return jsonstr.AppendContent(b, s) }

// Rendered writes the next finding, rendered by Render.
func (j *JSON) Rendered(b []byte) {
	if j.n == 0 {
		j.w.WriteString(`{"findings":[`)
	} else {
		j.w.WriteByte(',')
	}
	j.n++
	j.w.WriteString("\n  ")
	j.w.Write(b)
}

func (j *JSON) End(s finding.Summary) error {
	if j.n == 0 {
		j.w.WriteString(`{"findings":[`)
	} else {
		j.w.WriteString("\n")
	}
	summary, _ := json.Marshal(map[string]int{
		"errors": s.Errors, "warnings": s.Warnings, "infos": s.Infos,
		"materializations": s.Tasks, "definitions": max(s.Definitions, s.Tasks), "files": s.Files, "excepted": s.Excepted, "unreadable": s.Unreadable,
	})
	j.w.WriteString(`],"summary":`)
	j.w.Write(summary)
	j.w.WriteString("}\n")
	return j.w.Flush()
}
