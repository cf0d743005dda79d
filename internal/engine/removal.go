package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
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
// made a directory of the same path (a job that runs again): the phase
// directory is renamed aside first, in its own parent, and removed under
// that name. What the removal could not remove is counted when it ends,
// and named where it is.
func (w *Workspace) StartRemove() (wait func(ctx context.Context) error) {
	// Set aside first, in its own parent (a rename, at once): the next
	// phase of the same job makes its directory meanwhile, and the
	// removal overlaps that phase's preparation too.
	target := w.Path
	aside := filepath.Join(filepath.Dir(w.Path), fmt.Sprintf(".%s.removing-%d", filepath.Base(w.Path), time.Now().UnixNano()))
	if os.Rename(w.Path, aside) == nil {
		target = aside
	}
	done := make(chan struct{})
	var left *Leftover
	go func() {
		defer close(done)
		left = removeAll(target)
	}()
	return func(ctx context.Context) error {
		select {
		case <-done:
		case <-ctx.Done():
			return &LeftoverError{Items: []Leftover{{What: "files and directories", Where: target,
				Reason: "cleanup: the removal did not end in time (" + ctx.Err().Error() + "); it goes on"}}}
		}
		err := w.Leave()
		if left != nil {
			return &LeftoverError{Items: []Leftover{*left}}
		}
		return err
	}
}
