package livespecs

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/selection"
	"github.com/estuary/schedtool/internal/usage"
)

// errAfter is a database stream that fails after its rows.
type errAfter struct {
	r   io.Reader
	err error
}

func (e *errAfter) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF {
		return n, e.err
	}
	return n, err
}
func (e *errAfter) Close() error { return nil }

// HoldDB reads a database once: every later pass of EachDump reads the
// same rows (one snapshot), though the database would give others.
func TestHoldDBReadsOnce(t *testing.T) {
	opened := 0
	open := func(string, selection.Selector) (io.ReadCloser, error) {
		opened++
		return io.NopCloser(strings.NewReader(strings.Repeat("row of read ", opened) + "\n")), nil
	}
	inputs := []catalog.Input{{Arg: "postgres://h/db", Dump: "postgres://h/db", DB: "postgres://h/db", OpenDB: open}}
	release, err := HoldDB(inputs)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	for pass := 1; pass <= 2; pass++ {
		var got string
		if err := EachDump(inputs, func(r io.Reader, name string) error {
			b, err := io.ReadAll(r)
			got = string(b)
			if name != "postgres://h/db" {
				t.Errorf("name %q", name)
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if got != "row of read \n" {
			t.Errorf("pass %d read %q, want the first read's rows", pass, got)
		}
	}
	if opened != 1 {
		t.Errorf("the database was read %d times, want once", opened)
	}
}

// A read that fails part way is an incomplete input, its secret
// scrubbed; nothing is held.
func TestHoldDBFailure(t *testing.T) {
	opened := 0
	open := func(string, selection.Selector) (io.ReadCloser, error) {
		opened++
		return &errAfter{strings.NewReader("{}\n"), errors.New("connection lost after 1 row (password hunter22)")}, nil
	}
	inputs := []catalog.Input{{Dump: "postgres://u@h/db", DB: "postgres://u:hunter22@h/db", OpenDB: open}}
	_, err := HoldDB(inputs)
	var ue *usage.Error
	if !errors.As(err, &ue) || !ue.Incomplete || !strings.Contains(ue.Msg, "connection lost") || strings.Contains(ue.Msg, "hunter22") {
		t.Fatalf("err %v, want an incomplete input without the password", err)
	}
	EachDump(inputs, func(io.Reader, string) error { return nil })
	if opened != 2 {
		t.Error("a failed read is held: the database was not read again")
	}
}
