package ceph

// CephFS on the test cluster (Options.FS): a metadata server and a file
// system on two pools of the one OSD, mounted by ceph-fuse (the kernel
// here has no ceph module).

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// mdsConf is ceph.conf's part for CephFS (Options.FS): the MDS's data
// under Root, and a monitor that makes a change to its maps public at
// once (every 0.1 s, 1 s by default) and looks at its daemons every
// second (5 s): an MDS started again goes through four states, each a
// change of the map (replay, reconnect, rejoin, active), and was active
// 5-9 s after its start, 3-4 s now. A client's admin socket and log are
// named by its name (ceph-fuse -n client.fuseN), one each.
const mdsConf = `[mds]
mds_data = %s/mds/$id
[mon]
paxos_propose_interval = 0.1
mon_tick_interval = 1
`

// FSName is the file system's name.
const FSName = "cephfs"

// startMDS starts the metadata server mds.a; it is standby until a file
// system needs it (makeFS).
func (c *Cluster) startMDS(context.Context) error {
	return c.startDaemon("mds.a", "ceph-mds", "-f", "-i", "a")
}

// makeFS makes the metadata and data pools and the file system on them,
// and waits until mds.a is active for it.
func (c *Cluster) makeFS(ctx context.Context) error {
	for _, pool := range []string{FSName + "_metadata", FSName + "_data"} {
		if _, err := c.run(ctx, time.Minute, "ceph", "osd", "pool", "create", pool, "8"); err != nil {
			return err
		}
	}
	if _, err := c.run(ctx, time.Minute, "ceph", "fs", "new", FSName, FSName+"_metadata", FSName+"_data"); err != nil {
		return err
	}
	return c.waitMDSActive(ctx)
}

// waitMDSActive waits until the MDS is active (`ceph mds stat`), bounded
// by ctx.
func (c *Cluster) waitMDSActive(ctx context.Context) error {
	for {
		out, err := c.run(ctx, 30*time.Second, "ceph", "mds", "stat")
		if err == nil && strings.Contains(out, "up:active") {
			return nil
		}
		if ended := c.ended(); ended != "" {
			return fmt.Errorf("%s ended while the MDS started; its log: %s", ended, c.logTail(ended))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the MDS is not active (%q, %v); its log: %s", strings.TrimSpace(out), err, c.logTail("mds.a"))
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// mds is the MDS daemon, the last started.
func (c *Cluster) mds() *daemon {
	for i := len(c.daemons) - 1; i >= 0; i-- {
		if c.daemons[i].name == "mds.a" {
			return c.daemons[i]
		}
	}
	return nil
}

// Mount starts ceph-fuse for client name (client.NAME: its own admin
// socket and log under Root) mounted at mp, in the foreground, and
// returns it once the mount answers; done is closed when it ends. The
// caller unmounts mp and then stops it.
func (c *Cluster) Mount(name, mp string) (cmd *exec.Cmd, done chan struct{}, err error) {
	out, err := os.Create(filepath.Join(c.Root, "log", "client."+name+".out"))
	if err != nil {
		return nil, nil, err
	}
	cmd = exec.Command("ceph-fuse", "-f", "-c", c.Conf, "-n", "client."+name, mp)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		out.Close()
		return nil, nil, err
	}
	done = make(chan struct{})
	go func() { _ = cmd.Wait(); out.Close(); close(done) }()
	return cmd, done, nil
}

// StopMDS kills the MDS (SIGKILL, as a crash) and waits for it to end:
// the file system has no metadata server until StartMDS, and the monitor
// hands its rank to the next MDS of its name that starts. Ended by
// SIGTERM, it takes 4-6 s to hand its rank back first.
func (c *Cluster) StopMDS() error {
	d := c.mds()
	if d == nil {
		return fmt.Errorf("the cluster has no MDS (Options.FS)")
	}
	_ = d.cmd.Process.Kill()
	<-d.done
	c.daemons = slices.DeleteFunc(c.daemons, func(x *daemon) bool { return x == d })
	return nil
}

// StartMDS starts the MDS again after StopMDS, and returns once the
// monitor has made it active for the file system again.
func (c *Cluster) StartMDS() error {
	// A daemon ended by SIGKILL leaves its admin socket, which the new
	// one could not bind.
	_ = os.Remove(filepath.Join(c.Root, "run", "mds.a.asok"))
	if err := c.startDaemon("mds.a", "ceph-mds", "-f", "-i", "a"); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return c.waitMDSActive(ctx)
}
