package cli

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/analyze"
	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/testutil"
	"github.com/storbench/storbench/internal/units"
)

// hostsJob writes at a set rate (2 MiB/s in 64 KiB blocks) for 10 s.
const hostsJob = `# report bandwidth
[global]
filesize=8M
time_based=1
runtime=10
ioengine=psync
bs=64k
rate=2m
group_reporting=1

[w]
rw=write
`

// A host whose fio fails 3 s into a phase on three agents (its main
// process killed), and a host whose agent dies then (SIGKILL: lost), keep
// what they wrote until then as their own (issue 35: their bytes were in
// no figure while the per-host average divided the total by all three):
// summary.json's total is the hosts' rows added, the failed host's row
// holds its bytes and its error, the per-second series add up to the
// total, and the text's average per host is the total over the hosts.
func TestFailedHostsBytesKept(t *testing.T) {
	t.Parallel()
	needFio(t)
	for _, how := range []string{"fio-killed", "agent-killed"} {
		t.Run(how, func(t *testing.T) {
			const token = "sb-failed-host-token-0123456789ab"
			bin := testutil.StorbenchBin(t)
			var addrs []string
			var agents []*exec.Cmd
			for range 3 {
				addr, cmd := testutil.StartAgent(t, bin, token, nil)
				addrs, agents = append(addrs, addr), append(agents, cmd)
			}
			victim := cluster.HostNames(addrs)[2]
			tok := filepath.Join(t.TempDir(), "token")
			if err := os.WriteFile(tok, []byte(token+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			data, res := t.TempDir(), t.TempDir()
			st, out := testState()
			done := make(chan error, 1)
			live := filepath.Join(t.TempDir(), "live")
			go func() {
				done <- Execute(context.Background(), st, []string{"fio", "-d", data, "-w", workloadDir(t, map[string]string{"w": hostsJob}),
					"--agents", strings.Join(addrs, ","), "--token-file", tok, "--results", res, "--live", live})
			}()
			main := waitFioOf(t, data, victim)
			waitRunning(t, live, victim, 3)
			if how == "fio-killed" {
				_ = syscall.Kill(main, syscall.SIGKILL)
			} else {
				_ = agents[2].Process.Kill()
			}
			select {
			case err := <-done:
				t.Logf("run: %v", err)
			case <-time.After(2 * time.Minute):
				t.Fatalf("the run did not end:\n%s", out)
			}
			folders, _ := filepath.Glob(filepath.Join(res, "*"))
			if len(folders) != 1 {
				t.Fatalf("results: %v\n%s", folders, out)
			}
			hostBytesKept(t, folders[0], victim, out.String())
		})
	}
}

// hostBytesKept checks the phase of the run in folder, whose host victim
// failed or was lost, against the run's text.
func hostBytesKept(t *testing.T, folder, victim, text string) {
	t.Helper()
	sum, err := results.ReadSummary(folder)
	if err != nil {
		t.Fatal(err)
	}
	ps := &sum.Phases[0]
	if len(ps.Ops) != 1 || len(ps.PerHost) != 3 {
		t.Fatalf("want one operation and three hosts: %+v\n%s", ps, text)
	}
	var rows uint64
	for _, h := range ps.PerHost {
		for _, o := range h.Ops {
			rows += o.Bytes
		}
		if h.Host == victim {
			if len(h.Ops) != 1 || h.Ops[0].Bytes < 2<<20 || h.Error == "" {
				t.Errorf("host %s (failed 3 s in at 2 MiB/s): %+v, want its bytes and its error", h.Host, h)
				continue
			}
			t.Logf("host %s: %d bytes, %q", h.Host, h.Ops[0].Bytes, h.Error)
		}
	}
	if total := ps.Ops[0].Bytes; total != rows {
		t.Errorf("total %d bytes, the hosts' rows add up to %d", total, rows)
	}
	per, err := analyze.PerSecondFolder(folder, analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var secs uint64
	for _, o := range per.Phases[0].Ops {
		for _, r := range o.Rows {
			secs += r.Ops
		}
	}
	if d := math.Abs(float64(secs) - float64(ps.Ops[0].Ops)); d > 0.005*float64(ps.Ops[0].Ops) {
		t.Errorf("the per-second rows add up to %d operations, the total is %d", secs, ps.Ops[0].Ops)
	}
	m := regexp.MustCompile(`total bandwidth: (.+)\n\s+average bandwidth: (.+) per host\n`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no total and average bandwidth in the text:\n%s", text)
	}
	total, avg := bandwidthOf(t, m[1]), bandwidthOf(t, m[2])
	if math.Abs(3*avg-total) > 0.02*total {
		t.Errorf("total %s, average %s per host over 3 hosts: they disagree", m[1], m[2])
	}
	if want := units.Bandwidth(float64(rows) / ps.Ops[0].DurationS); m[1] != want {
		t.Errorf("total bandwidth %s, want %s (every host's bytes over the phase)", m[1], want)
	}
}

// waitRunning waits until the --live stream says host has run for secs
// seconds of the phase.
func waitRunning(t *testing.T, live, host string, secs float64) {
	t.Helper()
	for end := time.Now().Add(60 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		b, _ := os.ReadFile(live)
		for _, line := range strings.Split(string(b), "\n") {
			var l struct {
				Host     string  `json:"host"`
				ElapsedS float64 `json:"elapsed_s"`
			}
			if json.Unmarshal([]byte(line), &l) == nil && l.Host == host && l.ElapsedS >= secs {
				return
			}
		}
	}
	t.Fatalf("host %s did not run %g s of the phase", host, secs)
}

// bandwidthOf reads a bandwidth as units.Bandwidth prints it.
func bandwidthOf(t *testing.T, s string) float64 {
	t.Helper()
	f := strings.Fields(s)
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil || len(f) != 2 {
		t.Fatalf("bandwidth %q", s)
	}
	scale := map[string]float64{"B/s": 1, "KiB/s": 1 << 10, "MiB/s": 1 << 20, "GiB/s": 1 << 30}[f[1]]
	return v * scale
}

// waitFioOf waits for the fio of host (its job files under data) and
// returns its main process: the one whose parent is not a fio.
func waitFioOf(t *testing.T, data, host string) int {
	t.Helper()
	for end := time.Now().Add(60 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		fios := map[int]int{} // pid: parent
		for _, p := range procs {
			b, err := os.ReadFile(p)
			args := strings.Split(string(b), "\x00")
			if err != nil || filepath.Base(args[0]) != "fio" || !strings.Contains(string(b), filepath.Join(data, "storbench")) || !strings.Contains(string(b), "/"+host+"/") {
				continue
			}
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			fios[pid] = parentOf(pid)
		}
		for pid, parent := range fios {
			if _, ok := fios[parent]; !ok {
				return pid
			}
		}
	}
	t.Fatalf("no fio of host %s on %s", host, data)
	return 0
}

// parentOf is pid's parent (0 when unknown).
func parentOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0
	}
	p, _ := strconv.Atoi(f[1])
	return p
}
