package testutil

import (
	"sync"
	"time"
)

// Lateness measures how late this machine wakes a sleeping task while a
// test runs: a goroutine sleeps 1 ms again and again and keeps the
// longest oversleep. On an idle machine that is well under a millisecond
// or two; on a loaded one (other tests, builds, busy loops) it grows to
// tens or hundreds of milliseconds, and so does every wait for a
// scheduler's wake-up that a timing assertion holds. A test scales such an
// assertion by what Stop returns instead of a wall constant, so it holds
// under load and keeps its bound where the machine is not loaded.
type Lateness struct {
	stop chan struct{}
	done chan struct{}
	mu   sync.Mutex
	max  time.Duration
}

// StartLateness starts measuring.
func StartLateness() *Lateness {
	l := &Lateness{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(l.done)
		const nap = time.Millisecond
		t := time.NewTimer(nap)
		defer t.Stop()
		for {
			t0 := time.Now()
			t.Reset(nap)
			select {
			case <-l.stop:
				return
			case <-t.C:
			}
			late := time.Since(t0) - nap
			l.mu.Lock()
			l.max = max(l.max, late)
			l.mu.Unlock()
		}
	}()
	return l
}

// Max returns the longest oversleep so far.
func (l *Lateness) Max() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.max
}

// Stop ends the measurement and returns the longest oversleep seen.
func (l *Lateness) Stop() time.Duration {
	select {
	case <-l.stop:
	default:
		close(l.stop)
	}
	<-l.done
	return l.Max()
}
