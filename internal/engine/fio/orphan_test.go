package fio_test

import (
	"bufio"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/testutil"
)

// fioProcs lists the live processes whose command line names a path under
// dir: the fio storbench started on it and the job processes fio forked
// (they keep its command line). Zombies, which hold nothing, are left out.
func fioProcs(dir string) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(cmd), dir) || !strings.HasPrefix(filepath.Base(strings.SplitN(string(cmd), "\x00", 2)[0]), "fio") {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			continue
		}
		// pid: (state, parent) command line, for whoever reads a failure.
		st := ""
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 {
			st = strings.Join(strings.Fields(string(stat[i+1:]))[:2], " ")
		}
		out = append(out, e.Name()+": ("+st+") "+strings.ReplaceAll(string(cmd), "\x00", " "))
	}
	return out
}

// waitFioJobs waits until fio and at least jobs job processes run on dir.
func waitFioJobs(t *testing.T, dir string, jobs int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for len(fioProcs(dir)) < 1+jobs {
		if time.Now().After(deadline) {
			t.Fatalf("fio and %d job processes did not start on %s within 60s: %v", jobs, dir, fioProcs(dir))
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond) // the jobs are in their I/O loop
}

// noFioAfter fails t when any fio process on dir is left 20 s after its
// parent was killed, and kills what is left. fio's job runs 600 s: one
// left for good is told apart from one that a loaded machine ends late
// (a fixed 2 s was not enough at a load of 30 on 2 cores).
func noFioAfter(t *testing.T, dir string) {
	t.Helper()
	t0 := time.Now()
	for len(fioProcs(dir)) > 0 && time.Since(t0) < 20*time.Second {
		time.Sleep(100 * time.Millisecond)
	}
	if left := fioProcs(dir); len(left) > 0 {
		t.Errorf("fio outlived its parent by 20 s: %v", left)
		for _, l := range left {
			if pid, err := strconv.Atoi(strings.SplitN(l, ":", 2)[0]); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
}

// fastDir is a directory on tmpfs when there is one: the jobs' I/O then
// never waits for a disk, so a job process stops as soon as it is told
// to, however loaded the machine's disks are (a process in uninterruptible
// disk I/O outlives any signal until its I/O ends: that case is
// TestStopIsBounded's).
func fastDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("/dev/shm", "storbench-orphan-")
	if err != nil {
		return t.TempDir()
	}
	t.Cleanup(func() { _ = os.RemoveAll(d) })
	return d
}

// A long job of two processes, time based.
const orphanJob = "[global]\nioengine=psync\nsize=4m\nbs=4k\ntime_based=1\nruntime=600\nnumjobs=2\n[orphan]\nrw=randrw\n"

// SIGKILL of `storbench fio` (no chance to stop anything) takes fio and
// its job processes with it (issue 21: fio ran on with parent 1 until its
// runtime ended).
func TestFioDiesWithStorbench(t *testing.T) {
	bin := storbenchBin(t)
	dir := fastDir(t)
	job := filepath.Join(t.TempDir(), "orphan.fio")
	_ = os.WriteFile(job, []byte(orphanJob), 0o644)
	cmd := testutil.Command(t, bin, "fio", "-d", dir, "-w", job, "--results", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	waitFioJobs(t, dir, 2)
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	noFioAfter(t, dir)
}

// SIGKILL of an agent running fio for a controller takes fio and its job
// processes with it, while the controller lives on.
func TestFioDiesWithAgent(t *testing.T) {
	bin := storbenchBin(t)
	dir := fastDir(t)
	job := filepath.Join(t.TempDir(), "orphan.fio")
	_ = os.WriteFile(job, []byte(orphanJob), 0o644)
	tok := filepath.Join(t.TempDir(), "token")
	_ = os.WriteFile(tok, []byte("orphan-token-0123456789\n"), 0o600)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	agent := testutil.Command(t, bin, "agent", "--listen", addr, "--token-file", tok)
	out, _ := agent.StderrPipe()
	agent.Stdout = agent.Stderr
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = agent.Process.Kill(); _ = agent.Wait() }()
	listening := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		closed := false
		for sc.Scan() {
			if !closed && strings.Contains(sc.Text(), "listening on") {
				close(listening)
				closed = true
			}
		}
	}()
	select {
	case <-listening:
	case <-time.After(15 * time.Second):
		t.Fatal("the agent did not start")
	}
	ctrl := testutil.Command(t, bin, "fio", "-d", dir, "-w", job, "--agents", addr, "--token-file", tok, "--results", t.TempDir())
	if err := ctrl.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ctrl.Process.Kill(); _ = ctrl.Wait() }()
	waitFioJobs(t, dir, 2)
	_ = agent.Process.Signal(syscall.SIGKILL)
	_ = agent.Wait()
	noFioAfter(t, dir)
}

// SIGKILL of fio's main process alone: its job processes, which have left
// its process group, end within 2 s, plus four wake-ups as late as this
// machine's during the wait (NoneMarkedWithin; issue 37: beside a hog a
// fixed 2 s failed), and storbench says at once that the phase failed,
// naming the kill (issue 32: the jobs wrote for the rest of their runtime
// while storbench waited with its progress frozen).
func TestFioMainKilledAlone(t *testing.T) {
	bin := storbenchBin(t)
	dir := fastDir(t)
	job := filepath.Join(t.TempDir(), "orphan.fio")
	_ = os.WriteFile(job, []byte(orphanJob), 0o644)
	mark := testutil.ProcMark()
	cmd := testutil.Command(t, bin, "fio", "-d", dir, "-w", job, "--results", t.TempDir())
	cmd.Env = append(os.Environ(), mark)
	out := &testutil.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	waitFioJobs(t, dir, 2)
	main := fioMain(t, dir)
	_ = syscall.Kill(main, syscall.SIGKILL)
	killed := time.Now()
	// storbench itself lives on to say how the phase ended.
	testutil.NoneMarkedWithin(t, mark, killed, 2*time.Second, cmd.Process.Pid)
	ended := make(chan error, 1)
	go func() { ended <- cmd.Wait() }()
	select {
	case err := <-ended:
		var ee *exec.ExitError
		want := "fio's main process (pid " + strconv.Itoa(main) + ") was killed by signal 9"
		if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(out.String(), want) {
			t.Errorf("storbench: %v, want exit 1 and a line saying %q:\n%s", err, want, out)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("storbench still waits 60 s after fio's main process was killed:\n%s", out)
	}
}

// fioMain is the pid of the main process of the fio running on dir: the
// one whose parent is not fio.
func fioMain(t *testing.T, dir string) int {
	t.Helper()
	procs := fioProcs(dir)
	pids := map[string]bool{}
	for _, p := range procs {
		pids[strings.SplitN(p, ":", 2)[0]] = true
	}
	for _, p := range procs {
		// "pid: (state parent) command line"
		f := strings.Fields(strings.SplitN(p, "(", 2)[1])
		if len(f) > 1 && !pids[strings.TrimSuffix(f[1], ")")] {
			pid, _ := strconv.Atoi(strings.SplitN(p, ":", 2)[0])
			return pid
		}
	}
	t.Fatalf("no fio main process among %v", procs)
	return 0
}
