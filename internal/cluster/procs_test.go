package cluster_test

// Tests with real processes on real network paths: agents are the storbench
// binary, the controller is the storbench binary, and they talk over
// loopback ports or, as root, across network namespaces joined by veth
// pairs to a bridge (one namespace per agent, with addresses of its own).

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/storbench/storbench/internal/testutil"
	"io"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/s3test"
)

// topology is where agents run: loopback ports or network namespaces.
type topology struct {
	name string
	// addrs are the agents' listen addresses.
	addrs []string
	// wrap runs a command on host i (inside its namespace).
	wrap func(i int, args []string) []string
	// gateway is the controller's address as the agents see it (for an S3
	// server they must reach).
	gateway string
	// linkDown cuts host i off the network.
	linkDown func(t *testing.T, i int)
}

func loopback(t *testing.T, n int) *topology {
	tp := &topology{name: "loopback", gateway: "127.0.0.1", wrap: func(i int, a []string) []string { return a }}
	for range n {
		tp.addrs = append(tp.addrs, freeAddr(t))
	}
	return tp
}

// freeAddr is a loopback address no other agent of this test binary was
// given (testutil.FreeAddr).
func freeAddr(t *testing.T) string { return testutil.FreeAddr(t) }

func ipCmd(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
	}
}

// netns makes n namespaces sbtest-<id>-<i>, each with one end of a veth pair
// whose other end is on a bridge in this namespace: 10.200.X.1 here,
// 10.200.X.(10+i) in namespace i, X a subnet no bridge here nor another
// test has (testutil.ClaimSubnet). Everything is removed in t.Cleanup.
func netns(t *testing.T, n int) *topology {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("network namespace tests need root (ip netns add); the same flows run on loopback ports")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("network namespace tests need iproute2's ip")
	}
	var b [2]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	sub, err := testutil.ClaimSubnet("10.200", int(b[0]))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sub.Release)
	net3 := sub.X
	br := "sb" + id + "br"
	ipCmd(t, "link", "add", br, "type", "bridge")
	t.Cleanup(func() { _ = exec.Command("ip", "link", "del", br).Run() })
	ipCmd(t, "addr", "add", fmt.Sprintf("10.200.%d.1/24", net3), "dev", br)
	ipCmd(t, "link", "set", br, "up")
	tp := &topology{name: "netns", gateway: fmt.Sprintf("10.200.%d.1", net3)}
	var nss, hostSides []string
	for i := range n {
		ns := fmt.Sprintf("sbtest-%s-%d", id, i)
		h, g := fmt.Sprintf("sb%sh%d", id, i), fmt.Sprintf("sb%sn%d", id, i)
		ipCmd(t, "netns", "add", ns)
		t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", ns).Run() })
		ipCmd(t, "link", "add", h, "type", "veth", "peer", "name", g)
		t.Cleanup(func() { _ = exec.Command("ip", "link", "del", h).Run() })
		ipCmd(t, "link", "set", g, "netns", ns)
		ipCmd(t, "link", "set", h, "master", br, "up")
		addr := fmt.Sprintf("10.200.%d.%d", net3, 10+i)
		ipCmd(t, "netns", "exec", ns, "ip", "addr", "add", addr+"/24", "dev", g)
		ipCmd(t, "netns", "exec", ns, "ip", "link", "set", g, "up")
		ipCmd(t, "netns", "exec", ns, "ip", "link", "set", "lo", "up")
		nss, hostSides = append(nss, ns), append(hostSides, h)
		tp.addrs = append(tp.addrs, addr+":7761")
	}
	tp.wrap = func(i int, a []string) []string {
		return append([]string{"ip", "netns", "exec", nss[i]}, a...)
	}
	tp.linkDown = func(t *testing.T, i int) { ipCmd(t, "link", "set", hostSides[i], "down") }
	return tp
}

// agentProc is a running `storbench agent`.
type agentProc struct {
	cmd   *exec.Cmd
	mu    sync.Mutex
	lines []logLine
	done  chan struct{}
}

type logLine struct {
	at   time.Time
	text string
}

func (a *agentProc) log() []logLine {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]logLine(nil), a.lines...)
}

