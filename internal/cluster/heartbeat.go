package cluster

import (
	"context"
	"errors"
	"io"
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
// stopHeartbeats. Over HTTP/2 the beats of a phase go as the bytes of
// one request (beatStream); an agent without that endpoint, or that speaks
// only HTTP/1.1, gets a request a beat. The
// loop only keeps time: a beat is handed to the stream, or sent from a
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
		var stream *beatStream
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
				if stream != nil && stream.send() {
					continue
				}
				if !a.old.Load() && (stream == nil || !stream.unknown()) {
					// The first beat, or the stream ended (the session did,
					// or the connection broke): a new stream's start is a
					// beat.
					stream = a.openBeats(ctx, &sends)
					continue
				}
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

// beatStream is the body of a phase's heartbeat request (POST
// /v1/heartbeats): each Read waits for a beat and gives one byte, which
// the HTTP/2 transport sends at once as a frame of its own on the stream
// it opened once. A request a beat cost a stream, headers both ways, an
// answer and a goroutine each: 19% of the CPU of a controller driving
// 3,000 agents, and as much again on the agents' side.
type beatStream struct {
	ctx   context.Context
	beats chan struct{} // a beat not yet read: at most one
	ended chan struct{} // closed when the request ended
	err   error         // why it ended; read once ended is closed
	// closed is closed when the transport closes the body: an answer
	// came before it ended (an agent that does not know the endpoint).
	closed    chan struct{}
	closeOnce sync.Once
}

// Close ends Read: the transport closes a request's body when the answer
// comes first, and waits for its writer, which waits in Read.
func (b *beatStream) Close() error {
	b.closeOnce.Do(func() { close(b.closed) })
	return nil
}

// Read gives a byte for each beat, and the end once the heartbeats stop.
func (b *beatStream) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	select {
	case <-b.beats:
		p[0] = '.'
		return 1, nil
	case <-b.ctx.Done():
		return 0, io.EOF
	case <-b.closed:
		return 0, io.EOF
	}
}

// send hands the stream a beat; false once the stream has ended. A beat
// still unread when the next is due stays one beat: the connection is
// held up, and the agent hears from it when it moves again.
func (b *beatStream) send() bool {
	select {
	case <-b.ended:
		return false
	default:
	}
	select {
	case b.beats <- struct{}{}:
	default:
	}
	return true
}

// unknown says the stream ended because the agent does not know the
// endpoint (an older storbench): then every beat is a request.
func (b *beatStream) unknown() bool {
	select {
	case <-b.ended:
		var nf notFoundErr
		return errors.As(b.err, &nf)
	default:
		return false
	}
}

// openBeats starts the phase's heartbeat request; it runs, in a goroutine
// sends waits for, until ctx ends or the agent or connection ends it.
func (a *RemoteAgent) openBeats(ctx context.Context, sends *sync.WaitGroup) *beatStream {
	b := &beatStream{ctx: ctx, beats: make(chan struct{}, 1), ended: make(chan struct{}), closed: make(chan struct{})}
	req, err := a.request(ctx, http.MethodPost, "heartbeats", nil)
	if err != nil {
		b.err = err
		close(b.ended)
		return b
	}
	req.Body, req.ContentLength = b, -1
	sends.Add(1)
	go func() {
		defer sends.Done()
		resp, err := a.do(req, true)
		if err == nil {
			a.beatAnswers(resp.Body)
			resp.Body.Close()
		}
		b.err = err
		close(b.ended)
		var nf notFoundErr
		if errors.As(err, &nf) {
			a.beat(ctx) // the beat the stream was to start with
		}
	}()
	return b
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
			a.beatAnswers(resp.Body)
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
