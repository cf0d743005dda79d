// Package moosefs brings up a real MooseFS on this machine for tests (the
// dfs harness's FS): a master and two chunkservers from Debian's packages
// (moosefs-master, -chunkserver, -client), each with its files under the
// cluster's temporary directory, and one mfsmount (FUSE) client per
// agent. The chunkserver refuses a master on any 127.0.0.0/8 address, so
// master, chunkservers and clients run in a network namespace of their
// own (dfs.ServerNet): the master on one end of a veth pair, the
// chunkservers on the other. The clients keep their goal 2 default: every
// chunk on both chunkservers.
package moosefs

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/testutil/dfs"
)

// Chunkservers is how many chunkservers the cluster has.
const Chunkservers = 2

// Skip skips t where MooseFS cannot run here.
func Skip(t testing.TB) {
	t.Helper()
	dfs.Skip(t, "MooseFS", "install moosefs-master, moosefs-chunkserver and moosefs-client (make moosefs)",
		"mfsmaster", "mfschunkserver", "mfsmount", "ip")
	if _, err := os.Stat(emptyMeta); err != nil {
		t.Skipf("MooseFS tests need the master's empty metadata %s (moosefs-master)", emptyMeta)
	}
}

// emptyMeta is the metadata a new master starts from.
const emptyMeta = "/var/lib/mfs/metadata.mfs.empty"

// Cluster is a running MooseFS with its clients and agents.
type Cluster struct {
	*dfs.Cluster
	*FS
}

// Start brings up MooseFS with agents clients (0: dfs's default) for the
// life of t, skipping t where it cannot run.
func Start(t testing.TB, agents int) *Cluster {
	t.Helper()
	Skip(t)
	fs := &FS{}
	c := &Cluster{Cluster: dfs.Start(t, fs, dfs.Options{Agents: agents}), FS: fs}
	// Before the teardown removes them: the logs of a failed test.
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("MooseFS's logs:\n%s", dfs.Tails(filepath.Join(c.Root, "log", "*.log")))
		}
	})
	return c
}

// FS is MooseFS as the dfs harness starts it.
type FS struct {
	net    *dfs.ServerNet
	root   string
	mu     sync.Mutex
	master *daemon
	cs     [Chunkservers]*daemon
}

var _ dfs.FS = (*FS)(nil)

// daemon is a server process started here, its output in a log file.
type daemon struct {
	cmd  *exec.Cmd
	log  string
	done chan struct{}
}

// Name is "MooseFS".
func (*FS) Name() string { return "MooseFS" }

// MountType is an mfsmount client in mountinfo: a plain fuse mount whose
// source is "mfs#MASTER:PORT" ('#' escaped).
func (*FS) MountType() string { return `fuse mfs\043` }

