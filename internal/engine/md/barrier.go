package md

import (
	"sync"
	"sync/atomic"
)

// barrier makes n workers wait for each other; the last to arrive runs an
// action before releasing the others.
//
// When every worker has a P of its own (spin), a waiting worker first polls
// for the release, yielding its CPU between polls, for up to spinFor: waking
// a goroutine locked to its thread from a channel goes through the scheduler
// and several futex wake-ups, which on a busy machine can add milliseconds to
// a stage that lasts a few tens of them. mdloop's pthread barrier is one
// futex wake.
type barrier struct {
	mu      sync.Mutex
	n       int
	arrived int
	gen     atomic.Uint64 // incremented at each release
	release chan struct{}
	spin    bool
	// quit, closed by abort, releases every wait for good; it does not
	// need mu, which a worker stuck in an action may hold.
	quit     chan struct{}
	quitting atomic.Bool
}

// spinFor bounds how long (ns) a worker polls a barrier before blocking.
const spinFor = 10_000_000

// wait returns false when the barrier was aborted: the caller leaves.
func (b *barrier) wait(action func()) bool {
	if b.quitting.Load() {
		return false
	}
	b.mu.Lock()
	g := b.gen.Load()
	b.arrived++
	if b.arrived == b.n {
		action()
		b.arrived = 0
		ch := b.release
		b.release = make(chan struct{})
		b.gen.Add(1)
		b.mu.Unlock()
		close(ch)
		return !b.quitting.Load()
	}
	ch := b.release
	b.mu.Unlock()
	if b.spin {
		for deadline := mono() + spinFor; mono() < deadline; {
			if b.gen.Load() != g {
				return !b.quitting.Load()
			}
			if b.quitting.Load() {
				return false
			}
			schedYield()
		}
	}
	select {
	case <-ch:
		return !b.quitting.Load()
	case <-b.quit:
		return false
	}
}

// abort releases every worker waiting at the barrier, and every later
// arrival, for good.
func (b *barrier) abort() {
	if b.quitting.CompareAndSwap(false, true) {
		close(b.quit)
	}
}
