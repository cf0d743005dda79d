package cli

import (
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
