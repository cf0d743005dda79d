package s3

import (
	"context"
	"time"

	"github.com/storbench/storbench/internal/engine"
)

var _ engine.Pauser = (*phase)(nil)

// Pause stops the phase's workers from starting requests for d (a suite
// event's pause); requests in flight finish. With --rate the schedule
// goes on meanwhile, so the requests due in the pause start late and
// their latency, measured from the schedule, shows it.
func (ph *phase) Pause(ctx context.Context, d time.Duration) error {
	until := time.Now().Add(d).UnixNano()
	ph.pausedUntil.Store(until)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
	ph.pausedUntil.CompareAndSwap(until, 0)
	return ctx.Err()
}

// waitPause holds a worker while the phase is paused, or until it stops.
func (ph *phase) waitPause(until int64) {
	d := time.Until(time.Unix(0, until))
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ph.stopCh:
	}
}
