package supervise

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// The supervisor takes over here, before any other package of the
// program it runs in reads its command line: in storbench, and in a test
// binary whose code started a child under a supervisor.
func init() {
	if len(os.Args) > 1 && os.Args[1] == arg {
		// The child's parent-death signal comes when the thread that
		// forked it ends: this one, held to the end.
		runtime.LockOSThread()
		os.Exit(supervise(os.Args[2:]))
	}
}

// parentDeath is the signal the kernel sends the supervisor when the
// thread that started it ends: a real-time signal that nobody sends by
// hand, so it is never taken for one to forward. A storbench thread may
// end while storbench lives on; the signal means storbench is gone only
// when the supervisor's parent changed.
const parentDeath = syscall.Signal(40)

// forwarded are the signals the supervisor passes on to the child's
// process group.
var forwarded = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2}

// supervise runs the supervisor: args are the parent's pid, the child's
// path and its arguments (argument 0 first); fd 3 is its end of the
// parent's connection. It returns the status to exit with, when it does
// not die by the child's signal.
func supervise(args []string) int {
	var st syscall.Stat_t
	parent, err := 0, syscall.Fstat(3, &st)
	if len(args) >= 3 && err == nil && st.Mode&syscall.S_IFMT == syscall.S_IFSOCK {
		parent, err = strconv.Atoi(args[0])
	}
	if parent <= 0 || err != nil {
		fmt.Fprintf(os.Stderr, "storbench: %s is storbench's own: it runs a child for a storbench process, which it is given, and is not to be run by hand\n", arg)
		return 2
	}
	conn := os.NewFile(3, "parent")
	syscall.CloseOnExec(3)
	// Named as ps shows it: run as /proc/self/exe, it would be "exe".
	name := []byte("storbench-sup\x00")
	_ = prctl(syscall.PR_SET_NAME, uintptr(unsafe.Pointer(&name[0])))
	sigs := make(chan os.Signal, 64)
	signal.Notify(sigs, append(forwarded, syscall.SIGCHLD, parentDeath)...)
	_ = prctl(prSetChildSubreaper, 1)
	_ = prctl(syscall.PR_SET_PDEATHSIG, uintptr(parentDeath))
	if os.Getppid() != parent {
		return 1 // the parent died before the signal was asked for: start nothing
	}
	pid, err := syscall.ForkExec(args[1], args[2:], &syscall.ProcAttr{
		Env: os.Environ(), Files: []uintptr{0, 1, 2},
		Sys: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		fmt.Fprintf(conn, "error fork/exec %s: %v\n", args[1], err)
		return 127
	}
	fmt.Fprintf(conn, "ok %d\n", pid)
	gone := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, conn)
		close(gone)
	}()
	t := &tree{child: pid}
	t.watch(sigs, gone, parent)
	return exitAs(t.end(sigs))
}

// tree is the supervised child and what it left.
type tree struct {
	child  int
	reaped bool
	status syscall.WaitStatus
}

// watch returns when the tree is to end: the child exited (not yet
// reaped, so its pid and process group are still its own), or the parent
// is gone or asked for the end. Meanwhile it forwards signals and reaps
// the orphans it adopted.
func (t *tree) watch(sigs <-chan os.Signal, gone <-chan struct{}, parent int) {
	for {
		select {
		case <-gone:
			return
		case sig := <-sigs:
			switch sig {
			case syscall.SIGCHLD:
				if t.reapOrphans() {
					return
				}
			case parentDeath:
				if os.Getppid() != parent {
					return
				}
			default:
				_ = syscall.Kill(-t.child, sig.(syscall.Signal))
			}
		}
	}
}

// reapOrphans reaps the adopted processes that exited, and reports
// whether the child did (left unreaped).
func (t *tree) reapOrphans() (childExited bool) {
	for {
		pid := exitedChild()
		switch {
		case pid <= 0:
			return false
		case pid == t.child:
			return true
		}
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
	}
}