// waitLog waits for a log line containing s and returns when it was read.
func (a *agentProc) waitLog(s string, within time.Duration) (time.Time, bool) {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		for _, l := range a.log() {
			if strings.Contains(l.text, s) {
				return l.at, true
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return time.Time{}, false
}

func (a *agentProc) String() string {
	var b strings.Builder
	for _, l := range a.log() {
		b.WriteString(l.text + "\n")
	}
	return b.String()
}

type cluster struct {
	tp     *topology
	token  string
	agents []*agentProc
	bin    string
	dir    string
}

// startCluster starts one agent per address of the topology.
func startCluster(t *testing.T, tp *topology, extraArgs func(i int) []string, env []string) *cluster {
	t.Helper()
	bin := testutil.StorbenchBin(t)
	dir := t.TempDir()
	tok := filepath.Join(dir, "token")
	if err := os.WriteFile(tok, []byte("sb-test-token-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := &cluster{tp: tp, token: tok, bin: bin, dir: dir}
	for i, addr := range tp.addrs {
		args := []string{bin, "agent", "--listen", addr, "--token-file", tok}
		if extraArgs != nil {
			args = append(args, extraArgs(i)...)
		}
		full := tp.wrap(i, args)
		cmd := exec.Command(full[0], full[1:]...)
		cmd.Env = append(os.Environ(), env...)
		pr, pw := io.Pipe()
		cmd.Stdout, cmd.Stderr = pw, pw
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		ap := &agentProc{cmd: cmd, done: make(chan struct{})}
		go func() {
			sc := bufio.NewScanner(pr)
			for sc.Scan() {
				ap.mu.Lock()
				ap.lines = append(ap.lines, logLine{time.Now(), sc.Text()})
				ap.mu.Unlock()
			}
		}()
		go func() { _ = cmd.Wait(); pw.Close(); close(ap.done) }()
		t.Cleanup(func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-ap.done:
			case <-time.After(10 * time.Second):
				_ = cmd.Process.Kill()
				<-ap.done
			}
			if t.Failed() {
				t.Logf("agent %d log:\n%s", i, ap)
			}
		})
		c.agents = append(c.agents, ap)
	}
	for i, ap := range c.agents {
		if _, ok := ap.waitLog("listening on", 10*time.Second); !ok {
			t.Fatalf("agent %d did not start:\n%s", i, ap)
		}
	}
	return c
}

// controller runs the storbench binary as the controller against every
// agent; it returns the command, started, and its output buffer.
func (c *cluster) controller(t *testing.T, args ...string) (*exec.Cmd, *testutil.Buffer) {
	t.Helper()
	full := append(append([]string{}, args...), "--token-file", c.token, "--agents", strings.Join(c.tp.addrs, ","), "--results", filepath.Join(c.dir, "results"))
	cmd := exec.Command(c.bin, full...)
	var out testutil.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &out
}

// run runs the controller to the end and returns its exit code and output.
func (c *cluster) run(t *testing.T, args ...string) (int, string) {
	t.Helper()
	cmd, out := c.controller(t, args...)
	err := cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String()
}

var resultsRE = regexp.MustCompile(`results in (\S+)`)

func folderOf(t *testing.T, out string) string {
	t.Helper()
	m := resultsRE.FindAllStringSubmatch(out, -1)
	if len(m) == 0 {
		t.Fatalf("no results folder in the output:\n%s", out)
	}
	return m[len(m)-1][1]
}

func summaryOf(t *testing.T, folder string) *results.Summary {
	t.Helper()
	s, err := results.ReadSummary(folder)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// quickJob is a fio job of runtime seconds with no start delay, paced at
// 1,000 reads a second: unpaced, each host's fio took a whole core for
// its runtime, which the tests (about a host's operations being there,
// not their rate) never needed, and which starved the other agents and
// the controller on a 2-core machine.
func quickJob(t *testing.T, dir string, runtime int) string {
	t.Helper()
	p := filepath.Join(dir, fmt.Sprintf("rr%d.job", runtime))
	job := fmt.Sprintf(`# report iops
[global]
filesize=4M
time_based=1
runtime=%d
ioengine=psync
filename_format=$jobnum
group_reporting=1
numjobs=1

[randread]
bs=4k
rw=randread
rate_iops=1000
`, runtime)
	if err := os.WriteFile(p, []byte(job), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func topologies(t *testing.T, n int, fn func(t *testing.T, tp *topology)) {
	t.Run("loopback", func(t *testing.T) { fn(t, loopback(t, n)) })
	t.Run("netns", func(t *testing.T) { fn(t, netns(t, n)) })
}

// The must-show: three agents run the same fio job; in summary.json the
// merged counts are the sums of the hosts', the total IOPS and bandwidth
// are all of them over the time from the first host's start to the last
// host's end (IOR's rule, issue 20), and the merged p99 equals the p99 of
// the hosts' summed latency bins.
func TestClusterFio(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skip("fio is not installed (make test installs it)")
	}
	topologies(t, 3, func(t *testing.T, tp *topology) {
		c := startCluster(t, tp, nil, nil)
		data := t.TempDir()
		code, out := c.run(t, "fio", "-d", data, "-w", quickJob(t, c.dir, 1))
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		folder := folderOf(t, out)
		s := summaryOf(t, folder)
		if len(s.Phases) != 1 {
			t.Fatalf("%d phases", len(s.Phases))
		}
		ph := s.Phases[0]
		if len(ph.PerHost) != 3 || len(ph.LostHosts) != 0 {
			t.Fatalf("per host %d, lost %v", len(ph.PerHost), ph.LostHosts)
		}
		tot := ph.Ops[0]
		var ops, bytes uint64
		var first, last int64
		sum := map[int64]uint64{}
		for i, h := range ph.PerHost {
			o := h.Ops[0]
			if o.OpsPerS == nil || o.BwBytesPerS == nil {
				t.Fatalf("host %s: no IOPS or bandwidth", h.Host)
			}
			ops, bytes = ops+o.Ops, bytes+o.Bytes
			if i == 0 || h.StartNs < first {
				first = h.StartNs
			}
			last = max(last, h.EndNs)
			hr, err := results.ReadHostResult(folder, ph.Dir, h.Host)
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range hr.Ops[0].Lat.Bins {
				sum[b.V] += b.N
			}
		}
		if tot.Ops != ops || tot.Bytes != bytes {
			t.Errorf("total ops %d bytes %d, per-host sums %d and %d", tot.Ops, tot.Bytes, ops, bytes)
		}
		if tot.OpsPerS == nil || tot.BwBytesPerS == nil || tot.Lat == nil {
			t.Fatalf("totals lack IOPS, bandwidth or latency: %+v", tot)
		}
		d := float64(last-first) / 1e9
		if iops, bw := float64(ops)/d, float64(bytes)/d; !near(*tot.OpsPerS, iops) || !near(*tot.BwBytesPerS, bw) {
			t.Errorf("total %.1f IOPS %.0f B/s, all hosts' over %.3f s from the first start to the last end %.1f and %.0f", *tot.OpsPerS, *tot.BwBytesPerS, d, iops, bw)
		}
		if want := record.FromMap(sum).Percentile(99); tot.Lat.P99Ns != want || want == 0 {
			t.Errorf("merged p99 %d ns, p99 of the summed bins %d ns", tot.Lat.P99Ns, want)
		}
		if !strings.Contains(out, "total iops") || !strings.Contains(out, "average iops") {
			t.Errorf("no total and per-host average in the output:\n%s", out)
		}
		// Nothing left behind on the shared file system, not even the
		// DIR/storbench the run created.
		left, _ := filepath.Glob(filepath.Join(data, "storbench", "*", "*"))
		if len(left) != 0 {
			t.Errorf("left behind: %v", left)
		}
		if ents, _ := os.ReadDir(data); len(ents) != 0 {
			t.Errorf("DIR holds %v after the run", ents)
		}
	})
}

func near(a, b float64) bool { return a-b < 1e-6*max(a, b, 1) && b-a < 1e-6*max(a, b, 1) }

// md across all agents: each host works under its own directory of the
// shared file system, and the totals are taken over the common window.
func TestClusterMd(t *testing.T) {
	t.Parallel()
	topologies(t, 3, func(t *testing.T, tp *topology) {
		c := startCluster(t, tp, nil, nil)
		data := t.TempDir()
		code, out := c.run(t, "md", "-d", data, "-n", "300", "-i", "1", "-t", "2", "-F", "-u")
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		folder := folderOf(t, out)
		ph := summaryOf(t, folder).Phases[0]
		if len(ph.PerHost) != 3 {
			t.Fatalf("%d hosts", len(ph.PerHost))
		}
		dirs := map[string]bool{}
		for _, h := range ph.PerHost {
			hr, err := results.ReadHostResult(folder, ph.Dir, h.Host)
			if err != nil {
				t.Fatal(err)
			}
			d := hr.Meta["dir"]
			if !strings.Contains(d, "/"+h.Host+"/") || dirs[d] {
				t.Errorf("host %s worked in %s", h.Host, d)
			}
			dirs[d] = true
		}
		for _, o := range ph.Ops {
			if o.Op != "file-create" {
				continue
			}
			var n uint64
			for _, h := range ph.PerHost {
				for _, ho := range h.Ops {
					if ho.Op == o.Op {
						n += ho.Ops
					}
				}
			}
			if o.Ops != n || n != 3*2*300 {
				t.Errorf("file-create: total %d, hosts %d, want %d", o.Ops, n, 3*2*300)
			}
		}
	})
}

// The rank stride of mdtest before 3.3 (--rank-stride) across hosts:
// agents in separate network namespaces share one directory; with 3 hosts
// x 2 workers and a rank stride of 2 every stat, read and remove of every
// worker touches items another host created (summary.json's per-host
// counts say so), the totals equal the items created, run.json numbers
// the workers host by host, and the shared directory is gone afterwards.
// A stride that maps every worker to itself (6) runs too, with a warning,
// and no item crosses hosts. (-N as mdtest 3.3+: mdshift_procs_test.go.)
func TestClusterMdStride(t *testing.T) {
	t.Parallel()
	topologies(t, 3, func(t *testing.T, tp *topology) {
		c := startCluster(t, tp, nil, nil)
		data := t.TempDir()
		code, out := c.run(t, "md", "-d", data, "-n", "500", "-t", "2", "-F", "--rank-stride", "2", "--write-bytes", "64", "--read-bytes", "64")
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		folder := folderOf(t, out)
		ph := summaryOf(t, folder).Phases[0]
		if len(ph.PerHost) != 3 {
			t.Fatalf("%d hosts", len(ph.PerHost))
		}
		total := map[string]uint64{}
		for _, o := range ph.Ops {
			total[o.Op] = o.Ops
			if o.Errors != 0 {
				t.Errorf("%s: %d errors %v", o.Op, o.Errors, o.ErrorKinds)
			}
		}
		if total["file-create"] != 3*2*500 {
			t.Fatalf("created %d files, want %d", total["file-create"], 3*2*500)
		}
		for _, op := range []string{"file-stat", "file-read", "file-remove"} {
			if total[op] != total["file-create"] {
				t.Errorf("%s: %d items in all, %d created", op, total[op], total["file-create"])
			}
			for _, h := range ph.PerHost {
				for _, o := range h.Ops {
					if o.Op == op && (o.CrossHostItems == nil || *o.CrossHostItems != o.Ops || o.Ops != 1000) {
						t.Errorf("host %s %s: %d items, %v of them created by another host; want 1000, all", h.Host, op, o.Ops, o.CrossHostItems)
					}
				}
			}
		}
		if !strings.Contains(out, "created by another host: file-stat 3000 of 3000, file-read 3000 of 3000, file-remove 3000 of 3000") {
			t.Errorf("the table does not say the items came from other hosts:\n%s", out)
		}
		ri, err := results.ReadRunInfo(folder)
		if err != nil {
			t.Fatal(err)
		}
		if len(ri.Ranks) != 1 || ri.Ranks[0].Total != 6 || len(ri.Ranks[0].Hosts) != 3 {
			t.Fatalf("run.json ranks %+v", ri.Ranks)
		}
		for i, h := range ri.Ranks[0].Hosts {
			if h.Host != ph.PerHost[i].Host || h.First != 2*i || h.Count != 2 {
				t.Errorf("run.json: host %d is %+v", i, h)
			}
		}
		if ents, _ := os.ReadDir(data); len(ents) != 0 {
			t.Errorf("DIR holds %v after the run", ents)
		}

		code, out = c.run(t, "md", "-d", data, "-n", "100", "-t", "2", "-F", "--rank-stride", "6")
		if code != 0 {
			t.Fatalf("-N 6: exit %d:\n%s", code, out)
		}
		if !strings.Contains(out, "no stat, read or remove crosses hosts") {
			t.Errorf("no warning for a stride that maps every worker to itself:\n%s", out)
		}
		for _, h := range summaryOf(t, folderOf(t, out)).Phases[0].PerHost {
			for _, o := range h.Ops {
				if o.Op == "file-stat" && (o.CrossHostItems == nil || *o.CrossHostItems != 0 || o.Ops != 200) {
					t.Errorf("-N 6: host %s file-stat %d items, %v from another host", h.Host, o.Ops, o.CrossHostItems)
				}
			}
		}
	})
}

// s3 across all agents against one versitygw: the agents hold the keys
// (from their environment), the controller none.
func TestClusterS3(t *testing.T) {
	t.Parallel()
	topologies(t, 3, func(t *testing.T, tp *topology) {
		endpoint := startGateway(t, tp.gateway)
		env := []string{engineEnv("STORBENCH_ACCESS_KEY", s3test.AccessKey), engineEnv("STORBENCH_SECRET_KEY", s3test.SecretKey)}
		c := startCluster(t, tp, nil, env)
		code, out := c.run(t, "s3", "put", "--host", endpoint, "--duration", "3s", "--obj.size", "4KiB", "--concurrent", "2")
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		folder := folderOf(t, out)
		ph := summaryOf(t, folder).Phases[0]
		if len(ph.PerHost) != 3 || ph.Window == nil {
			t.Fatalf("hosts %d, window %v", len(ph.PerHost), ph.Window)
		}
		var n uint64
		for _, h := range ph.PerHost {
			if len(h.Ops) == 0 || h.Ops[0].Ops == 0 {
				t.Errorf("host %s did nothing", h.Host)
				continue
			}
			n += h.Ops[0].Ops
		}
		if ph.Ops[0].Ops != n {
			t.Errorf("total PUTs %d, hosts %d", ph.Ops[0].Ops, n)
		}
		if ph.Window.DurationS < 2 || ph.Window.DurationS > 3.5 {
			t.Errorf("common window %.2fs in a 3s phase", ph.Window.DurationS)
		}
		b, _ := os.ReadFile(filepath.Join(folder, "run.json"))
		if bytes.Contains(b, []byte(s3test.SecretKey)) {
			t.Error("run.json holds the secret key")
		}
	})
}

func engineEnv(k, v string) string { return k + "=" + v }

// startGateway runs versitygw on addr (the agents' gateway), so agents in
// namespaces reach it.
func startGateway(t *testing.T, host string) string {
	t.Helper()
	if host == "127.0.0.1" {
		return s3test.StartT(t, s3test.Options{}).Endpoint
	}
	bin, err := s3test.Binary()
	if err != nil {
		t.Skipf("versitygw: %v", err)
	}
	l, err := net.Listen("tcp", host+":0")
	if err != nil {
		t.Fatal(err)
	}
	ep := l.Addr().String()
	l.Close()
	root := t.TempDir()
	cmd := exec.Command(bin, "--port", ep, "--quiet", "--keep-alive", "posix", root)
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY="+s3test.AccessKey, "ROOT_SECRET_KEY="+s3test.SecretKey)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", ep); err == nil {
			c.Close()
			return ep
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("versitygw did not listen on %s", ep)
	return ""
}

// An agent killed with SIGKILL mid-phase is marked lost; the phase
// finishes on the others and the summary says so. Its files stay: the run
// names them and exits 1.
func TestClusterAgentKilled(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skip("fio is not installed")
	}
	topologies(t, 3, func(t *testing.T, tp *topology) {
		c := startCluster(t, tp, nil, nil)
		cmd, out := c.controller(t, "fio", "-d", t.TempDir(), "-w", quickJob(t, c.dir, 10))
		// Mid-run, once the live line shows load: a fixed sleep after the
		// phase began fell in its preparation on a busy machine (the
		// prepare stream broke, and nothing ran).
		if !out.WaitFor("[rr10]", 60*time.Second) {
			t.Fatalf("no live progress:\n%s", out)
		}
		_ = c.agents[1].cmd.Process.Kill()
		if code := exitCode(cmd.Wait()); code != 1 || !strings.Contains(out.String(), "left behind on ") {
			t.Fatalf("controller exit %d, want 1 with what the lost host left:\n%s", code, out)
		}
		ph := summaryOf(t, folderOf(t, out.String())).Phases[0]
		if len(ph.LostHosts) != 1 || len(ph.Ops) == 0 {
			t.Fatalf("lost %v, ops %d\n%s", ph.LostHosts, len(ph.Ops), out)
		}
		// The lost host keeps what its snapshots told until it was lost
		// (issue 35); the two others ran to the end.
		var ok int
		for _, h := range ph.PerHost {
			if len(h.Ops) > 0 && h.Ops[0].Ops > 0 && h.Host != ph.LostHosts[0] {
				ok++
			}
		}
		if ok != 2 || !strings.Contains(out.String(), "lost hosts: "+ph.LostHosts[0]) {
			t.Errorf("%d hosts besides the lost one with results; output:\n%s", ok, out)
		}
	})
}

// A controller killed mid-phase: every agent stops its load within 5 s.
func TestClusterControllerKilled(t *testing.T) {
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skip("fio is not installed")
	}
	topologies(t, 3, func(t *testing.T, tp *topology) {
		c := startCluster(t, tp, nil, nil)
		cmd, out := c.controller(t, "fio", "-d", t.TempDir(), "-w", quickJob(t, c.dir, 60))
		// Once the live line shows load: preparing (fio lays out the files
		// then) takes longer than a fixed sleep on a busy machine.
		if !out.WaitFor("[rr60]", 60*time.Second) {
			t.Fatalf("no live progress:\n%s", out)
		}
		killed := time.Now()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		for i, a := range c.agents {
			at, ok := a.waitLog("load stopped", 8*time.Second)
			if !ok {
				t.Fatalf("agent %d kept its load 8s after the controller died", i)
			}
			d := at.Sub(killed)
			if d > 5*time.Second {
				t.Errorf("agent %d stopped its load %s after the controller died", i, d)
			}
			t.Logf("agent %d stopped its load %s after the controller died", i, d.Round(10*time.Millisecond))
			if _, ok := a.waitLog("stopping the phase", time.Second); !ok {
				t.Errorf("agent %d did not say why it stopped", i)
			}
		}
	})
}

// Ctrl-C on the controller stops every agent and keeps what was measured.
func TestClusterInterrupt(t *testing.T) {
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skip("fio is not installed")
	}
	topologies(t, 3, func(t *testing.T, tp *topology) {
		c := startCluster(t, tp, nil, nil)
		cmd, out := c.controller(t, "fio", "-d", t.TempDir(), "-w", quickJob(t, c.dir, 60))
		// Interrupt once the live line shows load on the hosts: a fixed
		// sleep after "starting" can fall before fio's first I/O on a busy
		// machine, and then there is nothing to keep.
		if !out.WaitFor("[rr60]", 60*time.Second) {
			t.Fatalf("no live progress:\n%s", out)
		}
		start := time.Now()
		_ = cmd.Process.Signal(os.Interrupt)
		err := cmd.Wait()
		if time.Since(start) > 10*time.Second {
			t.Errorf("Ctrl-C took %s", time.Since(start))
		}
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
			t.Errorf("exit: %v", err)
		}
		s := summaryOf(t, folderOf(t, out.String()))
		if s.Status != results.StatusInterrupted || len(s.Phases) != 1 {
			t.Fatalf("status %s, %d phases", s.Status, len(s.Phases))
		}
		for _, h := range s.Phases[0].PerHost {
			if len(h.Ops) == 0 || h.Ops[0].Ops == 0 {
				t.Errorf("host %s: nothing kept after Ctrl-C", h.Host)
			}
		}
		for i, a := range c.agents {
			if _, ok := a.waitLog("load stopped", 5*time.Second); !ok {
				t.Errorf("agent %d did not stop", i)
			}
		}
	})
}

