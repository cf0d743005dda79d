package run

import (
	"errors"
	"fmt"
)

// Kind is what an error of a run means for whoever started it; the
// command line turns it into an exit code.
type Kind int

const (
	// Failed: the run ran, and a phase failed, left something behind, or
	// the results could not all be saved. What finished is in the folder.
	Failed Kind = iota
	// BadInput: the plan cannot run as given. Nothing ran, and no results
	// folder was left.
	BadInput
	// Interrupted: the run was stopped (a signal); results so far are
	// kept.
	Interrupted
)

// Error is an error of a run, with its Kind.
type Error struct {
	Kind Kind
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// badInput marks err as bad input, unless it already has a kind.
func badInput(err error) error {
	if err == nil {
		return nil
	}
	var re *Error
	if errors.As(err, &re) {
		return err
	}
	return &Error{Kind: BadInput, Err: err}
}

func badInputf(format string, args ...any) error {
	return &Error{Kind: BadInput, Err: fmt.Errorf(format, args...)}
}

// interruptedBeforeRun is the error of a run stopped by a signal before
// anything was created.
func interruptedBeforeRun() error {
	return &Error{Kind: Interrupted, Err: errors.New("interrupted before anything ran")}
}
