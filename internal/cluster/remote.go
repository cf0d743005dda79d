package cluster

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/storbench/storbench/internal/engine"
)

// RemoteAgent is the controller's side of an agent on another host (or
// another process): it implements Agent over the protocol, so the
// controller drives local and remote agents through the same calls.
type RemoteAgent struct {
	// Addr is the agent's host:port.
	Addr string
	// Host is the agent's name in results and in per-host paths.
	Host string
	// Token is the shared secret sent as a bearer token.
	Token string
	// TLS, if set, makes the connection HTTPS with this configuration
	// (server verification and, for mTLS, the client certificate).
	TLS *tls.Config
	// Controller names this controller in the agent's "busy" errors.
	Controller string
	// DropCaches asks the agent to drop the page cache before each phase.
	DropCaches bool
	// Dir is where this host has the run's target directory, when it is
	// at a path of its own.
	Dir HostDir
	// HeartbeatTimeout is the one knob of this agent's timeouts: how long
	// the agent waits without a heartbeat before it stops the phase (it is
	// sent with each phase), and, two seconds more (silenceFor), how long
	// a stream may say nothing unless Silence is set. HeartbeatTimeout when
	// zero.
	HeartbeatTimeout time.Duration
	// Silence is how long a stream may say nothing before the agent is
	// marked lost (silenceFor(HeartbeatTimeout) when zero).
	Silence time.Duration

	once sync.Once
	// client makes every call over one HTTP/2 connection (h2c without
	// TLS): streams, heartbeats, releases and stops are its streams.
	client *http.Client
	// h1 and h1beats are for an agent that speaks only HTTP/1.1 (an older
	// storbench, or a plain server): calls and streams, and heartbeats on
	// their own connection. old is set once such an agent answered, h2ok
	// once the agent answered over HTTP/2 (then no fallback is tried).
	h1, h1beats *http.Client
	old, h2ok   atomic.Bool

	mu     sync.Mutex
	offset time.Duration // agent clock - controller clock
	// rtt is the round trip of the sample offset came from, clockAt when
	// it was measured.
	rtt     time.Duration
	clockAt time.Time
	session string
	bar     engine.Barrier // the phase's barrier across hosts, if any
	stopHB  context.CancelFunc
	hbDone  chan struct{}
	// lastBeat is when the heartbeat loop last ran, paused the longest
	// it went without running (this process stopped or starved).
	lastBeat time.Time
	paused   time.Duration
	// addressLimit is the agent's address-space limit, from its Info.
	addressLimit uint64

	// result is what the prepared phase's engine adds to the bound of a
	// run's last line (Request.ResultBytes, ResultPerSecond).
	result resultSize

	// hurry is set once a call of this agent saw the run's context end (a
	// signal): every later stream waits at most HurrySilence for a line,
	// and once one of them did in vain (gone), no later call waits at all.
	hurry, gone atomic.Bool
}

// HurrySilence is how long the controller waits for a line from an agent
// once the run was interrupted: an agent that answers keeps talking (a
// tick every second while it stops and cleans up), and one that does not
// is taken as lost at once rather than waited for, so a stopped run is
// not held by an agent that went quiet (stopped, SIGSTOP, or cut off).
const HurrySilence = 2 * time.Second

var (
	_ Agent    = (*RemoteAgent)(nil)
	_ Stopper  = (*RemoteAgent)(nil)
	_ answerer = (*RemoteAgent)(nil)
)

// answers says a RemoteAgent's stages call answered once the agent's
// answer (its headers) came: the controller's slot is freed then.
func (a *RemoteAgent) answers() {}

// Name returns the agent's name in results.
func (a *RemoteAgent) Name() string { return a.Host }

