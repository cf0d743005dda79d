package fio

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/testutil"
)

// The job file fio runs behind the gate: the WEKA seed's shape (a
// create_only section, then the measured one, a startdelay in [global])
// holds only the measured section, runs a section's own exec_prerun
// first, and drops the startdelay every section had alike.
func TestGatedJobFile(t *testing.T) {
	jf, err := ParseJobFile("w", "[global]\nstartdelay=5\nsize=1m\n[create]\ncreate_only=1\n[read]\nstonewall\nrw=read\nexec_prerun=echo hi\n[write]\nrw=write\n")
	if err != nil {
		t.Fatal(err)
	}
	out, ungated, err := gated(jf, func(own string) string { return "GATE(" + own + ")" })
	if err != nil || len(ungated) != 0 {
		t.Fatalf("%v, ungated %v", err, ungated)
	}
	want := map[string]string{"create": "", "read": "GATE(echo hi)", "write": "GATE()"}
	for _, s := range out.Sections[1:] {
		got, _ := s.Get("exec_prerun")
		if got != want[s.Name] {
			t.Errorf("[%s] exec_prerun %q, want %q", s.Name, got, want[s.Name])
		}
		if d, _ := out.Lookup(s, "startdelay"); d != "0" {
			t.Errorf("[%s] startdelay %q, want 0: the gate starts the jobs together", s.Name, d)
		}
	}
	// A startdelay that differs between sections staggers them on purpose.
	jf, _ = ParseJobFile("s", "[a]\nrw=read\n[b]\nrw=read\nstartdelay=10\n")
	out, _, _ = gated(jf, func(string) string { return "G" })
	if d, _ := out.Sections[1].Get("startdelay"); d != "10" {
		t.Errorf("a staggered startdelay became %q", d)
	}
	if !strings.Contains(out.Render(), "exec_prerun=G") {
		t.Errorf("not gated:\n%s", out.Render())
	}
}

// The windows of one host's operations, hand-computed: its two jobs passed
// the gate at 10.000 s and 10.004 s; fio says it ran 2,000 ms after a
// 500 ms ramp and printed its output at 12.530 s. The operation ran from
// 10.500 s (first start + ramp) to 12.504 s (last start + ramp + runtime,
// before fio's own end time). With two groups, run one after the other,
// a window keeps fio's end and starts no earlier than the first job.
func TestAlignStart(t *testing.T) {
	const s = int64(1e9)
	one := &Output{Jobs: []JobOut{{GroupID: 0, Write: DirOut{TotalIOs: 1}}}}
	ops := []record.OpStats{{Op: "write", StartNs: 12530*s/1000 - 2*s, EndNs: 12530 * s / 1000}}
	one.alignStart(ops, []int64{10 * s, 10*s + 4e6}, 500*time.Millisecond)
	if ops[0].StartNs != 10500*s/1000 || ops[0].EndNs != 12504*s/1000 {
		t.Errorf("one group: %d to %d, want 10.500 s to 12.504 s", ops[0].StartNs, ops[0].EndNs)
	}
	two := &Output{Jobs: []JobOut{{GroupID: 0, Read: DirOut{TotalIOs: 1}}, {GroupID: 1, Write: DirOut{TotalIOs: 1}}}}
	ops = []record.OpStats{{Op: "r read", StartNs: 9 * s, EndNs: 11 * s}, {Op: "w write", StartNs: 11 * s, EndNs: 13 * s}}
	two.alignStart(ops, []int64{10 * s}, 0)
	if ops[0].StartNs != 10*s || ops[0].EndNs != 11*s || ops[1].StartNs != 11*s || ops[1].EndNs != 13*s {
		t.Errorf("two groups: %+v", ops)
	}
}

// The reader that stamps jobs through the gate can run late on a starved
// machine: here it stamped the job 20 ms after fio had already ended it
// (a disk that filled at once). A stamp is never earlier than the job's
// start, and neither is fio's own end less its runtime, so the window
// starts at the earlier of the two; it never ends before it starts (a
// negative duration made the results folder read as damaged).
func TestAlignStartWithALateStamp(t *testing.T) {
	const s = int64(1e9)
	end := 10*s + 5e6
	one := &Output{Jobs: []JobOut{{GroupID: 0, Write: DirOut{TotalIOs: 1}}}}
	ops := []record.OpStats{{Op: "write", StartNs: end - 3e6, EndNs: end}}
	one.alignStart(ops, []int64{end + 20e6}, 0)
	if ops[0].StartNs != end-3e6 || ops[0].EndNs != end {
		t.Errorf("one group: %d to %d, want fio's own %d to %d", ops[0].StartNs, ops[0].EndNs, end-3e6, end)
	}
	two := &Output{Jobs: []JobOut{{GroupID: 0, Read: DirOut{TotalIOs: 1}}, {GroupID: 1, Write: DirOut{TotalIOs: 1}}}}
	ops = []record.OpStats{{Op: "r read", StartNs: end - 3e6, EndNs: end}}
	two.alignStart(ops, []int64{end + 20e6}, 0)
	if ops[0].EndNs < ops[0].StartNs {
		t.Errorf("two groups: the window ends %d ns before it starts", ops[0].StartNs-ops[0].EndNs)
	}
}

