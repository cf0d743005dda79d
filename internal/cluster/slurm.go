package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/storbench/storbench/internal/hosts"
	"github.com/storbench/storbench/internal/model"
)

// Allocation is a Slurm job allocation as the environment of salloc or
// sbatch describes it: which nodes, and how many agents (tasks) on each.
type Allocation struct {
	// JobID is SLURM_JOB_ID.
	JobID string
	// Nodes are the allocated nodes, in Slurm's order (SLURM_JOB_NODELIST,
	// expanded).
	Nodes []string
	// Tasks holds the tasks per node, one entry per node
	// (SLURM_TASKS_PER_NODE, expanded); one each when the job asked for no
	// task count.
	Tasks []int
}

// ErrNoAllocation says storbench runs outside a Slurm allocation.
var ErrNoAllocation = errors.New("--launcher slurm: not inside a Slurm allocation (SLURM_JOB_ID is not set): run storbench under salloc or in an sbatch script")

// MaxSlurmAgents caps the agents one run starts through Slurm: the
// controller was measured driving 1,000 (README, "Scale"); mdtest's
// 8 clients x 136 ranks is 1,088.
const MaxSlurmAgents = 4096

// AllocationFromEnv reads the allocation from Slurm's variables through
// getenv. Without SLURM_NTASKS (the job gave no task count) it takes one
// task per node, whatever SLURM_TASKS_PER_NODE says about CPUs.
func AllocationFromEnv(getenv func(string) string) (Allocation, error) {
	a := Allocation{JobID: getenv("SLURM_JOB_ID")}
	if a.JobID == "" {
		a.JobID = getenv("SLURM_JOBID")
	}
	if a.JobID == "" {
		return a, ErrNoAllocation
	}
	list := getenv("SLURM_JOB_NODELIST")
	if list == "" {
		list = getenv("SLURM_NODELIST")
	}
	if list == "" {
		return a, fmt.Errorf("--launcher slurm: job %s has no SLURM_JOB_NODELIST", a.JobID)
	}
	nodes, err := hosts.Expand([]string{list}, MaxSlurmAgents)
	if err != nil {
		return a, fmt.Errorf("--launcher slurm: SLURM_JOB_NODELIST: %v", err)
	}
	a.Nodes = nodes
	a.Tasks = make([]int, len(nodes))
	for i := range a.Tasks {
		a.Tasks[i] = 1
	}
	if getenv("SLURM_NTASKS") == "" && getenv("SLURM_NPROCS") == "" {
		return a, nil
	}
	tasks, err := ParseTasksPerNode(getenv("SLURM_TASKS_PER_NODE"))
	if err != nil {
		return a, fmt.Errorf("--launcher slurm: SLURM_TASKS_PER_NODE: %v", err)
	}
	if len(tasks) != len(nodes) {
		return a, fmt.Errorf("--launcher slurm: SLURM_TASKS_PER_NODE gives %d nodes, SLURM_JOB_NODELIST %d", len(tasks), len(nodes))
	}
	a.Tasks = tasks
	if a.Total() > MaxSlurmAgents {
		return a, fmt.Errorf("--launcher slurm: the allocation has %d tasks; storbench starts at most %d agents", a.Total(), MaxSlurmAgents)
	}
	return a, nil
}

// ParseTasksPerNode expands SLURM_TASKS_PER_NODE ("2(x3),1": two tasks on
// each of three nodes, then one) into one count per node.
func ParseTasksPerNode(s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("empty")
	}
	var out []int
	for _, part := range strings.Split(s, ",") {
		count, reps := part, "1"
		if i := strings.Index(part, "(x"); i >= 0 && strings.HasSuffix(part, ")") {
			count, reps = part[:i], part[i+2:len(part)-1]
		}
		n, err1 := strconv.Atoi(count)
		r, err2 := strconv.Atoi(reps)
		if err1 != nil || err2 != nil || n < 1 || r < 1 || n > MaxSlurmAgents || r > MaxSlurmAgents || len(out)+r > MaxSlurmAgents {
			return nil, fmt.Errorf("%q: want counts like 2(x3),1", s)
		}
		for range r {
			out = append(out, n)
		}
	}
	return out, nil
}

