package cluster_test

// --launcher slurm with real processes: a stand-in for srun where no Slurm
// runs (a node whose agent fails to start), and a real Slurm (Debian's
// slurmctld, slurmd and munge, started by the test as root) for the rest.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/s3test"
	"github.com/storbench/storbench/internal/testutil"
)

// runExit runs cmd to the end and returns its exit code and output.
func runExit(t *testing.T, cmd *exec.Cmd) (int, string) {
	t.Helper()
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

// agentPIDs lists the running `storbench agent` processes of binary bin.
func agentPIDs(bin string) []int { return pidsOf(bin, "agent") }

// pidsOf lists the running `storbench CMD` processes of binary bin.
func pidsOf(bin, command string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(b), "\x00")
		if len(args) > 1 && args[0] == bin && args[1] == command {
			out = append(out, pid)
		}
	}
	return out
}

// A node whose agent fails to start is named, with what srun and the
// agent said, and the run is refused before any load (exit 2, no results
// folder, no agent left running); with --allow-partial it runs on the
// others. srun here is a stand-in (testdata/fake-srun): a real Slurm on one
// machine has one node, which cannot fail alone.
func TestSlurmNodeFailsToStart(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("the srun stand-in needs python3")
	}
	bin := testutil.StorbenchBin(t)
	dir := t.TempDir()
	fake, err := filepath.Abs("testdata/fake-srun")
	if err != nil {
		t.Fatal(err)
	}
	pathDir := filepath.Join(dir, "bin")
	_ = os.MkdirAll(pathDir, 0o755)
	if err := os.Symlink(fake, filepath.Join(pathDir, "srun")); err != nil {
		t.Fatal(err)
	}
	data, res := t.TempDir(), filepath.Join(dir, "results")
	md := func(extra ...string) *exec.Cmd {
		cmd := exec.Command(bin, append([]string{"md", "-d", data, "-n", "20", "-F", "--launcher", "slurm", "--results", res}, extra...)...)
		// Three nodes with names that reach this machine, in Slurm's
		// host-list syntax; the second one's agent cannot listen.
		cmd.Env = append(os.Environ(), "PATH="+pathDir+":"+os.Getenv("PATH"), "SLURM_JOB_ID=4242", "SLURM_JOB_NODELIST=127.0.0.[1-3]",
			"FAKESRUN_NODES=127.0.0.1,127.0.0.2,127.0.0.3", "FAKESRUN_FAIL_NODES=127.0.0.2")
		return cmd
	}
	code, out := runExit(t, md())
	lines := strings.Split(strings.TrimSpace(out), "\n")
	last := lines[len(lines)-1]
	if code != 2 || !strings.Contains(last, "127.0.0.2: 0 of 1 agents started") || !strings.Contains(last, "invalid port") ||
		!strings.Contains(last, "refused before any load") || !strings.Contains(last, "--allow-partial") {
		t.Fatalf("exit %d, want 2 and a line naming 127.0.0.2 and why:\n%s", code, out)
	}
	for _, h := range []string{"127.0.0.1", "127.0.0.3"} {
		if strings.Contains(last, "slurm: "+h+": ") || strings.Contains(last, "; "+h+": ") {
			t.Errorf("a node whose agent started is named: %s", last)
		}
	}
	if ents, _ := os.ReadDir(res); len(ents) != 0 {
		t.Errorf("a refused run left a results folder: %v", ents)
	}
	if pids := agentPIDs(bin); len(pids) != 0 {
		t.Errorf("agents still run after the refusal: %v", pids)
	}

	code, out = runExit(t, md("--allow-partial"))
	if code != 0 || !strings.Contains(out, "running on 2 of 3 agents (--allow-partial)") {
		t.Fatalf("--allow-partial: exit %d\n%s", code, out)
	}
	if h := summaryOf(t, folderOf(t, out)).Phases[0].Hosts; strings.Join(h, ",") != "127.0.0.1,127.0.0.3" {
		t.Errorf("hosts %v, want the two whose agents started", h)
	}
	if pids := agentPIDs(bin); len(pids) != 0 {
		t.Errorf("agents still run after the run: %v", pids)
	}
}