// A link taken down mid-phase: the controller marks the host lost and
// finishes on the others; the cut-off agent stops its own load. The
// controller cannot see that agent clean up, so it names where the host's
// files may remain and exits 1.
func TestClusterLinkDown(t *testing.T) {
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skip("fio is not installed")
	}
	tp := netns(t, 3)
	c := startCluster(t, tp, nil, nil)
	cmd, out := c.controller(t, "fio", "-d", t.TempDir(), "-w", quickJob(t, c.dir, 8))
	if !out.WaitFor("[rr8]", 60*time.Second) {
		t.Fatalf("no live progress:\n%s", out)
	}
	down := time.Now()
	tp.linkDown(t, 2)
	if code := exitCode(cmd.Wait()); code != 1 || !strings.Contains(out.String(), "left behind on ") {
		t.Fatalf("controller exit %d, want 1 with where the lost host's files may remain:\n%s", code, out)
	}
	ph := summaryOf(t, folderOf(t, out.String())).Phases[0]
	if len(ph.LostHosts) != 1 {
		t.Fatalf("lost %v:\n%s", ph.LostHosts, out)
	}
	at, ok := c.agents[2].waitLog("load stopped", 8*time.Second)
	if !ok || at.Sub(down) > 5*time.Second {
		t.Errorf("the cut-off agent stopped its load %s after the link went down (seen %v)", at.Sub(down), ok)
	}
}

