package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/storbench/storbench/internal/engine"
)

// Barriers across hosts. The controller keeps one hub per phase run on
// several hosts; each host's engine reaches it through engine.Env.Barrier:
//
//   - in-process (LocalAgent), the engine calls the hub directly;
//   - on a remote agent, the engine's Wait writes an "arrive" line on the
//     run stream, the controller's RemoteAgent relays it to the hub, and
//     when the hub opens, posts the release to the agent (POST
//     /v1/release) with the common start in the agent's clock.
//
// The hub opens a barrier when every host of the phase has arrived or has
// left it (its run ended: done, failed, stopped or lost), so a host lost
// while others wait never holds them longer than it takes to notice the
// loss (a broken stream at once, a silent one after DefaultSilence). The
// common start is a lead after the last arrival, long enough for the
// release to reach every host first. The first lead is BarrierLead plus
// three of the slowest round trips measured before the phase. A host that
// got a release late says so at its next arrival, and the lead becomes
// twice what that release took to arrive (the lead it had plus how late it
// was), up to maxBarrierLead; it never shrinks within a phase.
const (
	// BarrierLead is the least time between the last arrival at a barrier
	// and the common start.
	BarrierLead    = 2 * time.Millisecond
	maxBarrierLead = time.Second
)

// barrierHub is the controller's side of the barriers of one phase.
type barrierHub struct {
	hosts []string // by rank

	mu   sync.Mutex
	lead time.Duration
	// lastLead is, per host, the lead of the last barrier it was released
	// from: a lateness it reports is measured against that one.
	lastLead []time.Duration
	left     []bool
	meets    map[string]*meeting
	// away are the hosts that no longer run the phase (their part ended,
	// or they are leaving: goes), and sharedLeft those told, as they left,
	// that others still ran the phase, whose files the hosts share
	// (shares: it works in the run's shared area) then stayed (leave.go).
	away, sharedLeft []bool
	shares           bool
	// handed says a host left what the hosts share to the others.
	handed bool
	// gone are the hosts whose agents left the phase (goes), and last
	// says one of them heard it was the last and removes what the hosts
	// share.
	gone []bool
	last bool
}

// meeting is one barrier, from its first arrival until it opens.
type meeting struct {
	arrived []bool
	data    [][]byte
	open    chan struct{}
	// Set before open is closed.
	rel engine.Release
}

func newBarrierHub(hosts []string, lead time.Duration) *barrierHub {
	return &barrierHub{hosts: hosts, lead: min(max(lead, BarrierLead), maxBarrierLead), lastLead: make([]time.Duration, len(hosts)),
		left: make([]bool, len(hosts)), meets: map[string]*meeting{}, away: make([]bool, len(hosts)), sharedLeft: make([]bool, len(hosts)),
		gone: make([]bool, len(hosts))}
}

// hubMember is one host's handle on the hub, in the controller's clock.
type hubMember struct {
	h    *barrierHub
	rank int
}

var _ engine.Barrier = hubMember{}

// member returns the barrier of the host of that rank.
func (h *barrierHub) member(rank int) hubMember { return hubMember{h, rank} }

// Wait arrives at the barrier name and waits until it opens or ctx ends.
// In-process, it is the host's own waiter, and notes itself whether it
// woke after the common start.
func (m hubMember) Wait(ctx context.Context, name string, data []byte) (engine.Release, error) {
	rel, err := m.wait(ctx, name, data, 0)
	if err == nil {
		if d := time.Since(rel.Start); d > 0 {
			m.h.mu.Lock()
			m.h.lengthen(m.rank, d)
			m.h.mu.Unlock()
		}
	}
	return rel, err
}

// wait arrives at the barrier name, late saying how late (ns) the host got
// its previous release, and waits until the barrier opens or ctx ends.
func (m hubMember) wait(ctx context.Context, name string, data []byte, late int64) (engine.Release, error) {
	h := m.h
	h.mu.Lock()
	if late > 0 {
		h.lengthen(m.rank, time.Duration(late))
	}
	if h.left[m.rank] {
		h.mu.Unlock()
		return engine.Release{}, fmt.Errorf("barrier %s: host %s already left the phase", name, h.hosts[m.rank])
	}
	mt := h.meets[name]
	if mt == nil {
		mt = &meeting{arrived: make([]bool, len(h.hosts)), data: make([][]byte, len(h.hosts)), open: make(chan struct{})}
		h.meets[name] = mt
	}
	if mt.arrived[m.rank] {
		h.mu.Unlock()
		return engine.Release{}, fmt.Errorf("barrier %s: host %s arrived twice", name, h.hosts[m.rank])
	}
	mt.arrived[m.rank], mt.data[m.rank] = true, data
	h.tryOpen(name, mt)
	h.mu.Unlock()
	select {
	case <-mt.open:
		return mt.rel, nil
	case <-ctx.Done():
		return engine.Release{}, ctx.Err()
	}
}

