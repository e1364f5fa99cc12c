package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/estuary/schedtool/finding"
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
	// opened is set once the files are opened: a run that fails before
	// writes each its failure document (failure).
	opened bool
}

// failure writes the failure document of each output to a file, for a
// run that failed before it opened them (a CI step uploads the file
// whatever the exit code).
func (v *outputsValue) failure(stderr io.Writer, msg string) {
	if v.opened {
		return
	}
	for _, s := range v.specs {
		if s.file == "" {
			continue
		}
		f, err := os.OpenFile(s.file, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err == nil {
			_, err = report.Failure(f, s.format, toolVersion(), msg)
			err = errors.Join(err, f.Close())
		}
		if err != nil {
			fmt.Fprintln(stderr, "schedtool: writing the failure document to "+s.file+": "+err.Error())
		}
	}
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

// writers opens every output and returns one writer that hands each
// finding to all of them; set configures each (tty: it writes to
// standard output). closeFiles closes the files, reporting the first
// error.
func (v *outputsValue) writers(stdout io.Writer, set func(w report.Writer, tty bool)) (report.Writer, func() error, error) {
	v.opened = true
	var ws []report.Writer
	var files []*os.File
	closeFiles := func() error {
		var errs []error
		for _, f := range files {
			if err := f.Close(); err != nil {
				errs = append(errs, fmt.Errorf("-o: %w", err))
			}
		}
		files = nil
		return errors.Join(errs...)
	}
	for _, s := range v.specs {
		out := stdout
		if s.file != "" {
			f, err := os.OpenFile(s.file, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
			if err != nil {
				closeFiles()
				return nil, nil, &usageError{fmt.Sprintf("-o %s=%s: %v", s.format, s.file, err)}
			}
			files = append(files, f)
			out = f
		}
		w, err := report.New(s.format, out, toolVersion())
		if err != nil {
			closeFiles()
			return nil, nil, &usageError{"-o: " + err.Error()}
		}
		set(w, s.file == "")
		ws = append(ws, w)
	}
	if len(ws) == 1 {
		return ws[0], closeFiles, nil
	}
	return multiWriter(ws), closeFiles, nil
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
