package cli

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"errors"
	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/units"
)

// AgentsOptions are the controller's flags shared by run, fio, md and s3:
// which agents run the phases and how to reach them.
type AgentsOptions struct {
	Agents     []string
	AgentsFile string
	TokenFile  string
	TLSCert    string
	TLSKey     string
	TLSCA      string
	SSH        bool
	SSHUser    string
	SSHOpts    string
	DropCaches bool
	// MaxClockOffset is the largest agent clock offset accepted; negative
	// accepts any.
	MaxClockOffset time.Duration
	// MaxErrorShare is the percentage of failed requests above which a
	// phase counts as failed (exit 1), however many hosts ran it.
	MaxErrorShare float64
}

// DefaultMaxErrorShare is --max-error-share's default, in percent.
const DefaultMaxErrorShare = 5.0

// AddFlags registers the options' flags.
func (o *AgentsOptions) AddFlags(f *pflag.FlagSet) {
	f.StringSliceVar(&o.Agents, "agents", nil, "agents to run on, host[:port] (default port 7761); comma lists and ranges: client{1...8}:7761")
	f.StringVar(&o.AgentsFile, "agents-file", "", "file listing agents, one host[:port] or range per line (# comments)")
	f.StringVar(&o.TokenFile, "token-file", "", "file holding the agents' shared token")
	f.StringVar(&o.TLSCert, "tls-cert", "", "client certificate (PEM) for agents that require one")
	f.StringVar(&o.TLSKey, "tls-key", "", "the client certificate's key (PEM)")
	f.StringVar(&o.TLSCA, "tls-ca", "", "connect to agents over HTTPS, trusting this CA (PEM)")
	f.BoolVar(&o.SSH, "ssh", false, "start the agent on every host with ssh (copying this binary when the host lacks it) and stop it at the end")
	f.StringVar(&o.SSHUser, "ssh-user", "", "user for --ssh (default: ssh's own choice)")
	f.StringVar(&o.SSHOpts, "ssh-opts", "", "extra ssh options for --ssh, e.g. \"-J jump -i key\"")
	f.BoolVar(&o.DropCaches, "drop-caches", false, "sync and drop the page cache on every host before each phase (agents must run as root)")
	f.DurationVar(&o.MaxClockOffset, "max-clock-offset", time.Second, "refuse agents whose clock is off by more than this (negative: accept any)")
	nonZero(f, "max-clock-offset", "the default (1s); a negative offset accepts any")
	f.Float64Var(&o.MaxErrorShare, "max-error-share", DefaultMaxErrorShare, "a phase counts as failed (exit 1) when more than this percentage of its requests failed, or of its time an endpoint could not be reached")
	zeroMeans(f, "max-error-share", "0: any failed request, or any time an endpoint could not be reached, fails the phase")
}

// agentSet is the agents of a run and how to let them go.
type agentSet struct {
	agents []cluster.Agent
	// local is the in-process agent, if the run uses this machine.
	local *cluster.LocalAgent
	// remote says some agent is on another process.
	remote bool
	close  func()
}

