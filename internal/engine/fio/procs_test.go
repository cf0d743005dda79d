package fio_test

// Tests through the storbench binary: the command a user types, and an agent
// process that a controller holding only the token talks to.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/engine/fio"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/testutil"
)

// storbenchBin is the storbench binary, for tests that need fio too.
func storbenchBin(t *testing.T) string {
	t.Helper()
	if _, err := fio.FindFio(""); err != nil {
		t.Skip(err)
	}
	return testutil.StorbenchBin(t)
}

// runBin runs the binary and returns its exit code and combined output.
func runBin(t *testing.T, args ...string) (int, string) {
	t.Helper()
	cmd := testutil.Command(t, storbenchBin(t), args...)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

func tree(dir string) []string {
	var out []string
	_ = filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error {
		if p != dir {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// The two job files, typed at the command line: one clear line,
// exit 2, no results folder, nothing in DIR, the file outside unchanged.
func TestCommandRefusesPathsOutsideDir(t *testing.T) {
	work := t.TempDir()
	dir, outside, res := filepath.Join(work, "dir"), filepath.Join(work, "outside"), filepath.Join(work, "results")
	for _, d := range []string{dir, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	victim := filepath.Join(outside, "victim")
	_ = os.WriteFile(victim, []byte("keep me\n"), 0o644)
	for _, c := range []struct{ job, want string }{
		{"[j]\nrw=write\nsize=64k\nwrite_iolog=" + victim + "\n", "write_iolog=" + victim},
		{"[global]\nwrite_bw_log = " + outside + "/bw\n[j]\nrw=write\nsize=64k\n", "write_bw_log=" + outside + "/bw"},
		{"[j]\nrw=write\nsize=64k\nfilename=f:" + victim + "\n", "filename="},
	} {
		jobFile := filepath.Join(work, "evil.job")
		_ = os.WriteFile(jobFile, []byte(c.job), 0o644)
		code, out := runBin(t, "fio", "-d", dir, "-w", jobFile, "--results", res, "--runtime", "1s")
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if code != 2 || len(lines) != 1 || !strings.Contains(out, c.want) || !strings.Contains(out, "job's directory") {
			t.Errorf("exit %d, want 2 and one line naming %q:\n%s", code, c.want, out)
		}
	}
	if got := tree(dir); len(got) != 0 {
		t.Errorf("DIR holds %v", got)
	}
	if got := tree(outside); len(got) != 1 {
		t.Errorf("outside DIR: %v", got)
	}
	if _, err := os.Stat(res); err == nil {
		t.Errorf("a results folder was written: %v", tree(res))
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep me\n" {
		t.Errorf("victim holds %q", b)
	}
}

// agentProc starts `storbench agent` with a token and returns its address.
func agentProc(t *testing.T, token string, extra ...string) string {
	t.Helper()
	return testutil.AgentProcess(t, storbenchBin(t), token, extra...)
}

// A controller that holds only the token and skips every check of its own
// sends the job files straight to an agent process: the agent
// refuses them itself, and nothing is written anywhere.
func TestAgentRefusesPathsOnItsOwn(t *testing.T) {
	const token = "sb-paths-token-0123456789"
	addr := agentProc(t, token, "--allow-exec")
	work := t.TempDir()
	dir, outside := filepath.Join(work, "dir"), filepath.Join(work, "outside")
	_ = os.Mkdir(dir, 0o755)
	_ = os.Mkdir(outside, 0o755)
	victim := filepath.Join(outside, "victim")
	_ = os.WriteFile(victim, []byte("keep me\n"), 0o644)
	ctrl := &cluster.Controller{
		Agents: []cluster.Agent{&cluster.RemoteAgent{Addr: addr, Host: "h1", Token: token}},
		Name:   "hostile", Lead: 300 * time.Millisecond,
	}
	if _, err := ctrl.Connect(testutil.Ctx(t, testutil.Bound)); err != nil {
		t.Fatal(err)
	}
	for i, job := range []string{
		"[j]\nrw=write\nsize=64k\nwrite_iolog=" + victim + "\n",
		"[j]\nrw=write\nsize=64k\nwrite_bw_log=" + outside + "/bw\n",
		"[j]\nrw=write\nsize=64k\nbuffer_pattern='/etc/hostname'\n",
		"[j]\nrw=write\nsize=64k\ninclude " + victim + "\n",
	} {
		b, _ := json.Marshal(fio.Params{Dir: dir, Job: fio.Job{Name: "j", Text: job}})
		p := engine.Phase{Name: "j", Engine: "fio", Params: b}
		_, err := ctrl.RunPhase(testutil.Ctx(t, testutil.Bound), fmt.Sprintf("r%d", i), false, p)
		if err == nil {
			t.Errorf("the agent ran %q", job)
			continue
		}
		if !strings.Contains(err.Error(), "job's directory") && !strings.Contains(err.Error(), "include") {
			t.Errorf("agent's refusal %q does not say why", err)
		}
	}
	if got := tree(dir); len(got) != 0 {
		t.Errorf("DIR holds %v", got)
	}
	if got := tree(outside); len(got) != 1 {
		t.Errorf("outside DIR: %v", got)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep me\n" {
		t.Errorf("victim holds %q", b)
	}
}

// fio runs out of space writing its files (a 16 MiB tmpfs, two 10 MiB
// files): the user sees fio's own reason, and what the jobs wrote until
// then is kept as the host's own (issue 35), no more than the file system
// took.
func TestLayoutOutOfSpace(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a 16 MiB tmpfs (run the tests as root to cover a full file system)")
	}
	bin := storbenchBin(t)
	work := t.TempDir()
	mnt := filepath.Join(work, "mnt")
	_ = os.Mkdir(mnt, 0o755)
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("mount tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", mnt).Run() })
	// Two sections laid out side by side, each of which fits alone (so the
	// free-space check before the run lets the job through): together
	// they do not, and fio finds out while laying them out.
	res := filepath.Join(work, "results")
	job := filepath.Join(work, "two.fio")
	_ = os.WriteFile(job, []byte("[global]\nioengine=psync\nbs=64k\nsize=10M\n[a]\nrw=write\n[b]\nrw=write\n"), 0o644)
	out, err := testutil.Command(t, bin, "fio", "-d", mnt, "-w", job, "--runtime", "1s", "--results", res).CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	text := string(out)
	if code != 1 {
		t.Errorf("exit %d, want 1 (a phase failed)", code)
	}
	if !strings.Contains(strings.ToLower(text), "no space left on device") || strings.Contains(text, "exit status") {
		t.Errorf("the error does not give fio's reason:\n%s", text)
	}
	entries, _ := filepath.Glob(filepath.Join(res, "*"))
	if len(entries) != 1 {
		t.Fatalf("results: %v", entries)
	}
	sum, err := results.ReadSummary(entries[0])
	if err != nil {
		t.Fatal(err)
	}
	ph := sum.Phases[0]
	if ph.Status != "failed" || !strings.Contains(strings.ToLower(ph.Error), "no space left on device") {
		t.Errorf("summary phase: status %s, error %q", ph.Status, ph.Error)
	}
	var written uint64
	for _, o := range ph.Ops {
		written += o.Bytes
	}
	if written > 16<<20 {
		t.Errorf("the phase keeps %d bytes written, more than the 16 MiB file system holds: %+v", written, ph.Ops)
	}
}