// The command a job runs at the gate, run by the shell as fio runs it:
// it says the job came ('a'), passes when the gate opens ('s'), fails
// when the agent is gone (the gate FIFO closed, never opened), and a job
// whose own exec_prerun failed says so ('f') and never passes, even
// through a gate already open.
func TestPrerunCommand(t *testing.T) {
	// Every wait is bounded: a job that never ends fails the test, in
	// its words, instead of hanging the package.
	run := func(t *testing.T, g *gate, own string) chan error {
		done := make(chan error, 1)
		cmd := exec.CommandContext(testutil.Ctx(t, testutil.Bound), "sh", "-c", g.prerun(own))
		cmd.WaitDelay = time.Second
		// The shell forks a subshell for the parentheses: a stuck job is
		// ended with its whole process group, not its first shell alone
		// (which left the subshell blocked on the FIFO for good).
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		go func() { done <- cmd.Run() }()
		return done
	}
	ended := func(t *testing.T, done chan error) error {
		t.Helper()
		return testutil.Recv(t, done, testutil.Bound, "the job's prerun command did not end")
	}
	counts := func(g *gate) (arrived, passed int, failed bool) {
		g.mu.Lock()
		defer g.mu.Unlock()
		select {
		case <-g.failed:
			failed = true
		default:
		}
		return g.arrived, len(g.stamps), failed
	}
	waitArrived := func(t *testing.T, g *gate, n int) {
		t.Helper()
		for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
			if a, _, _ := counts(g); a == n {
				return
			}
		}
		t.Fatalf("%d jobs did not come to the gate", n)
	}
	t.Run("opened", func(t *testing.T) {
		g, err := newGate()
		if err != nil {
			t.Fatal(err)
		}
		done := run(t, g, "")
		waitArrived(t, g, 1)
		g.open()
		if err := ended(t, done); err != nil {
			t.Errorf("a job through the open gate failed: %v", err)
		}
		if err := ended(t, run(t, g, "")); err != nil {
			t.Error("a job that came after the gate opened did not pass")
		}
		if stamps, _ := g.close(); len(stamps) != 2 {
			t.Errorf("%d passages recorded, want 2", len(stamps))
		}
	})
	// The agent dies just after a job said 'a', before the job's shell
	// opened the gate (a slow shell on a busy machine, made certain here
	// by an echo that dawdles after it wrote): the job must fail, not
	// wait in the FIFO's open for a writer that is gone (it hung make
	// test's fio package for 20 minutes).
	t.Run("agent gone as the job came", func(t *testing.T) {
		g, err := newGate()
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(g.dir)
		defer g.started.Close()
		done := make(chan error, 1)
		slow := `echo() { command echo "$@"; sleep 0.5; }; `
		go func() { done <- exec.Command("sh", "-c", slow+g.prerun("")).Run() }()
		waitArrived(t, g, 1)
		g.hold.Close()
		select {
		case err := <-done:
			if err == nil {
				t.Error("a job passed a gate whose agent is gone")
			}
		case <-time.After(60 * time.Second):
			t.Fatal("the job still waits at a gate whose agent is gone, 60 s on")
		}
	})
	t.Run("agent gone", func(t *testing.T) {
		g, err := newGate()
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(g.dir)
		defer g.started.Close()
		done := run(t, g, "")
		waitArrived(t, g, 1)
		// The job says it came ('a') before its shell opens the gate
		// FIFO: closed before that open, the FIFO has no writer for the
		// open to wait for, and the shell waits for good (2 minutes here,
		// under load; in a run the agent's death kills fio's jobs). The
		// agent dies while the job waits at the gate.
		waitGateReader(t, g)
		g.hold.Close() // as the agent's death closes it: never opened
		if err := ended(t, done); err == nil {
			t.Error("a job passed a gate whose agent is gone")
		}
		if _, passed, _ := counts(g); passed != 0 {
			t.Errorf("%d passages recorded", passed)
		}
	})
	t.Run("own prerun failed", func(t *testing.T) {
		g, err := newGate()
		if err != nil {
			t.Fatal(err)
		}
		if err := ended(t, run(t, g, "false")); err == nil {
			t.Error("a job whose own prerun failed went on")
		}
		// The shell has written its 'f' when it ends; the gate reads it
		// when its reader runs, later on a busy machine.
		select {
		case <-g.failed:
		case <-time.After(30 * time.Second):
			t.Fatal("the gate never heard that the job's own prerun failed")
		}
		if arrived, _, _ := counts(g); arrived != 0 {
			t.Errorf("arrived %d, want 0: the job whose own prerun failed came to the gate", arrived)
		}
		g.open()
		if err := ended(t, run(t, g, "false")); err == nil {
			t.Error("a job whose own prerun failed passed the open gate")
		}
		if stamps, _ := g.close(); len(stamps) != 0 {
			t.Errorf("%d passages recorded, want none", len(stamps))
		}
	})
}

