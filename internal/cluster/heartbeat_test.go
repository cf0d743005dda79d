package cluster

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Agents prepared together must not beat together. A controller prepares
// every agent at once, so heartbeats started on the same tick every second:
// with 1,000 agents on a busy machine those bursts delayed heartbeats past
// the agents' HeartbeatTimeout, and agents stopped their phase
// (bench/controllerscale). Each agent's first heartbeat now comes at its own
// point of the first second, and the later ones a second apart from it.
func TestHeartbeatsSpreadOverTheSecond(t *testing.T) {
	var mu sync.Mutex
	first := map[string]time.Time{}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == PathPrefix+"/heartbeat" {
			mu.Lock()
			if id := r.Header.Get(HeaderSession); first[id].IsZero() {
				first[id] = time.Now()
			}
			mu.Unlock()
		}
		w.Header().Set(HeaderProtocol, protoString)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer hs.Close()
	const n = 20
	start := time.Now()
	for i := range n {
		a := &RemoteAgent{Addr: hs.Listener.Addr().String(), Host: "agent" + strconv.Itoa(i), session: strconv.Itoa(i)}
		a.startHeartbeats()
		defer a.Close()
	}
	deadline := time.Now().Add(3 * time.Second)
	for {
		mu.Lock()
		got := len(first)
		mu.Unlock()
		if got == n || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(first) != n {
		t.Fatalf("%d of %d agents beat within 3s", len(first), n)
	}
	var at []time.Duration
	for _, f := range first {
		at = append(at, f.Sub(start))
	}
	slices.Sort(at)
	// 20 uniform draws over a second all fall within 250 ms with a
	// probability of about 20 x 0.25^19, never.
	if span := at[n-1] - at[0]; span < 250*time.Millisecond {
		t.Errorf("the first heartbeats of %d agents started together came within %s of each other (%s to %s): a burst", n, span, at[0], at[n-1])
	}
	if at[n-1] > HeartbeatEvery+500*time.Millisecond {
		t.Errorf("a first heartbeat came %s after the start, later than one interval", at[n-1])
	}
}
