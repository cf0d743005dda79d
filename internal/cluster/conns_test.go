package cluster

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/s3test"
)

// A controller holds one connection per agent: its streams, heartbeats
// and releases share it (HTTP/2 without TLS, h2c), so 10,000 agents fit in
// the descriptors a process may open. Before, it held two per agent (one
// for calls and streams, one for heartbeats) and three while a barrier's
// release was posted. The count is the controller's side of the TCP
// connections to the agents' ports (the 50 agents live in this process,
// their sides are not counted), at its peak through a whole phase.
func TestOneConnectionPerAgent(t *testing.T) {
	n := 50
	if s := os.Getenv("SB_N"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	var agents []Agent
	ports := map[int]bool{}
	for i := range n {
		// No fio --version for 50 agents at once: the first call is info.
		ta := startAgent(t, "x", func(s *Server) { s.Agent.Tools = engine.Tools{"fio": "/nonexistent/fio"} })
		_, p, _ := strings.Cut(ta.addr, ":")
		port, _ := strconv.Atoi(p)
		ports[port] = true
		agents = append(agents, remoteFor(ta, fmt.Sprintf("h%02d", i)))
	}
	c := &Controller{Agents: agents, Engines: testEngines}
	t.Cleanup(func() {
		for _, a := range agents {
			a.(*RemoteAgent).Close()
		}
	})
	var mu sync.Mutex
	peak := 0
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			k := controllerConns(t, ports)
			mu.Lock()
			peak = max(peak, k)
			mu.Unlock()
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	if _, err := c.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	out, err := c.RunPhase(context.Background(), "r", false, tickPhaseOf(t, 3000, 500, 10))
	close(stop)
	<-sampled
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Results) != n {
		t.Fatalf("%d results of %d agents", len(out.Results), n)
	}
	mu.Lock()
	defer mu.Unlock()
	if peak == 0 {
		t.Fatal("no connection to the agents was seen")
	}
	if peak > n+2 {
		t.Errorf("the controller held %d connections to %d agents at once (want at most %d)", peak, n, n+2)
	}
	t.Logf("%d agents: at most %d connections held by the controller", n, peak)
}

// controllerConns counts this process's established TCP connections
// whose far end is one of ports: the controller's side of its connections
// to those agents. Only this process's sockets count: the ports are the
// kernel's ephemeral ones, and a connection of another process on the
// machine (another test binary's, to a server of its own on another
// address and the same port) counted too.
func controllerConns(t *testing.T, ports map[int]bool) int {
	mine := socketInodes()
	k := 0
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n")[1:] {
			fs := strings.Fields(l)
			if len(fs) < 4 || fs[3] != "01" { // 01: ESTABLISHED
				continue
			}
			_, hexPort, _ := strings.Cut(fs[2], ":")
			p, err := strconv.ParseInt(hexPort, 16, 32)
			if err == nil && ports[int(p)] && len(fs) > 9 && mine[fs[9]] {
				k++
			}
		}
	}
	return k
}

// socketInodes is the set of inodes of this process's sockets, as
// /proc/net/tcp names them.
func socketInodes() map[string]bool {
	fds, _ := os.ReadDir("/proc/self/fd")
	out := make(map[string]bool, len(fds))
	for _, fd := range fds {
		l, err := os.Readlink("/proc/self/fd/" + fd.Name())
		if ino, ok := strings.CutPrefix(l, "socket:["); err == nil && ok {
			out[strings.TrimSuffix(ino, "]")] = true
		}
	}
	return out
}

