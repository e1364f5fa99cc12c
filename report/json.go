package report

import (
	"bufio"
	"encoding/json"
	"io"
	"strconv"
)

// JSON writes {"findings": [...], "summary": {...}}.
type JSON struct{}

// jsonString appends s as a JSON string (encoding/json's escaping).
func jsonString(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}

func (JSON) Write(w io.Writer, r *Result) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	buf := make([]byte, 0, 1024)
	bw.WriteString(`{"findings":[`)
	for i := range r.Findings {
		f := &r.Findings[i]
		buf = buf[:0]
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, "\n  {\"rule\":"...)
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
		buf = append(buf, '}')
		bw.Write(buf)
	}
	if len(r.Findings) > 0 {
		bw.WriteString("\n")
	}
	s := r.Summary
	summary, _ := json.Marshal(map[string]int{
		"errors": s.Errors, "warnings": s.Warnings, "infos": s.Infos,
		"materializations": s.Tasks, "files": s.Files,
	})
	bw.WriteString(`],"summary":`)
	bw.Write(summary)
	bw.WriteString("}\n")
	return bw.Flush()
}
