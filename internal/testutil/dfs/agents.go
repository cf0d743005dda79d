package dfs

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/storbench/storbench/internal/s3test"
	"github.com/storbench/storbench/internal/testutil"
)

// agent is one `storbench agent` process.
type agent struct {
	cmd  *exec.Cmd
	done chan struct{}
	mu   sync.Mutex
	log  []string
}

func (a *agent) lines() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.log...)
}

// startAgents starts one agent per client: in a mount namespace of its
// own (private propagation) where its client's mount is bound at Dir,
// and in a network namespace of its own where those work.
func (c *Cluster) startAgents() {
	t := c.t
	c.Dir = filepath.Join(c.Root, "shared")
	if err := os.Mkdir(c.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	c.Token = filepath.Join(c.Root, "token")
	var b [16]byte
	_, _ = rand.Read(b[:])
	if err := os.WriteFile(c.Token, []byte("sbt-"+hex.EncodeToString(b[:])+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if !c.opts.Loopback {
		c.net = newNetns(c.opts.Agents)
		c.NetNS = c.net != nil
	}
	for i := range c.opts.Agents {
		addr, wrap := c.agentAddr(i)
		inner := fmt.Sprintf(`mount --bind %q %q && exec "$@"`, c.Mounts[i], c.Dir)
		args := append(wrap, "unshare", "--mount", "--propagation", "private", "sh", "-c", inner, "sh",
			c.Bin, "agent", "--listen", addr, "--token-file", c.Token)
		a := c.startAgent(args)
		c.agents = append(c.agents, a)
		c.Agents = append(c.Agents, addr)
	}
	for i, a := range c.agents {
		if err := waitLine(a, "listening on", 20*time.Second); err != nil {
			t.Fatalf("agent %d: %v:\n%s", i, err, strings.Join(a.lines(), "\n"))
		}
	}
}

// agentAddr is agent i's listen address and the command prefix that runs
// it in its network namespace (none on loopback).
func (c *Cluster) agentAddr(i int) (string, []string) {
	if c.net != nil {
		return c.net.addrs[i] + ":7761", []string{"ip", "netns", "exec", c.net.names[i]}
	}
	// Claimed, not a port of 127.0.0.1:0 closed again, which another
	// process could take before the agent binds it (testutil.ClaimAddr).
	return testutil.ClaimAddr(c.t), nil
}

func (c *Cluster) startAgent(args []string) *agent {
	cmd := exec.Command(args[0], args[1:]...)
	// The S3 test server's throwaway keys (s3test), for phases against
	// gateways the tests start: agents hold the keys, as deployed ones do.
	cmd.Env = append(os.Environ(), "STORBENCH_ACCESS_KEY="+s3test.AccessKey, "STORBENCH_SECRET_KEY="+s3test.SecretKey)
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	a := &agent{cmd: cmd, done: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			a.mu.Lock()
			a.log = append(a.log, sc.Text())
			a.mu.Unlock()
		}
	}()
	go func() { _ = cmd.Wait(); pw.Close(); close(a.done) }()
	return a
}

func waitLine(a *agent, s string, within time.Duration) error {
	deadline := time.After(within)
	for {
		for _, l := range a.lines() {
			if strings.Contains(l, s) {
				return nil
			}
		}
		select {
		case <-a.done:
			return fmt.Errorf("ended before printing %q", s)
		case <-deadline:
			return fmt.Errorf("did not print %q within %v", s, within)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// InAgent is a command that runs in agent i's mount namespace (it sees
// its own client at Dir) and, with NetNS, its network namespace (it
// listens on AgentHost(i)).
func (c *Cluster) InAgent(i int, name string, args ...string) *exec.Cmd {
	ns := []string{"-t", strconv.Itoa(c.AgentPid(i)), "-m"}
	if c.NetNS {
		ns = append(ns, "-n")
	}
	return exec.Command("nsenter", append(append(ns, "--", name), args...)...)
}

// AgentHost is agent i's address, without the port.
func (c *Cluster) AgentHost(i int) string {
	h, _, _ := net.SplitHostPort(c.Agents[i])
	return h
}

// AgentLog is what agent i printed so far.
func (c *Cluster) AgentLog(i int) string { return strings.Join(c.agents[i].lines(), "\n") }

// AgentPid is agent i's process (its namespaces' first process: unshare
// execs sh, which execs the agent, so /proc/PID/root is its view).
func (c *Cluster) AgentPid(i int) int { return c.agents[i].cmd.Process.Pid }

// stopAgents ends every agent: SIGTERM, SIGKILL after 10 s. An agent's
// mount namespace goes with it, and with it the last copy of its client's
// mount besides Mounts[i].
func (c *Cluster) stopAgents() {
	for _, a := range c.agents {
		_ = a.cmd.Process.Signal(syscall.SIGTERM)
	}
	for _, a := range c.agents {
		select {
		case <-a.done:
		case <-time.After(10 * time.Second):
			_ = a.cmd.Process.Kill()
			<-a.done
		}
	}
}

// Run runs the storbench binary as the controller against every agent,
// with the cluster's token, results under Root/results unless args name
// --results, and no catalog (a test's runs are no user's), and returns
// its exit code and output; ctx bounds it. Args naming --hostfile or
// --agents-file name the agents themselves.
func (c *Cluster) Run(ctx context.Context, args ...string) (int, string) {
	c.t.Helper()
	full := append(append([]string{}, args...), "--token-file", c.Token)
	if !contains(args, "--hostfile") && !contains(args, "--agents-file") {
		full = append(full, "--agents", strings.Join(c.Agents, ","))
	}
	if !contains(args, "--results") {
		full = append(full, "--results", filepath.Join(c.Root, "results"))
	}
	cmd := exec.CommandContext(ctx, c.Bin, full...)
	cmd.Env = append(os.Environ(), "STORBENCH_CATALOG=off")
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		c.t.Fatalf("storbench %s: %v", strings.Join(args, " "), err)
	}
	return code, string(out)
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
