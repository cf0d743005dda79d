package run

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"net"
	"os"
	"strconv"

	"github.com/storbench/storbench/internal/cluster"
)

// agentSet is the agents of a run and how to let them go.
type agentSet struct {
	agents []cluster.Agent
	// local is the in-process agent, if the run uses this machine.
	local *cluster.LocalAgent
	// remote says some agent is on another process.
	remote bool
	close  func()
	// ended, if set, is closed when the agents went away on their own (the
	// Slurm job step ended: scancel, the time limit); the run then stops,
	// for endErr.
	ended  <-chan struct{}
	endErr error
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
	dirs, err := hostDirs(p)
	if err != nil {
		return nil, err
	}
	if p.Agents.Launcher != nil {
		if dirs != nil {
			return nil, badInputf("dir=PATH in the agents file gives a host a path of its own for the target directory; the agents a launcher starts all take -d: leave out dir= or --launcher")
		}
		return r.launch(ctx, p)
	}
	hn := hostname()
	newLocal := func(name string) *cluster.LocalAgent {
		// The in-process agent is the controller itself: a suite's event
		// commands run there with the rights of the user who ran it.
		return &cluster.LocalAgent{Host: name, Version: r.Version, Tools: p.Tools, AllowExec: p.AllowExec, AllowEvents: true, Engines: r.Engines, Secrets: p.Secrets}
	}
	if len(entries) == 0 || (len(entries) == 1 && cluster.IsLocal(entries[0])) {
		l := newLocal(cluster.HostName(hn))
		if dirs != nil {
			l.Dir = dirs[0]
		}
		return &agentSet{agents: []cluster.Agent{l}, local: l, close: func() {}}, nil
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
			if dirs != nil {
				set.local.Dir = dirs[i]
			}
			set.agents = append(set.agents, set.local)
			continue
		}
		h, port, _ := cluster.SplitHostPort(e)
		remotes = append(remotes, &cluster.RemoteAgent{Addr: net.JoinHostPort(h, strconv.Itoa(port)), Host: names[i], Controller: hn})
		if dirs != nil {
			remotes[len(remotes)-1].Dir = dirs[i]
		}
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

// hostDirs is each host's path for the run's target directory, by host,
// when the agents file gives some host one of its own (dir=PATH), else
// nil. A run with several target directories cannot tell which one the
// path stands for, and is refused.
func hostDirs(p Plan) ([]cluster.HostDir, error) {
	given := false
	for _, e := range p.Agents.Hosts {
		given = given || e.Dir != ""
	}
	if !given {
		return nil, nil
	}
	if len(p.Dirs) != 1 {
		return nil, badInputf("dir=PATH in the agents file gives a host its own path for the run's target directory, and this run has %d target directories: give the phases one dir", len(p.Dirs))
	}
	out := make([]cluster.HostDir, len(p.Agents.Hosts))
	for i, e := range p.Agents.Hosts {
		out[i] = cluster.HostDir{Run: p.Dirs[0], At: e.Dir}
	}
	return out, nil
}

// credentials reads the token and the client TLS configuration remote
// agents need: one of the two, at least.
func credentials(a Agents) (string, *tls.Config, error) {
	token := ""
	if a.TokenFile != "" {
		t, err := cluster.ReadToken(a.TokenFile)
		if err == nil {
			err = cluster.CheckToken("--token-file "+a.TokenFile, t)
		}
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

// oneRunToken is a fresh random token for agents a run starts itself.
func oneRunToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