func (a *RemoteAgent) init() {
	a.once.Do(func() {
		if a.HeartbeatTimeout <= 0 {
			a.HeartbeatTimeout = HeartbeatTimeout
		}
		a.HeartbeatTimeout = min(a.HeartbeatTimeout, maxHeartbeatTimeout)
		if a.Silence <= 0 {
			a.Silence = silenceFor(a.HeartbeatTimeout)
		}
		dial := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 5 * time.Second}
		// The one connection of an agent stays between phases and while
		// thousands of other agents are connected to or prepared (minutes
		// with 10,000): 30 s idle closed it, and the agents' connections
		// were made again all at once, past what listen queues hold.
		mk := func(p *http.Protocols, idle time.Duration) *http.Client {
			return &http.Client{Transport: &http.Transport{
				DialContext:         dial.DialContext,
				TLSClientConfig:     a.TLS,
				TLSHandshakeTimeout: 5 * time.Second,
				// As long as a stream's first answer may take (stream):
				// the knob's, not a fixed 10 s that cut slow prepares.
				ResponseHeaderTimeout: a.Silence + 5*time.Second,
				MaxIdleConnsPerHost:   2,
				IdleConnTimeout:       idle,
				DisableCompression:    true,
				Protocols:             p,
				// The agents' frames are read into a buffer the
				// connection keeps as large as the largest one.
				HTTP2: &http.HTTP2Config{MaxReadFrameSize: frameSize},
			}}
		}
		h2, h1 := new(http.Protocols), new(http.Protocols)
		h1.SetHTTP1(true)
		if a.TLS != nil {
			h2.SetHTTP2(true)
		} else {
			h2.SetUnencryptedHTTP2(true)
		}
		a.client, a.h1, a.h1beats = mk(h2, 10*time.Minute), mk(h1, 30*time.Second), mk(h1, 30*time.Second)
	})
}

func (a *RemoteAgent) url(path string) string {
	scheme := "http"
	if a.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + a.Addr + PathPrefix + "/" + path
}

// request builds a request with the token, protocol and session headers.
func (a *RemoteAgent) request(ctx context.Context, method, path string, body any) (*http.Request, error) {
	a.init()
	var b []byte
	if body != nil {
		var err error
		if b, err = json.Marshal(body); err != nil {
			return nil, err
		}
	}
	var rd io.Reader
	if b != nil {
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.url(path), rd)
	if err != nil {
		return nil, err
	}
	if len(b) > bodyFrame {
		// In small frames, also to an agent that takes larger ones (an
		// older storbench); a retry over HTTP/1.1 reads it again.
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(frameReads{bytes.NewReader(b)}), nil }
		req.Body, _ = req.GetBody()
	}
	req.Header.Set(HeaderProtocol, protoString)
	if a.Token != "" {
		req.Header.Set("Authorization", "Bearer "+a.Token)
	}
	a.mu.Lock()
	if a.session != "" {
		req.Header.Set(HeaderSession, a.session)
	}
	a.mu.Unlock()
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

// frameSize bounds the HTTP/2 frames between the controller and an agent,
// both ways (the agent's server takes no larger ones either: HTTPServer).
// Each end of a connection keeps a frame buffer as large as the largest
// frame it wrote or read, for the connection's life, and Go's ends take
// frames up to 1 MiB: with a prepare request of 120 KB written as one
// frame (10,000 hosts' names), 10,000 agents' connections kept 1.2 GiB of
// the controller's heap. 16 KiB is the least maximum the protocol allows.
const frameSize = 16 << 10

// bodyFrame is the most of a request's body the controller writes in one
// frame: a request's body is written once, and frames smaller than the
// protocol's least maximum keep the buffers smaller still at both ends.
const bodyFrame = 4 << 10

// frameReads reads at most bodyFrame bytes at a time: Go's HTTP/2 client
// writes what one read of a request's body gave as one DATA frame, up to
// the agent's maximum.
type frameReads struct{ r io.Reader }

func (f frameReads) Read(p []byte) (int, error) {
	return f.r.Read(p[:min(len(p), bodyFrame)])
}

