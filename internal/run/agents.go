package run

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/engine"
)

// agentSet is the agents of a run and how to let them go.
type agentSet struct {
	agents []cluster.Agent
	// local is the in-process agent, if the run uses this machine.
	local *cluster.LocalAgent
	// remote says some agent is on another process.
	remote bool
	close  func()
}

// names lists the agents' names, in order.
func (s *agentSet) names() []string {
	out := make([]string, len(s.agents))
	for i, a := range s.agents {
		out[i] = a.Name()
	}
	return out
}

// hostname is this machine's name, "localhost" when it has none.
func hostname() string {
	hn, _ := os.Hostname()
	if hn == "" {
		hn = "localhost"
	}
	return hn
}

// agents turns the plan's hosts into agents: none, or this machine alone,
// means one in-process agent.
func (r *Runner) agents(ctx context.Context, p Plan) (*agentSet, error) {
	entries := make([]string, len(p.Agents.Hosts))
	for i, e := range p.Agents.Hosts {
		entries[i] = e.String()
	}
	for _, e := range entries {
		if _, _, err := cluster.SplitHostPort(e); err != nil {
			return nil, badInput(err)
		}
	}
	hn := hostname()
	newLocal := func(name string) *cluster.LocalAgent {
		return &cluster.LocalAgent{Host: name, Version: r.Version, FioBin: p.FioBin, AllowExec: p.AllowExec, Engines: r.Engines, Credentials: p.Credentials}
	}
	if len(entries) == 0 || (len(entries) == 1 && cluster.IsLocal(entries[0]) && !p.Agents.SSH) {
		l := newLocal(cluster.HostName(hn))
		return &agentSet{agents: []cluster.Agent{l}, local: l, close: func() {}}, nil
	}
	if p.Agents.SSH {
		return r.sshAgents(ctx, p.Agents, p.Credentials, entries)
	}
	set := &agentSet{}
	names := cluster.HostNames(entries)
	var remotes []*cluster.RemoteAgent
	for i, e := range entries {
		if cluster.IsLocal(e) {
			if set.local != nil {
				return nil, badInputf("host %s: this machine is already in the list", e)
			}
			set.local = newLocal(names[i])
			set.agents = append(set.agents, set.local)
			continue
		}
		h, port, _ := cluster.SplitHostPort(e)
		remotes = append(remotes, &cluster.RemoteAgent{Addr: net.JoinHostPort(h, strconv.Itoa(port)), Host: names[i], Controller: hn})
		set.agents = append(set.agents, remotes[len(remotes)-1])
	}
	token, tlsConf, err := credentials(p.Agents)
	if err != nil {
		return nil, badInput(err)
	}
	for _, ra := range remotes {
		ra.Token, ra.TLS = token, tlsConf
	}
	set.remote = len(remotes) > 0
	set.close = func() {
		for _, ra := range remotes {
			ra.Close()
		}
	}
	return set, nil
}

// credentials reads the token and the client TLS configuration remote
// agents need: one of the two, at least.
func credentials(a Agents) (string, *tls.Config, error) {
	token := ""
	if a.TokenFile != "" {
		t, err := cluster.ReadToken(a.TokenFile)
		if err != nil {
			return "", nil, err
		}
		token = t
	}
	tc, err := cluster.ClientTLS(a.TLSCA, a.TLSCert, a.TLSKey)
	if err != nil {
		return "", nil, err
	}
	if token == "" && (tc == nil || len(tc.Certificates) == 0) {
		return "", nil, errors.New("remote agents need --token-file F (the file the agents were started with) or a client certificate (--tls-cert/--tls-key)")
	}
	return token, tc, nil
}

// sshAgents starts an agent on every host with ssh and returns them; close
// stops them all. Each run gets its own random token, sent with the S3
// keys over ssh's stdin.
func (r *Runner) sshAgents(ctx context.Context, a Agents, keys engine.Credentials, entries []string) (*agentSet, error) {
	self := r.Self
	if self == "" {
		var err error
		if self, err = os.Executable(); err != nil {
			return nil, badInputf("--ssh: cannot find this storbench binary: %v", err)
		}
	}
	var b [32]byte
	_, _ = rand.Read(b[:])
	token := hex.EncodeToString(b[:])
	l := &cluster.SSHLauncher{
		SSH: "ssh", User: a.SSHUser, Opts: a.SSHOpts, Version: r.Version, Binary: self, Credentials: keys,
		Logf: func(format string, args ...any) {
			r.Sink.Note(Note{Kind: NoteDiagnostic, Text: "ssh: " + fmt.Sprintf(format, args...)})
		},
	}
	names := cluster.HostNames(entries)
	started := make([]*cluster.SSHAgent, len(entries))
	errs := make([]error, len(entries))
	var wg sync.WaitGroup
	for i, e := range entries {
		wg.Go(func() {
			h, port, err := cluster.SplitHostPort(e)
			if err != nil {
				errs[i] = err
				return
			}
			started[i], errs[i] = l.Start(ctx, h, port, names[i], token)
		})
	}
	wg.Wait()
	stopAll := func() {
		var wg sync.WaitGroup
		for _, sa := range started {
			if sa != nil {
				wg.Go(sa.Shutdown)
			}
		}
		wg.Wait()
	}
	var msgs []string
	for i, err := range errs {
		if err != nil {
			msgs = append(msgs, fmt.Sprintf("%s: %v", entries[i], err))
		}
	}
	if len(msgs) > 0 {
		stopAll()
		return nil, badInputf("--ssh: %s", strings.Join(msgs, "; "))
	}
	set := &agentSet{remote: true, close: stopAll}
	hn, _ := os.Hostname()
	for _, sa := range started {
		sa.Controller = hn
		sa.DropCaches = a.DropCaches
		set.agents = append(set.agents, sa)
	}
	return set, nil
}
