package cluster_test

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/testutil"
)

// Issue 37: an agent a launcher started for one run (--stdin, as ssh and
// srun start it) whose stdin stays open after its controller died
// mid-phase (srun gone and slurmstepd left holding the tasks' stdin: the
// issue's agents were alive 4 minutes after their test) stops the phase,
// waits for a controller to come back (orphanAfter, which it names), and
// when none comes ends after that wait, within testutil.Bound. A
// controller that comes back in the wait is served: the agent then ends
// only after the wait that follows its last loss.
func TestLaunchedAgentEndsWhenItsControllerIsGone(t *testing.T) {
	t.Parallel()
	bin := testutil.StorbenchBin(t)
	dir := t.TempDir()
	const token = "sb-test-token-0123456789"
	tok := filepath.Join(dir, "token")
	if err := os.WriteFile(tok, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	_ = os.Mkdir(data, 0o755)
	addr := freeAddr(t)
	agent := exec.Command(bin, "agent", "--stdin", "--listen", addr)
	stdin, err := agent.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var log testutil.Buffer
	agent.Stdout, agent.Stderr = &log, &log
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	gone := make(chan struct{})
	var exited time.Time
	go func() { _ = agent.Wait(); exited = time.Now(); close(gone) }()
	t.Cleanup(func() {
		_ = agent.Process.Kill()
		<-gone
		stdin.Close()
		if t.Failed() {
			t.Logf("agent log:\n%s", log.String())
		}
	})
	// The token and no keys; stdin then stays open, as slurmstepd keeps it.
	if _, err := io.WriteString(stdin, token+"\n\n"); err != nil {
		t.Fatal(err)
	}
	if !log.WaitFor("listening on", testutil.Bound) {
		t.Fatalf("the agent did not start:\n%s", log.String())
	}
	md := func(n string) (*exec.Cmd, *testutil.Buffer) {
		cmd := exec.Command(bin, "md", "-d", data, "-n", n, "-F", "--agents", addr, "--token-file", tok, "--results", filepath.Join(dir, "results"))
		var out testutil.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, &out
	}
	// killMidPhase starts a controller and kills it (SIGKILL) once the live
	// line shows files being created; it returns when.
	killMidPhase := func() time.Time {
		cmd, out := md("1000000")
		if !out.WaitFor("file-create ", testutil.Bound) {
			_ = cmd.Process.Kill()
			t.Fatalf("no load:\n%s", out)
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return time.Now()
	}
	stops := func() int { return strings.Count(log.String(), "stopping the phase") }
	waitStops := func(n int) {
		for deadline := time.Now().Add(testutil.Bound); stops() < n; time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the agent did not stop its phase after its controller died")
			}
		}
	}

	killMidPhase()
	waitStops(1)
	// A controller comes back: once the agent's cleanup of the phase
	// ended (it says it is busy until then), it is served.
	for deadline := time.Now().Add(testutil.Bound); ; time.Sleep(200 * time.Millisecond) {
		cmd, out := md("20")
		code := exitCode(cmd.Wait())
		if code == 0 {
			break
		}
		if !strings.Contains(out.String(), "(stopping)") || time.Now().After(deadline) {
			t.Fatalf("a controller that came back: exit %d\n%s", code, out)
		}
	}
	lost := killMidPhase()
	waitStops(2)
	waitsRE := regexp.MustCompile(`it ends unless a controller comes within (\S+)`)
	var waits [][]string
	for deadline := time.Now().Add(testutil.Bound); len(waits) < 2; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the agent said %d times that it waits for a controller, want once a loss:\n%s", len(waits), log.String())
		}
		waits = waitsRE.FindAllStringSubmatch(log.String(), -1)
	}
	wait, err := time.ParseDuration(waits[1][1])
	if err != nil {
		t.Fatal(err)
	}
	testutil.Recv(t, gone, time.Until(lost.Add(wait+testutil.Bound)), "the agent's end after its controller died (stdin open)")
	if n := len(waitsRE.FindAllString(log.String(), -1)); n != 2 {
		t.Errorf("the agent said %d times that it waits for a controller, want once for each of the 2 losses:\n%s", n, log.String())
	}
	if !strings.Contains(log.String(), "no controller came within "+waits[1][1]+" of losing it: ending") {
		t.Errorf("the agent ended without saying why:\n%s", log.String())
	}
	t.Logf("the controller killed -> the agent ended: %.1f s (it waits %v)", exited.Sub(lost).Seconds(), wait)
	if exited.Before(lost.Add(wait)) {
		t.Errorf("the agent ended %v after its last controller died, before its wait of %v (the first loss's wait, though a controller came back?)", exited.Sub(lost).Round(time.Millisecond), wait)
	}
}