// roundTrip sends req over HTTP/2; to an agent that never answered over
// it, a failed try is made again over HTTP/1.1, and if that answers, the
// agent is taken as one that speaks only HTTP/1.1 from then on. An older
// agent thus still works (with two connections, as before), and the
// protocol number in the answer still decides whether the two sides agree.
// beat says the request is a heartbeat, a release or a stop: over
// HTTP/1.1, these go on a connection of their own, never queued behind a
// stream.
func (a *RemoteAgent) roundTrip(req *http.Request, beat bool) (*http.Response, error) {
	if a.old.Load() {
		if beat {
			return a.h1beats.Do(req)
		}
		return a.h1.Do(req)
	}
	resp, err := a.client.Do(req)
	if err == nil {
		a.h2ok.Store(true)
		return resp, nil
	}
	if a.h2ok.Load() || req.Context().Err() != nil || !spokeHTTP1(err) {
		return nil, err
	}
	again := req.Clone(req.Context())
	if req.GetBody != nil {
		body, berr := req.GetBody()
		if berr != nil {
			return nil, err
		}
		again.Body = body
	}
	resp, err1 := a.h1.Do(again)
	if err1 != nil {
		return nil, err
	}
	a.old.Store(true)
	return resp, nil
}

// notFoundErr is an agent's answer to an endpoint it does not know: an
// older storbench of the same protocol.
type notFoundErr string

func (e notFoundErr) Error() string { return string(e) }

// spokeHTTP1 says whether err, from a try over HTTP/2, may be an agent
// that answered in HTTP/1.1 (Go's HTTP/2 client reads that as a frame too
// large, or, when the answer came with the connection's close, as a
// connection that could not be established; an HTTP/1.1 server closes on
// the preface with the client's settings unread, so the client, still
// writing, may instead see a broken pipe or a reset) or, over TLS, offered
// no h2: not an agent that is slow (a timeout) or not there (the dial).
// Only a try to an agent that never answered over HTTP/2 falls back, and
// the HTTP/1.1 try must be answered, so an agent that is gone stays lost.
func spokeHTTP1(err error) bool {
	if errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "looked like an HTTP/1.1 header") || strings.Contains(msg, "unexpected ALPN protocol") ||
		strings.Contains(msg, "client conn could not be established") ||
		strings.Contains(msg, "broken pipe") || strings.Contains(msg, "connection reset by peer")
}

// do sends a request and checks the answer's status and protocol. The
// caller closes the body of a non-nil response.
func (a *RemoteAgent) do(req *http.Request, beat bool) (*http.Response, error) {
	a.init()
	resp, err := a.roundTrip(req, beat)
	if err != nil {
		if ctxErr := req.Context().Err(); ctxErr != nil {
			return nil, ctxErr
		}
		return nil, fmt.Errorf("%w: %s: %v", ErrLost, a.Addr, plainNetErr(err))
	}
	if p := resp.Header.Get(HeaderProtocol); p != protoString {
		resp.Body.Close()
		if p == "" {
			return nil, fmt.Errorf("%s does not answer as a storbench agent (HTTP %s)", a.Addr, resp.Status)
		}
		var n int
		fmt.Sscan(p, &n)
		return nil, protocolErr(n, resp.Header.Get(HeaderVersion), protoString)
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		var eb errorBody
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		if json.Unmarshal(b, &eb) != nil || eb.Error == "" {
			eb.Error = resp.Status
		}
		if eb.Stopped != "" {
			return nil, fmt.Errorf("%w (%s)", ErrStopped, eb.Stopped)
		}
		if resp.StatusCode == http.StatusNotFound {
			return nil, notFoundErr(eb.Error)
		}
		return nil, errors.New(eb.Error)
	}
	return resp, nil
}

