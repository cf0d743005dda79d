package run

import (
	"context"
	"errors"
	"fmt"

	"github.com/storbench/storbench/internal/exit"
)

// What an error of a run means for whoever started it is its exit code
// (package exit): the command line ends with it.
const (
	// Failed: the run ran, and a phase failed, left something behind, or
	// the results could not all be saved. What finished is in the folder.
	Failed = exit.Failed
	// BadInput: the plan cannot run as given. Nothing ran, and no results
	// folder was left.
	BadInput = exit.BadInput
	// Interrupted: the run was stopped (a signal); results so far are
	// kept.
	Interrupted = exit.Interrupted
)

// Error is an error of a run, with its exit code (exit.Error).
type Error = exit.Error

// badInput marks err as bad input, unless it already has a code.
func badInput(err error) error { return exit.With(exit.BadInput, err) }

func badInputf(format string, args ...any) error { return exit.Errorf(exit.BadInput, format, args...) }

// interruptedBeforeRun is the error of a run whose ctx ended before
// anything was created: a signal, or its launcher's agents that went away
// on their own (ctx's cause an *agentsEnded, which untilEnded gives). The
// latter says so in the launcher's words: nobody interrupted that run, and
// "interrupted before anything ran" sent its user looking for a signal.
// It ends the run as interrupted all the same (exit 130), as the same end
// does mid-run (cluster.Ender).
func interruptedBeforeRun(ctx context.Context) error {
	var ended *agentsEnded
	if errors.As(context.Cause(ctx), &ended) {
		return ended.beforeRun()
	}
	return exit.InterruptedBeforeRun()
}

// beforeRun is the error of a run whose launcher's agents ended before
// its first phase.
func (e *agentsEnded) beforeRun() error {
	return &Error{Code: Interrupted, Err: fmt.Errorf("%v before the first phase: the run stopped, nothing ran", e)}
}
