// The -o json report of a run.

package migrate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"sort"

	"github.com/estuary/schedtool/internal/paths"
)

// jsonReport streams the -o json document: tasks, files, summary.
type jsonReport struct {
	w       *bufio.Writer
	ntasks  int
	files   []jsonFile
	publish *Publish
}

type jsonFile struct {
	File   string `json:"file"`
	Status string `json:"status"`
	Detail string `json:"detail,omitempty"`
}

func (j *jsonReport) start() { j.w.WriteString("{\n  \"tasks\": [") }

func (j *jsonReport) task(t *Task) {
	if j.ntasks > 0 {
		j.w.WriteByte(',')
	}
	j.ntasks++
	b := marshal(t)
	j.w.WriteString("\n    ")
	j.w.Write(b)
}

func (j *jsonReport) file(path, status, detail string) {
	j.files = append(j.files, jsonFile{paths.Display(path), status, detail})
}

func (j *jsonReport) end(s *Summary) {
	if j.ntasks > 0 {
		j.w.WriteString("\n  ")
	}
	j.w.WriteString("],\n  \"files\": ")
	sort.SliceStable(j.files, func(a, b int) bool { return j.files[a].File < j.files[b].File })
	if j.files == nil {
		j.files = []jsonFile{}
	}
	b := marshal(j.files)
	j.w.Write(b)
	if j.publish != nil {
		j.w.WriteString(",\n  \"publish\": ")
		b = marshal(j.publish)
		j.w.Write(b)
	}
	j.w.WriteString(",\n  \"summary\": ")
	b = marshal(s)
	j.w.Write(b)
	j.w.WriteString("\n}\n")
}

// marshal is json.Marshal without HTML escaping: the report quotes shell
// commands, whose && should read as written.
func marshal(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