// plainNetErr strips Go's `Post "http://...": ` wrapping from a transport
// error, keeping what a user can act on ("connection refused").
func plainNetErr(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// Info asks the agent for its versions and clock.
func (a *RemoteAgent) Info(ctx context.Context) (Info, error) {
	var in Info
	req, err := a.request(ctx, http.MethodGet, "info", nil)
	if err != nil {
		return in, err
	}
	resp, err := a.do(req, false)
	if err != nil {
		return in, err
	}
	defer resp.Body.Close()
	if err := decodeAnswer(resp.Body, &in); err != nil {
		return in, fmt.Errorf("%s: bad info: %v", a.Addr, err)
	}
	in.Host, in.Addr = a.Host, a.Addr
	a.mu.Lock()
	in.ClockOffsetNs = int64(a.offset)
	a.addressLimit = in.AddressLimit
	a.mu.Unlock()
	return in, nil
}

// MeasureClock takes n samples of the agent's clock and keeps the one with
// the shortest round trip: offset = agent time - the controller's time
// halfway through the round trip. Later start times sent to the agent, and
// the times in its results, are translated by it.
func (a *RemoteAgent) MeasureClock(ctx context.Context, n int) (offset, rtt time.Duration, err error) {
	best := time.Duration(-1)
	for range max(n, 1) {
		req, err := a.request(ctx, http.MethodGet, "time", nil)
		if err != nil {
			return 0, 0, err
		}
		t0 := time.Now()
		resp, err := a.do(req, false)
		if err != nil {
			return 0, 0, err
		}
		var tb timeBody
		err = decodeAnswer(resp.Body, &tb)
		resp.Body.Close()
		t2 := time.Now()
		if err != nil {
			return 0, 0, fmt.Errorf("%s: bad time: %v", a.Addr, err)
		}
		d := t2.Sub(t0)
		if best < 0 || d < best {
			best = d
			mid := t0.Add(d / 2)
			offset = time.Unix(0, tb.TimeNs).Sub(mid)
		}
	}
	a.mu.Lock()
	a.offset, a.rtt, a.clockAt = offset, best, time.Now()
	a.mu.Unlock()
	return offset, best, nil
}

// recentClock returns the clock offset and its round trip when they were
// measured within maxAge.
func (a *RemoteAgent) recentClock(maxAge time.Duration) (offset, rtt time.Duration, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.clockAt.IsZero() || time.Since(a.clockAt) > maxAge {
		return 0, 0, false
	}
	return a.offset, a.rtt, true
}

// Prepare opens a phase session on the agent, starts heartbeats and
// prepares the phase there.
func (a *RemoteAgent) Prepare(ctx context.Context, req Request) error {
	a.init()
	var b [16]byte
	_, _ = rand.Read(b[:])
	a.mu.Lock()
	a.session = hex.EncodeToString(b[:])
	a.bar = req.Barrier
	a.mu.Unlock()
	a.result = resultSize{req.ResultBytes, req.ResultPerSecond}
	req.Host = a.Host
	req.HeartbeatTimeoutNs = int64(a.HeartbeatTimeout)
	req.DropCaches = req.DropCaches || a.DropCaches
	req.Phase.Params = a.Dir.apply(req.Phase.Params)
	if req.Controller == "" {
		req.Controller = a.Controller
	}
	a.startHeartbeats()
	l, err := a.stream(ctx, "prepare", req, nil, nil)
	if err == nil {
		err = l.err()
	}
	if err != nil {
		a.stopHeartbeats()
	}
	return err
}

// Run starts the prepared phase at startAt (the controller's clock) and
// relays the agent's snapshots to live. If ctx ends, it asks the agent to
// stop and still waits a while for what the agent measured.
func (a *RemoteAgent) Run(ctx context.Context, startAt time.Time, live engine.LiveFunc) (*engine.HostResult, error) {
	a.mu.Lock()
	off, bar := a.offset, a.bar
	a.mu.Unlock()
	// Each arrival waits in its own goroutine so the stream is read on (and
	// the silence timer fed) while the barrier is closed.
	arrive := func(al arriveLine) { go a.relay(ctx, bar, off, al) }
	l, err := a.stream(ctx, "run", runBody{StartNs: startAt.Add(off).UnixNano()}, live, arrive)
	if l == nil {
		// The agent may have dropped the phase because this controller
		// went quiet (stopped between preparing and running): say so.
		return nil, a.whyLost(err)
	}
	shiftResult(l.Result, -off)
	if err == nil {
		err = l.err()
	}
	if err != nil {
		err = a.whyLost(err)
	}
	if l.Stopped != "" {
		// The agent cleaned up on its own; there is no session left.
		a.stopHeartbeats()
	}
	return l.Result, err
}

// relay takes the agent's arrival at a barrier to the controller's barrier
// and posts the release back, with the common start in the agent's clock
// (the same offset as the run's start and results, so that every host's
// start comes back as the same instant).
func (a *RemoteAgent) relay(ctx context.Context, bar engine.Barrier, off time.Duration, al arriveLine) {
	var rel engine.Release
	err := errNoBarrier
	if m, ok := bar.(hubMember); ok {
		rel, err = m.wait(ctx, al.Name, al.Data, al.LateNs)
	} else if bar != nil {
		rel, err = bar.Wait(ctx, al.Name, al.Data)
	}
	body := releaseBody{Name: al.Name}
	if err != nil {
		body.Error = err.Error()
	} else {
		body.StartNs, body.Hosts = rel.Start.Add(off).UnixNano(), rel.Hosts
	}
	// The agent's session ends on its own if this never arrives; the bound
	// only keeps a stuck connection from holding this goroutine.
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	req, err := a.request(pctx, http.MethodPost, "release", body)
	if err != nil {
		return
	}
	resp, err := a.do(req, true)
	if err != nil {
		return
	}
	resp.Body.Close()
}

// Stop asks the agent to end the running phase early.
func (a *RemoteAgent) Stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if req, err := a.request(ctx, http.MethodPost, "stop", nil); err == nil {
		if resp, err := a.do(req, true); err == nil {
			resp.Body.Close()
		}
	}
}

