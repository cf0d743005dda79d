// Package ceph brings up the smallest real Ceph cluster on this machine
// for tests: one monitor on a loopback port of its own, one OSD whose
// BlueStore sits on a sparse file (its memory does not grow with the data,
// as the in-memory store's does), and, with Options.Gateway, a RADOS
// Gateway serving S3 on loopback with a user of its own. No systemd, mgr,
// cephadm or container: every daemon runs in the foreground (-f) as a
// child of the test, with authentication off and every file it writes
// (configuration, keyring, stores, sockets, logs) under one temporary
// directory. Everything is torn down in the test's cleanup, also when the
// test fails: the daemons by pid in the reverse order of their start
// (SIGTERM, SIGKILL after a wait), then the directory; what stays fails
// the test. A daemon whose test process dies anyway gets SIGKILL from
// the kernel (parent-death signal), and the next Start removes the
// directory such a process left.
//
// A test that uses it skips with a clear message where it cannot run: not
// root, or the Ceph packages missing (make ceph installs them).
package ceph

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/s3test"
	"github.com/storbench/storbench/internal/testutil"
)

// Options shape the cluster. The monitor and the OSD always run; each
// option adds a daemon started after them (Start's steps), stopped before
// them.
type Options struct {
	// Gateway starts radosgw (beast on 127.0.0.1) and makes an S3 user
	// with the keys of every S3 test server (s3test.AccessKey and
	// SecretKey), so a test written against a versitygw runs against it
	// (Cluster.S3).
	Gateway bool
	// FS starts a metadata server (MDS) and makes a CephFS on two pools
	// of the OSD, which ceph-fuse clients mount (Cluster.Mount: fs.go).
	FS bool
}

// Cluster is a running Ceph cluster.
type Cluster struct {
	// Root is the temporary directory that holds everything the cluster
	// writes; Conf its ceph.conf, which every command run on the cluster
	// takes (-c Conf).
	Root, Conf string
	// FSID is the cluster's id; Mon the monitor's address (v2 protocol).
	FSID, Mon string
	// Endpoint is the gateway's host:port (with Options.Gateway).
	Endpoint string
	// Setup is how long bringing everything up took; Steps says how long
	// each step took, in order.
	Setup time.Duration
	Steps []string

	opts    Options
	unlock  func()
	daemons []*daemon
	// before is what was in Ceph's system directories at the start.
	before map[string]bool
	// osdID is the OSD's uuid, which the monitor's audit log names.
	osdID   string
	rgwPort int
	// releases give up the claims on the daemons' ports (claimPorts).
	releases []func()
	// tmpfs says Root is a tmpfs of its own (mountTmpfs).
	tmpfs bool
}

// mountTmpfs mounts a tmpfs at Root for a CephFS cluster (Options.FS):
// its metadata server journals every create to the OSD, whose BlueStore
// and the monitor's store sync each write, and on the test machine's one
// disk, busy with others' work, that made shared md -N 1 of 600 files
// take 36 s and the CephFS test 250 s of its 240-s budget. A tmpfs makes
// the syncs free, and the OSD's memory then grows with the data (the
// CephFS tests write under 1 GiB; 4 GiB at most). The gateway's cluster
// stays on the disk: its tests write more. Where it cannot mount (no
// mount rights), the files stay on the disk.
func (c *Cluster) mountTmpfs() {
	if err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4g,mode=0700", "storbench-ceph", c.Root).Run(); err == nil {
		c.tmpfs = true
	}
}

// daemon is one Ceph daemon running in the foreground as our child.
type daemon struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
}

// Skip skips t, with what is missing, where a Ceph cluster cannot run
// here.
func Skip(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("Ceph tests need root (Ceph's daemons and tools run as root here); run them as root: make cluster-test")
	}
	for _, p := range []struct{ bin, pkg string }{
		{"ceph-mon", "ceph-mon"}, {"ceph-osd", "ceph-osd"}, {"ceph", "ceph-common"}, {"ceph-authtool", "ceph-common"},
		{"monmaptool", "ceph-base"}, {"radosgw", "radosgw"}, {"radosgw-admin", "ceph-common"},
	} {
		if _, err := exec.LookPath(p.bin); err != nil {
			t.Skipf("Ceph tests need %s: install %s (make ceph installs Ceph)", p.bin, p.pkg)
		}
	}
}