// slurm is a one-machine Slurm cluster started by the test: munged,
// slurmctld and slurmd in the foreground, with their configuration, keys,
// sockets, state and logs in one directory, on ports of their own.
type slurm struct {
	dir string
	// conf is the cluster's slurm.conf, once written.
	conf  string
	env   []string
	procs []*exec.Cmd
	// mark is in the environment of every command the test runs on the
	// cluster (testutil.ProcMark): salloc, sbatch and srun pass it to the
	// job's tasks, storbench's agents among them, so stop finds them
	// whoever their parent is now. slurmd starts each slurmstepd with an
	// environment of its own: stop finds those by the log file they hold.
	mark string
}

// The Debian packages the Slurm test needs, and a command each provides.
var slurmPackages = map[string]string{"munge": "munged", "slurmctld": "slurmctld", "slurmd": "slurmd", "slurm-client": "salloc"}

// startSlurm installs Slurm if it is missing (as root, from the
// distribution) and starts a one-node cluster; everything it started is
// stopped and removed at the end of the test.
func startSlurm(t *testing.T) *slurm {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the Slurm test needs root: it installs Debian's slurmctld, slurmd and munge if missing and starts them; run it as root (CI does)")
	}
	root, err := s3test.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	for pkg, cmd := range slurmPackages {
		if _, err := exec.LookPath(cmd); err == nil {
			continue
		}
		if out, err := exec.Command(filepath.Join(root, "scripts", "install-pkg.sh"), pkg).CombinedOutput(); err != nil {
			t.Fatalf("installing %s: %v\n%s", pkg, err, out)
		}
	}
	// munged wants every directory above its socket searchable by all and
	// writable by no one else: a private t.TempDir() is not.
	dir, err := os.MkdirTemp("", "sbslurm-")
	if err != nil {
		t.Fatal(err)
	}
	s := &slurm{dir: dir, mark: testutil.ProcMark()}
	s.env = append(os.Environ(), s.mark)
	t.Cleanup(func() { s.stop(t) })
	for _, d := range []string{"run", "munge", "state", "spool", "log"} {
		_ = os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	_ = os.Chmod(dir, 0o755)
	_ = os.Chmod(filepath.Join(dir, "munge"), 0o700)
	key := make([]byte, 128)
	if f, err := os.Open("/dev/urandom"); err == nil {
		_, _ = io.ReadFull(f, key)
		f.Close()
	}
	if err := os.WriteFile(filepath.Join(dir, "munge", "munge.key"), key, 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "run", "munge.sock")
	s.start(t, "munged", "-F", "--key-file="+filepath.Join(dir, "munge", "munge.key"), "--socket="+sock,
		"--pid-file="+filepath.Join(dir, "run", "munged.pid"), "--log-file="+filepath.Join(dir, "log", "munged.log"),
		"--seed-file="+filepath.Join(dir, "munge", "seed"))
	waitFor(t, "munged's socket", func() bool { _, err := os.Stat(sock); return err == nil })
	conf := filepath.Join(dir, "slurm.conf")
	if err := os.WriteFile(conf, []byte(s.config(t, sock)), 0o644); err != nil {
		t.Fatal(err)
	}
	s.conf = conf
	s.env = append(s.env, "SLURM_CONF="+conf)
	s.start(t, "slurmctld", "-D", "-i")
	s.start(t, "slurmd", "-D", "-N", "localhost")
	waitFor(t, "the node to be idle", func() bool {
		out, _ := s.command("sinfo", "-h", "-o", "%t").Output()
		return strings.TrimSpace(string(out)) == "idle"
	})
	return s
}

