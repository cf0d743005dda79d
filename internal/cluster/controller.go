package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
)

// TogetherLead is the lead (Controller.Lead) of a phase that is ready to
// start once prepared (engine.Plan.StartsTogether): a host that gets the run
// request after the common start time goes to md's first barrier at once,
// and the timed operations start when every host is there; a fio host
// opens its gate at once, its start as late as the request came (the
// phase's start skew says by how much).
const TogetherLead = 50 * time.Millisecond

// perAgentLead is what each agent adds to TogetherLead: the controller
// sends every agent its run request when the hosts are prepared, and the
// last must reach its agent before the common start (a fio host that gets
// it late opens its gate late). One round of requests to 1,000 agents
// took about 0.6 s here (prepare's six rounds, 3.3-3.8 s, in
// docs/measuring.md); 1 ms an agent leaves room.
const perAgentLead = time.Millisecond

// togetherLead is the lead of a phase ready once prepared on n agents,
// at most full (the controller's own lead).
func togetherLead(n int, full time.Duration) time.Duration {
	return min(full, TogetherLead+time.Duration(n)*perAgentLead)
}

// Controller takes every agent through each phase together: prepare on all,
// start all at one absolute time, run, collect, clean up on all.
type Controller struct {
	Agents []Agent
	// Engines are the engines the phases name: the controller asks them
	// whether a phase can end early (autoterm) and where a lost host's
	// phase put what it created.
	Engines engine.Registry
	// Lead is how far ahead of the end of preparation the common start time is
	// set, so that every agent is waiting when it comes.
	Lead time.Duration
	// StartAt, when later than preparation allows, is when the measured
	// stage starts (s3 --syncstart: runs started by hand on several clients).
	StartAt time.Time
	// Progress, if set, is called about once a second while a phase runs,
	// from one goroutine, and once more (Final) when every host's run
	// ended, before the phase's outcome is returned: the last snapshots
	// reach the sinks before the phase is marked done.
	Progress func(Progress)
	// MaxClockOffset is the largest clock offset accepted from a remote
	// agent before each phase; zero means one second, negative means any.
	MaxClockOffset time.Duration
	// ClockSamples is how many clock samples are taken per agent (best
	// round trip kept); zero means 5.
	ClockSamples int
	// DropCaches asks every agent to sync and drop the page cache after
	// preparing each phase.
	DropCaches bool
	// Name names this controller in agents' "busy" errors.
	Name string
	// AtStart, if set, is called once the phase's common start is set,
	// before its load runs, with the agents that run it; the function it
	// returns is called when every host's load ended, before cleanup
	// (a suite phase's events).
	AtStart func(ctx context.Context, start time.Time, agents []Agent) (ended func())
	// All are every agent of the run, when a phase runs on fewer (Agents):
	// their background removals of earlier phases' files are awaited too
	// before the phase starts.
	All []Agent

	mu   sync.Mutex
	lost map[string]error // agents lost in earlier phases, by name
	// slots bounds the agents called at once (slot).
	slotsOnce sync.Once
	slots     chan struct{}
	// awaited are the records of removals CheckResources awaited, for
	// the next Settle to return.
	awaited []Removal
}

// clockAgent is an agent with a clock of its own (a remote one).
type clockAgent interface {
	MeasureClock(ctx context.Context, n int) (offset, rtt time.Duration, err error)
}

