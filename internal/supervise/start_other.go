//go:build !linux

package supervise

import (
	"os/exec"
	"syscall"
)

// Start starts cmd in a process group of its own. Only Linux has a
// parent-death signal and a subreaper: elsewhere there is no supervisor,
// and Kill kills the child's process group.
func Start(cmd *exec.Cmd) (*Process, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	pid := cmd.Process.Pid
	return &Process{Pid: pid, cmd: cmd, kill: func() { _ = syscall.Kill(-pid, syscall.SIGKILL) }}, nil
}