// config is a minimal slurm.conf: one node, "localhost", with the CPUs
// slurmd finds, no cgroups (process groups track the tasks), munge on the
// test's own socket, and ports of the test's own. slurmd logs at level
// verbose, where slurmstepd says when it signalled a step's tasks
// (stepSignalled).
func (s *slurm) config(t *testing.T, sock string) string {
	t.Helper()
	out, err := exec.Command("slurmd", "-C").Output()
	if err != nil {
		t.Fatalf("slurmd -C: %v", err)
	}
	cpus := regexp.MustCompile(`CPUs=(\d+)`).FindStringSubmatch(string(out))
	if cpus == nil {
		t.Fatalf("slurmd -C names no CPUs: %s", out)
	}
	port := func() string { _, p, _ := strings.Cut(freeAddr(t), ":"); return p }
	d := s.dir
	return fmt.Sprintf(`ClusterName=sbtest
SlurmctldHost=localhost
AuthType=auth/munge
AuthInfo=socket=%[2]s
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
SlurmctldPort=%[3]s
SlurmdPort=%[4]s
StateSaveLocation=%[1]s/state
SlurmdSpoolDir=%[1]s/spool
SlurmctldPidFile=%[1]s/run/slurmctld.pid
SlurmdPidFile=%[1]s/run/slurmd.pid
SlurmctldLogFile=%[1]s/log/slurmctld.log
SlurmdLogFile=%[1]s/log/slurmd.log
SlurmdDebug=verbose
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
NodeName=localhost NodeAddr=127.0.0.1 CPUs=%[5]s State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=10 State=UP
`, d, sock, port(), port(), cpus[1])
}

func (s *slurm) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env = s.env
	return cmd
}

func (s *slurm) start(t *testing.T, name string, args ...string) {
	t.Helper()
	cmd := s.command(name, args...)
	f, err := os.Create(filepath.Join(s.dir, "log", name+".out"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	s.procs = append(s.procs, cmd)
}

// stop cancels what jobs are left, stops the daemons (last started
// first), kills what they left running, and removes the cluster's
// directory. A step Slurm did not end (under load, slurmctld's kill
// request to slurmd timed out and is sent again only later) outlives
// slurmd: its slurmstepd and tasks (agents waiting on the stdin that
// slurmstepd holds open) stay for good unless stop ends them, and the next
// test would count them.
func (s *slurm) stop(t *testing.T) {
	if s.conf != "" {
		_ = s.command("scancel", "--full", "--partition=test").Run()
	}
	for i := len(s.procs) - 1; i >= 0; i-- {
		p := s.procs[i]
		_ = p.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = p.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = p.Process.Kill()
			<-done
		}
	}
	if killed := s.killLeft(t); len(killed) > 0 {
		t.Logf("killed what the test's Slurm left running: %s", strings.Join(killed, "; "))
	}
	_ = os.RemoveAll(s.dir)
}

// killLeft kills, with SIGKILL, every process left of the cluster (its
// slurmstepds, and what holds the test's mark: salloc, srun, the tasks)
// until none is left, and returns those it found. It fails t when some
// outlive testutil.Bound.
func (s *slurm) killLeft(t *testing.T) []string {
	var seen []string
	for deadline := time.Now().Add(testutil.Bound); ; time.Sleep(100 * time.Millisecond) {
		left := append(testutil.Marked(s.mark), s.stepds()...)
		if len(left) == 0 {
			return seen
		}
		if time.Now().After(deadline) {
			t.Errorf("still running %v after SIGKILL: %s", testutil.Bound, strings.Join(left, "; "))
			return seen
		}
		for _, p := range left {
			if !slices.Contains(seen, p) {
				seen = append(seen, p)
			}
			if pid, err := strconv.Atoi(strings.SplitN(p, ":", 2)[0]); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
}

// stepds lists the live slurmstepd processes of this cluster, as
// testutil.Marked does: those holding a file in its directory (each holds
// slurmd's log).
func (s *slurm) stepds() []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		proc := filepath.Join("/proc", e.Name())
		if comm, _ := os.ReadFile(filepath.Join(proc, "comm")); strings.TrimSpace(string(comm)) != "slurmstepd" {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join(proc, "stat"))
		if i := strings.LastIndexByte(string(stat), ')'); i < 0 || strings.HasPrefix(strings.TrimSpace(string(stat[i+1:])), "Z") {
			continue
		}
		fds, _ := os.ReadDir(filepath.Join(proc, "fd"))
		for _, fd := range fds {
			if l, err := os.Readlink(filepath.Join(proc, "fd", fd.Name())); err == nil && strings.HasPrefix(l, s.dir+"/") {
				cmd, _ := os.ReadFile(filepath.Join(proc, "cmdline"))
				out = append(out, e.Name()+": "+strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " ")))
				break
			}
		}
	}
	return out
}

