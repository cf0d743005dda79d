package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/testutil"
)

func newController(agents ...Agent) *Controller {
	return &Controller{Agents: agents, Engines: testEngines, Lead: 300 * time.Millisecond, Name: "test-controller"}
}

// Three agents on loopback ports run one phase together: every host's
// result arrives under its own name, snapshots reach the progress line, and
// each host's phase started at the common time.
func TestRemotePhaseOnThreeAgents(t *testing.T) {
	var agents []Agent
	for i := range 3 {
		ta := startAgent(t, "agent-own-name", nil)
		agents = append(agents, remoteFor(ta, fmt.Sprintf("h%d", i)))
	}
	c := newController(agents...)
	var mu sync.Mutex
	var progress []Progress
	c.Progress = func(p Progress) { mu.Lock(); progress = append(progress, p); mu.Unlock() }
	infos, err := c.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i, in := range infos {
		if in.Protocol != Protocol || in.Host != fmt.Sprintf("h%d", i) || in.Version != "test" {
			t.Errorf("info %d: %+v", i, in)
		}
	}
	stall := measureStallTotal()
	out, err := c.RunPhase(context.Background(), "run1", false, tickPhaseOf(t, 2500, 200, 10))
	worst, total := stall()
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Results) != 3 || len(out.Lost) != 0 {
		t.Fatalf("results %d lost %v", len(out.Results), out.Lost)
	}
	for i, r := range out.Results {
		if r.Host != fmt.Sprintf("h%d", i) {
			t.Errorf("result %d is from %q: the controller's name must reach the engine", i, r.Host)
		}
		// The phase's parameters reached the engine: it ran its 2.5 s,
		// 10 ops a tick, a tick each 200 ms. A tick engine's ticker
		// drops the ticks that come while its goroutine is kept from
		// running, so the ticks counted are at least half of those its
		// window holds once this process's stalls are taken off (a
		// fixed 100 of 125 failed under load); at the default of a
		// tick a second it would have a fifth.
		o := r.Ops[0]
		window := time.Duration(o.EndNs - o.StartNs)
		want := uint64(max(0, (window-total)/(200*time.Millisecond)/2))
		if window < 2500*time.Millisecond || o.Ops%10 != 0 || o.Ops/10 < max(1, want) {
			t.Errorf("host %s did %d ops in %s at 10 a tick, want at least %d ticks (each 200 ms, half of those the window holds; this process stalled %s in all)",
				r.Host, o.Ops, window, max(1, want), total)
		}
		// Not before the common start (a host that went at once would be
		// the 300-ms lead early), and after it by no more than 200 ms
		// and the run request's way through this process (controller,
		// client, agent's server, engine: twice its worst stall).
		if d := time.Unix(0, o.StartNs).Sub(out.Start); d < -50*time.Millisecond || d > 200*time.Millisecond+2*worst {
			t.Errorf("host %s started %s from the common start (this process stalled at most %s)", r.Host, d, worst)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(progress) < 2 {
		t.Fatalf("%d progress calls in a 2.5s phase", len(progress))
	}
	lastP := progress[len(progress)-1]
	for i, h := range lastP.Hosts {
		if h.Host != fmt.Sprintf("h%d", i) || len(h.Ops) == 0 || h.Ops[0].Ops == 0 {
			t.Errorf("progress host %d: %+v", i, h)
		}
	}
}

func TestWrongTokenIsRefused(t *testing.T) {
	ta := startAgent(t, "a", nil)
	ra := remoteFor(ta, "a")
	ra.Token = "wrong"
	_, err := newController(ra).Connect(context.Background())
	if err == nil || !strings.Contains(err.Error(), "refused the token") {
		t.Fatalf("wrong token: %v", err)
	}
	ra.Token = ""
	if _, err := newController(ra).Connect(context.Background()); err == nil || !strings.Contains(err.Error(), "refused the token") {
		t.Fatalf("no token: %v", err)
	}
	// Every endpoint checks it, not only info.
	ra.Token = "wrong"
	err = ra.Prepare(context.Background(), Request{RunID: "r", Phase: tickPhaseOf(t, 100, 50, 1)})
	if err == nil || !strings.Contains(err.Error(), "refused the token") {
		t.Fatalf("prepare with a wrong token: %v", err)
	}
}

// Both sides refuse another protocol with an error saying what to do.
func TestProtocolMismatch(t *testing.T) {
	ta := startAgent(t, "a", nil)
	req, _ := http.NewRequest(http.MethodGet, "http://"+ta.addr+"/v1/info", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set(HeaderProtocol, "99")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("agent answered protocol 99 with %s", resp.Status)
	}

	// An agent of a later protocol.
	later := startHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(HeaderProtocol, strconv.Itoa(Protocol+1))
		w.Header().Set(HeaderVersion, "v9.0.0")
		w.WriteHeader(http.StatusBadRequest)
	}))
	_, err = newController(&RemoteAgent{Addr: later, Host: "c", Token: testToken}).Connect(context.Background())
	if err == nil || !strings.Contains(err.Error(), "protocol mismatch") || !strings.Contains(err.Error(), "v9.0.0") || !strings.Contains(err.Error(), "same storbench version") {
		t.Fatalf("controller against protocol %d: %v", Protocol+1, err)
	}

	// Something that is not an agent at all.
	plain := startHandler(t, http.NotFoundHandler())
	_, err = newController(&RemoteAgent{Addr: plain, Host: "d", Token: testToken}).Connect(context.Background())
	if err == nil || !strings.Contains(err.Error(), "does not answer as a storbench agent") {
		t.Fatalf("controller against a plain web server: %v", err)
	}
}