// FullEnv is the variable that runs the Ceph tests (make cluster-test
// sets it): they take minutes, and make test runs none of them.
const FullEnv = "STORBENCH_CLUSTER_TEST"

// Full skips t unless FullEnv is 1.
func Full(t testing.TB) {
	t.Helper()
	if os.Getenv(FullEnv) != "1" {
		t.Skipf("part of make cluster-test (set %s=1 to run it)", FullEnv)
	}
}

// SetupBound is the longest Start may take: past it the test fails with
// the step that was running. The cluster comes up in 20-45 s on the
// 2-core test machine under load.
const SetupBound = 3 * time.Minute

// Start brings up a cluster for the life of t. It skips t where Ceph
// cannot run (Skip), and fails it when a step fails; what was up by then
// is torn down.
func Start(t testing.TB, o Options) *Cluster {
	t.Helper()
	Skip(t)
	c, err := start(o)
	t.Cleanup(func() {
		at := time.Now()
		if err := c.teardown(); err != nil {
			t.Error(err)
		}
		t.Logf("Ceph: torn down in %.1f s", time.Since(at).Seconds())
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Ceph: %s in %.1f s (%s)", c.describe(), c.Setup.Seconds(), strings.Join(c.Steps, ", "))
	return c
}

func (c *Cluster) describe() string {
	d := "monitor, OSD"
	if c.opts.Gateway {
		d += ", gateway " + c.Endpoint
	}
	if c.opts.FS {
		d += ", MDS and CephFS"
	}
	return d + " up"
}

// start brings the cluster up step by step; on an error the cluster
// returned holds what is up, for teardown.
func start(o Options) (*Cluster, error) {
	c := &Cluster{opts: o}
	unlock, err := machineLock()
	if err != nil {
		return c, err
	}
	c.unlock = unlock
	sweep()
	c.before = systemTraces()
	root, err := os.MkdirTemp("", rootPrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return c, err
	}
	c.Root, c.Conf = root, filepath.Join(root, "ceph.conf")
	if o.FS {
		c.mountTmpfs()
	}
	begin := time.Now()
	steps := []step{{"configuration", c.configure}, {"monitor", c.startMon}, {"OSD", c.startOSD}}
	if o.Gateway {
		steps = append(steps, step{"gateway", c.startGateway}, step{"S3 user", c.makeUser})
	}
	if o.FS {
		steps = append(steps, step{"MDS", c.startMDS}, step{"CephFS", c.makeFS})
	}
	ctx, cancel := context.WithTimeout(context.Background(), SetupBound)
	defer cancel()
	for _, s := range steps {
		at := time.Now()
		if err := s.fn(ctx); err != nil {
			if ctx.Err() != nil {
				err = fmt.Errorf("%v (set-up past %v)", err, SetupBound)
			}
			return c, fmt.Errorf("Ceph %s: %v", s.name, err)
		}
		c.Steps = append(c.Steps, fmt.Sprintf("%s %.1f s", s.name, time.Since(at).Seconds()))
	}
	c.Setup = time.Since(begin)
	return c, nil
}

// step is one step of start: a daemon and what it needs.
type step struct {
	name string
	fn   func(ctx context.Context) error
}

// rootPrefix begins the name of every cluster's directory, followed by
// the pid of the test process that owns it.
const rootPrefix = "storbench-ceph-"

// sweep removes the directories of clusters whose test process is gone
// (killed before its cleanup ran; its daemons died with it).
func sweep() {
	ents, _ := os.ReadDir(os.TempDir())
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), rootPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid <= 0 || syscall.Kill(pid, 0) == nil {
			continue
		}
		dir := filepath.Join(os.TempDir(), e.Name())
		_ = exec.Command("umount", "-l", dir).Run() // its tmpfs (mountTmpfs), if any
		_ = os.RemoveAll(dir)
	}
}

