// Package gluster brings up a real GlusterFS cluster on this machine for
// tests (the dfs harness's FS): glusterd in the foreground with a working
// directory of its own, a replica-2 volume of two bricks under the
// cluster's temporary directory, and one FUSE client process per agent
// (each its own cache). The harness starts the agents and tears
// everything down; the volume's part of the teardown stops the volume,
// the bricks' processes and glusterd, and removes the files GlusterFS
// keeps outside the directory for this volume.
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

	"github.com/storbench/storbench/internal/testutil/dfs"
)

// Options shape the cluster.
type Options struct {
	// Agents is the number of clients, one agent each (default 3).
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
	*dfs.Cluster
	// Volume is the volume's name; Server the host name its bricks and
	// clients use (this machine's host name: GlusterFS refuses 127.0.0.1).
	Volume, Server string
	fs             *FS
}

// FS is GlusterFS as the dfs harness starts it.
type FS struct {
	volume, server, root string
	cacheFree            bool
	glusterd             *exec.Cmd
	glusterdDone         chan struct{}
	// sockets are the sockets in runDir before glusterd started.
	sockets map[string]bool
}

// runDir is where glusterd and the processes it starts keep their Unix
// sockets, one file each (HASH.socket), which none of them removes.
const runDir = "/var/run/gluster"

var _ dfs.FS = (*FS)(nil)

// Skip skips t, with what is missing, where a GlusterFS cluster cannot
// run here.
func Skip(t testing.TB) {
	t.Helper()
	dfs.Skip(t, "GlusterFS", "install glusterfs-server (make glusterfs)", "glusterd", "gluster", "glusterfs")
}

// FullEnv is dfs.FullEnv: make cluster-test sets it.
const FullEnv = dfs.FullEnv

// Full skips t unless make cluster-test runs it (dfs.Full).
func Full(t testing.TB) { t.Helper(); dfs.Full(t) }

// Start brings up the cluster for the life of t. It skips t where the
// cluster cannot run (Skip), and fails it when a step fails; what was up
// by then is torn down.
func Start(t testing.TB, o Options) *Cluster {
	t.Helper()
	Skip(t)
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	fs := &FS{volume: "sbt" + strconv.Itoa(os.Getpid()), server: host, cacheFree: o.CacheFree}
	dc := dfs.Start(t, fs, dfs.Options{Agents: o.Agents, Loopback: o.Loopback})
	return &Cluster{Cluster: dc, Volume: fs.volume, Server: fs.server, fs: fs}
}

// Name is "GlusterFS".
func (*FS) Name() string { return "GlusterFS" }

// MountType is a GlusterFS client in mountinfo.
func (*FS) MountType() string { return "fuse.glusterfs " }

// Start starts glusterd and creates and starts the volume.
func (f *FS) Start(c *dfs.Cluster) {
	f.root = c.Root
	if l, err := net.Listen("tcp", ":24007"); err != nil {
		c.T().Fatal("port 24007 is taken: another glusterd runs on this machine; stop it (the tests start their own)")
	} else {
		l.Close()
	}
	f.sockets = sockets()
	f.startGlusterd(c.T())
	f.createVolume(c.T())
}

// sockets lists the sockets in runDir.
func sockets() map[string]bool {
	out := map[string]bool{}
	files, _ := filepath.Glob(filepath.Join(runDir, "*.socket"))
	for _, f := range files {
		out[f] = true
	}
	return out
}

// newSockets lists the sockets in runDir made since glusterd started
// that no process listens on any more: the bricks' and the self-heal
// daemon's, which every volume left there for good (two or three a
// volume). One another cluster still uses answers, and stays.
func (f *FS) newSockets() []string {
	var left []string
	for s := range sockets() {
		if f.sockets == nil || f.sockets[s] {
			continue
		}
		if conn, err := net.DialTimeout("unix", s, time.Second); err == nil {
			conn.Close()
			continue
		}
		left = append(left, s)
	}
	return left
}

