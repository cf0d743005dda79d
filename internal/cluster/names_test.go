package cluster

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/testutil"
)

// nextEngine is tickEngine that keeps the next host's name each host's
// engine was given.
type nextEngine struct {
	tickEngine
	mu   *sync.Mutex
	seen map[string]string
}

func (e nextEngine) Prepare(ctx context.Context, env engine.Env, p engine.Phase) (engine.Prepared, error) {
	e.mu.Lock()
	e.seen[env.Host] = env.Next
	e.mu.Unlock()
	return e.tickEngine.Prepare(ctx, env, p)
}

// Every remote agent's engine is given the name of the host of the next
// rank (fio's read_from: neighbour reads its files), the last host the
// first's; and a prepare request does not grow with the hosts: it carried
// every host's name, 120 KB to each of 10,000 agents, 1.2 GB a phase for
// the controller to write.
func TestRemoteAgentsAreGivenTheNextHostsName(t *testing.T) {
	phase := func(n int) (map[string]string, int) {
		var mu sync.Mutex
		seen := map[string]string{}
		biggest := 0
		reg := engine.Registry{"sbtest-tick": nextEngine{mu: &mu, seen: seen}}
		var agents []Agent
		for i := range n {
			name := fmt.Sprintf("host%02d", i)
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			ta := serveAgent(t, name, reg, ln, func(s *Server) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if strings.HasSuffix(r.URL.Path, "/prepare") {
						b, _ := io.ReadAll(r.Body)
						mu.Lock()
						biggest = max(biggest, len(b))
						mu.Unlock()
						r.Body = io.NopCloser(bytes.NewReader(b))
					}
					s.ServeHTTP(w, r)
				})
			})
			a := remoteFor(ta, name)
			t.Cleanup(a.Close)
			agents = append(agents, a)
		}
		c := &Controller{Agents: agents, Engines: reg}
		if _, err := c.Connect(testutil.Ctx(t, testutil.Bound)); err != nil {
			t.Fatal(err)
		}
		if _, err := c.RunPhase(testutil.Ctx(t, testutil.Bound), "r", false, tickPhaseOf(t, 500, 500, 10)); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		return seen, biggest
	}
	seen, few := phase(3)
	for i, want := range []string{"host01", "host02", "host00"} {
		if h := fmt.Sprintf("host%02d", i); seen[h] != want {
			t.Errorf("%s's engine was told the next host is %q, want %q", h, seen[h], want)
		}
	}
	_, many := phase(40)
	if many > few+16 {
		t.Errorf("a prepare request among 40 hosts is %d bytes, among 3 %d: it grows with the hosts", many, few)
	}
}