// A wrong token and a clock offset over the limit are refused before
// anything runs, with one clear line.
func TestClusterRefusals(t *testing.T) {
	t.Parallel()
	topologies(t, 3, func(t *testing.T, tp *topology) {
		c := startCluster(t, tp, func(i int) []string {
			if i == 1 {
				return []string{"--test-clock-skew", "3s"}
			}
			return nil
		}, nil)
		data := t.TempDir()
		bad := filepath.Join(c.dir, "bad-token")
		_ = os.WriteFile(bad, []byte("not-the-token-0123456789abcdef\n"), 0o600)
		good := c.token
		c.token = bad
		code, out := c.run(t, "md", "-d", data, "-n", "10", "-i", "1", "-t", "1", "-F")
		if code != 2 || !strings.Contains(out, "refused the token") {
			t.Errorf("wrong token: exit %d:\n%s", code, out)
		}
		c.token = good
		code, out = c.run(t, "md", "-d", data, "-n", "10", "-i", "1", "-t", "1", "-F")
		// The offset is measured over the round trips (to the millisecond,
		// which a loaded machine moves by one or two).
		if code != 2 || !regexp.MustCompile(`clock is off by (2\.99\ds|3s|3\.00\ds), over the limit of 1s`).MatchString(out) {
			t.Errorf("3s clock offset: exit %d:\n%s", code, out)
		}
		code, out = c.run(t, "md", "-d", data, "-n", "10", "-i", "1", "-t", "1", "-F", "--max-clock-offset", "5s")
		if code != 0 {
			t.Fatalf("3s offset allowed: exit %d:\n%s", code, out)
		}
		ri, err := results.ReadRunInfo(folderOf(t, out))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(ri.Agents)
		var infos []struct {
			ClockOffsetNs int64 `json:"clock_offset_ns"`
		}
		_ = json.Unmarshal(b, &infos)
		if len(infos) != 3 || infos[1].ClockOffsetNs < int64(2900*time.Millisecond) || infos[1].ClockOffsetNs > int64(3100*time.Millisecond) {
			t.Errorf("run.json agents' clock offsets: %s", b)
		}
	})
}

