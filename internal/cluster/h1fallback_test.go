package cluster

import (
	"bufio"
	"errors"
	"net"
	"net/http"
	"sync"
	"testing"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/testutil"
)

// resetOnPreface is a listener whose connections that open with HTTP/2's
// preface are reset (closed with unread bytes and no linger) before the
// HTTP/1.1 server that serves it reads them. A plain HTTP/1.1 agent
// answers the preface with a 505 and closes, and the controller's HTTP/2
// client, still writing its settings and first request, often sees that
// close first: a broken pipe or a reset, not the answer. Here it always
// does. A connection's first bytes are looked at in its own first Read,
// in the server's goroutine for it, not in Accept: one that says nothing
// must hold up no other.
type resetOnPreface struct{ net.Listener }

func (l resetOnPreface) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &prefaceConn{Conn: c, br: bufio.NewReader(c)}, nil
}

// prefaceConn is a connection that resets itself on its first Read when
// it opens with HTTP/2's preface.
type prefaceConn struct {
	net.Conn
	br    *bufio.Reader
	once  sync.Once
	reset error
}

func (c *prefaceConn) Read(p []byte) (int, error) {
	c.once.Do(func() {
		if head, err := c.br.Peek(3); err == nil && string(head) == "PRI" {
			if tc, ok := c.Conn.(*net.TCPConn); ok {
				_ = tc.SetLinger(0)
			}
			_ = c.Conn.Close()
			c.reset = errors.New("reset on HTTP/2's preface")
		}
	})
	if c.reset != nil {
		return 0, c.reset
	}
	return c.br.Read(p)
}

// The HTTP/1.1 agent of the tests answers beside a connection that says
// nothing, as an HTTP/1.1 server does (a goroutine a connection): Go's
// Transport keeps a connection it dialed for a request that another one
// served, or whose context ended meanwhile (a heartbeat's bound, beside
// the hog), idle without a byte written. resetOnPreface read each
// connection's first bytes in Accept, and such a connection held up every
// later one for up to testutil.Bound (2 min): a heartbeat, a release, a
// stream, an answer to a leave line waited in the listen queue.
func TestAnHTTP1AgentAnswersBesideASilentConnection(t *testing.T) {
	ta := startH1Agent(t, "old")
	silent, err := net.Dial("tcp", ta.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	a := remoteFor(ta, "old")
	t.Cleanup(a.Close)
	// A quarter of the bound the silent connection held Accept for.
	if _, err := a.Info(testutil.Ctx(t, testutil.Bound/4)); err != nil {
		t.Fatalf("beside a connection that says nothing: %v", err)
	}
	if !a.old.Load() {
		t.Error("the controller did not take the agent as one that speaks only HTTP/1.1")
	}
}

// An HTTP/1.1 agent whose close of the controller's HTTP/2 try comes as a
// broken pipe or a reset (not its 505 answer) is still taken as one that
// speaks HTTP/1.1, and runs the phase. Before, only the answer read as an
// HTTP/1.1 header counted: the agent was lost at connect with "connection
// reset by peer" or "broken pipe" (TestSlowHeartbeatAnswerIsNoPause, whose
// agent speaks only HTTP/1.1, failed so once).
func TestAnHTTP1AgentThatResetsTheTryStillRuns(t *testing.T) {
	srv := &Server{Agent: &LocalAgent{Host: "old", Version: "test", Engines: testEngines, Tools: engine.Tools{"fio": "/nonexistent/fio"}}, Token: testToken}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: srv}
	go func() { _ = hs.Serve(resetOnPreface{ln}) }()
	t.Cleanup(func() { _ = hs.Close() })
	a := &RemoteAgent{Addr: ln.Addr().String(), Host: "old", Token: testToken, Controller: "test-controller"}
	t.Cleanup(a.Close)
	c := &Controller{Agents: []Agent{a}, Engines: testEngines}
	if _, err := c.Connect(testutil.Ctx(t, testutil.Bound)); err != nil {
		t.Fatal(err)
	}
	out, err := c.RunPhase(testutil.Ctx(t, testutil.Bound), "r", false, tickPhaseOf(t, 1500, 500, 10))
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
