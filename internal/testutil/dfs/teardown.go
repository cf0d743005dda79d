package dfs

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// teardown removes everything Start made, in the order that leaves
// nothing: the controls, the agents (a FUSE client process stays alive
// while another mount namespace still holds a copy of its mount) and
// their network namespaces, then the mounts, the client processes by pid,
// the servers (FS.Stop), every process still naming Root, the servers'
// network namespaces, Root's tmpfs, and Root. What is still there at the end fails the
// test. It returns how long each step took, for the log.
func (c *Cluster) teardown() string {
	var steps []string
	at := time.Now()
	step := func(name string) {
		steps = append(steps, fmt.Sprintf("%s %.1f s", name, time.Since(at).Seconds()))
		at = time.Now()
	}
	c.stopControls()
	c.stopAgents()
	if c.net != nil {
		c.net.remove()
	}
	step("agents")
	var wg sync.WaitGroup
	for _, mp := range c.Mounts {
		wg.Go(func() {
			if err := Bounded(30*time.Second, "umount", mp); err != nil {
				_ = Bounded(10*time.Second, "umount", "-l", mp)
			}
		})
	}
	wg.Wait()
	step("mounts")
	StopPids(c.clients, 5*time.Second)
	step("clients")
	c.FS.Stop(c)
	step("servers")
	StopPids(c.Ours(), 5*time.Second)
	for _, sn := range c.serverNets {
		sn.remove()
	}
	step("processes")
	if c.tmpfs {
		if err := Bounded(30*time.Second, "umount", c.Root); err != nil {
			_ = Bounded(10*time.Second, "umount", "-l", c.Root)
		}
	}
	if c.Root != "" {
		if err := os.RemoveAll(c.Root); err != nil {
			c.t.Errorf("teardown: %v", err)
		}
	}
	if left := c.leftovers(); len(left) > 0 {
		c.t.Errorf("teardown left behind: %s", strings.Join(left, "; "))
	}
	step("files")
	return strings.Join(steps, ", ")
}

// leftovers lists what of the cluster is still there: mounts under Root,
// processes naming Root, network namespaces and links, what the file
// system names, Root itself.
func (c *Cluster) leftovers() []string {
	var left []string
	if b, err := os.ReadFile("/proc/self/mountinfo"); err == nil && c.Root != "" && strings.Contains(string(b), c.Root) {
		left = append(left, "a mount under "+c.Root)
	}
	for _, pid := range c.Ours() {
		left = append(left, fmt.Sprintf("process %d (%s)", pid, cmdline(pid)))
	}
	if c.net != nil {
		left = append(left, c.net.left()...)
	}
	for _, sn := range c.serverNets {
		left = append(left, sn.left()...)
	}
	left = append(left, c.FS.Leftovers(c)...)
	if _, err := os.Stat(c.Root); err == nil {
		left = append(left, c.Root)
	}
	return left
}

// Ours lists the live processes whose command line names Root: servers,
// clients, anything started on the cluster's files. Nothing else on the
// machine is matched.
func (c *Cluster) Ours() []int {
	if c.Root == "" {
		return nil
	}
	return Processes(func(cl string) bool { return strings.Contains(cl, c.Root) })
}

// Processes lists the live processes (zombies left out) other than this
// one whose command line (its arguments joined by NUL bytes) match says
// is one.
func Processes(match func(cmdline string) bool) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || Zombie(pid) {
			continue
		}
		if match(string(b)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func cmdline(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
}

// StopPid ends pid: SIGTERM, then SIGKILL when it is still there after
// grace.
func StopPid(pid int, grace time.Duration) { StopPids([]int{pid}, grace) }

// StopPids ends the processes together: SIGTERM to each, then SIGKILL to
// those still there after grace, so that n slow ones cost one grace, not
// n (three mfsmount clients, each 5 s slow to end after its umount on the
// loaded test machine, took 6 s of a teardown one after another).
func StopPids(pids []int, grace time.Duration) {
	var live []int
	for _, pid := range pids {
		if syscall.Kill(pid, syscall.SIGTERM) == nil {
			live = append(live, pid)
		}
	}
	deadline := time.Now().Add(grace)
	for len(live) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		live = slices.DeleteFunc(live, func(pid int) bool { return syscall.Kill(pid, 0) != nil || Zombie(pid) })
	}
	for _, pid := range live {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// Zombie says pid is gone or a zombie its parent has yet to reap.
func Zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return strings.HasPrefix(rest, "Z")
}

// Bounded runs a command with a time bound.
func Bounded(d time.Duration, name string, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return exec.CommandContext(ctx, name, args...).Run()
}

// WaitPid waits for a pid file to hold a pid, at most within; 0 when it
// does not.
func WaitPid(file string, within time.Duration) int {
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

// WaitMounted waits until something is mounted at mp (in this mount
// namespace) and answers statfs, at most within; gone, when not nil,
// ends the wait early when it is closed (the client process ended).
func WaitMounted(mp string, within time.Duration, gone <-chan struct{}) error {
	deadline := time.Now().Add(within)
	for {
		var st syscall.Statfs_t
		if IsMountPoint(mp) && syscall.Statfs(mp, &st) == nil {
			return nil
		}
		select {
		case <-gone:
			return fmt.Errorf("the client ended before %s was mounted", mp)
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s is not mounted after %v", mp, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// IsMountPoint says whether something is mounted at p in this mount
// namespace.
func IsMountPoint(p string) bool {
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
