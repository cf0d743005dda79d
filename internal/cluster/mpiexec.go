package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/storbench/storbench/internal/hosts"
)

// MPIExecLauncher starts one `storbench agent --launched-by mpiexec` per slot of its hosts
// (one per host without slots) as the ranks of one job of MPICH's mpiexec
// (Hydra), as HPC sites start everything; ranks follow the hosts in the
// order given, a host's slots together. Rank 0 gets the run's token and
// keys on mpiexec's stdin (Hydra gives stdin to rank 0 alone) and hands
// them to the other ranks through the job's PMI key-value space, so they
// never touch a command line, an environment or a disk. Each agent
// listens on a port of the kernel's choice and announces its rank and
// port on stdout, which mpiexec gathers; the launcher reads those lines.
// The agents stop when mpiexec's stdin closes: rank 0 then enters a PMI
// barrier the others wait in.
type MPIExecLauncher struct {
	// Program is the mpiexec program.
	Program string
	// Hosts are the hosts, with the slots a hostfile gives them.
	Hosts []hosts.Entry
	// StartTimeout bounds the wait for every rank's announcement (60 s
	// when zero).
	StartTimeout time.Duration
}

var (
	_ Launcher  = (*MPIExecLauncher)(nil)
	_ Slotted   = (*MPIExecLauncher)(nil)
	_ Ender     = (*mpiJob)(nil)
	_ AgentSide = (*MPIRank)(nil)
)

// EnvMPIExec names the mpiexec program of --launcher mpiexec.
const EnvMPIExec = "STORBENCH_MPIEXEC"

// NewMPIExecLauncher is the launcher of --launcher mpiexec: MPICH's
// mpiexec ($STORBENCH_MPIEXEC, else mpiexec.mpich, else mpiexec), one
// agent per slot of the hosts given.
func NewMPIExecLauncher(c LaunchConfig) (Launcher, error) {
	if len(c.Hosts) == 0 {
		return nil, errors.New("--launcher mpiexec: give the hosts (HOST arguments, --agents, or an MPI --hostfile such as one line localhost:3): mpiexec starts one agent per slot")
	}
	l := &MPIExecLauncher{Hosts: c.Hosts}
	for _, e := range c.Hosts {
		if e.Port != 0 {
			return nil, fmt.Errorf("--launcher mpiexec: %s: the agents mpiexec starts listen on ports of their own choice: give the host without a port (slots go in a --hostfile, host:N)", e)
		}
	}
	if l.Planned() > MaxSlurmAgents {
		return nil, fmt.Errorf("--launcher mpiexec: the hosts have %d slots; storbench starts at most %d agents", l.Planned(), MaxSlurmAgents)
	}
	names := []string{"mpiexec.mpich", "mpiexec"}
	if p := c.Getenv(EnvMPIExec); p != "" {
		names = []string{p}
	}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			l.Program = p
			return l, nil
		}
	}
	return nil, fmt.Errorf("--launcher mpiexec: %s not found: install MPICH (apt-get install mpich) or name its mpiexec with %s", strings.Join(names, " or "), EnvMPIExec)
}

// Flag names the launcher for messages.
func (l *MPIExecLauncher) Flag() string { return "--launcher mpiexec" }

// StartsSlots says the slots are ranks, one agent each.
func (l *MPIExecLauncher) StartsSlots() {}

// Planned is one agent per slot.
func (l *MPIExecLauncher) Planned() int {
	n := 0
	for _, e := range l.Hosts {
		n += max(e.Slots, 1)
	}
	return n
}

// hostOf is the index in Hosts of the host running rank, and the rank's
// place among that host's ranks: ranks fill a host's slots, then the next.
func (l *MPIExecLauncher) hostOf(rank int) (int, int) {
	for i, e := range l.Hosts {
		if rank < max(e.Slots, 1) {
			return i, rank
		}
		rank -= max(e.Slots, 1)
	}
	return -1, 0
}

// args are mpiexec's arguments: the hosts with their slots, in order, and
// one rank per slot.
func (l *MPIExecLauncher) args(binary string) []string {
	list := make([]string, len(l.Hosts))
	for i, e := range l.Hosts {
		list[i] = e.Host + ":" + strconv.Itoa(max(e.Slots, 1))
	}
	return []string{"-hosts", strings.Join(list, ","), "-n", strconv.Itoa(l.Planned()), binary, "agent", "--launched-by", "mpiexec"}
}

// mpiJob is the mpiexec job running a run's agents.
type mpiJob struct {
	agents []*RemoteAgent
	*stream
}

// Start runs mpiexec and waits until every rank has announced its agent,
// mpiexec ended or StartTimeout passed. Hydra ends every rank when one
// fails, so it is all ranks or none.
func (l *MPIExecLauncher) Start(ctx context.Context, launch Launch) (Started, error) {
	cmd := exec.Command(l.Program, append(l.args(launch.Binary), launch.agentFlags()...)...)
	// Its own process group: a terminal's Ctrl-C reaches the controller
	// alone, which stops the agents the one way every launcher does (their
	// stdin ends: each ends its phase and cleans up), whatever mpiexec
	// would do with the signal.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Env = withoutSecrets(os.Environ(), launch.SecretNames)
	announced := make(chan mpiAnnouncement, l.Planned())
	st, err := startStream(cmd, l.Flag(), func(line string) bool {
		an, ok := parseMPIAnnounce(line)
		if ok && an.rank < l.Planned() {
			select {
			case announced <- an:
			default:
			}
		}
		return !ok // what else the ranks print is what they said
	}, func(string) {})
	if err != nil {
		return nil, err
	}
	j := &mpiJob{stream: st}
	if err := j.send(launch); err != nil {
		j.Stop()
		return nil, fmt.Errorf("--launcher mpiexec: %v", err)
	}
	launch.logf("starting %d agents on %d hosts with %s", l.Planned(), len(l.Hosts), l.Program)
	got, err := l.collect(ctx, j, announced)
	if err != nil || len(got) < l.Planned() {
		j.Stop()
		if err != nil {
			return nil, err
		}
		return nil, l.missing(got, j.errOut.get())
	}
	j.agents = l.agents(got, launch.Token)
	return j, nil
}

