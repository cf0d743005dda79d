// Package cluster moves phases through agents: the Agent interface a
// controller drives, the in-process LocalAgent, and the Controller that takes
// every agent through prepare, a common start, run, and cleanup.
//
// A local run is a controller driving one LocalAgent through the same
// interface a remote agent serves, so there is one execution path.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/storbench/storbench/internal/cpuload"
	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
)

// Info describes an agent: who it is and what it runs (model.AgentInfo:
// run.json keeps it).
type Info = model.AgentInfo

// Request asks an agent to prepare a phase of a run.
type Request struct {
	RunID string       `json:"run_id"`
	Keep  bool         `json:"keep"`
	Phase engine.Phase `json:"phase"`
	// Host is the agent's name in this run, chosen by the controller so that
	// every host's files and objects live under a path of their own.
	Host string `json:"host,omitempty"`
	// Controller names the controller, for a second controller's "busy" error.
	Controller string `json:"controller,omitempty"`
	// HeartbeatTimeoutNs is how long the agent waits without a heartbeat
	// before it stops the phase: the controller's knob
	// (RemoteAgent.HeartbeatTimeout), so that both sides use one value.
	// Zero (an older controller): the agent's own.
	HeartbeatTimeoutNs int64 `json:"heartbeat_timeout_ns,omitempty"`
	// DropCaches asks the agent to sync and drop the page cache after
	// preparing, so the phase starts cold (root only).
	DropCaches bool `json:"drop_caches,omitempty"`
	// Hosts is how many hosts run the phase and Rank this agent's place
	// among them, from 0 (see engine.Env).
	Hosts int `json:"hosts,omitempty"`
	Rank  int `json:"rank,omitempty"`
	// Next is the name of the host of the next rank, when Hosts > 1 (see
	// engine.Env).
	Next string `json:"next,omitempty"`
	// ResultBytes and ResultPerSecond are what the phase's engine adds to
	// the bound of the run's last line, the host's result
	// (engine.Plan.ResultBytes), for the controller's side of a remote agent.
	// They never travel.
	ResultBytes     int64 `json:"-"`
	ResultPerSecond int64 `json:"-"`
	// Barrier is the phase's barrier across hosts, for the engine, when
	// Hosts > 1. It never travels: a remote agent's server gives its engine
	// a barrier that relays over the run stream, and the controller's
	// RemoteAgent relays between that stream and this Barrier.
	Barrier engine.Barrier `json:"-"`
}

// Agent is one host that runs phases for a controller. Calls come in the
// order Info, then per phase Prepare, Run, Cleanup. Agents may also be a
// Stopper (end a running phase early) and a clockAgent (remote clocks).
type Agent interface {
	// Name is the host's name in results.
	Name() string
	Info(ctx context.Context) (Info, error)
	Prepare(ctx context.Context, req Request) error
	// Run starts the prepared phase at startAt and blocks until it ends; live
	// receives snapshots about once a second.
	Run(ctx context.Context, startAt time.Time, live engine.LiveFunc) (*engine.HostResult, error)
	Cleanup(ctx context.Context) error
}

// Stopper is an agent whose running phase can be ended early and gracefully:
// the engine stops between operations and Run returns what it measured.
type Stopper interface {
	Stop()
}

// Protocol is the version of the controller-agent protocol. 2: barriers
// across hosts (arrive lines on the run stream, POST /v1/release). 3: the
// run's shared area - the agent's built-in AreaEngine (the probe that
// proves hosts share a directory, the run-level cleanup), every host's
// name in a prepare request, and fio phases that are shared or read from
// a neighbour. 4: a fio phase's files are removed in the background after
// cleanup, awaited before prepare reports ready and by POST /v1/settle,
// which also says what a phase the agent ended on its own left. 5: POST
// /v1/resources, a phase's free space and memory checked on each host
// before it is prepared (and by a dry run), the hosts sharing one file
// system added up by the controller. 6: a prepare request names the next
// host (next), not every host (names). 7: an agent told to stop in a
// phase on several hosts asks whether others still run it (a leave line
// on its stream or the heartbeats' answer, POST /v1/leave) before it
// removes what the hosts share, and a cleanup may ask a host to remove it
// in the first host's stead (as_first); POST /v1/end, a run over whose
// launcher ended before its agents.
const Protocol = 7

var _ Stopper = (*LocalAgent)(nil)