// buildAgents turns the hosts into agents: none means this machine alone.
func (o AgentsOptions) buildAgents(ctx context.Context, st *State, args []string, p Plan) (*agentSet, error) {
	entries, err := cluster.HostEntries(args, o.Agents, o.AgentsFile)
	if err != nil {
		return nil, asUsage(err)
	}
	for _, e := range entries {
		if _, _, err := cluster.SplitHostPort(e); err != nil {
			return nil, asUsage(err)
		}
	}
	hn, _ := os.Hostname()
	if hn == "" {
		hn = "localhost"
	}
	newLocal := func(name string) *cluster.LocalAgent {
		return &cluster.LocalAgent{Host: name, Version: version(), FioBin: p.FioBin, AllowExec: p.AllowExec, Engines: st.Engines}
	}
	if len(entries) == 0 || (len(entries) == 1 && cluster.IsLocal(entries[0]) && !o.SSH) {
		l := newLocal(hn)
		return &agentSet{agents: []cluster.Agent{l}, local: l, close: func() {}}, nil
	}
	if o.SSH {
		return o.sshAgents(ctx, st, entries)
	}
	set := &agentSet{}
	names := cluster.HostNames(entries)
	var remotes []*cluster.RemoteAgent
	for i, e := range entries {
		if cluster.IsLocal(e) {
			if set.local != nil {
				return nil, usageErr("host %s: this machine is already in the list", e)
			}
			set.local = newLocal(names[i])
			set.agents = append(set.agents, set.local)
			continue
		}
		h, port, err := cluster.SplitHostPort(e)
		if err != nil {
			return nil, asUsage(err)
		}
		remotes = append(remotes, &cluster.RemoteAgent{Addr: net.JoinHostPort(h, strconv.Itoa(port)), Host: names[i], Controller: hn})
		set.agents = append(set.agents, remotes[len(remotes)-1])
	}
	token, tlsConf, err := o.credentials()
	if err != nil {
		return nil, asUsage(err)
	}
	for _, r := range remotes {
		r.Token, r.TLS = token, tlsConf
	}
	set.remote = len(remotes) > 0
	set.close = func() {
		for _, r := range remotes {
			r.Close()
		}
	}
	return set, nil
}

// hostLines prints each host's headline figures under a phase's totals, as
// wekatester does, when more than one host ran.
func hostLines(st *State, ps *results.PhaseSummary) {
	if len(ps.PerHost) < 2 {
		return
	}
	for _, h := range ps.PerHost {
		if h.Error != "" && len(h.Ops) == 0 {
			fmt.Fprintf(st.Stdout, "    host %s: %s\n", h.Host, h.Error)
			continue
		}
		var parts []string
		for _, o := range h.Ops {
			s := o.Op
			if o.OpsPerS != nil {
				s += " " + units.Rate(*o.OpsPerS, "op/s")
			}
			if o.BwBytesPerS != nil {
				s += " " + units.Bandwidth(*o.BwBytesPerS)
			}
			parts = append(parts, s)
		}
		fmt.Fprintf(st.Stdout, "    host %s: %s\n", h.Host, strings.Join(parts, ", "))
	}
	if ps.Window != nil {
		fmt.Fprintf(st.Stdout, "    totals over the %.1fs in which all %d hosts ran\n", ps.Window.DurationS, len(ps.PerHost))
	}
	if ps.Engine == model.EngineMD {
		fmt.Fprintf(st.Stdout, "    totals: each operation started on all %d hosts at once; its rate is all items over the time from that start to the end of the slowest host (mdtest)\n", len(ps.PerHost))
	}
}

// describeHosts names the hosts of a phase in its "starting" line.
func describeHosts(agents []cluster.Agent) string {
	if len(agents) > 4 {
		return fmt.Sprintf("%d hosts", len(agents))
	}
	var names []string
	for _, a := range agents {
		names = append(names, a.Name())
	}
	return strings.Join(names, ", ")
}

// remote reports that the options name agents, so the phases may run on
// other machines (which hold their own S3 keys).
func (o AgentsOptions) remote() bool {
	return len(o.Agents) > 0 || o.AgentsFile != "" || o.SSH
}

// credentials reads the token and the client TLS configuration remote
// agents need: one of the two, at least.
func (o AgentsOptions) credentials() (string, *tls.Config, error) {
	token := ""
	if o.TokenFile != "" {
		t, err := cluster.ReadToken(o.TokenFile)
		if err != nil {
			return "", nil, err
		}
		token = t
	}
	tc, err := cluster.ClientTLS(o.TLSCA, o.TLSCert, o.TLSKey)
	if err != nil {
		return "", nil, err
	}
	if token == "" && (tc == nil || len(tc.Certificates) == 0) {
		return "", nil, errors.New("remote agents need --token-file F (the file the agents were started with) or a client certificate (--tls-cert/--tls-key)")
	}
	return token, tc, nil
}
