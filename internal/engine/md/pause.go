package md

import (
	"context"
	"time"

	"github.com/storbench/storbench/internal/engine"
)

var _ engine.Pauser = (*prepared)(nil)

// pausePoll is how often a paused worker looks whether the pause ended
// early or the run stopped.
const pausePoll = 20 * time.Millisecond

// Pause holds this host's workers for d (a suite event's pause: a client
// that hangs): each finishes the item it is on (whose operation then ends
// in the pause) and starts no other until the pause ends. The stages of items pause (create, stat, read, rename,
// remove); the tree's creation and removal, a directory rotation and find
// go on. The paused seconds count in the phase's window and in its
// per-second series (as seconds without operations), not in an
// operation's latency: the clock of the next item starts when the pause
// ends.
func (pr *prepared) Pause(ctx context.Context, d time.Duration) error {
	until := mono() + int64(d)
	pr.pausedUntil.Store(until)
	pr.sample()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
	pr.pausedUntil.CompareAndSwap(until, 0)
	pr.sample()
	return ctx.Err()
}

// sample asks the running phase for a sample of its per-second series
// now, so that an interval of it starts or ends with a pause: the
// operations before the pause are not spread over its seconds.
func (pr *prepared) sample() {
	select {
	case pr.sampleNow <- struct{}{}:
	default:
	}
}

// waitPause holds the worker while its phase is paused, until the pause
// ends or the run stops, and returns the clock (mono) then.
func (w *worker) waitPause() int64 {
	for {
		u := w.r.pr.pausedUntil.Load()
		now := mono()
		if u == 0 || now >= u || w.r.stop.Load() {
			return now
		}
		time.Sleep(min(time.Duration(u-now), pausePoll))
	}
}