// Connect asks every agent for its Info, checks that all speak this
// protocol and are free, and measures remote clocks. It fails with one
// error naming every agent that cannot take part.
func (c *Controller) Connect(ctx context.Context) ([]Info, error) {
	n := len(c.Agents)
	if n == 0 {
		return nil, errors.New("no agents")
	}
	infos := make([]Info, n)
	errs := make([]error, n)
	c.each(func(i int, a Agent) {
		// A few agents at a time: 10,000 connections opened at once wait
		// so long for a CPU here that agents close them as too slow.
		release, err := c.slot(ctx)
		if err != nil {
			errs[i] = err
			return
		}
		defer release()
		in, err := a.Info(ctx)
		switch {
		case err != nil:
		case in.Protocol != Protocol:
			err = protocolErr(in.Protocol, in.Version, protoString)
		case in.Busy != "":
			err = fmt.Errorf("busy with %s", in.Busy)
		case c.DropCaches && !in.Root:
			err = errors.New("--drop-caches needs the agent to run as root")
		}
		if err == nil {
			if ca, ok := a.(clockAgent); ok {
				var off, rtt time.Duration
				off, rtt, err = ca.MeasureClock(ctx, c.clockSamples())
				in.ClockOffsetNs, in.RTTNs = int64(off), int64(rtt)
				if err == nil {
					err = c.checkOffset(off)
				}
			}
		}
		in.Host = a.Name()
		infos[i], errs[i] = in, err
	})
	var msgs []string
	unreached := true
	for i, err := range errs {
		if err != nil {
			msgs = append(msgs, fmt.Sprintf("%s: %v", c.Agents[i].Name(), err))
			unreached = unreached && errors.Is(err, ErrLost)
		}
	}
	if len(msgs) > 0 {
		return infos, &connectError{msg: strings.Join(msgs, "; "), unreached: unreached}
	}
	return infos, nil
}

// connectError is Connect's error: every agent that failed, by name. It
// is ErrLost when none of them could be reached (no answer at all), and
// not when one answered and refused (token, clock, protocol, busy).
type connectError struct {
	msg       string
	unreached bool
}

func (e *connectError) Error() string        { return e.msg }
func (e *connectError) Is(target error) bool { return e.unreached && target == ErrLost }

// clockFresh is how old a clock offset may be and still serve a phase:
// a clock off by 100 ppm (an undisciplined quartz; NTP keeps one within a
// few) moves 30 ms in five minutes, less than a sample's own error on a
// busy machine (half its round trip). A phase that follows the connect or
// a short phase thus takes no new samples: with 10,000 agents, their
// 50,000 round trips were most of the time the phase took to prepare,
// while the agents prepared first waited for the others. The connect of
// 10,000 agents takes minutes itself, so the bound is not one minute.
const clockFresh = 5 * time.Minute

// recentClocker is an agent that keeps the clock offset it measured last.
type recentClocker interface {
	recentClock(maxAge time.Duration) (offset, rtt time.Duration, ok bool)
}

// measureClock measures ca's clock in a slot, unless it was measured
// within clockFresh.
func (c *Controller) measureClock(ctx context.Context, ca clockAgent) (offset, rtt time.Duration, err error) {
	if rc, ok := ca.(recentClocker); ok {
		if off, rtt, ok := rc.recentClock(clockFresh); ok {
			return off, rtt, nil
		}
	}
	release, err := c.slot(ctx)
	if err != nil {
		return 0, 0, err
	}
	defer release()
	return ca.MeasureClock(ctx, c.clockSamples())
}

func (c *Controller) clockSamples() int {
	if c.ClockSamples > 0 {
		return c.ClockSamples
	}
	return 5
}

// checkOffset refuses a clock offset over MaxClockOffset: the common start
// and the window in which all hosts ran would be off by as much.
func (c *Controller) checkOffset(off time.Duration) error {
	limit := c.MaxClockOffset
	if limit == 0 {
		limit = time.Second
	}
	if limit > 0 && (off > limit || off < -limit) {
		return fmt.Errorf("clock is off by %s, over the limit of %s: synchronise the clocks (chrony, ntpd) or raise --max-clock-offset", off.Round(time.Millisecond), limit)
	}
	return nil
}

// Lost returns the agents lost so far in this run, with why.
func (c *Controller) Lost() map[string]error {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]error, len(c.lost))
	for k, v := range c.lost {
		out[k] = v
	}
	return out
}