// --ssh starts an agent on every host through the system ssh (here a
// stand-in that runs the command locally and forwards -L ports), copies the
// binary to hosts that lack it, and stops the agents at the end.
func TestClusterSSH(t *testing.T) {
	t.Parallel()
	bin := testutil.StorbenchBin(t)
	dir := t.TempDir()
	fake, err := filepath.Abs("testdata/fake-ssh")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("the ssh stand-in needs python3")
	}
	pathDir := filepath.Join(dir, "bin")
	_ = os.MkdirAll(pathDir, 0o755)
	if err := os.Symlink(fake, filepath.Join(pathDir, "ssh")); err != nil {
		t.Fatal(err)
	}
	logf, homes := filepath.Join(dir, "ssh.log"), filepath.Join(dir, "homes")
	_, p1, _ := net.SplitHostPort(freeAddr(t))
	_, p2, _ := net.SplitHostPort(freeAddr(t))
	data := t.TempDir()
	run := func() string {
		cmd := exec.Command(bin, "md", "-d", data, "-n", "50", "-i", "1", "-t", "1", "-F", "--ssh", "--results", filepath.Join(dir, "results"), "nodeA:"+p1, "nodeB:"+p2)
		cmd.Env = append(os.Environ(), "PATH="+pathDir+":"+os.Getenv("PATH"), "FAKESSH_LOG="+logf, "FAKESSH_HOMES="+homes)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("storbench md --ssh: %v\n%s", err, out)
		}
		return string(out)
	}
	out := run()
	ph := summaryOf(t, folderOf(t, out)).Phases[0]
	if strings.Join(ph.Hosts, ",") != "nodeA,nodeB" {
		t.Errorf("hosts %v", ph.Hosts)
	}
	calls, _ := os.ReadFile(logf)
	if n := strings.Count(string(calls), "cat > .storbench/storbench-"); n != 2 {
		t.Errorf("binary copied %d times for 2 hosts:\n%s", n, calls)
	}
	if bytes.Contains(calls, []byte("sb-test")) || regexp.MustCompile(`[0-9a-f]{64}`).Match(calls) {
		t.Errorf("a token appeared on an ssh command line:\n%s", calls)
	}
	for _, p := range []string{p1, p2} {
		if c, err := net.DialTimeout("tcp", "127.0.0.1:"+p, time.Second); err == nil {
			c.Close()
			t.Errorf("an agent still listens on %s after the run", p)
		}
	}
	// The same build is found on the hosts the second time.
	run()
	calls, _ = os.ReadFile(logf)
	if n := strings.Count(string(calls), "cat > .storbench/storbench-"); n != 2 {
		t.Errorf("binary copied again on the second run (%d copies)", n)
	}
}

