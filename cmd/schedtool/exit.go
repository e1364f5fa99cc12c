package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/estuary/schedtool/internal/usage"
	"github.com/estuary/schedtool/report"
)

// Exit codes, the same for every command (docs/behaviour.md §9).
const (
	ExitOK      = 0 // nothing to report
	ExitFailure = 1 // the tool could not do its job
	ExitReport  = 2 // a person is needed: findings at or above --fail-on, changes pending in a dry run, tasks that need review, remaining users
)

// reportError ends a run that did its job and has something to report
// (exit 2). Its message, if any, goes to standard error.
type reportError struct{ msg string }

func (e *reportError) Error() string { return e.msg }

// usageError is a bad flag, argument or input (exit 1).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// interruptedError is a run stopped by SIGINT, SIGTERM, SIGHUP or
// SIGQUIT: exit 130 for SIGINT (the shell's convention), 1 for the others.
type interruptedError struct {
	sig     string
	written int
}

func (e *interruptedError) Error() string {
	return fmt.Sprintf("interrupted by %s: %d %s written before it, each group whole; nothing half-written, no temp file left", e.sig, e.written, report.Plural(e.written, "file", "files"))
}

// ExitInterrupted is SIGINT's exit code.
const ExitInterrupted = 130

// exitCode maps the error of a command to the process exit code. It is
// the only place where that mapping is made.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return ExitOK
	}
	if msg := errorText(err); msg != "" {
		fmt.Fprintln(stderr, "schedtool: "+msg)
	}
	var rep *reportError
	if errors.As(err, &rep) {
		return ExitReport
	}
	var ie *interruptedError
	if errors.As(err, &ie) && ie.sig == "SIGINT" {
		return ExitInterrupted
	}
	return ExitFailure
}

// errorText is the message of a command's error, as standard error gets
// it after "schedtool: " ("" for a report without one).
func errorText(err error) string {
	var rep *reportError
	if errors.As(err, &rep) {
		return rep.msg
	}
	var ie *interruptedError
	if errors.As(err, &ie) {
		return ie.Error()
	}
	var ue *usage.Error
	if errors.As(err, &ue) {
		return ue.Msg
	}
	return err.Error()
}
