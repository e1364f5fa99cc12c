package main

import (
	"io"
	"strings"
	"testing"
)

// readSpy is standard input that counts its reads.
type readSpy struct {
	r     io.Reader
	reads int
}

func (s *readSpy) Read(p []byte) (int, error) {
	s.reads++
	return s.r.Read(p)
}

// Validate checks the flags and reads nothing: neither standard input nor
// a PATH (a missing one would fail it). Complete reads them (kubectl's
// Complete/Validate/Run).
func TestValidateReadsNothing(t *testing.T) {
	paths := []string{"-", "missing.flow.yaml"}
	newCommon := func(in io.Reader) *common {
		return &common{Streams: Streams{In: in, Out: io.Discard, Err: io.Discard}, maxFileSize: 64 << 20, maxRowSize: 64 << 20}
	}
	no := func() bool { return false }
	for _, tc := range []struct {
		name string
		o    func(*common) options
	}{
		{"validate", func(c *common) options {
			return &validateOptions{common: c, output: outputsValue{specs: []outputSpec{{format: "text"}}}, failOn: "error", paths: paths}
		}},
		{"census", func(c *common) options { return &censusOptions{common: c, output: "table", paths: paths} }},
		{"explain", func(c *common) options {
			return &explainOptions{common: c, output: "text", days: 1, absent: "preserve", name: "acmeCo/x", paths: paths}
		}},
		{"migrate", func(c *common) options {
			return &migrateOptions{common: c, absent: "preserve", output: "diff", limitSet: no,
				changed: func(string) bool { return false }, paths: paths}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := &readSpy{r: strings.NewReader("materializations: {}\n")}
			if err := tc.o(newCommon(in)).Validate(); err != nil {
				t.Errorf("Validate: %v", err)
			}
			if in.reads > 0 {
				t.Errorf("Validate read standard input %d times", in.reads)
			}
			// The near miss: Complete reads them.
			in = &readSpy{r: strings.NewReader("materializations: {}\n")}
			args := paths
			if tc.name == "explain" {
				args = append([]string{"acmeCo/x"}, paths...)
			}
			if err := tc.o(newCommon(in)).Complete(args); err == nil || !strings.Contains(err.Error(), "missing.flow.yaml") {
				t.Errorf("Complete: %v, want the missing PATH", err)
			}
		})
	}
}