// log returns the daemons' logs, for a failure message.
func (s *slurm) log() string {
	var b strings.Builder
	for _, f := range []string{"slurmctld.log", "slurmd.log", "slurmctld.out", "slurmd.out"} {
		data, _ := os.ReadFile(filepath.Join(s.dir, "log", f))
		if len(data) > 3000 {
			data = data[len(data)-3000:]
		}
		fmt.Fprintf(&b, "--- %s\n%s\n", f, data)
	}
	return b.String()
}

// waitFor polls ok until testutil.Bound: a deadline that a loaded
// machine's slurmctld and agents meet, not a measure of their speed.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(testutil.Bound); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// Issue 15, item 1, on a real Slurm: inside salloc, `storbench md
// --launcher slurm` runs one agent per task (3 tasks on the one node, each
// on its own port) and the summary names 3 hosts; scancel of the job
// mid-phase stops every agent's load within 5 seconds of Slurm's SIGTERM
// to the step (and a few wake-ups as late as this machine's), the run
// ends as interrupted with what was measured, and no agent is left. When
// that SIGTERM comes is Slurm's part, read from slurmd's log and
// reported: under load it came over 30 s after scancel once.
func TestSlurmRealCluster(t *testing.T) {
	s := startSlurm(t)
	bin := testutil.StorbenchBin(t)
	// In the cluster's directory, which goes after what the test's Slurm
	// left running (a t.TempDir() goes before: its removal would race
	// with agents not ended yet).
	data, res := filepath.Join(s.dir, "data"), filepath.Join(s.dir, "results")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	// -O: three tasks on a node of fewer CPUs (a test machine may have 2).
	salloc := func(md ...string) *exec.Cmd {
		return s.command("salloc", append([]string{"-n3", "-O", "--time=5", bin, "md", "-d", data, "--launcher", "slurm", "--results", res}, md...)...)
	}
	code, out := runExit(t, salloc("-n", "100", "-F"))
	if code != 0 {
		t.Fatalf("salloc storbench md --launcher slurm: exit %d\n%s\n%s", code, out, s.log())
	}
	ph := summaryOf(t, folderOf(t, out)).Phases[0]
	if strings.Join(ph.Hosts, ",") != "localhost-0,localhost-1,localhost-2" {
		t.Errorf("hosts %v, want the 3 tasks of the allocation\n%s", ph.Hosts, out)
	}
	// One md worker per task, as each MPI rank is one mdtest process,
	// although Slurm pins no CPU here (TaskPlugin=task/none): 3 x 100.
	for _, o := range ph.Ops {
		if o.Op == "file-create" && o.Ops != 300 {
			t.Errorf("file-create: %d items, want 300 (one worker per task, -n 100)", o.Ops)
		}
	}

	t.Run("sbatch example", func(t *testing.T) {
		root, err := s3test.RepoRoot()
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(root, "examples", "slurm", "storbench.sbatch"))
		if err != nil {
			t.Fatal(err)
		}
		// The shipped script, on this cluster's one node: 3 tasks instead
		// of 8 nodes x 136.
		script := strings.NewReplacer("#SBATCH --nodes=8\n", "#SBATCH --nodes=1\n",
			"#SBATCH --ntasks-per-node=136\n", "#SBATCH --ntasks=3\n#SBATCH --overcommit\n",
			"#SBATCH --time=01:00:00\n", "#SBATCH --time=5\n",
			"#SBATCH --output=storbench-%j.out\n", "#SBATCH --output="+filepath.Join(s.dir, "sbatch.out")+"\n").Replace(string(b))
		if strings.Count(script, "#SBATCH") != 6 || !strings.Contains(script, "--ntasks=3") {
			t.Fatalf("the example's #SBATCH lines changed; update this test:\n%s", b)
		}
		path := filepath.Join(s.dir, "storbench.sbatch")
		_ = os.WriteFile(path, []byte(script), 0o755)
		cmd := s.command("sbatch", "-W", "--chdir="+root, path)
		cmd.Env = append(cmd.Env, "STORBENCH="+bin, "STORBENCH_DIR="+data, "STORBENCH_RESULTS="+res)
		code, out := runExit(t, cmd)
		log, _ := os.ReadFile(filepath.Join(s.dir, "sbatch.out"))
		if code != 0 || !strings.Contains(string(log), "completed") {
			t.Fatalf("sbatch: exit %d %s\n%s", code, out, log)
		}
		ph := summaryOf(t, folderOf(t, string(log))).Phases[0]
		if len(ph.Hosts) != 3 || ph.Engine != "md" {
			t.Errorf("the mdtest example ran %s on %v, want md on 3 hosts", ph.Engine, ph.Hosts)
		}
	})

	t.Run("Ctrl-C", func(t *testing.T) {
		cmd, outb := midPhase(t, salloc)
		ctl := pidsOf(bin, "md")
		if len(ctl) != 1 || len(agentPIDs(bin)) != 3 {
			t.Fatalf("controllers %v, agents %v", ctl, agentPIDs(bin))
		}
		// A terminal's Ctrl-C: SIGINT to the foreground process group,
		// which salloc made the controller's (srun is in it too).
		if err := syscall.Kill(-ctl[0], syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		interrupted := time.Now()
		waitFor(t, "every agent to exit", func() bool { return len(agentPIDs(bin)) == 0 })
		t.Logf("Ctrl-C -> every agent exited: %.2f s", time.Since(interrupted).Seconds())
		err := cmd.Wait()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 || !strings.Contains(outb.String(), "interrupted") {
			t.Fatalf("after Ctrl-C: %v, want exit 130:\n%s", err, outb.String())
		}
	})

	t.Run("scancel", func(t *testing.T) {
		cmd := salloc("-n", "1000000", "-F")
		var outb testutil.Buffer
		cmd.Stdout = &outb
		stderr, _ := cmd.StderrPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = cmd.Process.Kill() }()
		job := make(chan string, 1)
		go func() {
			sc := bufio.NewScanner(stderr)
			for sc.Scan() {
				outb.Write([]byte(sc.Text() + "\n"))
				if m := regexp.MustCompile(`Granted job allocation (\d+)`).FindStringSubmatch(sc.Text()); m != nil {
					job <- m[1]
				}
			}
		}()
		id := testutil.Recv(t, job, testutil.Bound, "salloc's allocation")
		// Mid-phase: the live line shows files being created.
		waitFor(t, "file-create in the live line", func() bool { return strings.Contains(outb.String(), "file-create ") })
		if n := len(agentPIDs(bin)); n != 3 {
			t.Fatalf("%d agents run, want 3", n)
		}
		late := testutil.StartLateness()
		cancelled := time.Now()
		if out, err := s.command("scancel", id).CombinedOutput(); err != nil {
			t.Fatalf("scancel: %v %s", err, out)
		}
		// Slurm's part: slurmctld asks slurmd to end the job, and the
		// step's slurmstepd sends the agents SIGCONT and SIGTERM. Under
		// load that is Slurm's own time (slurmctld's request timed out,
		// slurmd read it late), not storbench's: the agents' bound counts
		// from the signal, and its time is reported.
		signalled := s.stepSignalled(t, id+".0", syscall.SIGTERM)
		deadline := signalled.Add(testutil.Bound)
		for len(agentPIDs(bin)) > 0 {
			if time.Now().After(deadline) {
				t.Fatalf("agents %v still run %v after Slurm's SIGTERM:\n%s\n%s", agentPIDs(bin), testutil.Bound, outb.String(), s.log())
			}
			time.Sleep(100 * time.Millisecond)
		}
		exited := time.Now()
		err := testutil.Recv(t, waitChan(cmd), testutil.Bound, "the controller's end after the step's")
		lateness := late.Stop()
		out := outb.String()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 || !strings.Contains(out, "Slurm job step running the agents ended") {
			t.Fatalf("after scancel: %v, want exit 130 saying the step ended:\n%s", err, out)
		}
		stopped := loadStopped(t, folderOf(t, out), 3)
		t.Logf("scancel -> Slurm's SIGTERM to the agents: %.2f s; SIGTERM -> every agent's load stopped: %.2f s, every agent exited: %.2f s; wake-ups up to %v late",
			signalled.Sub(cancelled).Seconds(), stopped.Sub(signalled).Seconds(), exited.Sub(signalled).Seconds(), lateness.Round(time.Millisecond))
		// Once signalled, each agent's load stops within 5 s, and as many
		// wake-ups later again as the signal takes to reach a worker (the
		// signal's goroutine, the agent's stop, the phase's, the worker's
		// next check), each late by at most what this machine's were.
		if d, bound := stopped.Sub(signalled), 5*time.Second+4*lateness; d > bound {
			t.Errorf("the load went on %s after Slurm's SIGTERM, over %s (5 s and 4 wake-ups %v late)", d.Round(time.Millisecond), bound.Round(time.Millisecond), lateness)
		}
		if ents, _ := os.ReadDir(filepath.Join(data, "storbench")); len(ents) != 0 {
			t.Errorf("files left in %s: %v", data, ents)
		}
	})

	// Issue 37: srun gone (killed) while Slurm does not end the step
	// (slurmd stopped, as a loaded slurmd that answers nothing): the
	// agents' stdin stays open in slurmstepd, and the end of the
	// controller's reaches none of them. The controller, its step ended,
	// tells them the run is over, and every agent ends.
	t.Run("srun gone", func(t *testing.T) {
		cmd, outb := midPhase(t, salloc)
		if n := len(agentPIDs(bin)); n != 3 {
			t.Fatalf("%d agents run, want 3", n)
		}
		slurmd := s.procs[len(s.procs)-1].Process
		if err := slurmd.Signal(syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = slurmd.Signal(syscall.SIGCONT) }()
		killed := time.Now()
		for _, p := range testutil.Marked(s.mark) {
			if f := strings.Fields(p); len(f) > 4 && filepath.Base(f[4]) == "srun" {
				pid, _ := strconv.Atoi(strings.TrimSuffix(f[0], ":"))
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		for deadline := killed.Add(testutil.Bound); len(agentPIDs(bin)) > 0; time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("agents %v still run %v after srun was killed:\n%s", agentPIDs(bin), testutil.Bound, outb.String())
			}
		}
		t.Logf("srun killed -> every agent exited: %.2f s", time.Since(killed).Seconds())
		err := testutil.Recv(t, waitChan(cmd), testutil.Bound, "the controller's end after srun's")
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 || !strings.Contains(outb.String(), "Slurm job step running the agents ended") {
			t.Fatalf("after srun was killed: %v, want exit 130 saying the step ended:\n%s", err, outb.String())
		}
	})
}