// Progress is the live state of a phase across hosts.
type Progress struct {
	Phase   string
	Elapsed time.Duration
	// Hosts holds each host's latest snapshot, in agent order; a host that
	// has sent none yet has a zero Snapshot with only Host set.
	Hosts []engine.Snapshot
	// Lost names the hosts lost so far in this phase.
	Lost []string
	// Seconds holds every snapshot received since the previous Progress,
	// in the order they came: a host whose seconds arrive two at once
	// has both here, where Hosts holds only the later.
	Seconds []engine.Snapshot
	// Final marks the call made once every host's run ended: Hosts hold
	// the last snapshots, however little time passed since the last call.
	Final bool
}

// Outcome is what a phase produced on every host.
type Outcome struct {
	// Results holds one result per host that returned one, in agent order.
	Results []*engine.HostResult
	// Lost names hosts that stopped answering (this phase or before); the
	// phase finished on the others.
	Lost []string
	// Errors holds each failing host's error, by host.
	Errors map[string]error
	// Start and End bound the run stage as the controller saw it.
	Start, End time.Time
	// Prepare and Cleanup are how long those stages took on the slowest host.
	Prepare, Cleanup time.Duration
	// StoppedBy is "autoterm" when the controller ended the phase because
	// the total throughput of all hosts was stable.
	StoppedBy string
	// Stopped names hosts whose agent was told to stop (SIGTERM, SIGINT)
	// during the phase: their partial results are in Results, they cleaned
	// up on their own, and later phases run without them.
	Stopped []string
	// Leftovers is what cleanup could not remove, per host, and what hosts
	// lost in this phase may have left.
	Leftovers []engine.Leftover
	// Removals are the removals of earlier phases' files that went on in
	// the background while this phase was prepared, awaited before it
	// started: when they ran and what they left.
	Removals []Removal
}

// RunPhase runs one phase on every agent still answering. It returns an
// error when the phase could not start (preparation failed), was
// interrupted, failed on a host, or lost every host; a host lost while
// others finish is reported in the Outcome only, and later phases run
// without it.
func (c *Controller) RunPhase(ctx context.Context, runID string, keep bool, p engine.Phase) (*Outcome, error) {
	// The shared area's own steps (probe, cleanup) measure nothing: no
	// cache to drop before them.
	req := Request{RunID: runID, Keep: keep, Phase: p, Controller: c.Name, DropCaches: c.DropCaches && p.Engine != AreaEngine}
	req.ResultBytes, req.ResultPerSecond = c.Engines.ResultBytes(p)
	if len(c.Agents) == 0 {
		return nil, errors.New("no agents")
	}
	out := &Outcome{Errors: map[string]error{}}
	agents := c.answering(out)
	if len(agents) == 0 {
		return nil, errors.New("every host was lost")
	}
	term, autoterm := c.autoTerm(&req, len(agents))

	prepStart := time.Now()
	// All hosts' plans together, before any host lays out its files (one
	// host's files could make another's check fail), and after removals
	// when they do not fit: the run told the notes when it began.
	if _, err := c.CheckResources(ctx, runID, p); err != nil {
		return nil, err
	}
	prepErrs, hub := c.prepareAll(ctx, agents, req)
	prepared := time.Now()
	agents, prepErrs = c.dropStopped(agents, prepErrs, out)
	if err := firstErr(agents, prepErrs); err != nil {
		left := append(leftoversOfAll(agents, prepErrs), c.cleanup(p, runID, agents, prepErrs)...)
		return nil, withLeftovers(err, left)
	}
	if ctx.Err() != nil {
		return nil, withLeftovers(ctx.Err(), c.cleanup(p, runID, agents, prepErrs))
	}
	// Earlier phases' files removed in the background are gone (or
	// reported) before the start: no removal in the measured window.
	all := c.All
	if all == nil {
		all = c.Agents
	}
	out.Removals = c.Settle(ctx, runID, all)
	prepared = time.Now()
	lead := c.Lead
	if c.Engines.StartsTogether(p) {
		// Ready once prepared: the lead only carries the run requests.
		lead = togetherLead(len(agents), lead)
	}
	out.Start, out.Prepare = prepared.Add(lead), prepared.Sub(prepStart)
	if c.StartAt.After(out.Start) {
		out.Start = c.StartAt
	}
	results, runErrs, lives := c.runAll(ctx, c.expected(p), agents, hub, out, autoterm, term)
	for i := range agents {
		if results[i] == nil && errors.Is(runErrs[i], ErrLost) {
			results[i] = lives[i].lostResult(agents[i].Name(), out.Start, runErrs[i])
		}
	}

	failed, firstLost, gotResult := c.collect(p, runID, agents, results, runErrs, prepErrs, out)
	cleanStart := time.Now()
	out.Leftovers = append(out.Leftovers, c.cleanupWith(p, runID, agents, prepErrs, hub.heir(agents, prepErrs))...)
	out.Cleanup = time.Since(cleanStart)
	switch {
	case ctx.Err() != nil:
		return out, ctx.Err()
	case len(failed) > 0:
		return out, failed[0]
	case !gotResult && firstLost != nil:
		// Why, in the words of the first: the only line the user sees.
		return out, fmt.Errorf("every host was lost (%v)", firstLost)
	case !gotResult:
		return out, errors.New("every host was lost")
	}
	return out, nil
}

