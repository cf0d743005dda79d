// Package gluster brings up a real GlusterFS cluster on this machine for
// tests: glusterd in the foreground with a working directory of its own, a
// replica-2 volume of two bricks under a temporary directory, one FUSE
// client process per agent (each its own cache), and one real `storbench
// agent` per client, each in a mount namespace of its own that sees its
// client at one common path (and, where `ip netns` works, in a network
// namespace of its own with an address of its own). Everything is torn
// down in the test's cleanup, also when the test fails: agents first, then
// the mounts, then the client processes by pid, the volume, the bricks'
// processes, glusterd, and the directory that held the bricks.
//
// A test that uses it skips with a clear message where it cannot run: not
// root, no /dev/fuse, or no GlusterFS (make cluster-test installs it).
package gluster

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/testutil"
)

// Options shape the cluster.
type Options struct {
	// Agents is the number of clients, one agent each (default 4).
	Agents int
	// CacheFree mounts with the kernel's attribute, entry and negative
	// lookup caches off (timeouts 0) and turns the volume's md-cache
	// (performance.stat-prefetch) off: the cache-free mount options.
	// Without it, the clients mount with GlusterFS's defaults.
	CacheFree bool
	// Loopback keeps the agents in this network namespace on loopback
	// ports, even where network namespaces work.
	Loopback bool
}

// Cluster is a running volume with its clients and agents.
type Cluster struct {
	// Volume is the volume's name; Server the host name its bricks and
	// clients use (this machine's host name: GlusterFS refuses 127.0.0.1).
	Volume, Server string
	// Root is the temporary directory holding bricks, mounts and logs.
	Root string
	// Mounts are the clients' mount points, one per agent, in this mount
	// namespace.
	Mounts []string
	// Dir is where every agent sees its own client: the common path a run
	// is given with -d. In this namespace it is an empty directory.
	Dir string
	// Agents are the agents' listen addresses, in order.
	Agents []string
	// Token is the file holding the agents' token (mode 0600).
	Token string
	// Bin is the storbench binary the agents run.
	Bin string
	// NetNS says the agents run in network namespaces of their own.
	NetNS bool
	// Setup is how long bringing everything up took.
	Setup time.Duration

	t        testing.TB
	opts     Options
	glusterd *exec.Cmd
	clients  []int // the FUSE client processes' pids, by mount
	agents   []*agent
	net      *netns
}

// Skip skips t, with what is missing, where a GlusterFS cluster cannot
// run here.
func Skip(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("GlusterFS tests need root (glusterd, FUSE mounts, mount namespaces); run them as root: make cluster-test")
	}
	if fi, err := os.Stat("/dev/fuse"); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Skip("GlusterFS tests need FUSE: /dev/fuse is missing (load the fuse module, or give the container /dev/fuse)")
	}
	for _, p := range []string{"glusterd", "gluster", "glusterfs"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("GlusterFS tests need %s: install glusterfs-server (make cluster-test installs it)", p)
		}
	}
	for _, p := range []string{"unshare", "mount", "umount"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("GlusterFS tests need util-linux's %s", p)
		}
	}
}

// FullEnv is the variable that runs the whole GlusterFS set (make
// cluster-test sets it); without it only the smoke runs.
const FullEnv = "STORBENCH_CLUSTER_TEST"

// Full skips t unless FullEnv is 1: the full set takes minutes, and make
// test runs only the smoke.
func Full(t testing.TB) {
	t.Helper()
	if os.Getenv(FullEnv) != "1" {
		t.Skipf("part of make cluster-test (set %s=1 to run it)", FullEnv)
	}
}

