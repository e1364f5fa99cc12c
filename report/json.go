package report

import (
	"bufio"
	"encoding/json"
	"strconv"

	"schedtool/finding"
	"schedtool/internal/jsonstr"
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
	buf := j.buf[:0]
	if j.n == 0 {
		buf = append(buf, `{"findings":[`...)
	} else {
		buf = append(buf, ',')
	}
	j.n++
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
	j.w.Write(buf)
	j.buf = buf
}

func (j *JSON) End(s finding.Summary) error {
	if j.n == 0 {
		j.w.WriteString(`{"findings":[`)
	} else {
		j.w.WriteString("\n")
	}
	summary, _ := json.Marshal(map[string]int{
		"errors": s.Errors, "warnings": s.Warnings, "infos": s.Infos,
		"materializations": s.Tasks, "files": s.Files,
	})
	j.w.WriteString(`],"summary":`)
	j.w.Write(summary)
	j.w.WriteString("}\n")
	return j.w.Flush()
}