// autoTerm is the --autoterm rule the controller judges for req's phase
// on n hosts: with several, it judges the total and stops them all
// together, so no host ends early on its own (req's phase then goes to
// the agents without it).
func (c *Controller) autoTerm(req *Request, n int) (term record.AutoTerm, ok bool) {
	if n < 2 {
		return term, false
	}
	term, without, ok := c.Engines.AutoTerm(req.Phase)
	if ok {
		req.Phase = without
	}
	return term, ok
}

// runAll runs the phase on every prepared agent from out.Start, telling
// Progress every second (and once more at the end) what they report,
// and returns each agent's result and error, and what its snapshots told
// (for a host lost on the way); out.End is set when all ended.
func (c *Controller) runAll(ctx context.Context, want expect, agents []Agent, hub *barrierHub, out *Outcome, autoterm bool, term record.AutoTerm) ([]*engine.HostResult, []error, []liveSeries) {
	phase := want.phase
	n := len(agents)
	var mu sync.Mutex
	latest := make([]engine.Snapshot, n)
	lives := make([]liveSeries, n)
	for i, a := range agents {
		latest[i].Host = a.Name()
	}
	lostNow := append([]string(nil), out.Lost...)
	var since []engine.Snapshot // every snapshot since the last Progress
	progress := func(now time.Time, final bool) Progress {
		mu.Lock()
		defer mu.Unlock()
		pr := Progress{Phase: phase, Elapsed: now.Sub(out.Start), Hosts: append([]engine.Snapshot(nil), latest...),
			Lost: append([]string(nil), lostNow...), Seconds: since, Final: final}
		since = nil
		return pr
	}
	stopTick := make(chan struct{})
	tickDone := make(chan struct{})
	go c.tick(stopTick, tickDone, progress, out, agents, autoterm, term)

	ended := func() {}
	if c.AtStart != nil {
		ended = c.AtStart(ctx, out.Start, agents)
	}
	results := make([]*engine.HostResult, n)
	runErrs := make([]error, n)
	refused := make([]error, n)
	c.fanOut(ctx, agents, func(ctx context.Context, i int, a Agent) {
		results[i], runErrs[i] = a.Run(ctx, out.Start, func(s engine.Snapshot) {
			mu.Lock()
			if refused[i] == nil {
				refused[i] = want.snapshot(a.Name(), s)
			}
			if refused[i] != nil {
				mu.Unlock()
				return
			}
			latest[i] = s
			lives[i].add(s, out.Start)
			if c.Progress != nil {
				since = append(since, s)
			}
			mu.Unlock()
		})
		mu.Lock()
		if refused[i] == nil {
			refused[i] = want.result(a.Name(), results[i])
		}
		if refused[i] != nil {
			// What it sent is not what it was asked for: none of it is
			// kept, and the phase fails on it.
			results[i], runErrs[i] = nil, refused[i]
		}
		mu.Unlock()
		if hub != nil {
			// Done, failed, stopped or lost: the others go on without it.
			runErrs[i] = hub.ended(a.Name(), runErrs[i])
		}
		if errors.Is(runErrs[i], ErrLost) {
			mu.Lock()
			lostNow = append(lostNow, a.Name())
			mu.Unlock()
		}
	})
	close(stopTick)
	<-tickDone
	out.End = time.Now()
	if c.Progress != nil {
		// The snapshots that came after the last tick (fio's final
		// counts, the last second) are told before the phase is done.
		c.Progress(progress(out.End, true))
	}
	ended()
	return results, runErrs, lives
}