// Start brings up the cluster for the life of t. It skips t where the
// cluster cannot run (Skip), and fails it when a step fails; what was up
// by then is torn down.
func Start(t testing.TB, o Options) *Cluster {
	t.Helper()
	Skip(t)
	if o.Agents <= 0 {
		o.Agents = 4
	}
	c := &Cluster{t: t, opts: o, Bin: testutil.StorbenchBin(t)}
	unlock := machineLock(t)
	begin := time.Now()
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	c.Server = host
	c.Root, err = os.MkdirTemp("", "storbench-gluster-")
	if err != nil {
		t.Fatal(err)
	}
	c.Volume = "sbt" + strconv.Itoa(os.Getpid())
	t.Cleanup(func() { c.teardown(); unlock() })
	var steps []string
	for _, s := range []struct {
		name string
		fn   func()
	}{{"glusterd", c.startGlusterd}, {"volume", c.createVolume}, {"mounts", c.mountClients}, {"agents", c.startAgents}} {
		at := time.Now()
		s.fn()
		steps = append(steps, fmt.Sprintf("%s %.1f s", s.name, time.Since(at).Seconds()))
	}
	c.Setup = time.Since(begin)
	t.Logf("GlusterFS: volume %s (replica 2) up with %d clients and agents (network namespaces: %v) in %.1f s (%s)", c.Volume, o.Agents, c.NetNS, c.Setup.Seconds(), strings.Join(steps, ", "))
	return c
}

// machineLock holds a lock file for the test: one glusterd per machine
// (its port, its sockets under /var/run/gluster), so test binaries that
// each bring one up wait for each other (at most 15 minutes).
func machineLock(t testing.TB) func() {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(os.TempDir(), "storbench-gluster.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Minute)
	for syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		if time.Now().After(deadline) {
			f.Close()
			t.Fatal("another test held the GlusterFS lock for 15 minutes")
		}
		time.Sleep(200 * time.Millisecond)
	}
	if l, err := net.Listen("tcp", ":24007"); err != nil {
		f.Close()
		t.Fatal("port 24007 is taken: another glusterd runs on this machine; stop it (the tests start their own)")
	} else {
		l.Close()
	}
	return func() { f.Close() }
}