// A second controller is told who holds the agent.
func TestSecondControllerIsBusy(t *testing.T) {
	ta := startAgent(t, "a", nil)
	first := remoteFor(ta, "a")
	first.Controller = "ctl-one"
	if err := first.Prepare(context.Background(), Request{RunID: "run-1", Phase: tickPhaseOf(t, 100, 50, 1)}); err != nil {
		t.Fatal(err)
	}
	second := remoteFor(ta, "a")
	_, err := newController(second).Connect(context.Background())
	if err == nil || !strings.Contains(err.Error(), "busy with run run-1 from ctl-one") {
		t.Fatalf("second controller at Connect: %v", err)
	}
	err = second.Prepare(context.Background(), Request{RunID: "run-2", Phase: tickPhaseOf(t, 100, 50, 1)})
	if err == nil || !strings.Contains(err.Error(), "busy with run run-1 from ctl-one") {
		t.Fatalf("second controller at Prepare: %v", err)
	}
	if err := first.Cleanup(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := newController(second).Connect(context.Background()); err != nil {
		t.Fatalf("after the first run's cleanup: %v", err)
	}
}

// An agent whose clock is 5 s off is refused; when allowed, its phase still
// starts at the common time and its results come back in the controller's
// clock.
func TestClockOffset(t *testing.T) {
	skewed := startAgent(t, "s", func(s *Server) { s.ClockSkew = 5 * time.Second })
	plain := startAgent(t, "p", nil)
	c := newController(remoteFor(skewed, "skewed"), remoteFor(plain, "plain"))
	_, err := c.Connect(context.Background())
	if err == nil || !strings.Contains(err.Error(), "skewed: clock is off by 5s") || strings.Contains(err.Error(), "plain") {
		t.Fatalf("5s offset: %v", err)
	}
	c.MaxClockOffset = 10 * time.Second
	// Each bound below allows as long as this process (agents and
	// controller alike) was kept from running meanwhile.
	stall := measureStalls()
	infos, err := c.Connect(context.Background())
	connectStall := stall()
	if err != nil {
		t.Fatal(err)
	}
	if off := time.Duration(infos[0].ClockOffsetNs); off < 4900*time.Millisecond || off > 5100*time.Millisecond {
		t.Errorf("measured offset %s, want 5s", off)
	}
	if rtt := time.Duration(infos[0].RTTNs); rtt <= 0 || rtt > 100*time.Millisecond+connectStall {
		t.Errorf("round trip %s on loopback (this process stalled at most %s)", rtt, connectStall)
	}
	stall = measureStalls()
	out, err := c.RunPhase(context.Background(), "r", false, tickPhaseOf(t, 1000, 200, 5))
	worst := stall()
	if err != nil {
		t.Fatal(err)
	}
	// A 5-s offset not taken off would put the hosts 5 s apart.
	s0, s1 := out.Results[0].Ops[0].StartNs, out.Results[1].Ops[0].StartNs
	if d := time.Duration(s0 - s1).Abs(); d > 100*time.Millisecond+worst {
		t.Errorf("the skewed host started %s apart from the other (this process stalled at most %s)", d, worst)
	}
	if d := time.Unix(0, s0).Sub(out.Start); d < -100*time.Millisecond-worst || d > 200*time.Millisecond+worst {
		t.Errorf("the skewed host's window is %s from the common start, in the controller's clock (this process stalled at most %s)", d, worst)
	}
}

// An agent that dies mid-phase is marked lost; the phase finishes on the
// others, and the next phase runs without it.
func TestAgentLostMidPhase(t *testing.T) {
	a := startAgent(t, "a", nil)
	b := startAgent(t, "b", nil)
	dying := startAgent(t, "c", nil)
	// The dying agent's silence is a minute: a phase that waited for it,
	// and not for its connection's close, would take that long.
	rc := remoteFor(dying, "c")
	rc.HeartbeatTimeout = time.Minute
	c := newController(remoteFor(a, "a"), remoteFor(b, "b"), rc)
	go func() {
		time.Sleep(1200 * time.Millisecond)
		dying.kill()
	}()
	out, err := c.RunPhase(context.Background(), "r", false, tickPhaseOf(t, 2500, 200, 5))
	if err != nil {
		t.Fatalf("a lost host must not fail the phase: %v", err)
	}
	if len(out.Lost) != 1 || out.Lost[0] != "c" {
		t.Fatalf("lost %v", out.Lost)
	}
	// The lost host keeps what its snapshots told (issue 35), marked as
	// lost; it has none when it died before its first.
	for _, r := range out.Results {
		if r.Host == "c" && !strings.HasPrefix(r.Err, "lost: ") {
			t.Errorf("the lost host's result is not marked lost: %q", r.Err)
		}
	}
	if n := len(out.Results); n < 2 || n > 3 {
		t.Errorf("%d results, want a's, b's and what c's snapshots told", n)
	}
	if !errors.Is(out.Errors["c"], ErrLost) {
		t.Errorf("lost host's error: %v", out.Errors["c"])
	}
	if d := out.End.Sub(out.Start); d > 30*time.Second {
		t.Errorf("the phase took %s; the others should not wait for the lost host's silence (%s)", d, silenceFor(rc.HeartbeatTimeout))
	}
	out, err = c.RunPhase(context.Background(), "r", false, tickPhaseOf(t, 400, 200, 5))
	if err != nil || len(out.Results) != 2 || len(out.Lost) != 1 {
		t.Fatalf("next phase: err %v, results %d, lost %v", err, len(out.Results), out.Lost)
	}
}

// A controller that is cut off (no heartbeat, stream silent) makes the agent
// stop the load within 5 s and clean up.
func TestControllerCutOffStopsLoad(t *testing.T) {
	ta := startAgent(t, "a", nil)
	ch := make(chan stopEvent, 1)
	loadStops.Store("cut", ch)
	defer loadStops.Delete("cut")
	ra := remoteFor(ta, "cut")
	ra.HeartbeatTimeout = HeartbeatTimeout // the default's promise: within 5 s
	ctx := context.Background()
	if err := ra.Prepare(ctx, Request{RunID: "r", Phase: tickPhaseOf(t, 60_000, 200, 5)}); err != nil {
		t.Fatal(err)
	}
	// The stream stays open (its reader is alive) but the controller
	// says nothing more: the case of a cut-off or frozen controller.
	go func() { _, _ = ra.Run(ctx, time.Now(), nil) }()
	time.Sleep(1500 * time.Millisecond)
	cutAt := time.Now()
	stall := measureStalls()
	ra.stopHeartbeats()
	ev := testutil.Recv(t, ch, testutil.Bound, "the agent's load stopping after it lost its controller")
	// The promise is 5 s; the agent's own timer runs in this process, and
	// is late by as long as this process was kept from running.
	worst := stall()
	if d := ev.at.Sub(cutAt); !ev.canceled || d > 5*time.Second+worst {
		t.Fatalf("load stopped %s after the cut (canceled %v; this process stalled at most %s)", d, ev.canceled, worst)
	} else {
		t.Logf("load stopped %s after the controller was cut off (stalled at most %s)", d.Round(time.Millisecond), worst)
	}
	// And the agent is free again, its phase cleaned up.
	deadline := time.Now().Add(testutil.Bound)
	for {
		in := ta.srv.infoNow()
		if in.Busy == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("agent still busy: %s", in.Busy)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Ctrl-C on the controller stops every agent and keeps what they measured.
func TestInterruptKeepsResults(t *testing.T) {
	var agents []Agent
	for i := range 3 {
		agents = append(agents, remoteFor(startAgent(t, "x", nil), fmt.Sprintf("h%d", i)))
	}
	c := newController(agents...)
	ctx, cancel := context.WithCancel(context.Background())
	var cancelAt atomic.Int64
	time.AfterFunc(1500*time.Millisecond, func() { cancelAt.Store(time.Now().UnixNano()); cancel() })
	out, err := c.RunPhase(ctx, "r", false, tickPhaseOf(t, 60_000, 200, 5))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	// Timed from the cancel: the phase asked 60 s, and an interrupt that
	// waited for it would take that long.
	if d := time.Since(time.Unix(0, cancelAt.Load())); d > 20*time.Second {
		t.Errorf("the interrupt took %s from the cancel", d)
	}
	if out == nil || len(out.Results) != 3 {
		t.Fatalf("results kept after Ctrl-C: %+v", out)
	}
	for _, r := range out.Results {
		if r.Ops[0].Ops == 0 {
			t.Errorf("host %s: nothing kept", r.Host)
		}
	}
}

// 64 agents through a full phase: progress comes every second on time, and
// the controller's memory stays bounded.
func TestSixtyFourAgents(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	var agents []Agent
	for i := range 64 {
		agents = append(agents, remoteFor(startAgent(t, "x", nil), fmt.Sprintf("h%02d", i)))
	}
	c := newController(agents...)
	c.Lead = time.Second
	var mu sync.Mutex
	var at []time.Time
	var complete []bool
	c.Progress = func(p Progress) {
		if p.Final {
			return // the last snapshots, told at the phase's end, not on a tick
		}
		n := 0
		for _, h := range p.Hosts {
			if len(h.Ops) > 0 {
				n++
			}
		}
		mu.Lock()
		at = append(at, time.Now())
		complete = append(complete, n == 64)
		mu.Unlock()
	}
	if _, err := c.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	stall := measureStalls()
	out, err := c.RunPhase(context.Background(), "r", false, tickPhaseOf(t, 5000, 1000, 100))
	worst := stall()
	if err != nil {
		t.Fatal(err)
	}
	// The heap the phase left in use, its garbage collected: what the
	// controller (and the 64 agent servers in this process) hold.
	runtime.GC()
	runtime.ReadMemStats(&after)
	if len(out.Results) != 64 {
		t.Fatalf("%d results", len(out.Results))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(at) < 5 {
		t.Fatalf("%d progress lines in a 6s phase", len(at))
	}
	// Lines keep to the second: none is skipped (a gap near two periods)
	// and they do not drift. One line may come late on a busy machine and
	// the next one early, as a ticker does; the mean period stays 1 s.
	// A line may be as late as this process was kept from running: twice
	// the worst stall of a 50-ms ticker beside it is added to the
	// allowance (the line passes the controller's ticker and its sink).
	for i := 1; i < len(at); i++ {
		if d := at[i].Sub(at[i-1]); d > 1700*time.Millisecond+2*worst {
			t.Errorf("progress line %d came %s after the one before (this process stalled at most %s)", i, d, worst)
		}
	}
	if mean := at[len(at)-1].Sub(at[0]) / time.Duration(len(at)-1); mean < 900*time.Millisecond || mean > 1100*time.Millisecond {
		t.Errorf("progress lines came every %s on average, want 1s", mean)
	}
	full := 0
	for _, ok := range complete {
		if ok {
			full++
		}
	}
	if full < 3 {
		t.Errorf("only %d progress lines had all 64 hosts' figures", full)
	}
	// The heap in use after the phase (the 64 agent servers live in this
	// process too) stays small.
	if grew := int64(after.HeapInuse) - int64(before.HeapInuse); grew > 64<<20 {
		t.Errorf("heap grew by %d MiB over a phase on 64 agents", grew>>20)
	}
	t.Logf("64 agents: %d progress lines, heap %d -> %d MiB, worst stall %s", len(at), before.HeapInuse>>20, after.HeapInuse>>20, worst)
}

// measureStalls starts a 50-ms ticker and returns a function that stops
// it and says by how much its longest gap exceeded 50 ms: how long the
// machine kept this process from running while it ticked.
func measureStalls() func() time.Duration {
	stop := measureStallTotal()
	return func() time.Duration { worst, _ := stop(); return worst }
}

// measureStallTotal is measureStalls that also says the sum of every
// gap's excess over 50 ms: all the time the machine kept this process
// from running while it ticked.
func measureStallTotal() func() (worst, total time.Duration) {
	const period = 50 * time.Millisecond
	type stalls struct{ worst, total time.Duration }
	stop, done := make(chan struct{}), make(chan stalls)
	go func() {
		tick := time.NewTicker(period)
		defer tick.Stop()
		last, s := time.Now(), stalls{}
		add := func(now time.Time) {
			over := max(0, now.Sub(last)-period)
			s.worst = max(s.worst, over)
			s.total += over
			last = now
		}
		for {
			select {
			case <-tick.C:
				add(time.Now())
			case <-stop:
				add(time.Now())
				done <- s
				return
			}
		}
	}()
	return func() (time.Duration, time.Duration) { close(stop); s := <-done; return s.worst, s.total }
}

func startHandler(t testing.TB, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: h}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	return ln.Addr().String()
}
