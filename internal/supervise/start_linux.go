package supervise

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// self is the program run as the supervisor: this one. The benchmark of
// the supervisor's start-up names the storbench binary instead.
var self = "/proc/self/exe"

// startWait bounds how long the supervisor may take to start the child
// and say so: a re-exec of a large binary on a loaded machine.
const startWait = time.Minute

// Start starts cmd, made by exec.Command and not started, under a
// supervisor, and returns once the child runs (or failed to start, with
// the error exec.Cmd.Start would give). cmd's standard input and outputs,
// environment and directory are the child's; its SysProcAttr and Process
// are the supervisor's (the child is in a process group of its own, and
// gets SIGKILL if the supervisor dies), and ExtraFiles may not be set.
// Call Wait, not cmd.Wait.
func Start(cmd *exec.Cmd) (*Process, error) {
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	if len(cmd.ExtraFiles) > 0 {
		return nil, errors.New("supervise: ExtraFiles are not passed to the child")
	}
	// One end each: the supervisor reads end of file when this process
	// is gone, however it died, or when Kill closes this end. Both are
	// close-on-exec, so no other child holds this end open.
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("supervise: %v", err)
	}
	// Non-blocking, so that a read can have a deadline.
	_ = syscall.SetNonblock(fds[0], true)
	conn := os.NewFile(uintptr(fds[0]), "supervisor")
	theirs := os.NewFile(uintptr(fds[1]), "supervised")
	cmd.Args = append([]string{os.Args[0], arg, strconv.Itoa(os.Getpid()), cmd.Path}, cmd.Args...)
	cmd.Path = self
	cmd.ExtraFiles = []*os.File{theirs} // its fd 3
	// Away from the terminal's process group, as the child is: Ctrl-C
	// is this process's to act on.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	// The supervisor's end is its own: with it closed here, a supervisor
	// gone before its answer is read as such.
	theirs.Close()
	if err != nil {
		conn.Close()
		return nil, err
	}
	p := &Process{cmd: cmd, kill: func() { _ = conn.Close() }}
	if p.Pid, err = started(conn); err != nil {
		p.Kill()
		_ = cmd.Wait()
		return nil, err
	}
	return p, nil
}

// started reads the supervisor's first line: "ok PID" once the child
// runs, "error TEXT" when it could not be started.
func started(conn *os.File) (int, error) {
	_ = conn.SetReadDeadline(time.Now().Add(startWait))
	defer conn.SetReadDeadline(time.Time{})
	var line []byte
	buf := make([]byte, 256)
	for !bytes.Contains(line, []byte{'\n'}) {
		n, err := conn.Read(buf)
		line = append(line, buf[:n]...)
		if err != nil {
			return 0, fmt.Errorf("supervise: the supervisor said nothing of its child: %v", err)
		}
	}
	s, _, _ := strings.Cut(string(line), "\n")
	if msg, ok := strings.CutPrefix(s, "error "); ok {
		return 0, errors.New(msg)
	}
	pid, err := strconv.Atoi(strings.TrimPrefix(s, "ok "))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("supervise: the supervisor said %q", s)
	}
	return pid, nil
}
