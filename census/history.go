package census

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"time"
)

// FormatVersion is the version of the census -o json document this
// schedtool writes, and the newest it reads back as history. Version 1
// added version and generatedAt to the document of earlier releases.
const FormatVersion = 1

// Snapshot is one census in a burndown: when it was taken and how many
// tasks had each status.
type Snapshot struct {
	At        time.Time
	Tasks     int
	Remaining int
	ByStatus  map[string]int
	// Scope is what the census covered; nil in a document written
	// before censuses said.
	Scope *Scope
}

// SnapshotOf is the snapshot of a census just taken.
func SnapshotOf(t *Totals, at time.Time) Snapshot {
	return Snapshot{At: at.UTC(), Tasks: t.Tasks, Remaining: t.Remaining, ByStatus: statusCounts(t)}
}

// HistoryError is a history file ReadSnapshot refuses.
type HistoryError struct {
	File string
	Msg  string
}

func (e *HistoryError) Error() string { return e.File + ": " + e.Msg }

// ReadSnapshot reads an earlier census -o json document (name says where
// from, for messages). It refuses a document that is not a census, or
// whose version is newer than FormatVersion. The tasks are skipped token
// by token, never held: a census of a million tasks is read in constant
// memory.
func ReadSnapshot(r io.Reader, name string) (Snapshot, error) {
	cr := &countingReader{r: bufio.NewReaderSize(r, 64<<10)}
	dec := json.NewDecoder(cr)
	var doc struct {
		Version     *int
		GeneratedAt *time.Time
		Scope       *Scope
		Summary     *struct {
			Tasks     *int           `json:"tasks"`
			Remaining *int           `json:"remaining"`
			ByStatus  map[string]int `json:"byStatus"`
		}
	}
	notCensus := func(why string) error {
		return &HistoryError{name, "not a census document (the output of schedtool census -o json): " + why}
	}
	fail := func(err error) error {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			line, col := cr.position(se.Offset)
			return &HistoryError{fmt.Sprintf("%s:%d:%d", name, line, col), "not a census document: " + se.Error()}
		case errors.As(err, &te):
			line, col := cr.position(te.Offset)
			return &HistoryError{fmt.Sprintf("%s:%d:%d", name, line, col), "not a census document: " + te.Field + " is " + te.Value + ", not " + te.Type.String()}
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			return notCensus("it ends early")
		}
		return &HistoryError{name, err.Error()}
	}
	if tok, err := dec.Token(); err != nil {
		return Snapshot{}, fail(err)
	} else if tok != json.Delim('{') {
		return Snapshot{}, notCensus("it is not a JSON object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return Snapshot{}, fail(err)
		}
		var dst any
		switch tok {
		case "version":
			dst = &doc.Version
		case "generatedAt":
			dst = &doc.GeneratedAt
		case "summary":
			dst = &doc.Summary
		case "scope":
			dst = &doc.Scope
		default:
			err = skipValue(dec)
		}
		if dst != nil {
			err = dec.Decode(dst)
		}
		if err != nil {
			return Snapshot{}, fail(err)
		}
	}
	switch {
	case doc.Version == nil:
		return Snapshot{}, notCensus("it has no version (a census written before schedtool's census documents had one: take it again)")
	case *doc.Version > FormatVersion:
		return Snapshot{}, &HistoryError{name, fmt.Sprintf("census document version %d is newer than this schedtool reads (up to %d): upgrade schedtool", *doc.Version, FormatVersion)}
	case *doc.Version < 1:
		return Snapshot{}, notCensus(fmt.Sprintf("version %d", *doc.Version))
	case doc.GeneratedAt == nil:
		return Snapshot{}, notCensus("it has no generatedAt")
	case doc.Summary == nil || doc.Summary.Tasks == nil || doc.Summary.Remaining == nil || doc.Summary.ByStatus == nil:
		return Snapshot{}, notCensus("it has no summary with tasks, remaining and byStatus")
	}
	s := Snapshot{At: doc.GeneratedAt.UTC(), Tasks: *doc.Summary.Tasks, Remaining: *doc.Summary.Remaining, ByStatus: map[string]int{}, Scope: doc.Scope}
	for _, st := range Statuses {
		s.ByStatus[st] = doc.Summary.ByStatus[st]
	}
	return s, nil
}

// skipValue reads the next value of dec without keeping it.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// countingReader remembers where lines start, to turn a decoder's byte
// offset into a line and column.
type countingReader struct {
	r      io.Reader
	n      int64
	starts []int64 // offsets of the lines after the first
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for i, b := range p[:n] {
		if b == '\n' {
			c.starts = append(c.starts, c.n+int64(i)+1)
		}
	}
	c.n += int64(n)
	return n, err
}

// position is the 1-based line and column of a byte offset.
func (c *countingReader) position(at int64) (line, col int) {
	i := sort.Search(len(c.starts), func(i int) bool { return c.starts[i] > at })
	start := int64(0)
	if i > 0 {
		start = c.starts[i-1]
	}
	return i + 1, int(at-start) + 1
}

// burndown is the history in time order; the census being written is
// added as its last point at End.
func burndownOf(opts Options) []Snapshot {
	if len(opts.History) == 0 {
		return nil
	}
	h := append([]Snapshot(nil), opts.History...)
	sort.SliceStable(h, func(i, j int) bool { return h[i].At.Before(h[j].At) })
	return h
}