// Issue 10, item 3: md across three agents. Every operation of every
// iteration starts on all hosts at one barrier, so each host's iteration
// starts at the same instant, and the total of every operation is mdtest's:
// all items over the time from that start to the slowest host's end. It
// therefore lies between the slowest host's rate and the sum of the hosts'
// rates (before the barrier, hosts drifted apart and the dir-stat total of
// the reporter's run fell to 4% of the slowest host). The totals' latency
// percentiles are those of the hosts' summed histograms, and the text output
// and summary.md show the corrected totals.
func TestClusterMdTotals(t *testing.T) {
	t.Parallel()
	topologies(t, 3, func(t *testing.T, tp *topology) {
		c := startCluster(t, tp, nil, nil)
		for _, args := range [][]string{
			{"-n", "2000", "-t", "1"}, // the reporter's run
			{"-n", "300", "-t", "2", "-i", "2", "-u", "--rename"},
		} {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				data := tmpfsDir(t)
				code, out := c.run(t, append([]string{"md", "-d", data}, args...)...)
				if code != 0 {
					t.Fatalf("exit %d:\n%s", code, out)
				}
				checkMdTotals(t, folderOf(t, out), out)
			})
		}
	})
}

// tmpfsDir is a directory on /dev/shm when there is one: stages of a few
// milliseconds, with none of the multi-second stalls of a disk shared with
// other work, which would test the disk rather than the totals.
func tmpfsDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("/dev/shm", "storbench-cluster-test-")
	if err != nil {
		return t.TempDir()
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

func checkMdTotals(t *testing.T, folder, out string) {
	t.Helper()
	ph := summaryOf(t, folder).Phases[0]
	if len(ph.PerHost) != 3 || len(ph.Ops) == 0 {
		t.Fatalf("%d hosts, %d ops", len(ph.PerHost), len(ph.Ops))
	}
	if !strings.Contains(out, "started on all 3 hosts at once") || strings.Contains(out, "in which all 3 hosts ran") {
		t.Errorf("the output does not say how md totals across hosts are taken:\n%s", out)
	}
	md, err := os.ReadFile(filepath.Join(folder, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	hosts := make([]*engine.HostResult, len(ph.PerHost))
	for i, h := range ph.PerHost {
		if hosts[i], err = results.ReadHostResult(folder, ph.Dir, h.Host); err != nil {
			t.Fatal(err)
		}
	}
	for _, tot := range ph.Ops {
		if tot.Rate == nil || len(tot.Rate.PerIter) == 0 {
			t.Errorf("%s: no rate in the totals", tot.Op)
			continue
		}
		// Each iteration's rate against the hosts' rates of that iteration.
		for it, rate := range tot.Rate.PerIter {
			lo, sum := math.Inf(1), 0.0
			var rates []string
			for _, h := range ph.PerHost {
				var r float64
				for _, o := range h.Ops {
					if o.Op == tot.Op && o.Rate != nil && it < len(o.Rate.PerIter) {
						r = o.Rate.PerIter[it]
					}
				}
				lo, sum = math.Min(lo, r), sum+r
				rates = append(rates, fmt.Sprintf("%.0f", r))
			}
			if rate < lo*(1-1e-9) || rate > sum*(1+1e-9) {
				t.Errorf("%s iteration %d: total %.0f op/s with hosts at %s op/s: below the slowest or above the sum", tot.Op, it+1, rate, strings.Join(rates, ", "))
			}
		}
		// Every host started each iteration at the common start.
		var starts []int64
		var bins map[int64]uint64 = map[int64]uint64{}
		for _, h := range hosts {
			for _, o := range h.Ops {
				if o.Op != tot.Op {
					continue
				}
				for it, x := range o.Iterations {
					if it >= len(starts) {
						starts = append(starts, x.StartNs)
					} else if x.StartNs != starts[it] {
						t.Errorf("%s iteration %d: host %s started %s after another host", tot.Op, it+1, h.Host, time.Duration(x.StartNs-starts[it]))
					}
				}
				for _, b := range o.Lat.Bins {
					bins[b.V] += b.N
				}
			}
		}
		hb := record.FromMap(bins)
		if tot.Lat == nil || tot.Lat.P50Ns != hb.Percentile(50) || tot.Lat.P99Ns != hb.Percentile(99) {
			t.Errorf("%s: total latency %+v, the summed histograms' p50 %d and p99 %d", tot.Op, tot.Lat, hb.Percentile(50), hb.Percentile(99))
		}
		mean := fmt.Sprintf("%.3f", tot.Rate.Mean)
		if !regexp.MustCompile(`(?m)^\s+` + regexp.QuoteMeta(tot.Op) + `\s+.*\s` + regexp.QuoteMeta(mean) + `\s`).MatchString(out) {
			t.Errorf("%s: the total's mean %s is not in the text output:\n%s", tot.Op, mean, out)
		}
		if !strings.Contains(string(md), "| "+tot.Op+" | ") || !strings.Contains(string(md), " | "+mean+" | ") {
			t.Errorf("%s: the total's mean %s is not in summary.md:\n%s", tot.Op, mean, md)
		}
	}
}