// answering are the agents not lost in an earlier phase; the lost ones
// are named in out.
func (c *Controller) answering(out *Outcome) []Agent {
	c.mu.Lock()
	defer c.mu.Unlock()
	var agents []Agent
	for _, a := range c.Agents {
		if err, gone := c.lost[a.Name()]; gone {
			out.Lost = append(out.Lost, a.Name())
			out.Errors[a.Name()] = err
			continue
		}
		agents = append(agents, a)
	}
	return agents
}

// prepareAll measures every agent's clock, then prepares the phase on
// every agent whose clock is right, with a barrier between them when there
// are several; it returns each agent's error, and the barrier.
func (c *Controller) prepareAll(ctx context.Context, agents []Agent, req Request) ([]error, *barrierHub) {
	n := len(agents)
	prepErrs := make([]error, n)
	rtts := make([]time.Duration, n)
	each(agents, func(i int, a Agent) {
		if ca, ok := a.(clockAgent); ok {
			// Clocks drift: measure again before a phase, unless
			// measured within clockFresh.
			off, rtt, err := c.measureClock(ctx, ca)
			if err == nil {
				err = c.checkOffset(off)
			}
			if err != nil {
				prepErrs[i] = err
				return
			}
			rtts[i] = rtt
		}
	})
	// With several hosts, the engine may make them meet between stages
	// (md: every operation starts on all hosts together).
	var hub *barrierHub
	names := make([]string, n)
	for i, a := range agents {
		names[i] = a.Name()
	}
	if n > 1 && firstErr(agents, prepErrs) == nil {
		hub = newBarrierHub(names, BarrierLead+3*slices.Max(rtts))
		_, hub.shares = c.Engines.SharedDir(req.Phase, n)
	}
	c.fanOut(ctx, agents, func(ctx context.Context, i int, a Agent) {
		if prepErrs[i] != nil {
			return
		}
		r := req
		if hub != nil {
			r.Hosts, r.Rank, r.Next, r.Barrier = n, i, names[(i+1)%n], hub.member(i)
		}
		prepErrs[i] = a.Prepare(ctx, r)
		if hub != nil && prepErrs[i] != nil {
			prepErrs[i] = hub.ended(a.Name(), prepErrs[i])
		}
	})
	return prepErrs, hub
}

// dropStopped takes out the agents told to stop while preparing: each
// drops out of the run, as a lost one does, and the others go on.
func (c *Controller) dropStopped(agents []Agent, prepErrs []error, out *Outcome) ([]Agent, []error) {
	for i := 0; i < len(agents); i++ {
		if err := prepErrs[i]; errors.Is(err, ErrStopped) && len(agents) > 1 {
			name := agents[i].Name()
			c.markLost(name, err)
			out.Stopped = append(out.Stopped, name)
			out.Errors[name] = err
			out.Leftovers = append(out.Leftovers, carried(name, err)...)
			agents = append(agents[:i:i], agents[i+1:]...)
			prepErrs = append(prepErrs[:i:i], prepErrs[i+1:]...)
			i--
		}
	}
	return agents, prepErrs
}

