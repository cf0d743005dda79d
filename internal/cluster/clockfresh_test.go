package cluster

import (
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/testutil"
)

// A phase that follows the connect within clockFresh takes no new clock
// samples, and one after that does. With 10,000 agents the samples taken
// again before the first phase, 50,000 round trips 64 agents at a time,
// were most of its preparing, while the agents prepared first waited for
// the others on heartbeats alone. Before, the phase here took 5 samples
// more.
func TestAFreshClockIsNotSampledAgain(t *testing.T) {
	var samples atomic.Int32
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ta := serveAgent(t, "a", testEngines, ln, func(srv *Server) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == PathPrefix+"/time" {
				samples.Add(1)
			}
			srv.ServeHTTP(w, r)
		})
	})
	a := remoteFor(ta, "a")
	t.Cleanup(a.Close)
	c := &Controller{Agents: []Agent{a}, Engines: testEngines}
	if _, err := c.Connect(testutil.Ctx(t, testutil.Bound)); err != nil {
		t.Fatal(err)
	}
	connect := samples.Load()
	if _, err := c.RunPhase(testutil.Ctx(t, testutil.Bound), "r", false, tickPhaseOf(t, 500, 500, 10)); err != nil {
		t.Fatal(err)
	}
	if n := samples.Load() - connect; n != 0 {
		t.Errorf("a phase right after the connect took %d clock samples, want none", n)
	}
	// The same agent's clock, measured longer ago than clockFresh.
	a.mu.Lock()
	a.clockAt = a.clockAt.Add(-clockFresh - time.Second)
	a.mu.Unlock()
	before := samples.Load()
	if _, err := c.RunPhase(testutil.Ctx(t, testutil.Bound), "r2", false, tickPhaseOf(t, 500, 500, 10)); err != nil {
		t.Fatal(err)
	}
	if n := samples.Load() - before; n != connect {
		t.Errorf("a phase after a stale clock took %d clock samples, want %d", n, connect)
	}
}