// gluster runs the gluster CLI in script mode (it asks y/n otherwise, and
// CI has no standard input), bounded: its first call may hang while
// glusterd starts.
func (c *Cluster) gluster(timeout time.Duration, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, "gluster", append([]string{"--mode=script"}, args...)...).CombinedOutput()
	if ctx.Err() != nil {
		return string(out), fmt.Errorf("gluster %s: no answer in %v", strings.Join(args, " "), timeout)
	}
	if err != nil {
		return string(out), fmt.Errorf("gluster %s: %v: %s", strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return string(out), nil
}

// Gluster runs the gluster CLI on the cluster (volume status, set, heal),
// bounded by 60 s, and fails the test when it fails.
func (c *Cluster) Gluster(args ...string) string {
	c.t.Helper()
	out, err := c.gluster(time.Minute, args...)
	if err != nil {
		c.t.Fatal(err)
	}
	return out
}

// startGlusterd runs glusterd -N with a working directory under Root
// (nothing of it in /var/lib/glusterd) and waits until its CLI answers
// (at most 60 s).
func (c *Cluster) startGlusterd() {
	t := c.t
	wd := filepath.Join(c.Root, "glusterd")
	logs := filepath.Join(c.Root, "log")
	for _, d := range []string{wd, logs} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	vol, err := os.ReadFile("/etc/glusterfs/glusterd.vol")
	if err != nil {
		t.Fatalf("GlusterFS's /etc/glusterfs/glusterd.vol: %v", err)
	}
	volPath := filepath.Join(c.Root, "glusterd.vol")
	text := strings.Replace(string(vol), "/var/lib/glusterd", wd, 1)
	if err := os.WriteFile(volPath, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c.glusterd = exec.Command("glusterd", "-N", "-f", volPath, "-l", filepath.Join(logs, "glusterd.log"))
	c.glusterd.Dir = c.Root
	if err := c.glusterd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		_, err := c.gluster(5*time.Second, "volume", "list")
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("glusterd did not answer within 60 s: %v", err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// Brick is brick i's directory.
func (c *Cluster) Brick(i int) string { return filepath.Join(c.Root, "brick"+strconv.Itoa(i)) }

// createVolume creates and starts the replica-2 volume, its bricks named
// by the host name and forced (they sit on the root file system).
func (c *Cluster) createVolume() {
	args := []string{"volume", "create", c.Volume, "replica", "2"}
	for i := range 2 {
		if err := os.Mkdir(c.Brick(i), 0o755); err != nil {
			c.t.Fatal(err)
		}
		args = append(args, c.Server+":"+c.Brick(i))
	}
	c.Gluster(append(args, "force")...)
	if c.opts.CacheFree {
		c.Gluster("volume", "set", c.Volume, "performance.stat-prefetch", "off")
	}
	c.Gluster("volume", "start", c.Volume)
}

// mountClients starts one FUSE client process per agent, each writing its
// pid to a file so teardown stops exactly it.
func (c *Cluster) mountClients() {
	t := c.t
	for i := range c.opts.Agents {
		mp := filepath.Join(c.Root, "mnt"+strconv.Itoa(i))
		if err := os.Mkdir(mp, 0o755); err != nil {
			t.Fatal(err)
		}
		pidFile := filepath.Join(c.Root, "log", fmt.Sprintf("client%d.pid", i))
		args := []string{"--process-name", "fuse", "--volfile-server=" + c.Server, "--volfile-id=/" + c.Volume,
			"--pid-file=" + pidFile, "--log-file=" + filepath.Join(c.Root, "log", fmt.Sprintf("client%d.log", i))}
		if c.opts.CacheFree {
			args = append(args, "--attribute-timeout=0", "--entry-timeout=0", "--negative-timeout=0")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		out, err := exec.CommandContext(ctx, "glusterfs", append(args, mp)...).CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("mount client %d: %v: %s", i, err, out)
		}
		c.Mounts = append(c.Mounts, mp)
		pid := waitPid(pidFile, 10*time.Second)
		if pid <= 0 {
			t.Fatalf("client %d wrote no pid to %s", i, pidFile)
		}
		c.clients = append(c.clients, pid)
		if err := waitMounted(mp, 30*time.Second); err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
	}
}

func waitPid(file string, within time.Duration) int {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(file)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
			return pid
		}
		time.Sleep(50 * time.Millisecond)
	}
	return 0
}

// waitMounted waits until mp is a GlusterFS mount that answers.
func waitMounted(mp string, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		var st syscall.Statfs_t
		if isMountPoint(mp) && syscall.Statfs(mp, &st) == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s is not mounted after %v", mp, within)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// isMountPoint says whether something is mounted at p in this mount
// namespace.
func isMountPoint(p string) bool {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) > 4 && f[4] == p {
			return true
		}
	}
	return false
}

// pidRE is a brick's process in `gluster volume status --xml`.
var pidRE = regexp.MustCompile(`<pid>(-?\d+)</pid>`)

// BrickClients is how many clients brick i has connected (`gluster volume
// status VOL HOST:BRICK clients --xml`), -1 when glusterd does not say.
func (c *Cluster) BrickClients(i int) int {
	c.t.Helper()
	out, _ := c.gluster(time.Minute, "volume", "status", c.Volume, c.Server+":"+c.Brick(i), "clients", "--xml")
	m := clientCountRE.FindStringSubmatch(out)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

var clientCountRE = regexp.MustCompile(`<clientCount>(\d+)</clientCount>`)

// BrickPid is brick i's process as glusterd tells it (`gluster volume
// status VOL HOST:BRICK --xml`), 0 or less when it is not running.
func (c *Cluster) BrickPid(i int) int {
	c.t.Helper()
	out, err := c.gluster(time.Minute, "volume", "status", c.Volume, c.Server+":"+c.Brick(i), "--xml")
	m := pidRE.FindStringSubmatch(out)
	if m == nil {
		if err != nil {
			c.t.Logf("brick %d: %v", i, err)
		}
		return 0
	}
	pid, _ := strconv.Atoi(m[1])
	return pid
}