// lengthen takes note that host rank got its last release d after the
// common start; h.mu is held.
func (h *barrierHub) lengthen(rank int, d time.Duration) {
	h.lead = max(h.lead, min(2*(h.lastLead[rank]+d), maxBarrierLead))
}

// leave takes a host out of the phase's barriers: barriers waiting only for
// it open now, and later ones do not wait for it.
func (h *barrierHub) leave(rank int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.left[rank] {
		return
	}
	h.left[rank] = true
	for name, mt := range h.meets {
		h.tryOpen(name, mt)
	}
}

// tryOpen opens mt when every host has arrived or left; h.mu is held.
func (h *barrierHub) tryOpen(name string, mt *meeting) {
	for r := range h.hosts {
		if !mt.arrived[r] && !h.left[r] {
			return
		}
	}
	rel := engine.Release{Start: time.Now().Add(h.lead), Hosts: make([]engine.Arrival, len(h.hosts))}
	for r, host := range h.hosts {
		rel.Hosts[r] = engine.Arrival{Host: host, Data: mt.data[r], Left: !mt.arrived[r]}
		h.lastLead[r] = h.lead
	}
	mt.rel = rel
	close(mt.open)
	delete(h.meets, name)
}

// arriveLine is a host's arrival at a barrier, as a line of the run stream.
type arriveLine struct {
	Name string `json:"name"`
	Data []byte `json:"data,omitempty"`
	// LateNs is how late the host's engine got its previous release, after
	// the common start, if it was.
	LateNs int64 `json:"late_ns,omitempty"`
}

// releaseBody is the body of POST /v1/release: the barrier Name opened, and
// every host starts at StartNs (the agent's clock, Unix ns); or Error says
// why it never will.
type releaseBody struct {
	Name    string           `json:"name"`
	StartNs int64            `json:"start_ns,omitempty"`
	Hosts   []engine.Arrival `json:"hosts,omitempty"`
	Error   string           `json:"error,omitempty"`
}

// streamBarrier is a remote agent's side of the barriers of one phase: Wait
// writes an arrival on the run stream and waits for the release the
// controller posts.
type streamBarrier struct {
	// arrive is read by the run stream, which writes each as a line.
	arrive chan arriveLine
	// skew is the server's test clock skew, taken off every start.
	skew time.Duration

	mu      sync.Mutex
	waiting map[string]chan releaseBody
	late    int64 // ns; sent with the next arrival
}

var _ engine.Barrier = (*streamBarrier)(nil)

func newStreamBarrier(skew time.Duration) *streamBarrier {
	return &streamBarrier{arrive: make(chan arriveLine, 1), skew: skew, waiting: map[string]chan releaseBody{}}
}

// Wait arrives at the barrier name and waits for the controller's release.
// It ends with ctx, which the session cancels when the controller is lost
// or the phase is stopped.
func (b *streamBarrier) Wait(ctx context.Context, name string, data []byte) (engine.Release, error) {
	ch := make(chan releaseBody, 1)
	b.mu.Lock()
	if _, dup := b.waiting[name]; dup {
		b.mu.Unlock()
		return engine.Release{}, fmt.Errorf("barrier %s: already waiting", name)
	}
	b.waiting[name] = ch
	late := b.late
	b.late = 0
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		delete(b.waiting, name)
		b.mu.Unlock()
	}()
	select {
	case b.arrive <- arriveLine{Name: name, Data: data, LateNs: late}:
	case <-ctx.Done():
		return engine.Release{}, context.Cause(ctx)
	}
	select {
	case rb := <-ch:
		if rb.Error != "" {
			return engine.Release{}, fmt.Errorf("barrier %s: %s", name, rb.Error)
		}
		rel := engine.Release{Start: time.Unix(0, rb.StartNs).Add(-b.skew), Hosts: rb.Hosts}
		if d := time.Since(rel.Start); d > 0 {
			b.mu.Lock()
			b.late = max(b.late, int64(d))
			b.mu.Unlock()
		}
		return rel, nil
	case <-ctx.Done():
		return engine.Release{}, context.Cause(ctx)
	}
}

// release hands the controller's release to the host waiting at its barrier.
func (b *streamBarrier) release(rb releaseBody) error {
	b.mu.Lock()
	ch, ok := b.waiting[rb.Name]
	b.mu.Unlock()
	if !ok {
		return fmt.Errorf("nothing waits at barrier %q", rb.Name)
	}
	select {
	case ch <- rb:
		return nil
	default:
		return fmt.Errorf("barrier %q was already released", rb.Name)
	}
}

// errNoBarrier answers a release for a phase that runs on one host.
var errNoBarrier = errors.New("this phase has no barriers (it runs on one host)")