// collect gathers one announcement per rank until all came, mpiexec
// ended, or the time is up.
func (l *MPIExecLauncher) collect(ctx context.Context, j *mpiJob, announced <-chan mpiAnnouncement) (map[int]mpiAnnouncement, error) {
	limit := l.StartTimeout
	if limit <= 0 {
		limit = 60 * time.Second
	}
	timer := time.NewTimer(limit)
	defer timer.Stop()
	got := map[int]mpiAnnouncement{}
	for len(got) < l.Planned() {
		select {
		case an := <-announced:
			got[an.rank] = an
		case <-j.done:
			for {
				select {
				case an := <-announced:
					got[an.rank] = an
					continue
				default:
				}
				return got, nil
			}
		case <-timer.C:
			return got, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return got, nil
}

// missing names the hosts whose ranks did not announce an agent, with the
// last lines mpiexec and the agents said.
func (l *MPIExecLauncher) missing(got map[int]mpiAnnouncement, said []string) error {
	var where []string
	for r := range l.Planned() {
		if _, ok := got[r]; !ok {
			i, _ := l.hostOf(r)
			where = append(where, fmt.Sprintf("rank %d (%s)", r, l.Hosts[i].Host))
		}
	}
	if len(where) > 4 {
		where = append(where[:4], fmt.Sprintf("and %d more", len(where)-4))
	}
	if len(said) > 3 {
		said = said[len(said)-3:]
	}
	return fmt.Errorf("--launcher mpiexec: %d of %d agents started (mpiexec ends every rank when one fails); no agent from %s; mpiexec said: %s",
		len(got), l.Planned(), strings.Join(where, ", "), strings.Join(said, "; "))
}

// agents turns announcements into agents in rank order, named after their
// host (host-i for the i-th rank of a host with several slots).
func (l *MPIExecLauncher) agents(got map[int]mpiAnnouncement, token string) []*RemoteAgent {
	list := make([]string, len(l.Hosts))
	for i, e := range l.Hosts {
		list[i] = e.Host
	}
	names := HostNames(list)
	out := make([]*RemoteAgent, 0, len(got))
	for r := range l.Planned() {
		i, local := l.hostOf(r)
		name := names[i]
		if l.Hosts[i].Slots > 1 {
			name = fitName(name + "-" + strconv.Itoa(local))
		}
		out = append(out, &RemoteAgent{Addr: net.JoinHostPort(l.Hosts[i].Host, strconv.Itoa(got[r].port)), Host: name, Token: token})
	}
	return out
}

func (j *mpiJob) Agents() []*RemoteAgent { return j.agents }

// Failed is empty: Hydra ends every rank when one fails.
func (j *mpiJob) Failed() []string { return nil }

// Ended is closed when mpiexec ends: the launcher stopped it, or a rank
// failed or was killed and Hydra ended the others.
func (j *mpiJob) Ended() (<-chan struct{}, string) {
	return j.done, "the mpiexec job running the agents ended (a rank failed or was killed)"
}

// Stop closes mpiexec's stdin, which makes every rank end its phase, clean
// up and exit, and waits for mpiexec to end: after a minute it signals
// the job's process group (mpiexec, its proxies, the agents).
func (j *mpiJob) Stop() (left []string) {
	return j.stop("mpiexec", func(sig syscall.Signal) { _ = syscall.Kill(-j.cmd.Process.Pid, sig) }, j.agents)
}

// withoutSecrets is the environment without the secret variables the
// engines declare (names: s3's keys and session tokens) the controller
// may hold: mpiexec passes its environment to every rank, and the run's
// secrets reach the agents on stdin.
func withoutSecrets(env, names []string) []string {
	var out []string
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); !slices.Contains(names, k) {
			out = append(out, kv)
		}
	}
	return out
}

// MPIAnnounce is the line an agent started by mpiexec prints once it
// listens: its rank, its rank on its host, its host's name and its port.
const MPIAnnounce = "storbench-mpi-agent"

// FormatMPIAnnounce is the announcement line of rank (localrank on host)
// listening on port.
func FormatMPIAnnounce(rank, localrank int, host string, port int) string {
	return fmt.Sprintf("%s rank=%d localrank=%d host=%s port=%d", MPIAnnounce, rank, localrank, host, port)
}

type mpiAnnouncement struct {
	rank, localrank, port int
	host                  string
}

func parseMPIAnnounce(l string) (mpiAnnouncement, bool) {
	i := strings.Index(l, MPIAnnounce+" ")
	if i < 0 {
		return mpiAnnouncement{}, false
	}
	var an mpiAnnouncement
	n, err := fmt.Sscanf(l[i+len(MPIAnnounce):], " rank=%d localrank=%d host=%s port=%d", &an.rank, &an.localrank, &an.host, &an.port)
	if n != 4 || err != nil || an.rank < 0 || an.port < 1 || an.port > 65535 {
		return mpiAnnouncement{}, false
	}
	return an, true
}
