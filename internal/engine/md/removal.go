package md

import (
	"context"
	"os"

	"github.com/storbench/storbench/internal/engine"
)

var _ engine.BackgroundCleaner = (*prepared)(nil)

// StartCleanup starts removing the phase's own workspace, with what its
// operations left (a phase that only creates leaves every item), in the
// background (engine.BackgroundCleaner), as fio's files are: the agent
// awaits it before the next phase's start. A workspace the hosts share
// is removed by Cleanup, at once, by the first host after every host's
// run ended: in the background its removal would end while other hosts
// prepare the next phase in the same shared area, whose levels it
// removes when it finds them empty.
func (pr *prepared) StartCleanup() (wait func(ctx context.Context) error, ok bool) {
	if pr.env.Keep || pr.ws == nil || pr.shared {
		return nil, false
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
