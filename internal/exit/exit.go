// Package exit is storbench's one error vocabulary: an error carries the
// exit code the program ends with, decided where the error is made (as
// k6's errext does), so the run, the command line and whatever comes next
// agree on what bad input, a failure and an interrupt are.
package exit

import (
	"context"
	"errors"
	"fmt"
)

// The exit codes of storbench.
const (
	// OK: the command did what was asked.
	OK = 0
	// Failed: the command ran and failed (a phase failed or left something
	// behind, results could not all be saved). What finished is kept.
	Failed = 1
	// BadInput: nothing was run; one line says what to fix.
	BadInput = 2

	// Regression: check found a figure worse than its baseline beyond
	// both noise and the threshold (unless --fail-code says otherwise).
	Regression = 3

	// LimitCrossed: every phase ran and its results are written, and a
	// figure crossed a limit set on it (--limit, a suite's limits:), or
	// was not measured. A failed phase (Failed), bad input or an
	// interrupt wins over it.
	LimitCrossed = 4

	// Interrupted: stopped by a signal (128 + SIGINT); what finished is
	// kept.
	Interrupted = 130
)

// Error is an error with the exit code it ends the program with.
type Error struct {
	// Code is the exit code (BadInput, Failed, Interrupted, or a code the
	// user chose, as compare's --fail-code).
	Code int
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Errorf is a new error with the exit code code.
func Errorf(code int, format string, args ...any) error {
	return &Error{Code: code, Err: fmt.Errorf(format, args...)}
}

// With gives err the exit code code, unless it carries one already (the
// code is decided where the error is made); nil stays nil.
func With(code int, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{Code: code, Err: err}
}

// InterruptedBeforeRun is the error of a command stopped by a signal
// before it ran anything.
func InterruptedBeforeRun() error {
	return &Error{Code: Interrupted, Err: errors.New("interrupted before anything ran")}
}

// CodeOf is the exit code of err: OK for nil, the code it carries, or
// Interrupted for a cancelled context, and Failed for any other error.
func CodeOf(err error) int {
	var e *Error
	switch {
	case err == nil:
		return OK
	case errors.As(err, &e):
		return e.Code
	case errors.Is(err, context.Canceled):
		return Interrupted
	default:
		return Failed
	}
}
