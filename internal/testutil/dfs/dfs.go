// Package dfs brings up a real distributed file system on this machine for
// tests, and runs the seeds' procedures on it. A file system (GlusterFS,
// MooseFS, CephFS: packages gluster, moosefs and cephfs) plugs in as an
// FS: it starts its servers and one FUSE client process per agent (each
// its own cache). dfs does the rest alike for all: a temporary directory
// for everything, one real `storbench agent` per client, each in a mount
// namespace of its own that sees its client at one common path (Dir) and,
// where `ip netns` works, in a network namespace of its own with an
// address of its own; the controller's runs; commands a suite's events
// run to have the test stop and start servers (Control); and the
// teardown, in the test's cleanup also when the test fails: agents, then
// the mounts, the client processes by pid, the servers, every process
// still naming the directory, the directory. What stays fails the test.
//
// A test that uses it skips with a clear message where it cannot run: not
// root, no /dev/fuse, or the file system's programs missing (make
// cluster-test installs them).
package dfs

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/testutil"
)

// FS is one distributed file system as the harness starts it. Its methods
// fail c's test (c.T()) when a step fails; what was up by then is torn
// down.
type FS interface {
	// Name names the file system in messages ("MooseFS").
	Name() string
	// Start brings up the servers, under c.Root.
	Start(c *Cluster)
	// Mount starts client i at mp (a directory in this mount namespace)
	// and returns the client's process once the mount answers. The
	// harness mounts several clients at once (mountClients): Mount is
	// called from goroutines of its own, and returns what failed rather
	// than failing the test, with the client's process when it knows it
	// (a client it started whose mount failed names mp, under Root, and
	// the teardown ends it also when its pid is 0).
	Mount(c *Cluster, i int, mp string) (int, error)
	// Stop stops the servers once agents and clients are gone; it runs
	// also when Start failed halfway.
	Stop(c *Cluster)
	// Leftovers names what of the servers stays after Stop, beside the
	// processes naming c.Root (which the teardown finds itself).
	Leftovers(c *Cluster) []string
	// MountType is a client's mount as /proc/PID/mountinfo shows it after
	// its " - " ("fuse.glusterfs ", "fuse mfs#").
	MountType() string
}

// Options shape the cluster.
type Options struct {
	// Agents is the number of clients, one agent each (default 3: with
	// md -N 1, stat and read on another client's items and remove on the
	// client's own, as mdtest on three nodes).
	Agents int
	// Loopback keeps the agents in this network namespace on loopback
	// ports, even where network namespaces work.
	Loopback bool
}

// Cluster is a running file system with its clients and agents.
type Cluster struct {
	// FS is the file system.
	FS FS
	// Root is the temporary directory holding servers' data, mounts and
	// logs.
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

	t       testing.TB
	opts    Options
	clients []int // the FUSE client processes' pids, by mount
	agents  []*agent
	net     *netns
	// serverNets are the servers' network namespaces (NewServerNet).
	serverNets []*ServerNet
	controls   []*control
	tmpfs      bool // Root is a tmpfs of its own
}

// T is the test the cluster lives for.
func (c *Cluster) T() testing.TB { return c.t }

// Skip skips t, with what is missing, where a file system's cluster
// cannot run here: root, FUSE, util-linux's namespace tools, and the
// programs the file system needs (name: what installs them).
func Skip(t testing.TB, name, install string, programs ...string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skipf("%s tests need root (servers, FUSE mounts, namespaces); run them as root: make cluster-test", name)
	}
	if fi, err := os.Stat("/dev/fuse"); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Skipf("%s tests need FUSE: /dev/fuse is missing (load the fuse module, or give the container /dev/fuse)", name)
	}
	for _, p := range []string{"unshare", "nsenter", "mount", "umount"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s tests need util-linux's %s", name, p)
		}
	}
	for _, p := range programs {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s tests need %s: %s", name, p, install)
		}
	}
}

// FullEnv is the variable that runs the whole set of the file systems'
// tests (make cluster-test sets it); without it only the smokes run.
const FullEnv = "STORBENCH_CLUSTER_TEST"

// Full skips t unless FullEnv is 1: the full set takes minutes, and make
// test runs only the smokes.
func Full(t testing.TB) {
	t.Helper()
	if os.Getenv(FullEnv) != "1" {
		t.Skipf("part of make cluster-test (set %s=1 to run it)", FullEnv)
	}
}