// tick tells Progress every second until stopTick closes (then closes
// tickDone), and with autoterm stops every agent once the hosts' total
// throughput is stable.
func (c *Controller) tick(stopTick <-chan struct{}, tickDone chan<- struct{}, progress func(time.Time, bool) Progress, out *Outcome, agents []Agent, autoterm bool, term record.AutoTerm) {
	defer close(tickDone)
	if c.Progress == nil && !autoterm {
		<-stopTick
		return
	}
	t := time.NewTicker(time.Second)
	defer t.Stop()
	var total []record.Second
	var prev record.Count
	prevNs := int64(0)
	for {
		select {
		case <-stopTick:
			return
		case now := <-t.C:
			pr := progress(now, false)
			if c.Progress != nil {
				c.Progress(pr)
			}
			if !autoterm || out.StoppedBy != "" || now.Before(out.Start) {
				continue
			}
			cur := sumCounts(pr.Hosts)
			if prevNs != 0 && cur.Ops >= prev.Ops {
				total = append(total, record.Second{StartNs: prevNs, EndNs: now.UnixNano(), Ops: cur.Ops - prev.Ops, Bytes: cur.Bytes - prev.Bytes})
			}
			prev, prevNs = cur, now.UnixNano()
			if term.Stable(total) {
				out.StoppedBy = model.StoppedByAutoterm
				for _, a := range agents {
					if s, ok := a.(Stopper); ok {
						go s.Stop()
					}
				}
			}
		}
	}
}

// collect takes in every agent's result and error into out: a lost agent
// is marked lost (what it may have left noted), a stopped one stopped;
// it returns the hosts' failures, the first loss, and whether any host
// sent a result. prepErrs marks the agents that need no cleanup.
func (c *Controller) collect(p engine.Phase, runID string, agents []Agent, results []*engine.HostResult, runErrs, prepErrs []error, out *Outcome) (failed []error, firstLost error, gotResult bool) {
	for i, a := range agents {
		if results[i] != nil {
			if results[i].Host == "" {
				results[i].Host = a.Name()
			}
			out.Results = append(out.Results, results[i])
			// A lost host's result is only what its snapshots told.
			gotResult = gotResult || !errors.Is(runErrs[i], ErrLost)
		}
		if runErrs[i] == nil {
			continue
		}
		out.Errors[a.Name()] = runErrs[i]
		switch {
		case errors.Is(runErrs[i], ErrLost):
			if firstLost == nil {
				firstLost = runErrs[i]
			}
			out.Lost = append(out.Lost, a.Name())
			c.markLost(a.Name(), runErrs[i])
			// A lost agent cleans up on its own when it notices, if it
			// still runs; if it died, its files or objects stay.
			prepErrs[i] = runErrs[i]
			out.Leftovers = append(out.Leftovers, c.leftByLost(p, runID, a)...)
			continue
		case errors.Is(runErrs[i], ErrStopped):
			// Told to stop: it sent what it measured and cleaned up.
			out.Stopped = append(out.Stopped, a.Name())
			c.markLost(a.Name(), runErrs[i])
			prepErrs[i] = runErrs[i]
			out.Leftovers = append(out.Leftovers, carried(a.Name(), runErrs[i])...)
			continue
		}
		failed = append(failed, nameErr(agents, i, runErrs[i]))
	}
	return failed, firstLost, gotResult
}

// sumCounts adds every host's cumulative counts of every operation.
func sumCounts(hosts []engine.Snapshot) record.Count {
	var c record.Count
	for _, h := range hosts {
		for _, o := range h.Ops {
			c.Ops += o.Ops
			c.Bytes += o.Bytes
		}
	}
	return c
}

// cleanup cleans up every agent whose preparation did not fail, and
// returns what could not be removed, host by host. It uses its own
// context: cleanup must happen even after an interrupt.
func (c *Controller) cleanup(p engine.Phase, runID string, agents []Agent, prepErrs []error) []engine.Leftover {
	return c.cleanupWith(p, runID, agents, prepErrs, "")
}

