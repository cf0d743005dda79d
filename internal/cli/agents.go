package cli

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/run"
)

// AgentsOptions are the controller's flags shared by run, fio, md and s3:
// which agents run the phases and how to reach them.
type AgentsOptions struct {
	Agents     []string
	AgentsFile string
	// Hostfile is an MPI hostfile: MPICH's host:slots or Open MPI's host
	// slots=N; agents listen on the default port there.
	Hostfile  string
	TokenFile string
	TLSCert   string
	TLSKey    string
	TLSCA     string
	SSH       bool
	// Launcher starts the agents: "ssh" (as --ssh) or "slurm" (srun, one
	// agent per task of the Slurm allocation storbench runs in).
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
	// A string array, not a slice: pflag would cut "node[01-16,20]" at its comma.
	f.StringArrayVar(&o.Agents, "agents", nil, "agents to run on, host[:port] (default port 7761); comma lists, ranges and Slurm lists: client{1...8}:7761, node[01-16,20]:7761")
	f.StringVar(&o.AgentsFile, "agents-file", "", "file listing agents: host[:port], ranges or Slurm lists per line, optionally followed by slots=N (md workers per host); # comments")
	f.StringVar(&o.Hostfile, "hostfile", "", "MPI hostfile (as mpiexec -f, mpirun --hostfile): MPICH host:slots or Open MPI host slots=N; slots become md workers per host; agents on port 7761")
	f.StringVar(&o.TokenFile, "token-file", "", "file holding the agents' shared token")
	f.StringVar(&o.TLSCert, "tls-cert", "", "client certificate (PEM) for agents that require one")
	f.StringVar(&o.TLSKey, "tls-key", "", "the client certificate's key (PEM)")
	f.StringVar(&o.TLSCA, "tls-ca", "", "connect to agents over HTTPS, trusting this CA (PEM)")
	f.BoolVar(&o.SSH, "ssh", false, "start the agent on every host with ssh (copying this binary when the host lacks it) and stop it at the end")
	f.StringVar(&o.Launcher, "launcher", "", "start the agents and stop them at the end: ssh (as --ssh) or slurm (inside salloc or sbatch: srun starts one agent per task of the allocation)")
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
// --agents-file and --hostfile, with the flags that say how to reach them.
func (o AgentsOptions) runAgents(st *State, args []string) (run.Agents, error) {
	a := run.Agents{
		TokenFile: o.TokenFile, TLSCert: o.TLSCert, TLSKey: o.TLSKey, TLSCA: o.TLSCA,
		SSH: o.SSH || o.Launcher == launcherSSH, SSHUser: o.SSHUser,
		DropCaches: o.DropCaches, MaxClockOffset: o.MaxClockOffset, AllowPartial: o.AllowPartial,
	}
	// As the user quoted them, never split again at blanks.
	opts, err := cluster.ParseSSHOpts(o.SSHOpts)
	if err != nil {
		return a, asUsage(err)
	}
	a.SSHOpts = opts
	switch o.Launcher {
	case "", launcherSSH:
	case launcherSlurm:
		return o.slurmAgents(st, a, args)
	default:
		return a, usageErr("--launcher %q: want ssh or slurm", o.Launcher)
	}
	if o.AllowPartial && !a.SSH {
		return a, usageErr("--allow-partial is for agents storbench starts: give --ssh or --launcher")
	}
	entries, err := cluster.HostEntries(args, o.Agents, o.AgentsFile, o.Hostfile)
	if err != nil {
		return a, asUsage(err)
	}
	a.Hosts = entries
	return a, nil
}

// The launchers --launcher names.
const (
	launcherSSH   = "ssh"
	launcherSlurm = "slurm"
)

// slurmAgents reads the Slurm allocation storbench runs in: its nodes and
// tasks are the agents, so no other host may be named.
func (o AgentsOptions) slurmAgents(st *State, a run.Agents, args []string) (run.Agents, error) {
	if o.SSH {
		return a, usageErr("--launcher slurm and --ssh both say how agents start: give one")
	}
	if len(args) > 0 || len(o.Agents) > 0 || o.AgentsFile != "" || o.Hostfile != "" {
		return a, usageErr("--launcher slurm takes its hosts from the Slurm allocation: drop HOST arguments, --agents, --agents-file and --hostfile (and a suite's agents:)")
	}
	alloc, err := cluster.AllocationFromEnv(st.getenv)
	if err != nil {
		return a, asUsage(err)
	}
	a.Slurm = &alloc
	return a, nil
}

// remote reports that the options name agents, so the phases may run on
// other machines (which hold their own S3 keys).
func (o AgentsOptions) remote() bool {
	return len(o.Agents) > 0 || o.AgentsFile != "" || o.Hostfile != "" || o.SSH || o.Launcher != ""
}
