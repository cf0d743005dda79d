package cli

import (
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/run"
)

// AgentsOptions are the controller's flags shared by run, fio, md and s3:
// which agents run the phases and how to reach them.
type AgentsOptions struct {
	Agents []string
	// agentsAt is, for each --agents value, how many HOST arguments came
	// before it on the command line, so that hosts are numbered (ranks,
	// neighbours) in the order they were given, whichever way.
	agentsAt   []int
	AgentsFile string
	// Hostfile is an MPI hostfile: MPICH's host:slots or Open MPI's host
	// slots=N; agents listen on the default port there.
	Hostfile  string
	TokenFile string
	TLSCert   string
	TLSKey    string
	TLSCA     string
	SSH       bool
	// Launcher starts the agents: "ssh" (as --ssh), "slurm" (srun, one
	// agent per task of the Slurm allocation storbench runs in) or
	// "mpiexec" (MPICH's, one agent per rank).
	Launcher string
	// AllowPartial runs on the agents that started when some did not.
	AllowPartial bool
	SSHUser      string
	SSHOpts      string
	DropCaches   bool
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
	// A string array, not a slice: pflag would cut "node[01-16,20]" at its
	// comma. It notes where among the HOST arguments each value came:
	// "--agents a:1 a:2 a:3" (the shell's a:{1,2,3}) gives a:1 to --agents
	// and the rest as arguments, and they run in that order.
	f.Var(&agentsFlag{o: o, f: f}, "agents", "agents to run on, host[:port] (default port 7761); comma lists, ranges and Slurm lists: client{1...8}:7761, node[01-16,20]:7761; hosts are numbered in the order given, with HOST arguments")
	f.StringVar(&o.AgentsFile, "agents-file", "", "file listing agents: host[:port], ranges or Slurm lists per line, optionally followed by slots=N (md workers per host) and dir=PATH (where that host mounts the target directory, when not at -d); # comments")
	f.StringVar(&o.Hostfile, "hostfile", "", "MPI hostfile (as mpiexec -f, mpirun --hostfile): MPICH host:slots or Open MPI host slots=N; slots become md workers per host; agents on port 7761")
	f.StringVar(&o.TokenFile, "token-file", "", "file holding the agents' shared token (its first line, at least 22 characters: storbench token makes one; mode 600)")
	f.StringVar(&o.TLSCert, "tls-cert", "", "client certificate (PEM) for agents that require one")
	f.StringVar(&o.TLSKey, "tls-key", "", "the client certificate's key (PEM)")
	f.StringVar(&o.TLSCA, "tls-ca", "", "connect to agents over HTTPS, trusting this CA (PEM)")
	f.BoolVar(&o.SSH, "ssh", false, "start the agent on every host with ssh (copying this binary when the host lacks it) and stop it at the end")
	f.StringVar(&o.Launcher, "launcher", "", "start the agents and stop them at the end: ssh (as --ssh), slurm (inside salloc or sbatch: srun starts one agent per task of the allocation) or mpiexec (MPICH's mpiexec starts one agent per slot of the hosts, as MPI ranks; $STORBENCH_MPIEXEC names the program)")
	f.BoolVar(&o.AllowPartial, "allow-partial", false, "with --ssh or --launcher: run on the agents that started when some host's agent did not (default: refuse the run before any load)")
	f.StringVar(&o.SSHUser, "ssh-user", "", "user for --ssh (default: ssh's own choice)")
	f.StringVar(&o.SSHOpts, "ssh-opts", "", "extra ssh options for --ssh, split as a shell splits words: e.g. \"-J jump -o 'ProxyCommand=ssh -W %h:%p gw'\"")
	f.BoolVar(&o.DropCaches, "drop-caches", false, "sync and drop the page cache on every host before each phase (agents must run as root)")
	f.DurationVar(&o.MaxClockOffset, "max-clock-offset", time.Second, "refuse agents whose clock is off by more than this (negative: accept any)")
	nonZero(f, "max-clock-offset", "the default (1s); a negative offset accepts any")
	f.Float64Var(&o.MaxErrorShare, "max-error-share", DefaultMaxErrorShare, "a phase counts as failed (exit 1) when more than this percentage of its requests failed, or of its time an endpoint could not be reached")
	zeroMeans(f, "max-error-share", "0: any failed request, or any time an endpoint could not be reached, fails the phase")
}

