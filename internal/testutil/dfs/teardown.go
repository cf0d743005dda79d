package gluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// teardown removes everything Start made, in the order that leaves
// nothing: agents first (a client process stays alive while another
// mount namespace still holds a copy of its mount), then the mounts, the
// client processes by pid, the volume, every process still naming Root
// or the volume (bricks, self-heal daemon), glusterd, the files GlusterFS
// keeps under /var/run/gluster and /var/log/glusterfs for this volume,
// and Root. What is still there at the end fails the test.
func (c *Cluster) teardown() {
	c.stopAgents()
	if c.net != nil {
		c.net.remove()
	}
	for _, mp := range c.Mounts {
		if err := bounded(30*time.Second, "umount", mp); err != nil {
			_ = bounded(10*time.Second, "umount", "-l", mp)
		}
	}
	for _, pid := range c.clients {
		stopPid(pid, 5*time.Second)
	}
	if c.glusterd != nil {
		_, _ = c.gluster(time.Minute, "volume", "stop", c.Volume, "force")
		_, _ = c.gluster(time.Minute, "volume", "delete", c.Volume)
		for _, pid := range c.ours() {
			stopPid(pid, 5*time.Second)
		}
		_ = c.glusterd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = c.glusterd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = c.glusterd.Process.Kill()
			<-done
		}
	}
	for _, pid := range c.ours() {
		stopPid(pid, 5*time.Second)
	}
	_ = os.RemoveAll(filepath.Join("/var/run/gluster/vols", c.Volume))
	_ = os.RemoveAll(filepath.Join("/var/run/gluster/shd", c.Volume))
	for i := range 2 {
		log := strings.ReplaceAll(strings.TrimPrefix(c.Brick(i), "/"), "/", "-") + ".log"
		_ = os.Remove(filepath.Join("/var/log/glusterfs/bricks", log))
	}
	if c.Root != "" {
		if err := os.RemoveAll(c.Root); err != nil {
			c.t.Errorf("teardown: %v", err)
		}
	}
	if left := c.leftovers(); len(left) > 0 {
		c.t.Errorf("teardown left behind: %s", strings.Join(left, "; "))
	}
}

// leftovers lists what of the cluster is still there: mounts under Root,
// processes naming Root or the volume, Root itself.
func (c *Cluster) leftovers() []string {
	var left []string
	if b, err := os.ReadFile("/proc/self/mountinfo"); err == nil && c.Root != "" && strings.Contains(string(b), c.Root) {
		left = append(left, "a mount under "+c.Root)
	}
	for _, pid := range c.ours() {
		left = append(left, fmt.Sprintf("process %d", pid))
	}
	if c.glusterd != nil && c.glusterd.ProcessState == nil {
		left = append(left, "glusterd")
	}
	if _, err := os.Stat(c.Root); err == nil {
		left = append(left, c.Root)
	}
	return left
}

// ours lists the processes whose command line names Root or the volume:
// the bricks and the self-heal daemon glusterd started, and any client
// still alive. Nothing else on the machine is matched.
func (c *Cluster) ours() []int {
	if c.Root == "" {
		return nil
	}
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		cl := string(b)
		if c.glusterd != nil && c.glusterd.Process != nil && pid == c.glusterd.Process.Pid {
			continue // stopped apart, as our child
		}
		if zombie(pid) {
			continue // gone; its parent reaps it
		}
		if strings.Contains(cl, c.Root) || strings.Contains(cl, "\x00shd/"+c.Volume+"\x00") || strings.Contains(cl, "--volfile-id\x00"+c.Volume+".") {
			pids = append(pids, pid)
		}
	}
	return pids
}

// stopPid ends pid: SIGTERM, then SIGKILL when it is still there after
// grace.
func stopPid(pid int, grace time.Duration) {
	if syscall.Kill(pid, syscall.SIGTERM) != nil {
		return
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		if syscall.Kill(pid, 0) != nil || zombie(pid) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
}

func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return strings.HasPrefix(rest, "Z")
}

// bounded runs a command with a time bound.
func bounded(d time.Duration, name string, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return exec.CommandContext(ctx, name, args...).Run()
}