// configure writes ceph.conf: authentication off, pools of one copy, one
// OSD's BlueStore on a sparse file, and every path under Root.
func (c *Cluster) configure(context.Context) error {
	for _, d := range []string{"run", "log", "mon", "osd/0", "crash", "rgw", "mds/a"} {
		if err := os.MkdirAll(filepath.Join(c.Root, d), 0o755); err != nil {
			return err
		}
	}
	c.FSID = uuid()
	ports, err := c.claimPorts(2)
	if err != nil {
		return err
	}
	monPort := ports[0]
	c.rgwPort = ports[1]
	c.Mon = "v2:127.0.0.1:" + strconv.Itoa(monPort)
	if c.opts.Gateway {
		c.Endpoint = net.JoinHostPort("127.0.0.1", strconv.Itoa(c.rgwPort))
	}
	r := c.Root
	conf := fmt.Sprintf(confTemplate, c.FSID, c.Mon, r, r, r, r, r, r, r, r, r, c.rgwPort, r)
	if c.opts.FS {
		conf += fmt.Sprintf(mdsConf, r)
	}
	return os.WriteFile(c.Conf, []byte(conf), 0o644)
}

// confTemplate is ceph.conf: every path under Root, the monitor's
// cluster log included (/var/log/ceph/ceph.log by default). radosgw's own defaults (and radosgw-admin's)
// ask for cephx and a secure connection to the monitor whatever [global]
// says: [client] turns both off again, or the gateway retries its
// authentication forever. BlueStore's cache is fixed and small; deleted
// objects' tails are collected within seconds.
const confTemplate = `[global]
fsid = %s
mon_host = %s
public_addr = 127.0.0.1
cluster_addr = 127.0.0.1
auth_cluster_required = none
auth_service_required = none
auth_client_required = none
ms_mon_client_mode = crc
mon_allow_pool_size_one = true
mon_warn_on_pool_no_redundancy = false
osd_pool_default_size = 1
osd_pool_default_min_size = 1
osd_crush_chooseleaf_type = 0
osd_pool_default_pg_num = 8
osd_pool_default_pgp_num = 8
osd_pool_default_pg_autoscale_mode = off
run_dir = %s/run
admin_socket = %s/run/$name.asok
log_file = %s/log/$name.log
mon_cluster_log_file = default=%s/log/$cluster.$channel.log cluster=%s/log/$cluster.log
crash_dir = %s/crash
keyring = %s/keyring
mon_data = %s/mon/$id
osd_data = %s/osd/$id
[osd]
osd_objectstore = bluestore
bluestore_block_size = 21474836480
bluestore_fsck_on_mkfs = false
bluestore_cache_autotune = false
bluestore_cache_size = 67108864
osd_memory_target = 536870912
[client]
auth_client_required = none
ms_mon_client_mode = crc
rgw_frontends = beast endpoint=127.0.0.1:%d
rgw_data = %s/rgw
rgw_gc_obj_min_wait = 10
rgw_gc_processor_period = 10
rgw_gc_processor_max_time = 10
`

func uuid() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// claimPorts claims n loopback ports for the cluster's daemons until
// teardown (testutil.ClaimPort): below the kernel's range of outgoing
// connections' ports (the gateway binds its port 20-40 s after it was
// picked, and a port of that range, the kernel's pick for 127.0.0.1:0,
// was taken in between by a connection of this busy machine's, or was
// the monitor's), and claimed machine-wide, so that another test binary
// running at once (a radosgw test beside a CephFS one) never picks them
// in between.
func (c *Cluster) claimPorts(n int) ([]int, error) {
	var ports []int
	for range n {
		p, release, err := testutil.ClaimPort()
		if err != nil {
			return nil, err
		}
		c.releases = append(c.releases, release)
		ports = append(ports, p)
	}
	return ports, nil
}

// run runs a Ceph tool on the cluster (-c Conf first), bounded by ctx and
// by limit, and returns its standard output.
func (c *Cluster) run(ctx context.Context, limit time.Duration, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, append([]string{"-c", c.Conf}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		return out.String(), fmt.Errorf("%s %s: no answer in %v", name, strings.Join(args, " "), limit)
	}
	if err != nil {
		return out.String(), fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, lastLines(errb.String(), 3))
	}
	return out.String(), nil
}