// An agent that speaks only HTTP/1.1 (an older storbench of the same
// protocol, or a server without h2c) still runs a phase: the controller's
// first try over HTTP/2 fails with the agent's HTTP/1.1 answer, and it goes
// on over HTTP/1.1 with that agent, heartbeats on their own connection.
func TestAnHTTP1OnlyAgentStillRuns(t *testing.T) {
	srv := &Server{Agent: &LocalAgent{Host: "old", Version: "test", Engines: testEngines, Tools: engine.Tools{"fio": "/nonexistent/fio"}}, Token: testToken}
	addr := startHandler(t, srv)
	a := &RemoteAgent{Addr: addr, Host: "old", Token: testToken, Controller: "test-controller"}
	t.Cleanup(a.Close)
	c := &Controller{Agents: []Agent{a}, Engines: testEngines}
	if _, err := c.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	out, err := c.RunPhase(context.Background(), "r", false, tickPhaseOf(t, 1500, 500, 10))
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Results) != 1 || len(out.Lost) > 0 {
		t.Fatalf("%d results, lost %v", len(out.Results), out.Lost)
	}
	if !a.old.Load() {
		t.Error("the controller did not take the agent as one that speaks only HTTP/1.1")
	}
}

// Over TLS (an agent with --tls-cert, as storbench agent serves it: a
// tls.NewListener with ServerTLS), the agent offers h2 and the controller's
// calls share one connection too.
func TestTLSAgentOneConnection(t *testing.T) {
	dir := t.TempDir()
	cert, key, err := s3test.SelfSigned(dir)
	if err != nil {
		t.Fatal(err)
	}
	stc, err := ServerTLS(cert, key, "")
	if err != nil {
		t.Fatal(err)
	}
	ctc, err := ClientTLS(cert, "", "")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &Server{Agent: &LocalAgent{Host: "tls", Version: "test", Engines: testEngines, Tools: engine.Tools{"fio": "/nonexistent/fio"}}, Token: testToken}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() { defer close(served); _ = srv.Serve(ctx, tls.NewListener(ln, stc)) }()
	t.Cleanup(func() { cancel(); <-served })
	a := &RemoteAgent{Addr: ln.Addr().String(), Host: "tls", Token: testToken, TLS: ctc, Controller: "test-controller"}
	t.Cleanup(a.Close)
	c := &Controller{Agents: []Agent{a}, Engines: testEngines}
	if _, err := c.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	out, err := c.RunPhase(context.Background(), "r", false, tickPhaseOf(t, 1500, 500, 10))
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Results) != 1 {
		t.Fatalf("%d results", len(out.Results))
	}
	if a.old.Load() || !a.h2ok.Load() {
		t.Error("the controller did not speak HTTP/2 to the TLS agent")
	}
}

// clockCounter is a local agent with a clock that takes 20 ms to sample,
// counting the samplings going on at once.
type clockCounter struct {
	*LocalAgent
	cur, peak *atomic.Int32
}

func (a clockCounter) MeasureClock(context.Context, int) (time.Duration, time.Duration, error) {
	n := a.cur.Add(1)
	defer a.cur.Add(-1)
	for p := a.peak.Load(); n > p && !a.peak.CompareAndSwap(p, n); p = a.peak.Load() {
	}
	time.Sleep(20 * time.Millisecond)
	return 0, time.Millisecond, nil
}

// Clocks are sampled a bounded number of agents at a time: sampling
// 10,000 agents at once made every round trip seconds long, and the
// offsets measured between processes of one machine over a second (the
// connect failed). Before, all 200 agents here were sampled at once.
func TestClocksSampledAFewAtATime(t *testing.T) {
	var cur, peak atomic.Int32
	var agents []Agent
	for i := range 200 {
		agents = append(agents, clockCounter{&LocalAgent{Host: fmt.Sprintf("h%03d", i), Version: "test", Engines: testEngines, Tools: engine.Tools{"fio": "/nonexistent/fio"}, NoClientLoad: noClientLoad}, &cur, &peak})
	}
	c := &Controller{Agents: agents, Engines: testEngines}
	if _, err := c.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	if p := peak.Load(); p > atOnce {
		t.Errorf("%d clocks sampled at once, want at most %d", p, atOnce)
	}
}
