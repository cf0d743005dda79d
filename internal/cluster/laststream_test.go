package cluster

import (
	"context"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/testutil"
)

// bigEngine is tickEngine with a result of more than 10 KiB (as an S3 or
// fio phase's histograms are), whose run, when after is set, returns that
// much later (a host that finishes after the others).
type bigEngine struct {
	tickEngine
	after time.Duration
}

type bigPhase struct {
	engine.Prepared
	after time.Duration
}

func (e bigEngine) Prepare(ctx context.Context, env engine.Env, p engine.Phase) (engine.Prepared, error) {
	pr, err := e.tickEngine.Prepare(ctx, env, p)
	if err != nil {
		return nil, err
	}
	return bigPhase{pr, e.after}, nil
}

func (b bigPhase) Run(ctx context.Context, startAt time.Time, live engine.LiveFunc) (*engine.HostResult, error) {
	r, err := b.Prepared.Run(ctx, startAt, live)
	if r != nil {
		if r.Meta == nil {
			r.Meta = map[string]string{}
		}
		r.Meta["pad"] = strings.Repeat("x", 10<<10)
	}
	time.Sleep(b.after)
	return r, err
}

// lateWriteConn is a fake of a starved agent: a large write (the agent's
// HTTP/2 server writes a frame that large from a goroutine of its own, and
// waits for that goroutine to say it was written) reaches the controller
// at once, but the goroutine that wrote it runs again only a second later.
type lateWriteConn struct{ net.Conn }

func (c lateWriteConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if len(p) > 4<<10 {
		time.Sleep(time.Second)
	}
	return n, err
}

type lateWriteListener struct{ net.Listener }

func (l lateWriteListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return lateWriteConn{c}, nil
}

// An agent's last line, once the controller has read it, is not taken
// back: the controller lets the agent end the stream. Before, it closed
// the stream as soon as it had read the last line, which over HTTP/2
// resets it; an agent whose write of that line was not yet confirmed (a
// busy machine) took the reset as a controller gone, said "could not send
// the outcome to the controller: http2: stream closed", stopped its
// session and cleaned up alone, and the controller's cleanup then found
// no session (TestHelmS3TargetRuns failed so). Agent "slow" finishes a
// second after "late", so the controller cleans up after "late" had time
// to give up.
func TestTheLastLineIsNotTakenBack(t *testing.T) {
	reg := engine.Registry{"sbtest-big": bigEngine{}}
	late, lateLogs, lateBusy := startLateAgent(t, "late", reg)
	slow, _, slowBusy := startLateAgent(t, "slow", engine.Registry{"sbtest-big": bigEngine{after: 1500 * time.Millisecond}})
	var cleanErr error
	c := &Controller{Agents: []Agent{cleanupSeen{late, &cleanErr}, slow}, Engines: reg}
	if _, err := c.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	p := tickPhaseOf(t, 100, 50, 10)
	p.Engine = "sbtest-big"
	out, err := c.RunPhase(testutil.Ctx(t, testutil.Bound), "r", false, p)
	if err != nil {
		t.Fatalf("the phase failed: %v", err)
	}
	if len(out.Results) != 2 || len(out.Errors) > 0 || len(out.Lost) > 0 {
		t.Fatalf("%d results, errors %v, lost %v", len(out.Results), out.Errors, out.Lost)
	}
	if cleanErr != nil {
		t.Errorf("the controller's cleanup on the agent: %v", cleanErr)
	}
	// The agents' handlers have all returned, so all they logged is in.
	for deadline := time.Now().Add(testutil.Bound); lateBusy.Load() > 0 || slowBusy.Load() > 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the agents still serve %d and %d requests after %s", lateBusy.Load(), slowBusy.Load(), testutil.Bound)
		}
	}
	for {
		select {
		case l := <-lateLogs:
			if strings.Contains(l, "stopping the phase") {
				t.Errorf("the agent stopped a phase the controller ran to its end: %s", l)
			}
			continue
		default:
		}
		break
	}
}

// startLateAgent starts an agent with engines reg behind a listener of
// lateWriteConn, and gives a RemoteAgent for it, its log and how many of
// its requests are being served.
func startLateAgent(t *testing.T, name string, reg engine.Registry) (*RemoteAgent, chan string, *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var busy atomic.Int32
	ta := serveAgent(t, name, reg, lateWriteListener{ln}, func(srv *Server) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			busy.Add(1)
			defer busy.Add(-1)
			srv.ServeHTTP(w, r)
		})
	})
	a := remoteFor(ta, name)
	t.Cleanup(a.Close)
	return a, ta.logs, &busy
}

// cleanupSeen keeps what the agent's cleanup returned.
type cleanupSeen struct {
	*RemoteAgent
	err *error
}

func (a cleanupSeen) Cleanup(ctx context.Context) error {
	*a.err = a.RemoteAgent.Cleanup(ctx)
	return *a.err
}