// runAgents gathers the hosts of a run from HOST arguments, --agents,
// --agents-file and --hostfile, with the flags that say how to reach them
// or the launcher that starts their agents.
func (o AgentsOptions) runAgents(st *State, args []string) (run.Agents, error) {
	a := run.Agents{
		TokenFile: o.TokenFile, TLSCert: o.TLSCert, TLSKey: o.TLSKey, TLSCA: o.TLSCA,
		DropCaches: o.DropCaches, MaxClockOffset: o.MaxClockOffset, AllowPartial: o.AllowPartial,
	}
	name := o.Launcher
	switch {
	case o.SSH && name != "" && name != "ssh":
		return a, usageErr("--launcher %s and --ssh both say how agents start: give one", name)
	case o.SSH:
		name = "ssh"
	}
	kind, known := launchers[name]
	if name != "" && !known {
		return a, usageErr("--launcher %q: want %s", name, strings.Join(slices.Sorted(maps.Keys(launchers)), ", "))
	}
	if o.AllowPartial && name == "" {
		return a, usageErr("--allow-partial is for agents storbench starts: give --ssh or --launcher")
	}
	// As the user quoted them, never split again at blanks.
	sshOpts, err := cluster.ParseSSHOpts(o.SSHOpts)
	if err != nil {
		return a, asUsage(err)
	}
	entries, err := cluster.HostEntries(o.inOrder(args), nil, o.AgentsFile, o.Hostfile)
	if err != nil {
		return a, asUsage(err)
	}
	a.Hosts = entries
	if name == "" {
		return a, nil
	}
	a.Launcher, err = kind.new(cluster.LaunchConfig{Hosts: entries, Getenv: st.getenv, SSHUser: o.SSHUser, SSHOpts: sshOpts})
	if err != nil {
		return a, asUsage(err)
	}
	if _, ok := a.Launcher.(cluster.Slotted); ok {
		a.Hosts = nil // the slots are the launcher's agents, not md workers
	}
	return a, nil
}

// launchers are the launchers --launcher names: each is built from the
// hosts and flags given and, when its agents learn something from it, has
// an agent side (agent --launched-by NAME). A new launcher is its file in
// cluster and a line here.
var launchers = map[string]struct {
	new  func(cluster.LaunchConfig) (cluster.Launcher, error)
	join func(getenv func(string) string, stdin io.Reader) (cluster.AgentSide, error)
}{
	"ssh":     {new: cluster.NewSSHLauncher},
	"slurm":   {new: cluster.NewSlurmLauncher},
	"mpiexec": {new: cluster.NewMPIExecLauncher, join: cluster.JoinMPI},
}

// remote reports that the options name agents, so the phases may run on
// other machines (which hold their own S3 keys).
func (o AgentsOptions) remote() bool {
	return len(o.Agents) > 0 || o.AgentsFile != "" || o.Hostfile != "" || o.SSH || o.Launcher != ""
}

// agentsFlag is --agents: a string array that notes how many HOST
// arguments the command line gave before each value. pflag parses in
// order and keeps the arguments it has passed in Args.
type agentsFlag struct {
	o *AgentsOptions
	f *pflag.FlagSet
}

func (a *agentsFlag) Set(v string) error {
	a.o.Agents = append(a.o.Agents, v)
	a.o.agentsAt = append(a.o.agentsAt, len(a.f.Args()))
	return nil
}

func (a *agentsFlag) Type() string { return "stringArray" }

func (a *agentsFlag) String() string {
	if len(a.o.Agents) == 0 {
		return "" // no "(default [])" in the help
	}
	return "[" + strings.Join(a.o.Agents, ",") + "]"
}

// inOrder is the hosts of the command line in the order they were given:
// HOST arguments and --agents values interleaved as typed. Without the
// positions (options built in code, a suite's hosts) the arguments come
// first.
func (o AgentsOptions) inOrder(args []string) []string {
	at := o.agentsAt
	if len(at) != len(o.Agents) {
		at = make([]int, len(o.Agents))
		for i := range at {
			at[i] = len(args)
		}
	}
	out := make([]string, 0, len(args)+len(o.Agents))
	j := 0
	for i, a := range args {
		for ; j < len(o.Agents) && at[j] <= i; j++ {
			out = append(out, o.Agents[j])
		}
		out = append(out, a)
	}
	return append(out, o.Agents[j:]...)
}
