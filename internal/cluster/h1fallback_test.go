package cluster

import (
	"bufio"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/testutil"
)

// resetOnPreface is a listener whose connections that open with HTTP/2's
// preface are reset at once (closed with unread bytes and no linger); the
// others it hands to the HTTP/1.1 server that serves it. A plain HTTP/1.1
// agent answers the preface with a 505 and closes, and the controller's
// HTTP/2 client, still writing its settings and first request, often sees
// that close first: a broken pipe or a reset, not the answer. Here it
// always does.
type resetOnPreface struct{ net.Listener }

func (l resetOnPreface) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		br := bufio.NewReader(c)
		_ = c.SetReadDeadline(time.Now().Add(testutil.Bound))
		head, err := br.Peek(3)
		_ = c.SetReadDeadline(time.Time{})
		if err == nil && string(head) == "PRI" {
			if tc, ok := c.(*net.TCPConn); ok {
				_ = tc.SetLinger(0)
			}
			_ = c.Close()
			continue
		}
		return peekedConn{c, br}, nil
	}
}

// peekedConn is a connection whose first bytes were read into br.
type peekedConn struct {
	net.Conn
	br *bufio.Reader
}

func (c peekedConn) Read(p []byte) (int, error) { return c.br.Read(p) }

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