// LocalAgent runs phases in this process.
type LocalAgent struct {
	// Host is this agent's name in results ("localhost").
	Host string
	// Version is storbench's version, reported in Info.
	Version string
	// Tools (where its outside tools are) and AllowExec are this agent's
	// own settings; they never come from a request.
	Tools     engine.Tools
	AllowExec bool
	// AllowEvents lets a controller run event commands on this machine
	// (storbench agent --allow-events); off, only storbench's own event
	// actions (drop caches, pause) run.
	AllowEvents bool
	// Engines are the engines this agent runs phases with.
	Engines engine.Registry
	// Secrets are this agent's values of the engines' secret variables
	// (engine.Env's Secrets: s3's keys, for phases that carry none); like
	// Tools they never come from a request.
	Secrets engine.Secrets
	// CPUs is engine.Env's CPUs: the workers of one per CPU (0: the
	// process's CPU count).
	CPUs int
	// Dir is where this machine has the run's target directory, when it
	// is at a path of its own.
	Dir HostDir
	// NoClientLoad measures none of the host's CPU over a run (the
	// result's Client stays absent): for agents that share a process by
	// the thousand (the scale bench's farms), each of whose monitors read
	// the whole process table and this process's descriptors, 61% of a
	// farm's CPU, so that its agents heard their heartbeats late.
	NoClientLoad bool

	mu      sync.Mutex
	cur     engine.Prepared
	req     Request
	busy    bool
	stop    context.CancelFunc // ends the running phase early (Stop)
	stopped bool               // Stop was called: the phase ended early on purpose
	// stopSoon is a Stop that came after Prepare and before Run: the run
	// ends as soon as it starts.
	stopSoon bool
	// bg are the removals of phases' files going on in the background.
	bg removals
}

var _ Agent = (*LocalAgent)(nil)

// Name returns the agent's host name.
func (a *LocalAgent) Name() string { return a.Host }

// Info reports the agent's versions.
func (a *LocalAgent) Info(ctx context.Context) (Info, error) {
	hn, _ := os.Hostname()
	in := Info{Host: a.Host, Hostname: hn, Version: a.Version, Protocol: Protocol, Kernel: Kernel(), Time: time.Now(), Root: os.Geteuid() == 0, AllowEvents: a.AllowEvents,
		AddressLimit: engine.AddressLimit()}
	in.SetTools(a.Engines.ToolVersions(a.Tools))
	return in, nil
}

// Prepare prepares a phase with its engine.
func (a *LocalAgent) Prepare(ctx context.Context, req Request) error {
	req.Phase.Params = a.Dir.apply(req.Phase.Params)
	a.mu.Lock()
	if a.busy {
		defer a.mu.Unlock()
		return a.busyErr()
	}
	a.busy = true
	a.mu.Unlock()
	if req.DropCaches && os.Geteuid() != 0 {
		a.mu.Lock()
		a.busy = false
		a.mu.Unlock()
		return errors.New("--drop-caches needs the agent to run as root")
	}
	host := req.Host
	if host == "" {
		host = a.Host
	}
	e, err := a.lookup(req.Phase.Engine)
	if err == nil {
		env := engine.Env{Host: host, RunID: req.RunID, Keep: req.Keep, AllowExec: a.AllowExec, Tools: a.Tools, Secrets: a.Secrets,
			Hosts: max(req.Hosts, 1), Rank: req.Rank, Next: req.Next, Barrier: req.Barrier, CPUs: a.CPUs,
			AwaitRemovals: a.bg.settle}
		var p engine.Prepared
		p, err = e.Prepare(ctx, env, req.Phase)
		if err == nil && req.DropCaches {
			// After preparing: laying out files fills the page cache.
			if err = DropCaches(); err != nil {
				if cerr := p.Cleanup(context.WithoutCancel(ctx)); cerr != nil {
					err = engine.WithLeftovers(err, &engine.LeftoverError{Items: engine.Leftovers(host, cerr)})
				}
			}
		}
		if err == nil {
			// Ready only once earlier phases' files are gone: their
			// removal overlapped this preparation, never the run.
			a.bg.settle(ctx)
			a.mu.Lock()
			a.cur, a.req = p, req
			a.mu.Unlock()
			return nil
		}
	}
	a.mu.Lock()
	a.busy = false
	a.mu.Unlock()
	return engine.OnHost(err, host)
}

