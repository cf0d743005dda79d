// Package supervise starts a child process under a small supervisor, so
// that nothing the child starts outlives the process that started it,
// even when that process is killed by SIGKILL and nothing of it is left
// to kill a process group: fio (whose job processes leave its process
// group), an event's command (whatever it starts in the background).
//
// The supervisor is the running program itself, run again
// (/proc/self/exe) with a hidden first argument that this package's init
// function takes before any command line is parsed, in storbench and in
// every test binary alike. It asks the kernel for a signal when its
// parent dies (PR_SET_PDEATHSIG), makes itself the reaper of its
// descendants' orphans (PR_SET_CHILD_SUBREAPER), starts the child in a
// process group of its own and forwards it the signals it is sent. When
// its parent dies, when the parent closes their connection (Kill), or
// when the child exits, it kills the child's process group and every
// descendant it adopted, reaps them, and exits as the child did. PID 1
// that reaps nothing, or a cgroup hierarchy, is not needed.
package supervise

import (
	"os/exec"
	"sync"
)

// arg is the hidden subcommand that runs the supervisor.
const arg = "__supervise"

// Process is a child running under a supervisor.
type Process struct {
	// Pid is the child's process id, and its process group's: signals
	// for the child alone go to it, signals for its group to -Pid.
	Pid  int
	cmd  *exec.Cmd
	once sync.Once
	kill func()
}

// Wait waits for the supervisor, which exits once the child and all
// that it left have ended, and returns the child's status as
// exec.Cmd.Wait does (an *exec.ExitError with its exit code, or with the
// signal that killed it).
func (p *Process) Wait() error {
	err := p.cmd.Wait()
	p.Kill()
	return err
}

// Kill ends the child, its process group and everything it started, at
// once (SIGKILL). It may be called at any time, more than once, and from
// any goroutine; Wait still says how the child ended.
func (p *Process) Kill() { p.once.Do(p.kill) }
