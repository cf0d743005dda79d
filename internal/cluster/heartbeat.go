package cluster

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// beatEvery is how often the controller sends the agent a heartbeat:
// every HeartbeatEvery, or a sixth of HeartbeatTimeout when that is longer
// (30 s: every 5 s). A knob raised for a busy machine thus also lightens
// the controller's work: 10,000 agents' heartbeats every second were more
// than a controller sharing 2 cores sent in time, and agents waiting 30 s
// stopped their phase.
func (a *RemoteAgent) beatEvery() time.Duration {
	return max(HeartbeatEvery, a.HeartbeatTimeout/6)
}

// startHeartbeats sends a heartbeat every beatEvery until
// stopHeartbeats. The loop only keeps time: each beat is sent from a
// goroutine of its own (at most two at once), so a send that waits (a slow
// answer, a stuck connection) neither delays the next beat nor counts as
// this process being stopped; lastBeat and paused measure the loop's own
// timer, which runs late only when this process was stopped or starved.
func (a *RemoteAgent) startHeartbeats() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	a.mu.Lock()
	a.stopHB, a.hbDone = cancel, done
	a.lastBeat, a.paused = time.Now(), 0
	a.mu.Unlock()
	go func() {
		defer close(done)
		var sends sync.WaitGroup
		defer sends.Wait()
		slots := make(chan struct{}, 2)
		t := time.NewTicker(a.beatEvery())
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				a.mu.Lock()
				a.paused = max(a.paused, time.Since(a.lastBeat))
				a.lastBeat = time.Now()
				a.mu.Unlock()
				select {
				case slots <- struct{}{}:
				default:
					continue // two beats still wait for their answers
				}
				sends.Add(1)
				go func() {
					defer sends.Done()
					a.beat(ctx)
					<-slots
				}()
			}
		}
	}()
}

// beat sends one heartbeat, waiting for its answer until the next is due
// (at least two seconds). A fixed two seconds gave up, on a busy machine,
// on beats not yet written (with 30 s, one in five seconds): the agent
// heard none, and stopped its phase though this controller kept time.
func (a *RemoteAgent) beat(ctx context.Context) {
	hctx, hcancel := context.WithTimeout(ctx, max(2*time.Second, a.beatEvery()))
	defer hcancel()
	if req, err := a.request(hctx, http.MethodPost, "heartbeat", nil); err == nil {
		if resp, err := a.do(req, true); err == nil {
			resp.Body.Close()
		}
	}
}

func (a *RemoteAgent) stopHeartbeats() {
	a.mu.Lock()
	stop, done := a.stopHB, a.hbDone
	a.stopHB, a.hbDone = nil, nil
	a.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
}