// midPhase starts salloc's md run of a million files (salloc makes the
// command, its output kept) and returns once the live line shows files
// being created: the agents are mid-phase. The test's end kills it.
func midPhase(t *testing.T, salloc func(...string) *exec.Cmd) (*exec.Cmd, *testutil.Buffer) {
	t.Helper()
	cmd := salloc("-n", "1000000", "-F")
	outb := &testutil.Buffer{}
	cmd.Stdout, cmd.Stderr = outb, outb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	waitFor(t, "file-create in the live line", func() bool { return strings.Contains(outb.String(), "file-create ") })
	return cmd, outb
}

// waitChan is cmd.Wait's error, on a channel.
func waitChan(cmd *exec.Cmd) <-chan error {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	return done
}

// stepSignalled waits until slurmd's log says the step's slurmstepd sent
// sig to its tasks, and returns when (the log's clock, milliseconds, taken
// just after the kill). It fails t when that does not come within
// testutil.Bound.
func (s *slurm) stepSignalled(t *testing.T, step string, sig syscall.Signal) time.Time {
	t.Helper()
	re := regexp.MustCompile(`(?m)^\[(\S+)\] \[` + regexp.QuoteMeta(step) + `\] Sent signal ` + strconv.Itoa(int(sig)) + ` to StepId=` + regexp.QuoteMeta(step) + `$`)
	for deadline := time.Now().Add(testutil.Bound); ; time.Sleep(100 * time.Millisecond) {
		b, _ := os.ReadFile(filepath.Join(s.dir, "log", "slurmd.log"))
		if m := re.FindSubmatch(b); m != nil {
			at, err := time.ParseInLocation("2006-01-02T15:04:05.000", string(m[1]), time.Local)
			if err != nil {
				t.Fatalf("slurmd.log: %v", err)
			}
			return at
		}
		if time.Now().After(deadline) {
			t.Fatalf("Slurm did not signal step %s (%v) within %v:\n%s", step, sig, testutil.Bound, s.log())
		}
	}
}

