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
	// Lanes are the remaining tasks by lane of the projection (Lanes);
	// nil in a document written before censuses counted them.
	Lanes map[string]int
	// Scope is what the census covered; nil in a document written
	// before censuses said.
	Scope *Scope
}

// SnapshotOf is the snapshot of a census just taken.
func SnapshotOf(t *Totals, at time.Time) Snapshot {
	return Snapshot{At: at.UTC(), Tasks: t.Tasks, Remaining: t.Remaining, ByStatus: statusCounts(t), Lanes: lanesOf(t)}
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
// memory, and so is any other file (nothing is kept per line). An error's
// line and column are found by reading r again up to it when r is also
// an io.ReaderAt (a file is); otherwise the error gives its byte offset.
func ReadSnapshot(r io.Reader, name string) (Snapshot, error) {
	cr := &countingReader{r: bufio.NewReaderSize(r, 64<<10)}
	cr.at, _ = r.(io.ReaderAt)
	dec := json.NewDecoder(cr)
	var doc struct {
		Version     *int
		GeneratedAt *time.Time
		Scope       *Scope
		Summary     *struct {
			Tasks     *int           `json:"tasks"`
			Remaining *int           `json:"remaining"`
			ByStatus  map[string]int `json:"byStatus"`
			// Projection's lanes, in a document from a schedtool that
			// counts them (none before: the lanes are then unknown).
			Projection *struct {
				Lanes []struct {
					Lane      string `json:"lane"`
					Remaining int    `json:"remaining"`
				} `json:"lanes"`
			} `json:"projection"`
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
			return &HistoryError{cr.place(name, se.Offset), "not a census document: " + se.Error()}
		case errors.As(err, &te):
			return &HistoryError{cr.place(name, te.Offset), "not a census document: " + te.Field + " is " + te.Value + ", not " + te.Type.String()}
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
	if s.Tasks < 0 || s.Remaining < 0 || s.Remaining > s.Tasks {
		return Snapshot{}, notCensus(fmt.Sprintf("its summary counts %d tasks and %d remaining, which no census counts", s.Tasks, s.Remaining))
	}
	for _, st := range Statuses {
		s.ByStatus[st] = doc.Summary.ByStatus[st]
		if n := s.ByStatus[st]; n < 0 || n > s.Tasks {
			return Snapshot{}, notCensus(fmt.Sprintf("its summary counts %d %s tasks of %d, which no census counts", n, st, s.Tasks))
		}
	}
	if pr := doc.Summary.Projection; pr != nil && pr.Lanes != nil {
		// Lanes that do not add up to the remaining count (a file edited
		// by hand) are not used: the point is read without them.
		s.Lanes = map[string]int{}
		sum := 0
		for _, l := range pr.Lanes {
			if l.Remaining < 0 || l.Remaining > s.Remaining {
				sum = -1
				break
			}
			s.Lanes[l.Lane] += l.Remaining
			sum += l.Remaining
		}
		if sum != s.Remaining {
			s.Lanes = nil
		}
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

// countingReader hands the decoder the input with each run of
// whitespace outside strings squeezed to one space (encoding/json keeps
// the whitespace before a token in its buffer: 40 MB of newlines were
// 40 MB held), and turns a decoder's byte offset back into a place in the
// input. It keeps nothing per line (the line starts it once kept were
// 1.5 GB for those newlines): the place is found by reading the input
// again up to the offset, through a small buffer.
type countingReader struct {
	r  io.Reader
	at io.ReaderAt // the input again, or nil
	sq squeezer
}

func (c *countingReader) Read(p []byte) (int, error) {
	for {
		n, err := c.r.Read(p)
		k := 0
		for _, b := range p[:n] {
			if c.sq.keep(b) {
				p[k] = ' '
				if !isSpace(b) || c.sq.str {
					p[k] = b
				}
				k++
			}
		}
		if k > 0 || err != nil || n == 0 {
			return k, err
		}
	}
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// squeezer decides, byte by byte, what the decoder gets: every byte of a
// string, and of the whitespace outside strings the first of each run
// (as a space).
type squeezer struct {
	str, esc, space bool
}

func (s *squeezer) keep(b byte) bool {
	switch {
	case s.str:
		switch {
		case s.esc:
			s.esc = false
		case b == '\\':
			s.esc = true
		case b == '"':
			s.str = false
		}
		return true
	case isSpace(b):
		if s.space {
			return false
		}
		s.space = true
		return true
	}
	s.space = false
	s.str = b == '"'
	return true
}

// place is name:line:col (1-based) of the input byte the decoder saw at
// offset off, or name (byte N) when the input cannot be read again.
func (c *countingReader) place(name string, off int64) string {
	if c.at == nil {
		return fmt.Sprintf("%s (byte %d)", name, off+1)
	}
	var sq squeezer
	line, start, seen := 1, int64(0), int64(0) // seen: bytes the decoder got
	buf := make([]byte, 32<<10)
	pos := int64(0)
	for seen < off {
		n, err := c.at.ReadAt(buf, pos)
		i := 0
		for ; i < n && seen < off; i++ {
			if sq.keep(buf[i]) {
				seen++
			}
			if buf[i] == '\n' {
				line++
				start = pos + int64(i) + 1
			}
		}
		pos += int64(i)
		if i < n || err != nil || n == 0 {
			break
		}
	}
	// pos is the input byte the decoder saw as byte off, or the first
	// byte of a squeezed run after it.
	return fmt.Sprintf("%s:%d:%d", name, line, pos-start+1)
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
