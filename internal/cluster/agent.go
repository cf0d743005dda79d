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

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/engine/fio"
)

// Info describes an agent: who it is and what it runs.
type Info struct {
	Host       string    `json:"host"`
	Hostname   string    `json:"hostname"`
	Version    string    `json:"version"`
	Protocol   int       `json:"protocol"`
	Kernel     string    `json:"kernel"`
	FioVersion string    `json:"fio_version,omitempty"`
	Time       time.Time `json:"time"`
}

// Request asks an agent to prepare a phase of a run.
type Request struct {
	RunID string       `json:"run_id"`
	Keep  bool         `json:"keep"`
	Phase engine.Phase `json:"phase"`
}

// Agent is one host that runs phases for a controller. Calls come in the
// order Info, then per phase Prepare, Run, Cleanup.
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

// Protocol is the version of the controller-agent protocol.
const Protocol = 1

// LocalAgent runs phases in this process.
type LocalAgent struct {
	// Host is this agent's name in results ("localhost").
	Host string
	// Version is storbench's version, reported in Info.
	Version string
	// FioBin and AllowExec are this agent's own settings; they never come
	// from a request.
	FioBin    string
	AllowExec bool

	mu   sync.Mutex
	cur  engine.Prepared
	req  Request
	busy bool
}

var _ Agent = (*LocalAgent)(nil)

// Name returns the agent's host name.
func (a *LocalAgent) Name() string { return a.Host }

// Info reports the agent's versions.
func (a *LocalAgent) Info(ctx context.Context) (Info, error) {
	hn, _ := os.Hostname()
	in := Info{Host: a.Host, Hostname: hn, Version: a.Version, Protocol: Protocol, Kernel: Kernel(), Time: time.Now()}
	if bin, err := fio.FindFio(a.FioBin); err == nil {
		in.FioVersion, _ = fio.Version(bin)
	}
	return in, nil
}

// Prepare prepares a phase with its engine.
func (a *LocalAgent) Prepare(ctx context.Context, req Request) error {
	a.mu.Lock()
	if a.busy {
		a.mu.Unlock()
		return fmt.Errorf("agent %s is busy with run %s", a.Host, a.req.RunID)
	}
	a.busy = true
	a.mu.Unlock()
	e, err := engine.Lookup(req.Phase.Engine)
	if err == nil {
		env := engine.Env{Host: a.Host, RunID: req.RunID, Keep: req.Keep, AllowExec: a.AllowExec, FioBin: a.FioBin}
		var p engine.Prepared
		p, err = e.Prepare(ctx, env, req.Phase)
		if err == nil {
			a.mu.Lock()
			a.cur, a.req = p, req
			a.mu.Unlock()
			return nil
		}
	}
	a.mu.Lock()
	a.busy = false
	a.mu.Unlock()
	return err
}

// Run runs the prepared phase.
func (a *LocalAgent) Run(ctx context.Context, startAt time.Time, live engine.LiveFunc) (*engine.HostResult, error) {
	a.mu.Lock()
	p := a.cur
	a.mu.Unlock()
	if p == nil {
		return nil, errors.New("no phase prepared")
	}
	return p.Run(ctx, startAt, live)
}

// Cleanup cleans up the prepared phase and frees the agent.
func (a *LocalAgent) Cleanup(ctx context.Context) error {
	a.mu.Lock()
	p := a.cur
	a.cur, a.busy = nil, false
	a.mu.Unlock()
	if p == nil {
		return nil
	}
	return p.Cleanup(ctx)
}

// Kernel returns the running kernel's release ("6.1.0-18-amd64").
func Kernel() string {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}