// Start writes the master's and chunkservers' configuration under Root,
// starts the master and the chunkservers at once, and returns when the
// master is ready and every chunkserver connected to it.
func (f *FS) Start(c *dfs.Cluster) {
	t := c.T()
	f.root = c.Root
	f.net = dfs.NewServerNet(c)
	master := filepath.Join(f.root, "master")
	must(t, os.MkdirAll(filepath.Join(f.root, "log"), 0o755))
	must(t, os.Mkdir(master, 0o755))
	meta, err := os.ReadFile(emptyMeta)
	must(t, err)
	must(t, os.WriteFile(filepath.Join(master, "metadata.mfs"), meta, 0o644))
	must(t, os.WriteFile(filepath.Join(master, "mfsexports.cfg"), []byte("* / rw,alldirs,admin,maproot=0:0\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(master, "mfstopology.cfg"), nil, 0o644))
	// NICE_LEVEL 0: the daemons' default -19 would put them before
	// everything else on the machine, the agents too.
	must(t, os.WriteFile(filepath.Join(master, "mfsmaster.cfg"), []byte(config(map[string]string{
		"DATA_PATH": master, "EXPORTS_FILENAME": filepath.Join(master, "mfsexports.cfg"),
		"TOPOLOGY_FILENAME": filepath.Join(master, "mfstopology.cfg"), "MATOML_LISTEN_HOST": f.net.Addrs[0],
		"MATOCS_LISTEN_HOST": f.net.Addrs[0], "MATOCL_LISTEN_HOST": f.net.Addrs[0]})), 0o644))
	for i := range Chunkservers {
		dir, hdd := f.csDir(i), filepath.Join(f.root, fmt.Sprintf("hdd%d", i))
		must(t, os.Mkdir(dir, 0o755))
		must(t, os.Mkdir(hdd, 0o755))
		must(t, os.WriteFile(filepath.Join(dir, "mfshdd.cfg"), []byte(hdd+"\n"), 0o644))
		must(t, os.WriteFile(filepath.Join(dir, "mfschunkserver.cfg"), []byte(config(map[string]string{
			"DATA_PATH": dir, "HDD_CONF_FILENAME": filepath.Join(dir, "mfshdd.cfg"), "MASTER_HOST": f.net.Addrs[0],
			"MASTER_RECONNECTION_DELAY": "1", "CSSERV_LISTEN_HOST": f.net.Addrs[1],
			"CSSERV_LISTEN_PORT": fmt.Sprint(9422 + i), "HDD_LEAVE_SPACE_DEFAULT": "64MiB"})), 0o644))
	}
	begin := time.Now()
	f.master = f.start(t, "master", "mfsmaster", "-f", "-c", filepath.Join(master, "mfsmaster.cfg"))
	// A chunkserver spends 1.5-4 s in its start before it connects
	// (10-24 s on the loaded test machine): both start with the master,
	// not after it, and connect within a second of its being ready
	// (MASTER_RECONNECTION_DELAY).
	errs := make(chan error, Chunkservers)
	for i := range Chunkservers {
		go func() { errs <- f.startChunkserver(i) }()
	}
	if err := waitLog(f.master, "mfsmaster daemon initialized properly", time.Minute); err != nil {
		t.Fatalf("MooseFS master: %v", err)
	}
	ready := []string{fmt.Sprintf("master %.1f s", time.Since(begin).Seconds())}
	for range Chunkservers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
		ready = append(ready, fmt.Sprintf("a chunkserver %.1f s", time.Since(begin).Seconds()))
	}
	t.Logf("MooseFS: ready after %s", strings.Join(ready, ", "))
}

func (f *FS) csDir(i int) string { return filepath.Join(f.root, fmt.Sprintf("cs%d", i)) }

// config is a MooseFS configuration file of kv, run as root at the
// normal priority.
func config(kv map[string]string) string {
	var b strings.Builder
	b.WriteString("WORKING_USER = root\nWORKING_GROUP = root\nNICE_LEVEL = 0\n")
	for k, v := range kv {
		fmt.Fprintf(&b, "%s = %s\n", k, v)
	}
	return b.String()
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// start starts a daemon in the servers' namespace, in the foreground,
// its output to ROOT/log/NAME.log.
func (f *FS) start(t testing.TB, name string, args ...string) *daemon {
	t.Helper()
	d, err := f.startErr(name, args...)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func (f *FS) startErr(name string, args ...string) (*daemon, error) {
	d := &daemon{log: filepath.Join(f.root, "log", name+".log"), done: make(chan struct{})}
	out, err := os.Create(d.log)
	if err != nil {
		return nil, err
	}
	d.cmd = f.net.In(args[0], args[1:]...)
	d.cmd.Stdout, d.cmd.Stderr = out, out
	if err := d.cmd.Start(); err != nil {
		out.Close()
		return nil, fmt.Errorf("MooseFS %s: %v", name, err)
	}
	go func() { _ = d.cmd.Wait(); out.Close(); close(d.done) }()
	return d, nil
}

// waitLog waits until d's log has a line holding s, at most within.
func waitLog(d *daemon, s string, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		if b, _ := os.ReadFile(d.log); strings.Contains(string(b), s) {
			return nil
		}
		select {
		case <-d.done:
			b, _ := os.ReadFile(d.log)
			return fmt.Errorf("ended before saying %q:\n%s", s, b)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(d.log)
			return fmt.Errorf("did not say %q within %v:\n%s", s, within, b)
		}
	}
}

// startChunkserver starts chunkserver i and returns once it connected
// to the master (its log says so).
func (f *FS) startChunkserver(i int) error {
	d, err := f.startErr(fmt.Sprintf("chunkserver%d", i), "mfschunkserver", "-f", "-c", filepath.Join(f.csDir(i), "mfschunkserver.cfg"))
	if err != nil {
		return err
	}
	f.mu.Lock()
	f.cs[i] = d
	f.mu.Unlock()
	if err := waitLog(d, "connected to Master", time.Minute); err != nil {
		return fmt.Errorf("MooseFS chunkserver %d: %v", i, err)
	}
	return nil
}

// HangChunkserver stops chunkserver i's process (SIGSTOP): it holds its
// connections and answers nothing, as a server that hangs.
func (f *FS) HangChunkserver(i int) error { return f.signal(i, syscall.SIGSTOP) }

// ResumeChunkserver lets chunkserver i's stopped process go on
// (SIGCONT): it answers what waited, and no one saw it gone (the master
// gives a chunkserver 10 s, MATOCS_TIMEOUT).
func (f *FS) ResumeChunkserver(i int) error { return f.signal(i, syscall.SIGCONT) }

func (f *FS) signal(i int, sig syscall.Signal) error {
	f.mu.Lock()
	d := f.cs[i]
	f.mu.Unlock()
	return d.cmd.Process.Signal(sig)
}

// Mount starts mfsmount in the foreground in the servers' namespace,
// mounted at mp, its output in ROOT/log/clientI.log.
func (f *FS) Mount(_ *dfs.Cluster, i int, mp string) (int, error) {
	// mfsnice 0: the client's default -19, as the daemons'.
	d, err := f.startErr(fmt.Sprintf("client%d", i), "mfsmount", "-f", mp, "-o", "mfsmaster="+f.net.Addrs[0]+",mfsnice=0")
	if err != nil {
		return 0, err
	}
	if err := dfs.WaitMounted(mp, 30*time.Second, d.done); err != nil {
		b, _ := os.ReadFile(d.log)
		return 0, fmt.Errorf("%v:\n%s", err, b)
	}
	return d.cmd.Process.Pid, nil
}

// Stop kills the chunkservers and the master (SIGKILL, hung or not), and
// waits for them to end. Everything they keep is under Root, which the
// teardown removes next: a SIGTERM had the master save its metadata
// there first, and the chunkservers close their chunks, 4-5 s of
// MooseFS's budget for files no one reads.
func (f *FS) Stop(c *dfs.Cluster) {
	f.mu.Lock()
	ds := append(f.cs[:0:0], f.cs[:]...)
	f.mu.Unlock()
	for _, d := range append(ds, f.master) {
		if d != nil {
			_ = d.cmd.Process.Kill()
		}
	}
	for _, d := range append(ds, f.master) {
		if d != nil {
			<-d.done
		}
	}
}

// Leftovers: the daemons are processes naming Root (the teardown finds
// them); nothing of MooseFS lives outside it.
func (*FS) Leftovers(*dfs.Cluster) []string { return nil }
