package cluster

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/hosts"
)

// Launcher starts a run's agents and stops them at the end: with ssh on
// every host (SSHLauncher), as the tasks of a Slurm job step
// (SlurmLauncher) or as the ranks of an MPI job (MPIExecLauncher). The run
// knows a launcher only through this interface and the optional ones
// below, as k6's output manager knows its outputs; a new launcher is its
// own file and one line in the CLI's table.
type Launcher interface {
	// Flag names the launcher as the user chose it ("--ssh",
	// "--launcher slurm"), for messages.
	Flag() string
	// Planned is how many agents Start tries to start.
	Planned() int
	// Start starts the agents and returns them once each has told its
	// address, or failed. The token and keys in l go to the agents on a
	// stream (stdin), never on a command line. It fails when no agent
	// started.
	Start(ctx context.Context, l Launch) (Started, error)
}

// Launch is what every launcher is given to start a run's agents.
type Launch struct {
	// Token is the run's one-run token the agents require.
	Token string
	// Binary is this storbench binary, which the agents run.
	Binary string
	// Version is this storbench's version.
	Version string
	// Secrets are the run's values of the engines' secret variables (s3's
	// keys), sent to the agents with the token, on stdin only.
	Secrets engine.Secrets
	// SecretNames are the names of every secret variable the engines
	// declare (engine.Registry.SecretNames): a launcher that passes its
	// environment on to the agents (mpiexec) leaves them out.
	SecretNames []string
	// AllowEvents starts the agents with --allow-events: they run the
	// commands of the run's events that name their host (storbench run
	// --allow-events).
	AllowEvents bool
	// Logf receives progress lines.
	Logf func(format string, args ...any)
}

// agentFlags are the flags every agent is started with besides the
// launcher's own.
func (l Launch) agentFlags() []string {
	if l.AllowEvents {
		return []string{"--allow-events"}
	}
	return nil
}

func (l Launch) logf(format string, args ...any) {
	if l.Logf != nil {
		l.Logf(format, args...)
	}
}

// Started is the agents a Launcher started.
type Started interface {
	// Agents are the agents that started, in the order the launcher was
	// given its hosts (ranks, tasks).
	Agents() []*RemoteAgent
	// Failed names, with why, the hosts where an agent did not start.
	Failed() []string
	// Stop lets every agent go (each ends its phase, cleans up and exits),
	// waits for them, and returns what may be left running: agents that
	// had to be killed, or that did not end within the launcher's bound.
	Stop() (left []string)
}

// Ender is an optional capability of Started: agents that can go away on
// their own (scancel ends a Slurm job step). Ended is closed when they did,
// and why says what happened; the run then stops as interrupted.
type Ender interface {
	Ended() (ended <-chan struct{}, why string)
}

// Sizer is an optional capability of a Launcher that refuses, before it
// starts anything, a phase wanting more hosts than it has agents, in its
// own words (which salloc option asks for more).
type Sizer interface {
	TooFew(phase string, hosts int) error
}

// stopStream stops the agents of a launcher program that holds their
// stdin (srun, mpiexec): it closes that stdin, whose end makes every agent
// stop its phase, clean up and exit, and waits up to grace for the program
// to end; then it signals it with SIGTERM (which it passes to the agents)
// and at last SIGKILL, grace apart. It returns what may be left running.
func stopStream(stdin io.Closer, done <-chan struct{}, prog string, grace time.Duration, signal func(syscall.Signal)) []string {
	_ = stdin.Close()
	for _, sig := range []syscall.Signal{0, syscall.SIGTERM, syscall.SIGKILL} {
		if sig != 0 {
			signal(sig)
		}
		select {
		case <-done:
			if sig == 0 {
				return nil
			}
			return []string{fmt.Sprintf("%s: the agents did not end within %s of their stdin closing; stopped with %v, so they may not have removed what they created", prog, grace, sig)}
		case <-time.After(grace):
		}
	}
	<-done
	return []string{fmt.Sprintf("%s: did not end after SIGKILL", prog)}
}