// Total is the number of tasks, one agent each.
func (a Allocation) Total() int {
	n := 0
	for _, t := range a.Tasks {
		n += t
	}
	return n
}

// srunArgs are srun's arguments for one agent per task of the allocation.
// --label prefixes each task's lines with its id, so an agent's error names
// its task. --input=all gives every agent the launcher's stdin (the token, the keys,
// then the stream whose end stops them); --kill-on-bad-exit=0 keeps the
// other agents when one fails, so the launcher can name it (and go on with
// --allow-partial).
func (a Allocation) srunArgs() []string {
	args := []string{
		"--job-name=storbench-agents", "--nodes=" + strconv.Itoa(len(a.Nodes)), "--ntasks=" + strconv.Itoa(a.Total()),
		"--input=all", "--kill-on-bad-exit=0", "--unbuffered", "--label",
	}
	if slices.Min(a.Tasks) == slices.Max(a.Tasks) {
		args = append(args, "--ntasks-per-node="+strconv.Itoa(a.Tasks[0]))
	}
	return args
}

// SlurmAnnounce is the line an agent started with --slurm prints once it
// listens: its node, its task ids and its port. The launcher reads it from
// srun's output to learn every agent's address, so ports are the kernel's
// choice and several tasks on one node (or jobs sharing a node) never
// collide.
const SlurmAnnounce = "storbench-slurm-agent"

// FormatAnnounce is the announcement line of an agent on node, task procid
// (localid on its node), listening on port.
func FormatAnnounce(node string, procid, localid, port int) string {
	return fmt.Sprintf("%s node=%s procid=%d localid=%d port=%d", SlurmAnnounce, node, procid, localid, port)
}

// announcement is one agent's announcement, parsed.
type announcement struct {
	node            string
	procid, localid int
	port            int
}

func parseAnnounce(l string) (announcement, bool) {
	i := strings.Index(l, SlurmAnnounce+" ")
	if i < 0 {
		return announcement{}, false
	}
	var an announcement
	n, err := fmt.Sscanf(l[i+len(SlurmAnnounce):], " node=%s procid=%d localid=%d port=%d", &an.node, &an.procid, &an.localid, &an.port)
	if n != 4 || err != nil || hosts.CheckName(an.node) != nil || an.port < 1 || an.port > 65535 {
		return announcement{}, false
	}
	return an, true
}

// SlurmLauncher starts one `storbench agent` per task of the allocation
// with one srun (a job step), and learns their addresses from the lines
// they print. The run's token and S3 keys go to every agent on srun's
// stdin (--input=all), as with --ssh: never on a command line, never on a
// disk, and the agents exit when that stdin closes, so they end with the
// controller even if it dies. scancel, or the end of the job, ends the
// step and every agent with it.
type SlurmLauncher struct {
	// Srun is the srun program ("srun").
	Srun string
	// Alloc is the allocation.
	Alloc Allocation
	// StartTimeout bounds the wait for every agent's announcement (60 s
	// when zero).
	StartTimeout time.Duration
}

var (
	_ Launcher = (*SlurmLauncher)(nil)
	_ Sizer    = (*SlurmLauncher)(nil)
	_ Ender    = (*SlurmStep)(nil)
)

// NewSlurmLauncher is the launcher of --launcher slurm: one agent per task
// of the Slurm allocation storbench runs in, whose nodes are the hosts.
func NewSlurmLauncher(c LaunchConfig) (Launcher, error) {
	if len(c.Hosts) > 0 {
		return nil, errors.New("--launcher slurm takes its hosts from the Slurm allocation: drop HOST arguments, --agents, --agents-file and --hostfile (and a suite's agents:)")
	}
	alloc, err := AllocationFromEnv(c.Getenv)
	if err != nil {
		return nil, err
	}
	return &SlurmLauncher{Alloc: alloc}, nil
}

// Flag names the launcher for messages.
func (l *SlurmLauncher) Flag() string { return "--launcher slurm" }

// Planned is one agent per task of the allocation.
func (l *SlurmLauncher) Planned() int { return l.Alloc.Total() }

