package cluster

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/testutil"
)

// A large request (a prepare that names 10,000 hosts: 120 KB) leaves no
// buffer of its size behind on the agent's connection. Go's HTTP/2 client
// wrote such a body as one DATA frame (Go's server takes frames up to 1
// MiB), and the connection's frame writer kept a buffer as large as its
// largest frame for the connection's life: 1.2 GiB of the controller's
// 1.56 GiB heap with 10,000 agents, in the scale bench's heap profile.
// Here 20 agents are each sent a prepare request of 512 KiB (its phase's
// parameters; host names are refused past 253 bytes), then a small one,
// which the agents keep instead, and the heap in use after the second
// phase is compared with before the first (both ends are in this
// process).
func TestALargeRequestLeavesNoLargeBuffer(t *testing.T) {
	const n, size = 20, 512 << 10
	var agents []Agent
	for i := range n {
		ln, err := net.Listen("tcp", testutil.FreeAddr(t))
		if err != nil {
			t.Fatal(err)
		}
		ta := serveAgent(t, fmt.Sprintf("h%d", i), testEngines, ln, func(s *Server) http.Handler { return s })
		a := remoteFor(ta, fmt.Sprintf("h%02d", i))
		t.Cleanup(a.Close)
		agents = append(agents, a)
	}
	c := &Controller{Agents: agents, Engines: testEngines}
	if _, err := c.Connect(testutil.Ctx(t, testutil.Bound)); err != nil {
		t.Fatal(err)
	}
	// tickEngine's parameters ignore the padding.
	big := tickPhaseOf(t, 500, 500, 10)
	big.Params, _ = json.Marshal(map[string]any{"duration_ms": 500, "tick_ms": 500, "ops_per_tick": 10, "pad": strings.Repeat("n", size)})
	before := heapInUse()
	for _, p := range []engine.Phase{big, tickPhaseOf(t, 100, 100, 1)} {
		if _, err := c.RunPhase(testutil.Ctx(t, testutil.Bound), "r", false, p); err != nil {
			t.Fatal(err)
		}
	}
	grew := heapInUse() - before
	t.Logf("the heap grew by %d bytes over the phases, %d an agent", grew, grew/n)
	// Every agent's connection stays open: a buffer of the large request's
	// size kept at either end is n*size or more (both ends: 2*n*size). The
	// connections' own small buffers come to well under half of n*size.
	if grew > n*size*3/4 {
		t.Errorf("the heap grew by %d KiB over a phase of %d agents, %d KiB an agent, for requests of %d KiB: a connection keeps a buffer as large as its largest frame",
			grew>>10, n, grew/n>>10, size>>10)
	}
}

// heapInUse is the heap in use after a collection.
func heapInUse() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapInuse)
}