// cleanupWith is cleanup, with the host named heir removing what the
// hosts share in the first host's stead (leave.go), when it can.
func (c *Controller) cleanupWith(p engine.Phase, runID string, agents []Agent, prepErrs []error, heir string) []engine.Leftover {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	left := make([][]engine.Leftover, len(agents))
	c.fanOut(ctx, agents, func(ctx context.Context, i int, a Agent) {
		if prepErrs[i] == nil {
			clean := a.Cleanup
			if hc, ok := a.(heirCleaner); ok && a.Name() == heir {
				clean = hc.CleanupAsFirst
			}
			if err := clean(ctx); err != nil {
				if errors.Is(err, ErrStopped) {
					// Told to stop after its run, it cleaned up on its
					// own and goes away: later phases, and the run-level
					// cleanup, go without it.
					c.markLost(a.Name(), err)
				}
				left[i] = c.leftoversOf(p, runID, a, err)
			}
		}
	})
	var out []engine.Leftover
	for _, l := range left {
		out = append(out, l...)
	}
	return out
}

// leftoversOf is what an agent's failed cleanup says it left on host; an
// agent that did not answer left what its phase makes, where the engine
// says it puts it.
func (c *Controller) leftoversOf(p engine.Phase, runID string, a Agent, err error) []engine.Leftover {
	host := a.Name()
	if _, items := engine.SplitLeftovers(err); len(items) > 0 {
		return engine.Leftovers(host, err)
	}
	// The agent may have ended the phase and cleaned up on its own (it
	// lost this controller's heartbeats): it says what is really left.
	if left, ok := c.askLeft(a, runID, p.Name); ok {
		return left
	}
	l := c.lostLeftover(p, runID, host)
	l.Reason = "cleanup: " + err.Error()
	return []engine.Leftover{l}
}

// carried returns the leftovers err carries, on host (none when it
// carries none: the agent cleaned up).
func carried(host string, err error) []engine.Leftover {
	if _, items := engine.SplitLeftovers(err); len(items) > 0 {
		return engine.Leftovers(host, err)
	}
	return nil
}

// leftoversOfAll gathers the leftovers the agents' errors carry (a failed
// preparation that could not undo itself).
func leftoversOfAll(agents []Agent, errs []error) []engine.Leftover {
	var out []engine.Leftover
	for i, err := range errs {
		out = append(out, carried(agents[i].Name(), err)...)
	}
	return out
}

// leftByLost is what a host lost mid-phase left: what its agent says, if
// it answers (it cleaned up on its own), else lostLeftover.
func (c *Controller) leftByLost(p engine.Phase, runID string, a Agent) []engine.Leftover {
	if left, ok := c.askLeft(a, runID, p.Name); ok {
		return left
	}
	return []engine.Leftover{c.lostLeftover(p, runID, a.Name())}
}

// lostLeftover names what a host lost mid-phase may have left: its agent
// removes it if it still runs, and if it died, it stays.
func (c *Controller) lostLeftover(p engine.Phase, runID, host string) engine.Leftover {
	l := engine.Leftover{Host: host, What: "files or objects", Where: "unknown",
		Reason: "host lost before cleanup; removed only if its agent still runs"}
	if what, where, ok := c.Engines.Locate(p, runID, host); ok {
		l.What, l.Where = what, where
	}
	return l
}

// withLeftovers joins err with leftovers, when there are any.
func withLeftovers(err error, left []engine.Leftover) error {
	if len(left) == 0 {
		return err
	}
	return engine.WithLeftovers(err, &engine.LeftoverError{Items: left})
}

// markLost takes name out of later phases.
func (c *Controller) markLost(name string, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lost == nil {
		c.lost = map[string]error{}
	}
	c.lost[name] = err
}

func (c *Controller) each(fn func(i int, a Agent)) { each(c.Agents, fn) }

// each calls fn for every agent at once and waits for all.
func each(agents []Agent, fn func(i int, a Agent)) {
	var wg sync.WaitGroup
	for i, a := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(i, a)
		}()
	}
	wg.Wait()
}

// firstErr returns the first error, naming its host when there are several.
func firstErr(agents []Agent, errs []error) error {
	for i, err := range errs {
		if err != nil {
			return nameErr(agents, i, err)
		}
	}
	return nil
}

func nameErr(agents []Agent, i int, err error) error {
	if len(agents) > 1 {
		return fmt.Errorf("%s: %w", agents[i].Name(), err)
	}
	return err
}
