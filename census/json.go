package census

import (
	"bufio"
	"encoding/json"
	"strconv"
	"time"

	"github.com/estuary/schedtool/report"
)

// json: {"version": FormatVersion, "generatedAt": "RFC 3339 UTC",
// "tasks": [...], "unreadable": [...], "groups": {...}, "summary": {...}}.
type jsonWriter struct {
	w       *bufio.Writer
	now     time.Time
	scope   *Scope
	history []Snapshot
	n       int
	buf     []byte
	kept
}

func (j *jsonWriter) Row(r *Row) {
	j.buf = j.Render(j.buf[:0], r)
	j.RowBytes(j.buf)
}

func (j *jsonWriter) RowBytes(b []byte) {
	if j.n == 0 {
		j.head()
	} else {
		j.w.WriteByte(',')
	}
	j.n++
	j.w.Write(b)
}

// Render appends one task object, starting on a new line.
func (j *jsonWriter) Render(b []byte, r *Row) []byte {
	return j.RenderShared(b, r, j.Shared(r))
}

// Shared is the middle of a task object: from image to reason.
func (j *jsonWriter) Shared(r *Row) []byte {
	var b []byte
	for _, kv := range [][2]string{{"image", r.Image}, {"tag", r.Tag}, {"family", r.Family}, {"runtime", r.Runtime}, {"kind", r.Kind}, {"delay", r.Delay}} {
		b = append(b, ",\""+kv[0]+"\":"...)
		b = appendJSON(b, kv[1])
	}
	b = append(b, `,"model":`...)
	b = strconv.AppendBool(b, r.Model)
	b = append(b, `,"disabled":`...)
	b = strconv.AppendBool(b, r.Disabled)
	b = append(b, `,"status":`...)
	b = appendJSON(b, r.Status)
	b = append(b, `,"reason":`...)
	b = appendJSON(b, r.Reason)
	if r.Crash != "" {
		b = append(b, `,"crash":`...)
		b = appendJSON(b, r.Crash)
	}
	return b
}

func (j *jsonWriter) RenderShared(b []byte, r *Row, shared []byte) []byte {
	if b == nil {
		b = make([]byte, 0, 40+len(r.Task)+len(shared)+len(r.File))
	}
	b = append(b, "\n  {\"task\":"...)
	b = appendJSON(b, r.Task)
	b = append(b, shared...)
	b = append(b, `,"file":`...)
	b = appendJSON(b, r.File)
	b = append(b, `,"line":`...)
	b = strconv.AppendInt(b, int64(r.Line), 10)
	if r.Exception != nil {
		e, _ := json.Marshal(r.Exception)
		b = append(b, `,"exception":`...)
		b = append(b, e...)
	}
	if len(r.Definitions) > 0 {
		d, _ := json.Marshal(r.Definitions)
		b = append(b, `,"definitions":`...)
		b = append(b, d...)
	}
	return append(b, '}')
}

// head opens the document: the format version, the time it was taken
// (left out when the writer has none), the tasks.
func (j *jsonWriter) head() {
	j.w.WriteString(`{"version":` + strconv.Itoa(FormatVersion))
	if !j.now.IsZero() {
		j.w.WriteString(`,"generatedAt":"` + j.now.UTC().Format(time.RFC3339) + `"`)
	}
	writeScope(j.w, j.scope)
	j.w.WriteString(`,"tasks":[`)
}

func appendJSON(b []byte, s string) []byte { return report.AppendJSONString(b, s) }

func (j *jsonWriter) End(t *Totals) error {
	if j.n == 0 {
		j.head()
	} else {
		j.w.WriteString("\n")
	}
	bad := j.bad
	if bad == nil {
		bad = []Unreadable{}
	}
	rest, err := json.Marshal(struct {
		Unreadable []Unreadable `json:"unreadable"`
		Groups     any          `json:"groups"`
		Summary    any          `json:"summary"`
	}{bad, map[string]any{
		"image": t.ByImage, "status": t.ByStatus, "kind": t.ByKind, "runtime": t.ByRuntime, "family": t.ByFamily,
		"remainingByImage": t.RemainingByImage, "oldestTagInUse": t.OldestTag,
	}, summaryOf(t, j.history, j.now)})
	if err != nil {
		return err
	}
	j.w.WriteString("],")
	j.w.Write(rest[1:])
	j.w.WriteString("\n")
	return j.w.Flush()
}

// statusCounts has every status, zero or not.
func statusCounts(t *Totals) map[string]int {
	m := map[string]int{}
	for _, s := range Statuses {
		m[s] = t.ByStatus[s]
	}
	return m
}

// summaryOf is a census's summary object: the counts, the gate's verdict,
// what unblocks what and, by lane, the projection over the history.
func summaryOf(t *Totals, history []Snapshot, now time.Time) map[string]any {
	u := Unblocks(t)
	if u == nil {
		u = []Unblock{}
	}
	m := map[string]any{
		"tasks": t.Tasks, "remaining": t.Remaining, "unreadable": t.Unreadable, "disabled": t.Disabled, "crashing": t.Crashing,
		"readyNeedsZeroFileSinks": t.ByStatus[ReadyNeedsFlag], "byStatus": statusCounts(t),
		"gatePasses": GatePasses(t), "unblocks": u,
	}
	if p := ProjectionOf(points(history, t, now), t, now); p != nil {
		m["projection"] = p
	}
	if t.Excepted > 0 {
		m["excepted"] = t.Excepted // remaining all the same
	}
	if t.Excluded > 0 {
		// Not counted in tasks: the project file's exclude left them out.
		m["excluded"] = map[string]any{"tasks": t.Excluded, "sources": t.ExcludedSources, "all": t.AllExcluded()}
	}
	return m
}

// writeScope writes ',"scope":{...}' when the census has one.
func writeScope(w *bufio.Writer, s *Scope) {
	if s == nil {
		return
	}
	b, err := json.Marshal(s)
	if err != nil {
		return
	}
	w.WriteString(`,"scope":`)
	w.Write(b)
}

// jsonSummary: census -o json --summary, the document without its tasks,
// unreadable list and groups: version, generatedAt, scope and summary,
// a few hundred bytes to keep each week as --history.
type jsonSummary struct {
	w       *bufio.Writer
	now     time.Time
	scope   *Scope
	history []Snapshot
}

func (j *jsonSummary) Row(*Row)               {}
func (j *jsonSummary) Unreadable(*Unreadable) {}

func (j *jsonSummary) End(t *Totals) error {
	j.w.WriteString(`{"version":` + strconv.Itoa(FormatVersion))
	if !j.now.IsZero() {
		j.w.WriteString(`,"generatedAt":"` + j.now.UTC().Format(time.RFC3339) + `"`)
	}
	writeScope(j.w, j.scope)
	b, err := json.Marshal(summaryOf(t, j.history, j.now))
	if err != nil {
		return err
	}
	j.w.WriteString(`,"summary":`)
	j.w.Write(b)
	j.w.WriteString("}\n")
	return j.w.Flush()
}