// End tells an agent started for this run that the run is over: its
// launcher ended before it could pass the end of the agent's stdin on.
// Best effort, within ctx.
func (a *RemoteAgent) End(ctx context.Context) {
	if req, err := a.request(ctx, http.MethodPost, "end", nil); err == nil {
		if resp, err := a.do(req, true); err == nil {
			resp.Body.Close()
		}
	}
}

// Cleanup cleans up the phase on the agent and ends the session.
func (a *RemoteAgent) Cleanup(ctx context.Context) error {
	return a.cleanup(ctx, cleanupBody{})
}

// cleanup cleans up the phase on the agent as body says.
func (a *RemoteAgent) cleanup(ctx context.Context, body cleanupBody) error {
	defer a.stopHeartbeats()
	l, err := a.stream(ctx, "cleanup", body, nil, nil)
	if err == nil {
		err = l.err()
	}
	return err
}

// stream posts body to path and reads the NDJSON answer until its last
// line, which it returns; arrive receives barrier arrivals. A stream silent
// for Silence (HurrySilence once the run was interrupted), or broken,
// marks the agent lost. When ctx ends during a run or a preparation, the
// agent is asked to stop and the stream is read on while the agent keeps
// talking, so what was measured arrives.
func (a *RemoteAgent) stream(ctx context.Context, path string, body any, live engine.LiveFunc, arrive func(arriveLine)) (*line, error) {
	if ctx.Err() != nil {
		a.hurry.Store(true)
	}
	if a.hurry.Load() && a.gone.Load() {
		return nil, fmt.Errorf("%w: %s said nothing for %s after the run was interrupted", ErrLost, a.Addr, HurrySilence)
	}
	// The request's own context is not ctx: ending ctx must not cut the
	// stream before the agent's last line.
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	ended := make(chan struct{})
	last := false
	defer func() {
		if last {
			go a.letEnd(ended, cancel)
		} else {
			cancel()
		}
	}()
	req, err := a.request(sctx, http.MethodPost, path, body)
	if err != nil {
		return nil, err
	}
	lines := make(chan streamLine, 1)
	first := answered(ctx)
	defer first()
	go a.readStream(req, path, lines, ended, first)
	// The first answer may wait for a TLS handshake.
	silence := newSilenceTimer(a.Silence + 5*time.Second)
	if a.hurry.Load() {
		silence.reset(HurrySilence)
	}
	defer silence.Stop()
	ctxDone := ctx.Done()
	stopped := false
	leave := func() { go a.answerLeave(ctx, a.phaseBarrier()) }
	for {
		select {
		case g := <-lines:
			if g.l == nil && g.err == nil {
				// Part of a long line (a large result on a slow link):
				// the agent is talking.
				silence.reset(a.silence())
				continue
			}
			if g.err != nil || g.l.Done {
				last = g.err == nil
				if g.err == nil && stopped {
					return g.l, ctx.Err()
				}
				return g.l, g.err
			}
			g.l.pass(live, arrive, leave)
			silence.reset(a.silence())
		case <-silence.C:
			if silence.waitMore(time.Now(), a.silence()) {
				continue
			}
			cancel()
			if a.hurry.Load() {
				a.gone.Store(true)
			}
			return nil, a.whyLost(fmt.Errorf("%w: %s said nothing for %s%s", ErrLost, a.Addr, a.silence(), silence.lateText()))
		case <-ctxDone:
			ctxDone = nil
			a.hurry.Store(true)
			silence.reset(HurrySilence)
			// A preparation (files laid out, objects uploaded) stops and
			// undoes itself; a load stops and sends what it measured.
			// Cleanup and the rest finish on their own, as long as the
			// agent keeps talking.
			if path == "prepare" || path == "run" {
				stopped = path == "run"
				go a.Stop()
			}
		}
	}
}

