package md

import (
	"context"
	"os"

	"github.com/storbench/storbench/internal/engine"
)

var _ engine.Cleaner = (*prepared)(nil)

// StartCleanup starts removing the phase's workspace, with what its
// operations left (a phase that only creates leaves every item), in the
// background (engine.Cleaner), as fio's files are: the agent
// awaits it before the next phase's start. A workspace the hosts share is
// removed as Cleanup would, by the first host alone once every host's run
// ended (the controller starts cleanups after all runs), renamed aside
// first in the run's shared area, which stays pinned until the run ends:
// the removal never takes a level the other hosts prepare the next phase
// in. A tree kept for a later phase stays.
func (pr *prepared) StartCleanup() (wait func(ctx context.Context) error, ok bool) {
	if pr.env.Keep || pr.ws == nil {
		return nil, false
	}
	if pr.shared && (pr.env.Rank != 0 || pr.keepsTree && !pr.failed) {
		return nil, false // Cleanup does nothing
	}
	return pr.ws.StartRemove(), true
}

// awaitSamePath waits for the removals going on in the background when
// the workspace about to be made is still there: an earlier phase of the
// same name (a suite's iterations) is being removed from that very path.
func awaitSamePath(ctx context.Context, env engine.Env, path string) {
	if env.AwaitRemovals == nil {
		return
	}
	if _, err := os.Lstat(path); err == nil {
		env.AwaitRemovals(ctx)
	}
}

// CleanupLeaving is Cleanup for a host that leaves the phase on its own
// (engine.Cleaner): a workspace the hosts share stays while others run
// the phase (not last), on the first host too, for a host still running
// it to remove (the heir) or the run-level cleanup, since a host that
// began late may still make its items in it; the
// phase's last host removes it, whatever its rank, as the first host's
// Cleanup would.
func (pr *prepared) CleanupLeaving(ctx context.Context, last bool) error {
	if pr.shared {
		return pr.cleanup(ctx, last)
	}
	return pr.Cleanup(ctx)
}