// TooFew refuses a phase that wants more hosts than the allocation has
// tasks, saying what to ask salloc or sbatch for.
func (l *SlurmLauncher) TooFew(phase string, hosts int) error {
	return fmt.Errorf("phase %s wants %d hosts, but Slurm job %s has %d tasks (one agent each): ask salloc or sbatch for at least %d tasks (-n %d)",
		phase, hosts, l.Alloc.JobID, l.Alloc.Total(), hosts, hosts)
}

// SlurmStep is the job step running a run's agents.
type SlurmStep struct {
	// agents are the agents that started, in task order.
	agents []*RemoteAgent
	// failed names the nodes where an agent did not start, with why, in
	// node order.
	failed []string

	*stream
}

// Agents are the agents that started, in task order.
func (s *SlurmStep) Agents() []*RemoteAgent { return s.agents }

// Failed names the nodes where an agent did not start, with why, in node
// order.
func (s *SlurmStep) Failed() []string { return s.failed }

// Ended is closed when the step ends: the launcher shut it down, or Slurm
// ended it (scancel, the job's time limit, a node failure).
func (s *SlurmStep) Ended() (<-chan struct{}, string) {
	return s.done, "the Slurm job step running the agents ended (scancel, the job's time limit or a node failure)"
}

// Start runs srun and waits until every task has announced its agent, a
// task failed, or StartTimeout passed. Nodes whose agents did not all start
// are in Failed; the step keeps running for the others. It fails when no
// agent started.
func (l *SlurmLauncher) Start(ctx context.Context, launch Launch) (Started, error) {
	srun := l.Srun
	if srun == "" {
		srun = "srun"
	}
	path, err := exec.LookPath(srun)
	if err != nil {
		return nil, fmt.Errorf("--launcher slurm: %s not found: run storbench where Slurm's commands are installed", srun)
	}
	args := append(append(l.Alloc.srunArgs(), launch.Binary, "agent", "--stdin", "--slurm"), launch.agentFlags()...)
	announced := make(chan announcement, l.Alloc.Total())
	exited := make(chan int, l.Alloc.Total())
	st, err := startStream(exec.Command(path, args...), l.Flag(), func(line string) bool {
		if an, ok := parseAnnounce(line); ok {
			select {
			case announced <- an:
			default: // more lines than tasks: not an agent of ours
			}
		}
		return false
	}, func(line string) {
		for _, t := range exitedTasks(line) {
			select {
			case exited <- t:
			default:
			}
		}
	})
	if err != nil {
		return nil, err
	}
	s := &SlurmStep{stream: st}
	if err := s.send(launch); err != nil {
		s.Stop()
		return nil, fmt.Errorf("--launcher slurm: srun: %v", err)
	}
	launch.logf("starting %d agents on %d nodes of job %s with srun", l.Alloc.Total(), len(l.Alloc.Nodes), l.Alloc.JobID)
	got, err := l.collect(ctx, s, announced, exited)
	if err != nil {
		s.Stop()
		return nil, err
	}
	s.agents, s.failed = l.agents(got, launch.Token, s.errOut.get())
	if len(s.agents) == 0 {
		s.Stop()
		said := s.errOut.get()
		if len(said) > 3 {
			said = said[len(said)-3:]
		}
		return nil, fmt.Errorf("--launcher slurm: no agent started: %s; srun said: %s", strings.Join(s.failed, "; "), strings.Join(said, "; "))
	}
	return s, nil
}