// loadStopped reads when the last operation of the phase ended on any of
// want hosts (each host's result.json: the end of its last operation).
func loadStopped(t *testing.T, folder string, want int) time.Time {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(folder, "01-md", "hosts", "*", "result.json"))
	if len(files) != want {
		t.Fatalf("%d host results, want %d", len(files), want)
	}
	var last int64
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Ops []struct {
				EndNs int64 `json:"end_ns"`
			} `json:"ops"`
		}
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		for _, o := range r.Ops {
			last = max(last, o.EndNs)
		}
	}
	return time.Unix(0, last)
}

// --launcher ssh is --ssh; a host whose agent does not start (its port is
// taken) is named and the run refused before any load, or with
// --allow-partial run on the other host. ssh is the stand-in
// testdata/fake-ssh, as in TestClusterSSH.
func TestSSHAllowPartial(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("the ssh stand-in needs python3")
	}
	bin := testutil.StorbenchBin(t)
	dir := t.TempDir()
	fake, err := filepath.Abs("testdata/fake-ssh")
	if err != nil {
		t.Fatal(err)
	}
	pathDir := filepath.Join(dir, "bin")
	_ = os.MkdirAll(pathDir, 0o755)
	if err := os.Symlink(fake, filepath.Join(pathDir, "ssh")); err != nil {
		t.Fatal(err)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	_, pBusy, _ := net.SplitHostPort(busy.Addr().String())
	_, pFree, _ := net.SplitHostPort(freeAddr(t))
	data, res := t.TempDir(), filepath.Join(dir, "results")
	md := func(extra ...string) *exec.Cmd {
		cmd := exec.Command(bin, append([]string{"md", "-d", data, "-n", "20", "-F", "--launcher", "ssh", "--results", res, "nodeA:" + pFree, "nodeB:" + pBusy}, extra...)...)
		cmd.Env = append(os.Environ(), "PATH="+pathDir+":"+os.Getenv("PATH"), "FAKESSH_LOG="+filepath.Join(dir, "ssh.log"), "FAKESSH_HOMES="+filepath.Join(dir, "homes"))
		return cmd
	}
	code, out := runExit(t, md())
	lines := strings.Split(strings.TrimSpace(out), "\n")
	last := lines[len(lines)-1]
	if code != 2 || !strings.Contains(last, "nodeB:"+pBusy+": ") || strings.Contains(last, "nodeA:"+pFree+": ") || !strings.Contains(last, "--allow-partial") {
		t.Fatalf("exit %d, want 2 and a line naming nodeB only:\n%s", code, out)
	}
	if ents, _ := os.ReadDir(res); len(ents) != 0 {
		t.Errorf("a refused run left a results folder: %v", ents)
	}
	code, out = runExit(t, md("--allow-partial"))
	if code != 0 || !strings.Contains(out, "running on 1 of 2 agents (--allow-partial)") {
		t.Fatalf("--allow-partial: exit %d\n%s", code, out)
	}
	if h := summaryOf(t, folderOf(t, out)).Phases[0].Hosts; strings.Join(h, ",") != "nodeA" {
		t.Errorf("hosts %v, want nodeA alone", h)
	}
}