// LaunchConfig is what the command line gives a launcher: the hosts of
// HOST arguments, --agents, --agents-file and --hostfile, the environment,
// and the flags of the launchers that take some.
type LaunchConfig struct {
	Hosts []hosts.Entry
	// Getenv reads the controller's environment.
	Getenv func(string) string
	// SSHUser and SSHOpts are --ssh-user and --ssh-opts.
	SSHUser string
	SSHOpts []string
}

// Slotted is an optional capability of a Launcher that starts one agent
// per slot the host files give (mpiexec's ranks): the slots are then its
// agents, not md workers per host.
type Slotted interface {
	StartsSlots()
}

// AgentSide is the agent's half of a launcher whose agents learn
// something from it at start (agent --launched-by NAME): mpiexec's ranks
// get the token and keys from rank 0 through the job. The CLI's launcher
// table pairs it with the launcher, so a new launcher is still its file and
// one line.
type AgentSide interface {
	// Secrets are the run's token and the engines' secrets the launcher
	// sent.
	Secrets() (token string, secrets engine.Secrets)
	// Announce is the line telling the launcher the agent's port.
	Announce(host string, port int) string
	// Done is closed when the launcher lets the agent go.
	Done() <-chan struct{}
	// Close ends the agent's part in the launcher's job.
	Close()
}

// stream is a launcher program that holds its agents' stdin (srun,
// mpiexec): started with its stdout and stderr read line by line, and the
// run's token and secrets written on its stdin, which it hands to every
// agent; its end closes done.
type stream struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	done   chan struct{}
	errOut *lineLog
	once   sync.Once
}

// startStream starts cmd (flag, the launcher's, names it in errors) and
// calls onOut for each line of its stdout, keeping in errOut those it
// says are the program's words (not an announcement), and onErr for each
// of its stderr, all kept; each stream is read by a goroutine of its own.
func startStream(cmd *exec.Cmd, flag string, onOut func(string) (said bool), onErr func(string)) (*stream, error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %v", flag, err)
	}
	s := &stream{cmd: cmd, stdin: stdin, done: make(chan struct{}), errOut: &lineLog{}}
	read := func(r io.Reader, each func(string), done chan<- struct{}) {
		defer close(done)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			each(sc.Text())
		}
		_, _ = io.Copy(io.Discard, r)
	}
	outDone, errDone := make(chan struct{}), make(chan struct{})
	go read(stderr, func(l string) { s.errOut.add(l); onErr(l) }, errDone)
	go read(stdout, func(l string) {
		if onOut(l) {
			s.errOut.add(l)
		}
	}, outDone)
	go func() { <-outDone; <-errDone; _ = cmd.Wait(); close(s.done) }()
	return s, nil
}

// endAll tells every agent the run is over (RemoteAgent.End), 64 at a
// time, for at most 5 s in all: agents gone answer at once (the
// connection refused), and where the network is down too the run does not
// wait on them.
func endAll(agents []*RemoteAgent) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	slots := make(chan struct{}, 64)
	for _, a := range agents {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.End(ctx)
			<-slots
		}()
	}
	wg.Wait()
}

// send writes the run's token and secrets on the stream's stdin.
func (s *stream) send(launch Launch) error {
	_, err := io.WriteString(s.stdin, stdinMessage(launch.Token, launch.Secrets))
	return err
}

// stop ends the stream once (stopStream), signalling it with signal, and
// closes the agents' connections.
func (s *stream) stop(prog string, signal func(syscall.Signal), agents []*RemoteAgent) (left []string) {
	s.once.Do(func() {
		select {
		case <-s.done:
			// The launcher ended first (killed; srun whose slurmd is
			// gone): the end of its stdin reaches no agent, and one
			// still running (its stdin held open by slurmstepd) would
			// wait for good. Those that can be reached are told.
			endAll(agents)
		default:
		}
		left = stopStream(s.stdin, s.done, prog, time.Minute, signal)
		for _, a := range agents {
			a.Close()
		}
	})
	return left
}