// collect gathers announcements until every task has announced or exited
// (srun says so on stderr), the step ended, or the time is up.
func (l *SlurmLauncher) collect(ctx context.Context, s *SlurmStep, announced <-chan announcement, exited <-chan int) ([]announcement, error) {
	limit := l.StartTimeout
	if limit <= 0 {
		limit = 60 * time.Second
	}
	timer := time.NewTimer(limit)
	defer timer.Stop()
	var got []announcement
	gone := map[int]bool{}
	for len(got)+len(gone) < l.Alloc.Total() {
		select {
		case an := <-announced:
			got = append(got, an)
			delete(gone, an.procid)
		case t := <-exited:
			if !slices.ContainsFunc(got, func(an announcement) bool { return an.procid == t }) {
				gone[t] = true
			}
		case <-s.done:
			// The step ended (every task exited): drain what it said.
			for {
				select {
				case an := <-announced:
					got = append(got, an)
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

// agents turns announcements into agents named after their node (node-i
// for task i on a node that runs several), and names each node where fewer
// agents started than the allocation gives it tasks, with srun's errors.
func (l *SlurmLauncher) agents(got []announcement, token string, srunErr []string) ([]*RemoteAgent, []string) {
	slices.SortFunc(got, func(a, b announcement) int { return a.procid - b.procid })
	perNode := map[string]int{}
	for _, an := range got {
		perNode[an.node]++
	}
	many := map[string]bool{}
	for i, n := range l.Alloc.Nodes {
		many[n] = l.Alloc.Tasks[i] > 1
	}
	var out []*RemoteAgent
	for _, an := range got {
		name := an.node
		if many[an.node] || perNode[an.node] > 1 {
			name = an.node + "-" + strconv.Itoa(an.localid)
		}
		out = append(out, &RemoteAgent{Addr: net.JoinHostPort(an.node, strconv.Itoa(an.port)), Host: fitName(model.SafeName(name)), Token: token})
	}
	var failed []string
	for i, n := range l.Alloc.Nodes {
		if perNode[n] >= l.Alloc.Tasks[i] {
			continue
		}
		why := fmt.Sprintf("%d of %d agents started", perNode[n], l.Alloc.Tasks[i])
		if msg := nodeErrors(srunErr, n); msg != "" {
			why += ": " + msg
		}
		failed = append(failed, n+": "+why)
	}
	return out, failed
}

// exitedTasks reads the tasks an srun error line says ended ("srun: error:
// node07: task 3: Exited with exit code 2", "tasks 0-2,5: Killed").
func exitedTasks(l string) []int {
	if !strings.HasPrefix(l, "srun: error: ") {
		return nil
	}
	i := strings.Index(l, ": task")
	if i < 0 {
		return nil
	}
	rest := strings.TrimPrefix(strings.TrimPrefix(l[i+len(": task"):], "s"), " ")
	list, _, ok := strings.Cut(rest, ":")
	if !ok {
		return nil
	}
	var out []int
	for _, r := range strings.Split(list, ",") {
		lo, hi, isRange := strings.Cut(r, "-")
		a, err1 := strconv.Atoi(lo)
		b, err2 := a, error(nil)
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || a < 0 || b < a || b-a > MaxSlurmAgents {
			return nil
		}
		for t := a; t <= b; t++ {
			out = append(out, t)
		}
	}
	return out
}

// nodeErrors picks srun's error lines about node ("srun: error: node07:
// task 3: Exited with exit code 2") and what those tasks said on stderr
// (srun --label prefixes their lines with the task id).
func nodeErrors(srunErr []string, node string) string {
	tasks := map[string]bool{}
	var out []string
	for _, l := range srunErr {
		if strings.HasPrefix(l, "srun: error: "+node+": ") {
			out = append(out, strings.TrimPrefix(l, "srun: error: "+node+": "))
			for _, t := range exitedTasks(l) {
				tasks[strconv.Itoa(t)] = true
			}
		}
	}
	for _, l := range srunErr {
		if t, msg, ok := strings.Cut(l, ": "); ok && tasks[strings.TrimSpace(t)] {
			out = append(out, "task "+strings.TrimSpace(t)+" said: "+strings.TrimSpace(msg))
		}
	}
	return strings.Join(out, "; ")
}

// lineLog keeps the last lines srun wrote on stderr.
type lineLog struct {
	mu    sync.Mutex
	lines []string
}

func (g *lineLog) add(l string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.lines) == 200 {
		g.lines = g.lines[1:]
	}
	g.lines = append(g.lines, l)
}

func (g *lineLog) get() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.lines...)
}

// Stop closes the agents' stdin, which makes each stop any phase, clean
// up and exit, and waits for the step to end: after a minute it signals
// srun (which passes SIGTERM to the tasks), then kills it.
func (s *SlurmStep) Stop() (left []string) {
	return s.stop("srun", func(sig syscall.Signal) { _ = s.cmd.Process.Signal(sig) }, s.agents)
}
