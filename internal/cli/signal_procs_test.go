package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/testutil"
)

// SIGTERM to a run whose --live is a FIFO nobody reads: the run ends
// within about 2 s, interrupted (exit 130), with its results folder.
// Before, it blocked for good opening the FIFO, deaf to SIGTERM: only
// SIGKILL ended it.
func TestSignalEndsRunWithLiveFIFO(t *testing.T) {
	needFio(t)
	bin := testutil.StorbenchBin(t)
	dir := t.TempDir()
	fifo, job := filepath.Join(dir, "live"), filepath.Join(dir, "long.fio")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // a reader, so a failing run is not left blocked
		if f, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	if err := os.WriteFile(job, []byte("[long]\nrw=read\nbs=4k\nsize=1m\ntime_based=1\nruntime=300\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "fio", "-d", t.TempDir(), "-w", job, "--results", t.TempDir(), "--live", fifo)
	var out testutil.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var err error
	go func() { err = cmd.Wait(); close(done) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-done })
	for deadline := time.Now().Add(60 * time.Second); !strings.Contains(out.String(), "results in") && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
	}
	time.Sleep(time.Second) // the phase starts, or blocks on the FIFO
	t0 := time.Now()
	_ = cmd.Process.Signal(syscall.SIGTERM)
	const within = 2*time.Second + 3*time.Second // the bound, and a loaded machine's margin
	select {
	case <-done:
	case <-time.After(within):
		t.Fatalf("still running %v after SIGTERM:\n%s", within, out.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit %d (%v, %v after SIGTERM), want 130:\n%s", code, err, time.Since(t0).Round(time.Millisecond), out.String())
	}
}

// startedFio runs `storbench fio` with a job that reads a 1 MiB file for
// five minutes under a new DIR, through run when given (a command and
// its arguments to put before storbench's), and waits until the load
// runs (a --live line came): a signal then finds fio's file to clean up,
// and stopping the load takes storbench a while. It returns the command,
// its output, DIR, and a channel closed when it exited.
func startedFio(t *testing.T, run ...string) (cmd *exec.Cmd, out *testutil.Buffer, dir string, done chan struct{}) {
	t.Helper()
	needFio(t)
	dir = t.TempDir()
	job := filepath.Join(t.TempDir(), "long.fio")
	if err := os.WriteFile(job, []byte("[long]\nrw=read\nbs=4k\nsize=1m\ntime_based=1\nruntime=300\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	live := filepath.Join(t.TempDir(), "live")
	args := append(run, testutil.StorbenchBin(t), "fio", "-d", dir, "-w", job, "--results", t.TempDir(), "--no-catalog", "--live", live)
	cmd = exec.Command(args[0], args[1:]...)
	out = &testutil.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done = make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-done })
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if b, _ := os.ReadFile(live); bytes.Contains(b, []byte("\n")) && fioFileIn(dir) {
			break
		}
		select {
		case <-done:
			t.Fatalf("exited (%v) before the load started:\n%s", cmd.ProcessState, out)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the load did not start within 60 s:\n%s", out)
		}
	}
	return cmd, out, dir, done
}

// fioFileIn says fio made its data file under dir: its job runs.
func fioFileIn(dir string) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "storbench", "*", "*", "*", "data", "*"))
	return len(files) > 0
}

// leftUnder lists the files under dir, and the folders other than
// dir/storbench, which a run leaves.
func leftUnder(dir string) []string {
	var left []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && p != dir && p != filepath.Join(dir, "storbench") {
			left = append(left, p)
		}
		return nil
	})
	return left
}

// exitedAs waits for the command to end within the bound for a run's
// stop and cleanup, and checks it ended interrupted (exit code, as run
// lists it), having removed what it made under dir.
func exitedAs(t *testing.T, cmd *exec.Cmd, out *testutil.Buffer, done <-chan struct{}, dir string, code int) {
	t.Helper()
	const within = 2*time.Second + 10*time.Second // the stop's bound, the cleanup of one file, a loaded machine's margin
	select {
	case <-done:
	case <-time.After(within):
		t.Fatalf("still running %v after the signals:\n%s", within, out)
	}
	if got := cmd.ProcessState.ExitCode(); got != code {
		t.Errorf("exit %d, want %d:\n%s", got, code, out)
	}
	if strings.Contains(out.String(), "a second signal") {
		t.Errorf("the signal's echo was taken for a second signal:\n%s", out)
	}
	if left := leftUnder(dir); len(left) > 0 {
		t.Errorf("left under DIR: %v\n%s", left, out)
	}
}

// The same SIGINT twice, 50 ms apart, as coreutils timeout(1) sends it
// (to storbench, then to its process group): one request, so the run
// cleans up and exits 130, leaving nothing under DIR. Before, the echo
// was taken for a second signal: exit at once, fio's file left. (Sent at
// the same instant, the Go runtime may merge the two into one before
// storbench sees them, and the test would test nothing; 50 ms apart they
// arrive as two.)
func TestSameSignalTwiceAtOnceIsOneRequest(t *testing.T) {
	cmd, out, dir, done := startedFio(t)
	first := time.Now()
	_ = cmd.Process.Signal(syscall.SIGINT)
	time.Sleep(50 * time.Millisecond)
	_ = cmd.Process.Signal(syscall.SIGINT)
	if gap := time.Since(first); gap > 200*time.Millisecond {
		// This process slept far past 50 ms: the second signal may come
		// past storbench's window, a second request as it should be.
		_ = cmd.Process.Kill()
		<-done
		t.Skipf("the two signals went %v apart on this busy machine, near or past the 250 ms window: nothing to conclude", gap.Round(time.Millisecond))
	}
	exitedAs(t, cmd, out, done, dir, 130)
}

// timeout -s INT ending a run: storbench cleans up, nothing is left under
// DIR, and it ends interrupted (130, which --preserve-status passes on).
// The test sends timeout a SIGINT once fio made its file: timeout passes
// it on as when its time runs out (to the child, then to its process
// group), at a point that does not depend on how long storbench took to
// start.
func TestTimeoutSIGINTCleansUp(t *testing.T) {
	if _, err := exec.LookPath("timeout"); err != nil {
		t.Skip("no timeout(1)")
	}
	cmd, out, dir, done := startedFio(t, "timeout", "--preserve-status", "-s", "INT", "300")
	_ = cmd.Process.Signal(syscall.SIGINT)
	exitedAs(t, cmd, out, done, dir, 130)
}

// An agent started under an address-space limit (ulimit -v) below what
// it needs says so in one line of its log as it starts, naming the
// limit: past it the Go runtime would end it with no word of storbench's.
func TestAgentNamesLowAddressLimit(t *testing.T) {
	t.Parallel()
	bin := testutil.StorbenchBin(t)
	tok := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tok, []byte("sb-aslimit-token-0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// 1.9 GB: above what the agent needs to start and serve, under what
	// storbench asks for (engine.MinAddressSpace).
	cmd := exec.Command("sh", "-c", `ulimit -v 1900000 && exec "$0" "$@"`, bin, "agent", "--listen", "127.0.0.1:0", "--token-file", tok)
	var out testutil.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	want := "warning: the address-space limit (ulimit -v) is 1900000 KiB, under the 2097152 KiB an agent needs"
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(out.String(), want) && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
	}
	if !strings.Contains(out.String(), want) || !strings.Contains(out.String(), "listening on") {
		t.Errorf("the agent does not name its limit (%q):\n%s", want, out.String())
	}
}