// streamLine is a line read from a stream, or why the stream ended, or
// neither: more of a long line arrived.
type streamLine struct {
	l   *line
	err error
}

// letEnd cancels a stream's request once the agent has ended the stream
// (ended), or after the silence a line may take. Over HTTP/2, cancelling
// a stream the agent has not ended resets it, and an agent whose write of
// the last line is not yet confirmed (the goroutine that writes its frames
// did not run again yet: a busy machine) then fails that write ("http2:
// stream closed"), takes the controller for gone and stops its session.
func (a *RemoteAgent) letEnd(ended <-chan struct{}, cancel context.CancelFunc) {
	defer cancel()
	t := time.NewTimer(a.silence())
	defer t.Stop()
	select {
	case <-ended:
	case <-t.C:
	}
}

// readStream sends req and hands each line of the answer to lines, up to
// the last (Done) or the error that ends the stream: the agent's own
// refusal, or a stream broken or over its bounds (the agent is lost). After
// the last line it reads on to the stream's end (letEnd), then closes
// ended. It calls first once the agent answered, or could not.
func (a *RemoteAgent) readStream(req *http.Request, path string, lines chan<- streamLine, ended chan<- struct{}, first func()) {
	defer close(ended)
	start := time.Now()
	resp, err := a.do(req, false)
	first()
	if err != nil {
		// The agent's own answer (busy, refused, mismatch) or lost.
		lines <- streamLine{nil, err}
		return
	}
	defer resp.Body.Close()
	lr := newLineReader(resp.Body)
	lr.more = func() {
		select {
		case lines <- streamLine{}:
		default: // the stream has news to read already
		}
	}
	big := int64(maxLine)
	for {
		if path == "run" {
			big = a.result.limit(start)
		}
		var l line
		if err := readLine(lr, big, &l); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				err = errors.New("the connection closed")
			}
			lines <- streamLine{nil, a.whyLost(a.limitNote(fmt.Errorf("%w: %s: %s stream broke: %v", ErrLost, a.Addr, path, plainNetErr(err))))}
			return
		}
		lines <- streamLine{&l, nil}
		if l.Done {
			// Nothing should follow; what does is read up to a line's
			// bound, and letEnd cuts a stream that does not end.
			_, _ = io.Copy(io.Discard, io.LimitReader(lr.br, maxLine))
			return
		}
	}
}

