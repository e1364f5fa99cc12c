package livespecs

import (
	"bufio"
	"bytes"
	"io"
	"os"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/selection"
	"github.com/estuary/schedtool/internal/paths"
	"github.com/estuary/schedtool/internal/safefile"
	"github.com/estuary/schedtool/internal/usage"
)

// HoldDB reads the rows of each database input once, in its one
// snapshot, into an unlinked temp file, which EachDump reads from then
// on (the input's OpenDB reads the file): a command that makes two passes over its inputs (migrate's first
// pass for --limit or for --out DIR's case clashes) sees the same rows
// in both, and the server is read once. release closes the files.
func HoldDB(inputs []catalog.Input) (release func(), err error) {
	var held []*os.File
	release = func() {
		for _, f := range held {
			f.Close()
		}
	}
	for i := range inputs {
		in := &inputs[i]
		if in.DB == "" {
			continue
		}
		if in.OpenDB == nil {
			release()
			return func() {}, noDB(in)
		}
		f, err := holdRows(in)
		if err != nil {
			release()
			return func() {}, err
		}
		held = append(held, f)
		in.OpenDB = heldRows(f)
	}
	return release, nil
}

func holdRows(in *catalog.Input) (*os.File, error) {
	f, err := safefile.CreateTemp("", "schedtool-rows-*", 0o600)
	if err != nil {
		return nil, &usage.Error{Msg: in.Dump + ": holding its rows: " + err.Error()}
	}
	os.Remove(f.Name()) // unlinked: gone with the process, however it ends
	rc, err := in.OpenDB(in.DB, in.Select)
	if err == nil {
		w := bufio.NewWriterSize(f, 256<<10)
		_, err = io.Copy(w, rc)
		rc.Close()
		if err == nil {
			err = w.Flush()
		}
	}
	if err != nil {
		f.Close()
		return nil, dbError(in, err)
	}
	return f, nil
}

// heldRows reads the rows HoldDB held in f, from the start each time.
func heldRows(f *os.File) func(string, selection.Selector) (io.ReadCloser, error) {
	return func(string, selection.Selector) (io.ReadCloser, error) {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		return io.NopCloser(bufio.NewReaderSize(f, 256<<10)), nil
	}
}

// dbError is a failed read of a database input, without its password:
// what was read of it is incomplete.
func dbError(in *catalog.Input, err error) error {
	return &usage.Error{Msg: in.Dump + ": " + Scrub(err.Error(), URLSecrets(in.DB)...), Incomplete: true}
}

// noDB is the error for a database input read without an OpenDB.
func noDB(in *catalog.Input) error {
	return &usage.Error{Msg: in.Dump + ": this build of schedtool cannot read a database"}
}

// EachDump calls scan with the reader and display name of each input's
// dump (a file as paths.Display shows it, <stdin>, or a database URL
// without its password), in order. An error from scan is
// reported with the dump's name; the first one ends the walk.
func EachDump(inputs []catalog.Input, scan func(r io.Reader, name string) error) error {
	for _, in := range inputs {
		if in.Dump == "" {
			continue
		}
		if in.DB != "" {
			if in.OpenDB == nil {
				return noDB(&in)
			}
			rc, err := in.OpenDB(in.DB, in.Select)
			if err == nil {
				err = scan(rc, in.Dump)
				rc.Close()
			}
			if err != nil {
				return dbError(&in, err)
			}
			continue
		}
		rows := func(r io.Reader) io.Reader {
			if in.Raw {
				return NewRawRows(r)
			}
			return skipBOM(r)
		}
		if in.Dump == "-" {
			// Standard input is not empty (Inputs refused that), but a
			// flowctl raw get array can still hold no rows: `[]` on
			// standard input is no more zero tasks than in a file.
			seen := &textSeen{r: rows(bytes.NewReader(in.Stdin))}
			if err := scan(seen, "<stdin>"); err != nil {
				return &usage.Error{Msg: "<stdin>: " + err.Error(), Incomplete: true}
			}
			if !seen.text {
				return &usage.Error{Msg: "<stdin>: the dump has no rows: an empty dump is an error, not zero tasks"}
			}
			continue
		}
		name := paths.Display(in.Dump)
		f, _, err := paths.OpenRegular(in.Dump)
		if err != nil {
			return &usage.Error{Msg: name + ": " + catalog.Describe(err)}
		}
		seen := &textSeen{r: rows(f)}
		err = scan(seen, name)
		f.Close()
		if err != nil {
			return &usage.Error{Msg: name + ": " + err.Error(), Incomplete: true}
		}
		if !seen.text {
			return &usage.Error{Msg: name + ": the dump has no rows: an empty dump is an error, not zero tasks"}
		}
	}
	return nil
}

// textSeen notes whether anything but whitespace went through a reader:
// a dump with no rows at all is an error, not zero tasks.
type textSeen struct {
	r    io.Reader
	text bool
}

func (t *textSeen) Read(b []byte) (int, error) {
	n, err := t.r.Read(b)
	if !t.text && len(bytes.TrimSpace(b[:n])) > 0 {
		t.text = true
	}
	return n, err
}

func (t *textSeen) marksLines() bool { return marksLines(t.r) }
