package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// Cleaner is a Prepared whose cleanup comes in the parts an agent needs:
// in the background, and on its own while the phase's other hosts may
// still run it.
type Cleaner interface {
	// StartCleanup starts removing what the phase created and returns at
	// once: deleting many or large files takes seconds, and nothing waits
	// for it until the next phase is about to start (the agent awaits it
	// before it reports ready, so a removal never runs inside a measured
	// window nor fools a free-space check). wait blocks until the removal
	// has ended and then finishes the cleanup (Cleanup's result); when ctx
	// ends first, it returns what is still there as a *LeftoverError
	// while the removal goes on. ok is false when nothing would be gained
	// in the background: the caller calls Cleanup instead.
	StartCleanup() (wait func(ctx context.Context) error, ok bool)
	// CleanupLeaving is Cleanup for a host that leaves the phase on its
	// own (its agent was told to stop) before the controller cleaned it
	// up: during a stage or between two. With last false the controller
	// said other hosts still run it: it removes what is this host's own
	// and leaves what the hosts share (the run's shared area: a file
	// another host's job has yet to open) to a host still running it,
	// which removes it when the phase is cleaned up (the heir), or to the
	// run-level cleanup. With last true no other host is left (or no
	// controller answered): it removes what the hosts share too,
	// whatever this host's rank, as the first host's Cleanup would - no
	// one else will.
	CleanupLeaving(ctx context.Context, last bool) error
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
	target := w.at
	if aside, ok := w.at.renameAside(asideName(filepath.Base(w.Path))); ok {
		target = aside
	}
	done := make(chan struct{})
	var left *Leftover
	go func() {
		defer close(done)
		// w.held stays open until wait's Leave, after this.
		left = target.removeAll(w.moved)
	}()
	return func(ctx context.Context) error {
		select {
		case <-done:
		case <-ctx.Done():
			return &LeftoverError{Items: []Leftover{{What: "files and directories", Where: target.path(len(target.names)),
				Reason: "cleanup: the removal did not end in time (" + ctx.Err().Error() + "); it goes on"}}}
		}
		err := w.Leave()
		if left != nil {
			return &LeftoverError{Items: []Leftover{*left}}
		}
		return err
	}
}

// StartRemoveSharedEntries is RemoveSharedEntries in the background, for
// the last phase that uses those entries: each is renamed aside in the
// area at once (a later phase makes an entry of the same name meanwhile),
// then removed; wait waits for that (bounded by ctx, as StartRemove is)
// and then removes the area and the run's levels above only when empty,
// as RemoveSharedEntries does. The area of a run on several hosts stays
// pinned until the run ends (PinSharedArea), so the hosts preparing the
// next phase there never lose it.
func StartRemoveSharedEntries(dir, runID string, match func(name string) bool) (wait func(ctx context.Context) error) {
	area := sharedLevels(dir, runID).at
	var targets []string
	if fd, err := area.open(); err == nil {
		names := readNames(fd)
		unix.Close(fd)
		for _, name := range names {
			if !match(name) {
				continue
			}
			// Renamed only when it is a directory storbench can see is
			// its own; anything else is removed under its name.
			if _, ok := area.sub(name).renameAside(asideName(name)); ok {
				name = asideName(name)
			}
			targets = append(targets, name)
		}
	}
	done := make(chan struct{})
	var left []Leftover
	go func() {
		defer close(done)
		for _, name := range targets {
			if l := area.removeEntry(name); l != nil {
				left = append(left, *l)
			}
		}
	}()
	return func(ctx context.Context) error {
		select {
		case <-done:
		case <-ctx.Done():
			return &LeftoverError{Items: []Leftover{{What: "files and directories", Where: area.path(3),
				Reason: "cleanup: the removal did not end in time (" + ctx.Err().Error() + "); it goes on"}}}
		}
		// Nothing matches now: only the empty levels go.
		err := RemoveSharedEntries(dir, runID, func(string) bool { return false })
		if len(left) > 0 {
			return &LeftoverError{Items: left}
		}
		return err
	}
}

// asideName is the name a directory is renamed to, in its own parent,
// for its removal in the background.
func asideName(name string) string {
	return fmt.Sprintf(".%s.removing-%d", name, time.Now().UnixNano())
}
