package fio

import (
	"context"
	"fmt"
	"os"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/units"
)

var _ engine.Cleaner = (*prepared)(nil)

// StartCleanup starts removing the phase's own directory with fio's files
// in the background (engine.Cleaner). A phase that works in the
// run's shared area removes there what fio's phases left only when it is
// the last to use it (not Later), on the first host, after every host's
// run ended: renamed aside at once, and removed in the background too.
func (r *prepared) StartCleanup() (wait func(ctx context.Context) error, ok bool) {
	r.abandon()
	if r.env.Keep {
		return nil, false
	}
	own := r.ws.StartRemove()
	if !r.params.usesArea() || r.params.Later || r.env.Rank != 0 {
		return own, true
	}
	area := engine.StartRemoveSharedEntries(r.params.Dir, r.env.RunID, isFioEntry)
	return func(ctx context.Context) error { return joinLeftovers(own(ctx), area(ctx)) }, true
}

// awaitSamePath waits for the removals going on in the background when
// the phase directory about to be made is still there: an earlier phase
// of the same job (a suite's iterations, a sweep's points) is being
// removed from that very path.
func awaitSamePath(ctx context.Context, env engine.Env, wsPath string) {
	if env.AwaitRemovals == nil {
		return
	}
	if _, err := os.Lstat(wsPath); err == nil {
		env.AwaitRemovals(ctx)
	}
}

// checkSpaceAfterRemovals is Prepare's last guard: this host's own files
// against what is free now. The hosts' plans together were checked
// before any host began to prepare (engine.Plan.SpaceOf, asked by the
// controller); here other hosts may be laying out theirs meanwhile on a
// file system they share, so only this host's own count. Files of
// earlier phases still being removed here in the background
// (engine.Env.AwaitRemovals) hold space that will be free before this
// phase starts, but that space counts as free only once it is: a plan
// that does not fit waits for the removals to end, then is checked again.
func checkSpaceAfterRemovals(ctx context.Context, env engine.Env, jf *JobFile, ps *Params) error {
	err := checkSpace(jf, ps.Job.Name, ps.Dir, 1, ps.Shared)
	if err != nil && env.AwaitRemovals != nil {
		env.AwaitRemovals(ctx)
		err = checkSpace(jf, ps.Job.Name, ps.Dir, 1, ps.Shared)
	}
	return err
}

// CheckSpace refuses, as each host's Prepare does, a phase whose files
// cannot fit in the free space of its directory on this machine, hosts
// hosts laying out their own: --dry-run refuses with the same line. note
// is set instead when the file system does not tell its free space
// (statfs reports no blocks, as some FUSE and network file systems do):
// nothing is refused then, and the caller warns in one line.
func CheckSpace(p engine.Phase, hosts int) (note string, err error) {
	n := max(hosts, 1)
	ps, jf, err := resolve(p, &Vars{Index: 0, Count: n})
	if err != nil || ps.ReadFrom != "" || ps.Stonewall != nil {
		// Files read from a neighbour are there already; a stonewall
		// phase's size is a cap, not what it writes; a job file that
		// does not resolve is refused by Validate.
		return "", nil
	}
	if jf.plannedBytes() > 0 {
		if _, _, ok := freeSpace(ps.Dir); !ok {
			return fmt.Sprintf("phase %s: the file system of %s does not tell its free space (statfs reports no blocks): fio's files (at least %s) are not checked against it",
				p.Name, ps.Dir, units.Bytes(jf.plannedBytes())), nil
		}
	}
	return "", checkSpace(jf, ps.Job.Name, ps.Dir, n, ps.Shared)
}