// Start brings up fs for the life of t: servers, clients, agents. The
// caller has skipped t where fs cannot run (Skip). A failed step fails t;
// what was up by then is torn down.
func Start(t testing.TB, fs FS, o Options) *Cluster {
	t.Helper()
	if o.Agents <= 0 {
		o.Agents = 3
	}
	built := time.Now()
	c := &Cluster{t: t, opts: o, FS: fs, Bin: testutil.StorbenchBin(t)}
	if d := time.Since(built); d > time.Second {
		// The test binary's first cluster builds storbench: part of the
		// test's time, not the cluster's (make cluster-test's budgets).
		t.Logf("storbench built in %.1f s", d.Seconds())
	}
	unlock := machineLock(t)
	begin := time.Now()
	var err error
	c.Root, err = os.MkdirTemp("", "storbench-"+strings.ToLower(fs.Name())+"-")
	if err != nil {
		unlock()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		at := time.Now()
		steps := c.teardown()
		t.Logf("%s: torn down in %.1f s (%s)", fs.Name(), time.Since(at).Seconds(), steps)
		unlock()
	})
	c.mountTmpfs()
	var steps []string
	for _, s := range []struct {
		name string
		fn   func()
	}{{"servers", func() { fs.Start(c) }}, {"mounts", c.mountClients}, {"agents", c.startAgents}} {
		at := time.Now()
		s.fn()
		steps = append(steps, fmt.Sprintf("%s %.1f s", s.name, time.Since(at).Seconds()))
	}
	c.Setup = time.Since(begin)
	t.Logf("%s: up with %d clients and agents (network namespaces: %v) in %.1f s (%s)", fs.Name(), o.Agents, c.NetNS, c.Setup.Seconds(), strings.Join(steps, ", "))
	return c
}

// mountTmpfs mounts a tmpfs at Root, where the servers keep their data:
// on the test machine's one busy disk (often 90% busy with others'
// work) removing a GlusterFS volume's bricks took 27 s of a teardown and
// MooseFS's chunks 14 s, where a tmpfs goes in one umount, and the
// servers' writes no longer wait on the disk. Where it cannot (no mount
// rights), the files stay on the disk, and the log says so.
func (c *Cluster) mountTmpfs() {
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4g,mode=0700", "storbench-dfs", c.Root).CombinedOutput()
	if err != nil {
		c.t.Logf("the cluster's files stay on the disk: mount tmpfs %s: %v: %s", c.Root, err, strings.TrimSpace(string(out)))
		return
	}
	c.tmpfs = true
}

// mountsAtOnce bounds the clients mounted at once: a FUSE client's start
// is mostly waiting on its servers (a ceph-fuse client's session with the
// monitor and the MDS, 0.6 s quiet and more loaded), so three mount in
// about the time of one, and more than four at once would only queue on
// the test machine's 2 cores.
const mountsAtOnce = 4

// mountClients mounts one client per agent under Root, mountsAtOnce at a
// time, failing the test with every client that failed once all are
// done. Every mount point is in Mounts before its client starts, so the
// teardown undoes the mounts that were made, and ends the clients whose
// mount failed (processes naming Root).
func (c *Cluster) mountClients() {
	if err := c.mountAll(); err != nil {
		c.t.Fatalf("%s: mounting the clients: %v", c.FS.Name(), err)
	}
}

// mountAll is mountClients' work: the errors of every client that failed,
// joined.
func (c *Cluster) mountAll() error {
	for i := range c.opts.Agents {
		mp := fmt.Sprintf("%s/mnt%d", c.Root, i)
		if err := os.Mkdir(mp, 0o755); err != nil {
			return err
		}
		c.Mounts = append(c.Mounts, mp)
	}
	pids, errs := make([]int, len(c.Mounts)), make([]error, len(c.Mounts))
	slots := make(chan struct{}, mountsAtOnce)
	var wg sync.WaitGroup
	for i, mp := range c.Mounts {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			pids[i], errs[i] = c.FS.Mount(c, i, mp)
			if errs[i] != nil {
				errs[i] = fmt.Errorf("client %d: %w", i, errs[i])
			}
		})
	}
	wg.Wait()
	for _, pid := range pids {
		if pid > 0 {
			c.clients = append(c.clients, pid)
		}
	}
	return errors.Join(errs...)
}

// machineLock holds the machine-wide lock of the clusters for the test,
// waiting for another test binary's cluster at most 15 minutes. One
// cluster at a time on a machine: GlusterFS's glusterd has one port and
// its sockets under /var/run/gluster, and two clusters on the test
// machine's 2 cores would each measure the other.
func machineLock(t testing.TB) func() {
	t.Helper()
	unlock, err := testutil.MachineLock("storbench-dfs-cluster", 15*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return unlock
}
