package s3_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/s3test"
	"github.com/storbench/storbench/internal/testutil"
)

// stopMargin is what a loaded machine may add to a bound on how soon a
// process reacts to a signal.
const stopMargin = 3 * time.Second

// proc is a storbench process a test signals.
type proc struct {
	cmd  *exec.Cmd
	out  *testutil.Buffer
	done chan struct{} // closed when it exited, err set
	err  error
}

// started runs `storbench s3 ...` with the test server's keys; the test's
// cleanup kills it if it still runs.
func started(t *testing.T, bin string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(bin, append(append([]string{"s3"}, args...), "--results", t.TempDir())...), out: &testutil.Buffer{}, done: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), "STORBENCH_ACCESS_KEY="+s3test.AccessKey, "STORBENCH_SECRET_KEY="+s3test.SecretKey)
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

// waitFor polls cond until it holds or within passes.
func waitFor(within time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

// ended waits up to within for the process to end and returns its exit
// code, or -1 when it did not.
func (p *proc) ended(within time.Duration) int {
	select {
	case <-p.done:
		if ee, ok := p.err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		if p.err != nil {
			return -2
		}
		return 0
	case <-time.After(within):
		return -1
	}
}

// SIGTERM while the list phase's workers page through a listing that never
// ends, each page new (a FAKE, as in TestListingThatRepeatsEnds: nothing
// tells it from a bucket without end, so only the signal can end it): the
// command ends within about 2 s, interrupted, its cleanup (whose listings
// versitygw answers) done. Before, the page loop never looked at the
// stop, and only SIGKILL ended it.
func TestSignalEndsEndlessListing(t *testing.T) {
	srv := s3test.StartT(t, s3test.Options{})
	px := s3test.StartStallProxy(t, srv.Endpoint)
	px.LoopOnly(regexp.MustCompile(`/w[0-9]+/$`).MatchString)
	px.Set(s3test.EndlessListings)
	p := started(t, testutil.StorbenchBin(t), "list", "--host", px.Endpoint, "--bucket", "endless", "--objects", "20",
		"--concurrent", "2", "--duration", "5m")
	if !waitFor(60*time.Second, func() bool { return px.Listings.Load() > 100 }) {
		t.Fatalf("the workers did not list:\n%s", p.out)
	}
	t0 := time.Now()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	code := p.ended(2*time.Second + stopMargin)
	if code != 130 {
		t.Fatalf("exit %d %v after SIGTERM, want 130 within %v:\n%s", code, time.Since(t0).Round(time.Millisecond), 2*time.Second+stopMargin, p.out)
	}
	if !strings.Contains(p.out.String(), "stopping the load") {
		t.Errorf("no line says the run is stopping:\n%s", p.out)
	}
	if ents, _ := os.ReadDir(filepath.Join(srv.Root, "endless")); len(ents) != 0 {
		t.Errorf("the bucket holds %d entries", len(ents))
	}
}

// SIGTERM while the server hangs (every request swallowed, through the
// stall proxy in front of versitygw): within about 2 s the load stops and
// a line says the run is cleaning up (bounded); the cleanup then waits on
// the hung server for its request bound, and a second SIGTERM ends the
// command at once, exit 130, saying what that leaves. Before, nothing was
// said, and the second signal was ignored like the first.
func TestSecondSignalEndsCleanupAtOnce(t *testing.T) {
	srv := s3test.StartT(t, s3test.Options{})
	px := s3test.StartStallProxy(t, srv.Endpoint)
	p := started(t, testutil.StorbenchBin(t), "get", "--host", px.Endpoint, "--bucket", "hung", "--objects", "20",
		"--obj.size", "4KiB", "--concurrent", "2", "--duration", "5m")
	if !waitFor(60*time.Second, func() bool { return strings.Contains(p.out.String(), "[s3-get]") }) {
		t.Fatalf("the load did not start:\n%s", p.out)
	}
	px.Set(s3test.MuteAll)
	t0 := time.Now()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	if !waitFor(2*time.Second+stopMargin, func() bool { return strings.Contains(p.out.String(), "stopping the load") }) {
		t.Fatalf("no line says the run stops, %v after SIGTERM:\n%s", time.Since(t0).Round(time.Millisecond), p.out)
	}
	// The load is stopped: the phase's figures are in, and the cleanup
	// waits on the server.
	if code := p.ended(2 * time.Second); code != -1 {
		t.Fatalf("exit %d before the second signal: the cleanup did not wait on the hung server (the test tests nothing):\n%s", code, p.out)
	}
	t1 := time.Now()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	if code := p.ended(2*time.Second + stopMargin); code != 130 {
		t.Fatalf("exit %d %v after the second SIGTERM, want 130 at once:\n%s", code, time.Since(t1).Round(time.Millisecond), p.out)
	}
	if !strings.Contains(p.out.String(), "a second signal (SIGTERM): ending at once") {
		t.Errorf("the second signal's line is missing:\n%s", p.out)
	}
}