// waitGateReader waits until a process other than this one holds g's gate
// FIFO open: the job's shell, reading it.
func waitGateReader(t *testing.T, g *gate) {
	t.Helper()
	gate, self := g.dir+"/gate", strconv.Itoa(os.Getpid())
	for end := time.Now().Add(testutil.Bound); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		fds, _ := filepath.Glob("/proc/[0-9]*/fd/*")
		for _, fd := range fds {
			if strings.HasPrefix(fd, "/proc/"+self+"/") {
				continue
			}
			if l, err := os.Readlink(fd); err == nil && l == gate {
				return
			}
		}
	}
	t.Fatal("no job's shell opened the gate FIFO")
}

// Every passage a job wrote before the gate closes is counted, however
// late the gate's reader runs: here it is held (the gate's lock taken)
// while 1,000 jobs' bytes wait in the FIFO, more than one read takes,
// and close races it. Before, close closed the FIFO at once and lost
// what was not read yet (in about one try of five here: 20 tries).
func TestGateCloseKeepsEveryPassage(t *testing.T) {
	const jobs = 1000
	for try := range 20 {
		g, err := newGate()
		if err != nil {
			t.Fatal(err)
		}
		g.mu.Lock()
		for range jobs {
			if _, err := g.started.Write([]byte{'s'}); err != nil {
				g.mu.Unlock()
				t.Fatal(err)
			}
		}
		done := make(chan []int64, 1)
		go func() {
			stamps, _ := g.close()
			done <- stamps
		}()
		time.Sleep(10 * time.Millisecond) // a chance for close to be under way, not a wait for it
		g.mu.Unlock()
		if stamps := testutil.Recv(t, done, testutil.Bound, "the gate did not close"); len(stamps) != jobs {
			t.Fatalf("try %d: %d passages recorded, want %d", try, len(stamps), jobs)
		}
	}
}

// A gate's directory left behind by a process that is gone (an agent
// killed while a phase ran) is removed when the next gate is made; one of
// a live process, or holding anything but storbench's FIFO names, stays.
// Before, every killed agent left one in the temporary directory for good
// (262 on this machine).
func TestFifoDirSweepsWhatGoneProcessesLeft(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dead := strconv.Itoa(gone.Process.Pid)
	mk := func(name string, files ...string) string {
		d := filepath.Join(tmp, name)
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if f == "started" {
				if err := syscall.Mkfifo(filepath.Join(d, f), 0o600); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if err := os.WriteFile(filepath.Join(d, f), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	stale := mk(gateDirPrefix+dead+"-1", "gate", "started")
	staleEnds := mk(endsDirPrefix+dead+"-2", "ended")
	live := mk(gateDirPrefix+strconv.Itoa(os.Getpid())+"-3", "gate", "started")
	foreign := mk(gateDirPrefix+dead+"-4", "gate", "notes.txt")
	g, err := newGate()
	if err != nil {
		t.Fatal(err)
	}
	defer g.close()
	e, err := newJobEnds(1)
	if err != nil {
		t.Fatal(err)
	}
	defer e.stop()
	for _, d := range []string{stale, staleEnds} {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("%s of a process gone is still there (%v)", filepath.Base(d), err)
		}
	}
	for _, d := range []string{live, foreign} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(d), err)
		}
	}
	if !strings.HasPrefix(filepath.Base(g.dir), gateDirPrefix+strconv.Itoa(os.Getpid())+"-") {
		t.Errorf("the gate's directory %s is not named by this process's pid", g.dir)
	}
}