// end kills the child's process group and every process this one
// adopted, again as killed processes leave theirs to it, reaps them all,
// and returns the child's status. The adopted are looked for at once, in
// every round: the kernel lists them (adopted), a few reads however many
// processes the machine runs. A process in uninterruptible I/O holds the
// supervisor until the I/O ends; whoever waits for it bounds that.
func (t *tree) end(sigs <-chan os.Signal) syscall.WaitStatus {
	for {
		if !t.reaped {
			_ = syscall.Kill(-t.child, syscall.SIGKILL)
		}
		// Only this goroutine reaps: a pid listed here is still a
		// child of this process, not one the kernel gave another.
		for _, c := range adopted() {
			_ = syscall.Kill(c, syscall.SIGKILL)
		}
		if t.reapAll() {
			return t.status
		}
		select {
		case <-sigs:
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// reapAll reaps every child that exited, and reports whether none is
// left.
func (t *tree) reapAll() (none bool) {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return true // ECHILD
		case pid <= 0:
			return false
		case pid == t.child:
			t.reaped, t.status = true, ws
		}
	}
}

// exitAs ends the supervisor as the child ended: by the same signal when
// the child was killed by one that ends a process without a core dump,
// else with the child's exit code (128 plus the signal's number for
// another signal, as a shell says it).
func exitAs(ws syscall.WaitStatus) int {
	if !ws.Signaled() {
		return ws.ExitStatus()
	}
	sig := ws.Signal()
	switch sig {
	case syscall.SIGKILL, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP:
		signal.Reset(sig)
		_ = syscall.Kill(os.Getpid(), sig)
		time.Sleep(time.Second) // the signal ends this process
	}
	return 128 + int(sig)
}

// exitedChild returns a child that exited, without reaping it (waitid
// with WNOWAIT), or 0 when none did.
func exitedChild() int {
	// siginfo_t: si_signo, si_errno and si_code (int32 each), then, for
	// SIGCHLD, si_pid, aligned to the word size.
	var info [128]byte
	const pAll, wExited, wNoWait = 0, 4, 0x01000000
	_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pAll, 0, uintptr(unsafe.Pointer(&info)), wExited|syscall.WNOHANG|wNoWait, 0, 0)
	if e != 0 {
		return 0
	}
	off := 12
	if unsafe.Sizeof(uintptr(0)) == 8 {
		off = 16
	}
	return int(*(*int32)(unsafe.Pointer(&info[off])))
}

// adopted lists this process's children: the child and the orphans it
// adopted. The kernel lists each thread's children (Linux 3.5 with
// CONFIG_PROC_CHILDREN), an orphan with those of the thread it was given
// to; where it does not, every process's stat is read (children), tens of
// milliseconds of CPU on a machine of hundreds of processes, which a
// loaded one stretches to seconds.
func adopted() []int {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return children(os.Getpid())
	}
	var out []int
	for _, task := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + task.Name() + "/children")
		if errors.Is(err, fs.ErrNotExist) {
			if _, gone := os.Stat("/proc/self/task/" + task.Name()); gone == nil {
				return children(os.Getpid()) // no such list in this kernel
			}
			continue // the thread ended: its children went to another
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				out = append(out, pid)
			}
		}
	}
	return out
}

// children lists the processes whose parent is pid.
func children(pid int) []int {
	var out []int
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	want := []byte(" " + strconv.Itoa(pid) + " ")
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold blanks and parentheses.
		if i := bytes.LastIndexByte(b, ')'); i > 0 && i+3 < len(b) && bytes.HasPrefix(b[i+3:], want) {
			if c, err := strconv.Atoi(filepath.Base(filepath.Dir(p))); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// prSetChildSubreaper is prctl's PR_SET_CHILD_SUBREAPER (Linux 3.4),
// which package syscall does not name.
const prSetChildSubreaper = 36

func prctl(option int, arg uintptr) error {
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, uintptr(option), arg, 0); e != 0 {
		return e
	}
	return nil
}
