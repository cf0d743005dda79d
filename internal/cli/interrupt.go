package cli

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/storbench/storbench/internal/engine"
)

// interruptWatch says, from when a run's context ends (a signal) until the
// run returns, that the run is stopping: one line at once, then on a
// terminal a line redrawn every second, otherwise a plain line every
// plainEvery, with how long the cleanup has taken. Call the function it
// returns when the run returned.
func interruptWatch(ctx context.Context, st *State, prog *progress) (stop func()) {
	var mu sync.Mutex
	ended := false
	done := make(chan struct{})
	stopAfter := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if ended {
			return
		}
		prog.done()
		why := "interrupted"
		if c := context.Cause(ctx); c != nil && c != context.Canceled {
			why = c.Error()
		}
		fmt.Fprintf(st.Stdout, "\n%s: stopping the load, then cleaning up what the run made (each step bounded; a second SIGINT or SIGTERM ends storbench at once, leaving what is not removed)\n", why)
		go interruptLines(st, done, time.Now())
	})
	return func() {
		stopAfter()
		mu.Lock()
		if !ended {
			ended = true
			close(done)
		}
		mu.Unlock()
	}
}

// interruptLines prints how long the stop has taken since at, until done
// closes.
func interruptLines(st *State, done <-chan struct{}, at time.Time) {
	every := plainEvery
	if st.TTY {
		every = time.Second
	}
	t := time.NewTicker(every)
	defer t.Stop()
	drawn := false
	for {
		select {
		case <-done:
			if drawn {
				fmt.Fprint(st.Stdout, "\r\033[K")
			}
			return
		case now := <-t.C:
			line := fmt.Sprintf("[stopping] %s since the signal: cleaning up", round(now.Sub(at)))
			if st.TTY {
				fmt.Fprintf(st.Stdout, "\r\033[K%s", line)
				drawn = true
			} else {
				fmt.Fprintln(st.Stdout, line)
			}
		}
	}
}

// warnAddressLimit says in one line, before any load, that this process
// runs under an address-space limit (ulimit -v) below what storbench
// needs: past it the Go runtime ends the process ("fatal error: out of
// memory") with no word of storbench's, and fio fails to allocate its
// buffers.
func warnAddressLimit(st *State, who string) {
	if limit := engine.AddressLimit(); limit != 0 && limit < engine.MinAddressSpace {
		st.logf(0, "warning: %s, under the %d KiB %s needs to run reliably (docs/run.md): the Go runtime may end it with \"fatal error: out of memory\", and fio fail to allocate its buffers; raise it or remove it",
			engine.AddressLimitText(limit), engine.MinAddressSpace>>10, who)
	}
}
