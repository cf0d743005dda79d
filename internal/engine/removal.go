package engine

import (
	"context"
	"os"
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
// and returns at once; wait ends the removal as Remove does (the levels
// above the phase directory, which a phase prepared meanwhile may have
// made its own, go only after, and only when empty), bounded by ctx as
// RemoveContext is.
func (w *Workspace) StartRemove() (wait func(ctx context.Context) error) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		// Only the phase's own directory: the levels above are shared
		// with whatever is prepared meanwhile.
		_ = os.RemoveAll(w.Path)
	}()
	return func(ctx context.Context) error {
		select {
		case <-done:
		case <-ctx.Done():
			return &LeftoverError{Items: []Leftover{{What: "files and directories", Where: w.Path,
				Reason: "cleanup: the removal did not end in time (" + ctx.Err().Error() + "); it goes on"}}}
		}
		// Whatever RemoveAll could not remove is named, with its count,
		// by Remove trying once more.
		return w.RemoveContext(ctx)
	}
}
