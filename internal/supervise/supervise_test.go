package supervise

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/testutil"
)

// sh is a command under a supervisor's test: sh -c script with mark in
// its environment.
func sh(mark, script string) *exec.Cmd {
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Env = append(os.Environ(), mark)
	return cmd
}

// helperEnv makes the test binary run TestHelperParent as a parent of a
// supervised child, for a test that kills it.
const helperEnv = "STORBENCH_SUPERVISE_HELPER"

// Not a test: the parent that TestChildrenEndWithTheirParent kills. It
// starts a supervised shell that ignores SIGTERM and leaves a child in
// its process group and one in a session of its own, says so, and waits
// to be killed.
func TestHelperParent(t *testing.T) {
	script := os.Getenv(helperEnv)
	if script == "" {
		t.Skip("run by TestChildrenEndWithTheirParent")
	}
	p, err := Start(exec.Command("/bin/sh", "-c", script))
	if err != nil {
		fmt.Println("start:", err)
		os.Exit(1)
	}
	fmt.Println("started", p.Pid)
	time.Sleep(10 * time.Minute)
}

// The child of a parent killed by SIGKILL ends, with everything it
// started, whether in its process group or not, and whether it ignores
// SIGTERM or not: none of them is alive 2 s later, plus four wake-ups as
// late as this machine's (NoneMarkedWithin) (issue 32: an event's command
// ran on with parent 1).
func TestChildrenEndWithTheirParent(t *testing.T) {
	mark := testutil.ProcMark()
	parent := exec.Command(os.Args[0], "-test.run=^TestHelperParent$", "-test.count=1")
	parent.Env = append(os.Environ(), mark, helperEnv+"=trap '' TERM; sleep 301 & setsid sleep 302 & sleep 303")
	out := &testutil.Buffer{}
	parent.Stdout, parent.Stderr = out, out
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = parent.Process.Kill(); _ = parent.Wait() }()
	testutil.WaitMarked(t, mark, 5, time.Minute, "sleep 301", "sleep 302", "sleep 303")
	_ = parent.Process.Signal(syscall.SIGKILL)
	killed := time.Now()
	_ = parent.Wait()
	testutil.NoneMarkedWithin(t, mark, killed, 2*time.Second)
	if !strings.Contains(out.String(), "started") {
		t.Errorf("the helper parent said: %s", out)
	}
}

// A thread of the parent that ends is not the parent's death: the kernel
// sends the parent-death signal when the thread that forked ends, and a
// goroutine locked to its thread that returns ends the thread.
func TestParentsThreadEndingIsNotItsDeath(t *testing.T) {
	mark := testutil.ProcMark()
	got := make(chan *Process, 1)
	go func() {
		runtime.LockOSThread() // not unlocked: the thread ends with the goroutine
		p, err := Start(sh(mark, "sleep 306"))
		if err != nil {
			t.Error(err)
		}
		got <- p
	}()
	p := <-got
	if p == nil {
		return
	}
	defer func() { p.Kill(); _ = p.Wait() }()
	time.Sleep(time.Second)
	if procs := markedWith(mark, "sleep 306"); len(procs) != 1 {
		t.Errorf("the child ended when a thread of its parent did: %v", testutil.Marked(mark))
	}
}

// markedWith lists the live processes holding mark whose command line
// is cmdline.
func markedWith(mark, cmdline string) []string {
	var out []string
	for _, p := range testutil.Marked(mark) {
		if strings.HasSuffix(p, ") "+cmdline) {
			out = append(out, p)
		}
	}
	return out
}

// Wait says how the child ended as exec.Cmd.Wait would have, and a child
// that cannot be started is Start's error as exec's.
func TestStatusPassesThrough(t *testing.T) {
	for _, tc := range []struct{ script, want string }{
		{"exit 0", ""},
		{"exit 3", "exit status 3"},
		{"kill -KILL $$", "signal: killed"},
		{"kill -TERM $$", "signal: terminated"},
		{"kill -USR1 $$", "exit status 138"},
	} {
		p, err := Start(sh("X=1", tc.script))
		if err != nil {
			t.Fatal(err)
		}
		err = p.Wait()
		if (err == nil) != (tc.want == "") || err != nil && err.Error() != tc.want {
			t.Errorf("%s: %v, want %q", tc.script, err, tc.want)
		}
	}
	_, err := Start(exec.Command("/nonexistent/prog"))
	var pe *os.PathError
	if _, want := exec.Command("/nonexistent/prog").Output(); err == nil || !errors.As(want, &pe) || err.Error() != want.Error() {
		t.Errorf("a missing program: %v, want %v", err, want)
	}
}

// Once the child exits, what it left in the background ends too, in its
// process group or not, before Wait returns; Kill ends it all at once.
func TestChildExitEndsWhatItLeft(t *testing.T) {
	mark := testutil.ProcMark()
	p, err := Start(sh(mark, "sleep 304 & setsid sleep 305 & exit 0"))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Wait(); err != nil {
		t.Errorf("the child exited 0: %v", err)
	}
	testutil.NoneMarkedWithin(t, mark, time.Now(), 0)

	p, err = Start(sh(mark, "setsid sleep 307 & sleep 308"))
	if err != nil {
		t.Fatal(err)
	}
	testutil.WaitMarked(t, mark, 3, time.Minute, "sleep 307", "sleep 308")
	p.Kill()
	if err := p.Wait(); err == nil || err.Error() != "signal: killed" {
		t.Errorf("a killed child: %v", err)
	}
	testutil.NoneMarkedWithin(t, mark, time.Now(), 0)
}

