package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/estuary/schedtool/finding"
	"github.com/estuary/schedtool/internal/groupwrite"
	"github.com/estuary/schedtool/report"
)

// outputSpec is one -o of validate: a format, written to standard output
// or to a file (FORMAT=FILE).
type outputSpec struct {
	format, file string
}

// outputsValue is validate's -o, given once or more: each format to its
// own file, at most one to standard output, all from one run (CI writes
// annotations and a SARIF log at once).
type outputsValue struct {
	specs []outputSpec
	set   bool // given on the command line: the default goes
	// guard checked the files before anything was read (nil: not yet,
	// or there are none); streams are the files being written, each a
	// temp file beside its FILE until commit; done is set once they are
	// renamed into place.
	guard   *outputGuard
	streams []*groupwrite.Stream
	done    bool
}

// failure gives each output to a file of a failed run its failure
// document, when its format has one (json, sarif: a CI step uploads the
// file whatever the exit code), else nothing: what the run wrote is
// removed, never left half-written. A file the guard refused, or did not
// get to check, gets nothing either.
func (v *outputsValue) failure(stderr io.Writer, msg string) {
	v.abort()
	if v.done || v.guard == nil || v.guard.err() != nil {
		return
	}
	for _, s := range v.specs {
		if s.file == "" {
			continue
		}
		var doc bytes.Buffer
		if ok, _ := report.Failure(&doc, s.format, toolVersion(), msg); !ok {
			continue
		}
		f, err := groupwrite.CreateStream(s.file, 0o644, groupwrite.Hooks{})
		if err == nil {
			if _, err = f.Write(doc.Bytes()); err != nil {
				f.Abort()
			} else {
				err = f.Commit()
			}
		}
		if err != nil {
			fmt.Fprintln(stderr, "schedtool: writing the failure document to "+s.file+": "+err.Error())
		}
	}
}

// abort removes the temp files of the outputs being written.
func (v *outputsValue) abort() {
	for _, f := range v.streams {
		f.Abort()
	}
	v.streams = nil
}

// commit renames every output file into place, unless the guard refused
// one (an input of the run), which leaves them all as they were.
func (v *outputsValue) commit() error {
	if err := v.guard.err(); err != nil {
		v.abort()
		return err
	}
	var errs []error
	for _, f := range v.streams {
		if err := f.Commit(); err != nil {
			errs = append(errs, fmt.Errorf("-o: %w", err))
		}
	}
	v.streams, v.done = nil, true
	return errors.Join(errs...)
}

func (v *outputsValue) String() string {
	// The format of standard output (the failure document's format).
	for _, s := range v.specs {
		if s.file == "" {
			return s.format
		}
	}
	return "text"
}

func (v *outputsValue) Set(s string) error {
	if !v.set {
		v.specs, v.set = nil, true
	}
	format, file, _ := strings.Cut(s, "=")
	if strings.Contains(s, "=") && strings.TrimSpace(file) == "" {
		return fmt.Errorf("%q: give a file after =", s)
	}
	v.specs = append(v.specs, outputSpec{format: format, file: file})
	return nil
}

func (v *outputsValue) Type() string { return "format[=file]" }

func (v *outputsValue) has(format string) bool {
	for _, s := range v.specs {
		if s.format == format {
			return true
		}
	}
	return false
}

// check refuses two outputs to standard output, or two to one file.
func (v *outputsValue) check() error {
	stdout := ""
	files := map[string]bool{}
	for _, s := range v.specs {
		switch {
		case s.file == "" && stdout != "":
			return &usageError{fmt.Sprintf("-o %s and -o %s both write to standard output: give one of them a file (-o %s=FILE)", stdout, s.format, s.format)}
		case s.file == "":
			stdout = s.format
		case files[s.file]:
			return &usageError{fmt.Sprintf("-o: %s is given twice", s.file)}
		}
		files[s.file] = true
	}
	return nil
}

// writers starts every output and returns one writer that hands each
// finding to all of them; set configures each (tty: it writes to
// standard output). A file is written to a temp file beside it (created
// exclusively, never through a symlink) until commit renames it into
// place; abort, or a failure, removes it.
func (v *outputsValue) writers(stdout io.Writer, set func(w report.Writer, tty bool)) (report.Writer, error) {
	var ws []report.Writer
	for _, s := range v.specs {
		out := stdout
		if s.file != "" {
			f, err := groupwrite.CreateStream(s.file, 0o644, groupwrite.Hooks{})
			if err != nil {
				v.abort()
				return nil, &usageError{fmt.Sprintf("-o %s=%s: %v", s.format, s.file, err)}
			}
			v.streams = append(v.streams, f)
			out = f
		}
		w, err := report.New(s.format, out, toolVersion())
		if err != nil {
			v.abort()
			return nil, &usageError{"-o: " + err.Error()}
		}
		set(w, s.file == "")
		ws = append(ws, w)
	}
	if len(ws) == 1 {
		return ws[0], nil
	}
	return multiWriter(ws), nil
}

// multiWriter hands each finding to every writer.
type multiWriter []report.Writer

func (m multiWriter) Finding(f *finding.Finding) {
	for _, w := range m {
		w.Finding(f)
	}
}

func (m multiWriter) End(s finding.Summary) error {
	var errs []error
	for _, w := range m {
		errs = append(errs, w.End(s))
	}
	return errors.Join(errs...)
}
