package engine

import (
	"context"
)

// BackgroundCleaner is a Prepared whose cleanup may go on while what
// follows its phase is prepared: deleting many or large files takes
// seconds, and nothing waits for it until the next phase is about to
// start (the agent awaits it before it reports ready, so a removal never
// runs inside a measured window nor fools a free-space check).
type BackgroundCleaner interface {
	// StartCleanup starts removing what the phase created and returns at
	// once. wait blocks until the removal has ended and then finishes the
	// cleanup (Cleanup's result); when ctx ends first, it returns what is
	// still there as a *LeftoverError while the removal goes on. ok is
	// false when nothing would be gained in the background: the caller
	// calls Cleanup instead.
	StartCleanup() (wait func(ctx context.Context) error, ok bool)
}

// StartRemove starts removing the phase directory with everything in it
// and returns at once. wait waits for that removal (bounded by ctx, as
// RemoveContext is) and then removes the levels above as Leave does, only
// when empty: a phase prepared meanwhile may have made them its own, or
// made a directory of the same path (a job that runs again). What the
// removal could not remove is counted when it ends, before anyone else
// can be in that path.
func (w *Workspace) StartRemove() (wait func(ctx context.Context) error) {
	done := make(chan struct{})
	var left *Leftover
	go func() {
		defer close(done)
		left = removeAll(w.Path)
	}()
	return func(ctx context.Context) error {
		select {
		case <-done:
		case <-ctx.Done():
			return &LeftoverError{Items: []Leftover{{What: "files and directories", Where: w.Path,
				Reason: "cleanup: the removal did not end in time (" + ctx.Err().Error() + "); it goes on"}}}
		}
		err := w.Leave()
		if left != nil {
			return &LeftoverError{Items: []Leftover{*left}}
		}
		return err
	}
}