// Signals sent to the supervisor go to the child's process group; the
// orphans it adopts while the child runs are reaped, not left as zombies.
func TestSignalsForwardedOrphansReaped(t *testing.T) {
	mark := testutil.ProcMark()
	p, err := Start(sh(mark, "trap 'exit 7' TERM; (sleep 0.1 &); (sleep 0.1 &); sleep 309 & wait"))
	if err != nil {
		t.Fatal(err)
	}
	testutil.WaitMarked(t, mark, 3, time.Minute, "sleep 309")
	sup := p.cmd.Process.Pid
	deadline := time.Now().Add(time.Minute)
	for zombies(sup) > 0 || len(markedWith(mark, "sleep 0.1")) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the orphans that exited are left as %d zombies", zombies(sup))
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = syscall.Kill(sup, syscall.SIGTERM)
	if err := p.Wait(); err == nil || err.Error() != "exit status 7" {
		t.Errorf("SIGTERM to the supervisor: %v, want the child's trap's exit status 7", err)
	}
}

// zombies counts the zombie children of pid.
func zombies(pid int) int {
	n := 0
	for _, c := range children(pid) {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", c))
		if i := strings.LastIndexByte(string(b), ')'); i > 0 && i+2 < len(b) && b[i+2] == 'Z' {
			n++
		}
	}
	return n
}

// By hand, the hidden subcommand says it is not for use and exits 2.
func TestSupervisorByHandRefused(t *testing.T) {
	out, err := exec.Command(os.Args[0], arg, "1", "/bin/true", "true").CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || strings.Count(string(out), "\n") != 1 || !strings.Contains(string(out), "not to be run by hand") {
		t.Errorf("%v: %q", err, out)
	}
}

// The supervisor's start-up cost: a child run to its end under the
// storbench binary as the supervisor, against the same child started
// plainly (go test -run '^$' -bench Start ./internal/supervise).
func BenchmarkStart(b *testing.B) {
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("/bin/true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, sup := range []struct{ name, bin string }{{"test-binary", "/proc/self/exe"}, {"storbench", testutil.StorbenchBin(b)}} {
		b.Run("supervised-by-"+sup.name, func(b *testing.B) {
			defer func(s string) { self = s }(self)
			self = sup.bin
			for b.Loop() {
				p, err := Start(exec.Command("/bin/true"))
				if err != nil {
					b.Fatal(err)
				}
				if err := p.Wait(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The supervisor finds the orphans it adopted at a cost that does not
// grow with the machine's processes: beside 500 idle ones, ending a child
// that left an orphan out of its process group costs the supervisor no
// more than twice the CPU of ending one that left it in the group (issue
// 37: it read every process's /proc stat to find its own, some 40 ms of
// CPU at 700 processes, once or twice, which a loaded machine stretched
// to seconds while fio's job processes ran on).
func TestEndCostsTheSameHoweverManyProcessesRun(t *testing.T) {
	const idle = 500
	crowdMark := testutil.ProcMark()
	crowd := exec.Command("/bin/sh", "-c", fmt.Sprintf("i=0; while [ $i -lt %d ]; do sleep 313 & i=$((i+1)); done; wait", idle))
	crowd.Env = append(os.Environ(), crowdMark)
	crowd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := crowd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Kill(-crowd.Process.Pid, syscall.SIGKILL); _ = crowd.Wait() }()
	testutil.WaitMarked(t, crowdMark, idle+1, time.Minute)

	mark := testutil.ProcMark()
	// cost is the least CPU of three supervisors whose child runs
	// script and exits once the processes words name run: for the
	// orphan, once it left the child's process group (sleep runs after
	// setsid), so that the group's kill misses it.
	cost := func(script string, words ...string) time.Duration {
		best := time.Hour
		for range 3 {
			cmd := sh(mark, script+"\nread x; exit 0")
			in, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			p, err := Start(cmd)
			if err != nil {
				t.Fatal(err)
			}
			testutil.WaitMarked(t, mark, 2+len(words), time.Minute, words...)
			in.Close()
			if err := p.Wait(); err != nil {
				t.Fatalf("the child exited 0: %v", err)
			}
			testutil.NoneMarkedWithin(t, mark, time.Now(), 0)
			st := p.cmd.ProcessState
			best = min(best, st.UserTime()+st.SystemTime())
		}
		return best
	}
	// The CPU of the sleep, which the supervisor reaps, is counted in
	// both.
	inGroup := cost("sleep 311 &", ") sleep 311")
	orphan := cost("setsid sleep 312 &", ") sleep 312")
	t.Logf("the supervisor's CPU beside %d idle processes: %v for a child that left a process in its group, %v for one that left an orphan out of it", idle, inGroup, orphan)
	if orphan > 2*inGroup {
		t.Errorf("beside %d idle processes the supervisor took %v of CPU to end a child that left an orphan out of its process group, against %v for one that left it in: it reads the machine's processes to find its own", idle, orphan, inGroup)
	}
}