// Ceph runs the ceph command on the cluster (bounded by 60 s) and
// returns its output; it fails t when the command fails.
func (c *Cluster) Ceph(t testing.TB, args ...string) string {
	t.Helper()
	out, err := c.run(context.Background(), time.Minute, "ceph", args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// startMon makes the monitor's store and starts it.
func (c *Cluster) startMon(ctx context.Context) error {
	keyring, monmap := filepath.Join(c.Root, "keyring"), filepath.Join(c.Root, "monmap")
	// ceph-mon --mkfs wants a keyring even with authentication off.
	if _, err := c.run(ctx, time.Minute, "ceph-authtool", "--create-keyring", keyring, "--gen-key", "-n", "mon.", "--cap", "mon", "allow *"); err != nil {
		return err
	}
	if _, err := c.run(ctx, time.Minute, "monmaptool", "--create", "--fsid", c.FSID, "--addv", "a", "["+c.Mon+"]", monmap); err != nil {
		return err
	}
	if _, err := c.run(ctx, time.Minute, "ceph-mon", "--mkfs", "-i", "a", "--monmap", monmap, "--keyring", keyring); err != nil {
		return err
	}
	return c.startDaemon("mon.a", "ceph-mon", "-f", "-i", "a")
}

// startOSD makes OSD 0's BlueStore (on the sparse file, with the monitor
// map, while the monitor starts), registers it with the monitor and
// starts it. It is up once the gateway's pools are made on it; the
// gateway's step waits for that.
func (c *Cluster) startOSD(ctx context.Context) error {
	id := uuid()
	c.osdID = id
	mkfs := make(chan error, 1)
	go func() {
		_, err := c.run(ctx, 2*time.Minute, "ceph-osd", "--mkfs", "-i", "0", "--osd-uuid", id, "--monmap", filepath.Join(c.Root, "monmap"))
		mkfs <- err
	}()
	_, err := c.run(ctx, time.Minute, "ceph", "--connect-timeout", "50", "osd", "new", id, "0")
	if merr := <-mkfs; merr != nil {
		return merr
	}
	if err != nil {
		return err
	}
	return c.startDaemon("osd.0", "ceph-osd", "-f", "-i", "0")
}

// startGateway starts radosgw and waits until it answers HTTP: it makes
// its pools first, which needs the OSD up.
func (c *Cluster) startGateway(ctx context.Context) error {
	if err := c.startDaemon("client.rgw.a", "radosgw", "-f", "-n", "client.rgw.a"); err != nil {
		return err
	}
	cl := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	for {
		resp, err := cl.Get("http://" + c.Endpoint + "/")
		if err == nil {
			resp.Body.Close()
			return nil
		}
		if ended := c.ended(); ended != "" {
			return fmt.Errorf("%s ended while the gateway started; its log: %s", ended, c.logTail(ended))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the gateway did not answer on %s (%v); its log: %s", c.Endpoint, err, c.logTail("client.rgw.a"))
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// makeUser makes the gateway's S3 user with the test keys.
func (c *Cluster) makeUser(ctx context.Context) error {
	_, err := c.run(ctx, time.Minute, "radosgw-admin", "user", "create", "--uid", "storbench", "--display-name", "storbench tests",
		"--access-key", s3test.AccessKey, "--secret-key", s3test.SecretKey)
	return err
}

// S3 is the gateway as the S3 tests know a server (with Options.Gateway).
func (c *Cluster) S3() *s3test.Server { return s3test.Remote(c.Endpoint) }

// startDaemon starts a daemon in the foreground. Its output goes to a file
// under Root/log (the daemon logs there too); the kernel kills it should
// the test process die (the thread that starts it lives as long as the
// process: Go ends none of its threads but locked ones).
func (c *Cluster) startDaemon(name, bin string, args ...string) error {
	out, err := os.Create(filepath.Join(c.Root, "log", name+".out"))
	if err != nil {
		return err
	}
	defer out.Close()
	cmd := exec.Command(bin, append([]string{"-c", c.Conf}, args...)...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return err
	}
	d := &daemon{name: name, cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(d.done) }()
	c.daemons = append(c.daemons, d)
	return nil
}

// ended names a daemon that has exited ("" when all run).
func (c *Cluster) ended() string {
	for _, d := range c.daemons {
		select {
		case <-d.done:
			return d.name
		default:
		}
	}
	return ""
}

// logTail is the last lines of a daemon's log and output.
func (c *Cluster) logTail(name string) string {
	var b strings.Builder
	for _, f := range []string{name + ".log", name + ".out"} {
		text, _ := os.ReadFile(filepath.Join(c.Root, "log", f))
		b.WriteString(lastLines(string(text), 5))
	}
	return b.String()
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// stopGrace is how long a daemon has to end after SIGTERM before SIGKILL:
// an OSD may still run 3 s after it.
const stopGrace = 10 * time.Second

// teardown stops the daemons (stopDaemons), removes Root, and says what
// is still there.
func (c *Cluster) teardown() error {
	c.stopDaemons()
	if c.unlock != nil {
		defer c.unlock()
	}
	for _, release := range c.releases {
		release()
	}
	if c.tmpfs {
		if out, err := exec.Command("umount", c.Root).CombinedOutput(); err != nil {
			_ = exec.Command("umount", "-l", c.Root).Run()
			return fmt.Errorf("Ceph teardown: umount %s: %v: %s", c.Root, err, out)
		}
	}
	if c.Root != "" {
		if err := os.RemoveAll(c.Root); err != nil {
			return fmt.Errorf("Ceph teardown: %v", err)
		}
	}
	if left := c.leftovers(); len(left) > 0 {
		return fmt.Errorf("Ceph teardown left behind: %s", strings.Join(left, "; "))
	}
	return nil
}

// stopDaemons stops the daemons, the last started first (the gateway
// ends while the OSD and the monitor still answer it), each given
// stopGrace after SIGTERM. A cluster on a tmpfs of its own (a CephFS one)
// has them all killed at once (SIGKILL) instead: everything they would
// write on the way out is in the tmpfs, which the teardown unmounts next,
// and an MDS, an OSD and a monitor each ending in turn took 6.5 s of the
// CephFS test's budget on the loaded test machine.
func (c *Cluster) stopDaemons() {
	if !c.tmpfs {
		for i := len(c.daemons) - 1; i >= 0; i-- {
			c.daemons[i].stop()
		}
		return
	}
	for _, d := range c.daemons {
		_ = d.cmd.Process.Kill()
	}
	for _, d := range c.daemons {
		<-d.done
	}
}

// stop sends the daemon SIGTERM, waits for it to end, and kills it
// after stopGrace.
func (d *daemon) stop() {
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.done:
	case <-time.After(stopGrace):
		_ = d.cmd.Process.Kill()
		<-d.done
	}
}

// leftovers lists what of the cluster is still there: processes whose
// command line names Root, Root itself.
func (c *Cluster) leftovers() []string {
	var left []string
	if c.Root == "" {
		return nil
	}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(b, []byte(c.Root)) && !zombie(pid) {
			left = append(left, fmt.Sprintf("process %d (%s)", pid, bytes.ReplaceAll(bytes.TrimRight(b, "\x00"), []byte{0}, []byte{' '})))
		}
	}
	if _, err := os.Stat(c.Root); err == nil {
		left = append(left, c.Root)
	}
	for p := range systemTraces() {
		if c.before != nil && !c.before[p] && c.names(p) {
			left = append(left, p)
		}
	}
	return left
}

// systemDirs are where Ceph's daemons and tools write by default; the
// configuration moves all of it under Root, and the teardown checks
// nothing of this cluster's appeared there.
var systemDirs = []string{"/var/log/ceph", "/var/run/ceph", "/run/ceph", "/var/lib/ceph", "/etc/ceph"}

// names says whether path is this cluster's: its name or its first MiB
// holds the cluster's id or its OSD's (the monitor's cluster log names
// the first, its audit log the second), so another cluster's files
// (another test's, run at the same time) are not taken for this one's.
func (c *Cluster) names(path string) bool {
	var ids [][]byte
	for _, id := range []string{c.FSID, c.osdID} {
		if id != "" {
			if strings.Contains(path, id) {
				return true
			}
			ids = append(ids, []byte(id))
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, 1<<20)
	n, _ := io.ReadFull(f, b)
	for _, id := range ids {
		if bytes.Contains(b[:n], id) {
			return true
		}
	}
	return false
}

// systemTraces lists the files and directories under systemDirs.
func systemTraces() map[string]bool {
	seen := map[string]bool{}
	for _, d := range systemDirs {
		_ = filepath.WalkDir(d, func(p string, _ fs.DirEntry, err error) error {
			if err == nil {
				seen[p] = true
			}
			return nil
		})
	}
	return seen
}

func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return strings.HasPrefix(rest, "Z")
}