// lookup finds the engine of a phase: one of the agent's engines, or the
// built-in AreaEngine every agent runs.
func (a *LocalAgent) lookup(name model.EngineName) (engine.Engine, error) {
	if name == AreaEngine {
		return areaEngine{}, nil
	}
	return a.Engines.Lookup(name)
}

// busyErr says who holds the agent; a.mu is held.
func (a *LocalAgent) busyErr() error {
	from := ""
	if a.req.Controller != "" {
		from = " from " + a.req.Controller
	}
	return fmt.Errorf("agent %s is busy with run %s%s", a.Host, a.req.RunID, from)
}

// Run runs the prepared phase.
func (a *LocalAgent) Run(ctx context.Context, startAt time.Time, live engine.LiveFunc) (*engine.HostResult, error) {
	parent := ctx
	a.mu.Lock()
	p := a.cur
	ctx, stop := context.WithCancel(ctx)
	a.stop, a.stopped = stop, false
	if a.stopSoon {
		a.stopped = true
		stop()
	}
	a.mu.Unlock()
	defer stop()
	if p == nil {
		return nil, errors.New("no phase prepared")
	}
	// How much of this host's CPU the run had: a starved client's
	// figures are marked so.
	var mon *cpuload.Monitor
	if !a.NoClientLoad {
		mon = cpuload.Start(startAt)
	}
	res, err := p.Run(ctx, startAt, live)
	if mon != nil {
		if load := mon.Stop(); res != nil {
			res.Client = cpuload.Merge(load, res.Client)
		}
	}
	a.mu.Lock()
	graceful := a.stopped
	a.mu.Unlock()
	switch {
	case graceful && parent.Err() == nil && errors.Is(err, context.Canceled):
		// Ended by Stop (the controller's autoterm): a normal end.
		err = nil
	case errors.Is(err, engine.ErrInterrupted) && res != nil && res.Err == "":
		// What was measured stays, marked as cut short.
		res.Err = engine.ErrInterrupted.Error()
	}
	return res, err
}

// Stop ends the running phase early, as Ctrl-C does: engines stop between
// operations and Run returns what was measured.
func (a *LocalAgent) Stop() {
	a.mu.Lock()
	switch {
	case a.stop != nil:
		a.stopped = true
		a.stop()
	case a.cur != nil:
		a.stopSoon = true
	}
	a.mu.Unlock()
}

// Cleanup cleans up the prepared phase and frees the agent. What could not
// be removed comes back as a *engine.LeftoverError naming this host. An
// engine that can (engine.Cleaner) removes its files in the
// background: the agent is free at once, and the removal is awaited
// before the next phase is ready (Prepare) or by Settle, whose records
// carry what it left.
func (a *LocalAgent) Cleanup(ctx context.Context) error {
	_, err := a.cleanup(ctx, nil)
	return err
}

// cleanup is Cleanup, saying whether the removal goes on in the
// background; leaving, if set, cleans up an engine.Cleaner's phase
// instead, at once (CleanupLeaving).
func (a *LocalAgent) cleanup(ctx context.Context, leaving func(engine.Cleaner) error) (bg bool, err error) {
	a.mu.Lock()
	p := a.cur
	host := a.hostName()
	runID, phase := a.req.RunID, a.req.Phase.Name
	a.cur, a.stop, a.stopSoon = nil, nil, false
	a.mu.Unlock()
	if c, ok := p.(engine.Cleaner); ok && leaving != nil {
		if cerr := leaving(c); cerr != nil {
			err = &engine.LeftoverError{Items: engine.Leftovers(host, cerr)}
		}
	} else if p != nil {
		bg = a.bg.start(p, runID, phase, host)
		if !bg {
			if cerr := p.Cleanup(ctx); cerr != nil {
				err = &engine.LeftoverError{Items: engine.Leftovers(host, cerr)}
			}
		}
	}
	// Free the agent only once the phase's files are gone (or their
	// removal is the agent's own, awaited before the next phase starts),
	// so the next phase never races this one's cleanup.
	a.mu.Lock()
	a.busy = false
	a.mu.Unlock()
	return bg, err
}

// hostName is the agent's name in the current run; a.mu is held.
func (a *LocalAgent) hostName() string {
	if a.req.Host != "" {
		return a.req.Host
	}
	return a.Host
}

// Kernel returns the running kernel's release ("6.1.0-18-amd64").
func Kernel() string {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}