// gluster runs the gluster CLI in script mode (it asks y/n otherwise, and
// CI has no standard input), bounded: its first call may hang while
// glusterd starts.
func (f *FS) gluster(timeout time.Duration, args ...string) (string, error) {
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

// must runs the gluster CLI, bounded by 60 s, and fails t when it fails.
func (f *FS) must(t testing.TB, args ...string) string {
	t.Helper()
	out, err := f.gluster(time.Minute, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Gluster runs the gluster CLI on the cluster (volume status, set, heal),
// bounded by 60 s, and fails the test when it fails.
func (c *Cluster) Gluster(args ...string) string {
	c.T().Helper()
	return c.fs.must(c.T(), args...)
}

// startGlusterd runs glusterd -N with a working directory under Root
// (nothing of it in /var/lib/glusterd) and waits until its CLI answers
// (at most 60 s).
func (f *FS) startGlusterd(t testing.TB) {
	wd := filepath.Join(f.root, "glusterd")
	logs := filepath.Join(f.root, "log")
	for _, d := range []string{wd, logs} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	vol, err := os.ReadFile("/etc/glusterfs/glusterd.vol")
	if err != nil {
		t.Fatalf("GlusterFS's /etc/glusterfs/glusterd.vol: %v", err)
	}
	volPath := filepath.Join(f.root, "glusterd.vol")
	text := strings.Replace(string(vol), "/var/lib/glusterd", wd, 1)
	if err := os.WriteFile(volPath, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	f.glusterd = f.withoutGeoReplication(t, "glusterd", "-N", "-f", volPath, "-l", filepath.Join(logs, "glusterd.log"))
	f.glusterd.Dir = f.root
	if err := f.glusterd.Start(); err != nil {
		t.Fatal(err)
	}
	f.glusterdDone = make(chan struct{})
	go func() { _ = f.glusterd.Wait(); close(f.glusterdDone) }()
	deadline := time.Now().Add(time.Minute)
	for {
		_, err := f.gluster(5*time.Second, "volume", "list")
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("glusterd did not answer within 60 s: %v", err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// withoutGeoReplication is the command that runs glusterd in a mount
// namespace of its own where GlusterFS's gsyncd cannot be run (a script
// whose interpreter does not exist, bound over it: exec says ENOENT), so
// that glusterd takes geo-replication for not installed. Installed, a
// new glusterd writes its geo-replication template with some 30 runs of
// gsyncd, a Python program: 30-70 s on the loaded test machine before
// its CLI answered, where 4 s remain. The bricks and the self-heal
// daemon glusterd starts share its namespace, which sees Root's tmpfs.
// Where gsyncd is not found, glusterd runs as it is.
func (f *FS) withoutGeoReplication(t testing.TB, name string, args ...string) *exec.Cmd {
	gsyncd, _ := filepath.Glob("/usr/lib/*/glusterfs/gsyncd")
	gsyncd2, _ := filepath.Glob("/usr/libexec/glusterfs/gsyncd")
	gsyncd = append(gsyncd, gsyncd2...)
	if len(gsyncd) == 0 {
		return exec.Command(name, args...)
	}
	stub := filepath.Join(f.root, "no-gsyncd")
	if err := os.WriteFile(stub, []byte("#!/nonexistent/no-geo-replication\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := `mount --bind "$0" "$1" && shift && exec "$@"`
	return exec.Command("unshare", append([]string{"--mount", "--propagation", "private", "sh", "-c", script, stub, gsyncd[0], name}, args...)...)
}

// Brick is brick i's directory.
func (c *Cluster) Brick(i int) string { return c.fs.brick(i) }

func (f *FS) brick(i int) string { return filepath.Join(f.root, "brick"+strconv.Itoa(i)) }

// createVolume creates and starts the replica-2 volume, its bricks named
// by the host name and forced (they sit on the root file system).
func (f *FS) createVolume(t testing.TB) {
	args := []string{"volume", "create", f.volume, "replica", "2"}
	for i := range 2 {
		if err := os.Mkdir(f.brick(i), 0o755); err != nil {
			t.Fatal(err)
		}
		args = append(args, f.server+":"+f.brick(i))
	}
	f.must(t, append(args, "force")...)
	if f.cacheFree {
		f.must(t, "volume", "set", f.volume, "performance.stat-prefetch", "off")
	}
	f.must(t, "volume", "start", f.volume)
}

// Mount starts one FUSE client process at mp, which writes its pid to a
// file so the teardown stops exactly it.
func (f *FS) Mount(_ *dfs.Cluster, i int, mp string) (int, error) {
	pidFile := filepath.Join(f.root, "log", fmt.Sprintf("client%d.pid", i))
	args := []string{"--process-name", "fuse", "--volfile-server=" + f.server, "--volfile-id=/" + f.volume,
		"--pid-file=" + pidFile, "--log-file=" + filepath.Join(f.root, "log", fmt.Sprintf("client%d.log", i))}
	if f.cacheFree {
		args = append(args, "--attribute-timeout=0", "--entry-timeout=0", "--negative-timeout=0")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	out, err := exec.CommandContext(ctx, "glusterfs", append(args, mp)...).CombinedOutput()
	cancel()
	if err != nil {
		return 0, fmt.Errorf("glusterfs: %v: %s", err, out)
	}
	pid := dfs.WaitPid(pidFile, 10*time.Second)
	if pid <= 0 {
		return 0, fmt.Errorf("glusterfs wrote no pid to %s", pidFile)
	}
	if err := dfs.WaitMounted(mp, 30*time.Second, nil); err != nil {
		return pid, err
	}
	return pid, nil
}

// Stop stops the volume, the processes glusterd started for it (bricks,
// self-heal daemon) and glusterd, and removes the files GlusterFS keeps
// under /var/run/gluster and /var/log/glusterfs for this volume, its
// sockets and log directories among them.
func (f *FS) Stop(c *dfs.Cluster) {
	if f.glusterd != nil {
		_, _ = f.gluster(time.Minute, "volume", "stop", f.volume, "force")
		_, _ = f.gluster(time.Minute, "volume", "delete", f.volume)
		dfs.StopPids(f.ours(), 5*time.Second)
		_ = f.glusterd.Process.Signal(syscall.SIGTERM)
		select {
		case <-f.glusterdDone:
		case <-time.After(10 * time.Second):
			_ = f.glusterd.Process.Kill()
			<-f.glusterdDone
		}
	}
	dfs.StopPids(f.ours(), 5*time.Second)
	_ = os.RemoveAll(filepath.Join("/var/run/gluster/vols", f.volume))
	_ = os.RemoveAll(filepath.Join("/var/run/gluster/shd", f.volume))
	for i := range 2 {
		log := strings.ReplaceAll(strings.TrimPrefix(f.brick(i), "/"), "/", "-") + ".log"
		_ = os.Remove(filepath.Join("/var/log/glusterfs/bricks", log))
	}
	for _, s := range f.newSockets() {
		_ = os.Remove(s)
	}
	for _, d := range f.logDirs() {
		_ = os.RemoveAll(d)
	}
}

// Leftovers names glusterd and the volume's processes when they stay,
// the sockets they left in runDir, and the volume's log directories.
func (f *FS) Leftovers(*dfs.Cluster) []string {
	left := f.newSockets()
	for _, d := range f.logDirs() {
		if _, err := os.Stat(d); err == nil {
			left = append(left, d)
		}
	}
	for _, pid := range f.ours() {
		left = append(left, fmt.Sprintf("GlusterFS process %d", pid))
	}
	if f.glusterd != nil {
		select {
		case <-f.glusterdDone:
		default:
			left = append(left, "glusterd")
		}
	}
	return left
}

// logDirs are the directories glusterd makes for the volume under
// /var/log/glusterfs (gfproxy/VOL, snaps/VOL), empty, and never removes.
func (f *FS) logDirs() []string {
	return []string{filepath.Join(logDir, "gfproxy", f.volume), filepath.Join(logDir, "snaps", f.volume)}
}

// logDir is where GlusterFS's daemons and CLI log.
const logDir = "/var/log/glusterfs"

// ours lists the processes glusterd started for the volume that do not
// name Root (the self-heal daemon, a client by its volfile id); those
// that do, the teardown finds itself. glusterd, our child, is stopped
// apart.
func (f *FS) ours() []int {
	return dfs.Processes(func(cl string) bool {
		return strings.Contains(cl, f.root) && (f.glusterd == nil || !strings.HasPrefix(cl, "glusterd\x00")) ||
			strings.Contains(cl, "\x00shd/"+f.volume+"\x00") || strings.Contains(cl, "--volfile-id\x00"+f.volume+".")
	})
}

// pidRE is a brick's process in `gluster volume status --xml`.
var pidRE = regexp.MustCompile(`<pid>(-?\d+)</pid>`)

// BrickClients is how many clients brick i has connected (`gluster volume
// status VOL HOST:BRICK clients --xml`), -1 when glusterd does not say.
func (c *Cluster) BrickClients(i int) int {
	c.T().Helper()
	out, _ := c.fs.gluster(time.Minute, "volume", "status", c.Volume, c.Server+":"+c.Brick(i), "clients", "--xml")
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
	c.T().Helper()
	out, err := c.fs.gluster(time.Minute, "volume", "status", c.Volume, c.Server+":"+c.Brick(i), "--xml")
	m := pidRE.FindStringSubmatch(out)
	if m == nil {
		if err != nil {
			c.T().Logf("brick %d: %v", i, err)
		}
		return 0
	}
	pid, _ := strconv.Atoi(m[1])
	return pid
}