// silence is how long a stream may say nothing before the agent is lost.
func (a *RemoteAgent) silence() time.Duration {
	if a.hurry.Load() {
		return HurrySilence
	}
	return a.Silence
}

// whyLost adds to the error of a lost agent what this controller knows of
// the cause: when its own heartbeats stopped for longer than an agent waits
// (the process was stopped, SIGSTOP, or starved of CPU), the agent ended
// the phase, and saying only "lost" would blame the agent or the network.
func (a *RemoteAgent) whyLost(err error) error {
	a.mu.Lock()
	gap := a.paused
	if !a.lastBeat.IsZero() {
		gap = max(gap, time.Since(a.lastBeat))
	}
	a.mu.Unlock()
	var said *pausedErr
	if gap <= a.HeartbeatTimeout || errors.As(err, &said) {
		return err
	}
	return &pausedErr{err: fmt.Errorf("%w; this controller sent no heartbeat for %s (it was stopped, e.g. SIGSTOP, or starved of CPU), and this agent ends its phase after %s without one",
		err, gap.Round(100*time.Millisecond), a.HeartbeatTimeout)}
}

// limitNote adds to err, a stream that broke, the agent's address-space
// limit when it is under what storbench needs: the likely cause, as the
// Go runtime ends a process past it without a word the controller sees.
func (a *RemoteAgent) limitNote(err error) error {
	a.mu.Lock()
	limit := a.addressLimit
	a.mu.Unlock()
	if limit == 0 || limit >= engine.MinAddressSpace {
		return err
	}
	return fmt.Errorf("%w; its %s, under the %d KiB an agent needs: the Go runtime may have ended it (see its log)", err, engine.AddressLimitText(limit), engine.MinAddressSpace>>10)
}

// pausedErr is an error whyLost gave its cause: it is said once, not again
// by the caller of the stream that said it.
type pausedErr struct{ err error }

func (e *pausedErr) Error() string { return e.err.Error() }
func (e *pausedErr) Unwrap() error { return e.err }

// Close drops idle connections.
func (a *RemoteAgent) Close() {
	a.stopHeartbeats()
	if a.client != nil {
		a.client.CloseIdleConnections()
		a.h1.CloseIdleConnections()
		a.h1beats.CloseIdleConnections()
	}
}

// readLine reads a stream's next line into l: at most maxLine bytes, or
// big for a stage's last line, with at most maxArrival bytes brought to a
// barrier, its texts clipped (line.clip).
func readLine(lr *lineReader, big int64, l *line) error {
	b, err := lr.next(maxLine, big)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, l); err != nil {
		return fmt.Errorf("a line that is not the protocol's: %v", clipText(err.Error(), maxText))
	}
	if l.Arrive != nil && len(l.Arrive.Data) > maxArrival {
		return &errTooLong{what: "what it brought to a barrier", limit: maxArrival}
	}
	l.clip()
	return nil
}

// err rebuilds the error a stream's last line carries: the agent's stop,
// an unsupported feature and leftovers keep their types across the wire.
func (l *line) err() error {
	var err error
	switch {
	case l.Stopped != "":
		err = fmt.Errorf("%w (%s)", ErrStopped, l.Stopped)
	case l.Unsupported && l.Error != "":
		err = engine.Unsupported(l.Error)
	case l.Error != "":
		err = errors.New(l.Error)
	}
	if len(l.Leftovers) > 0 {
		return engine.WithLeftovers(err, &engine.LeftoverError{Items: l.Leftovers})
	}
	return err
}
