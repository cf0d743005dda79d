package gluster_test

// A brick of the replica-2 volume lost during a phase and brought back
// (issue 23's must-show): the events on the timeline, what they did to
// the figures, the same phase healthy beside it.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/testutil/chromium"
	"github.com/storbench/storbench/internal/testutil/dfs"
	"github.com/storbench/storbench/internal/testutil/gluster"
)

// brickPhase is the phase that loses a brick: every client writes its
// own file in 4 KiB blocks, direct, for a runtime.
const brickPhase = `  - name: write
    fio: {runtime: %s, job: {rw: randwrite, bs: 4k, size: 16m, direct: 1, time_based: 1, numjobs: 1}}
`

// brickSuite is a suite of brickPhase, of runtime, with events (YAML
// list items, or none).
func brickSuite(t *testing.T, c *gluster.Cluster, name, runtime, events string) string {
	t.Helper()
	text := fmt.Sprintf("name: %s\ndir: %s\nphases:\n%s", name, c.Dir, fmt.Sprintf(brickPhase, runtime))
	if events != "" {
		text += "    events:\n" + events
	}
	f := filepath.Join(t.TempDir(), name+".yaml")
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// brickRun runs a suite file on the cluster and returns its summary and
// results folder; the phase must complete on every host.
func brickRun(t *testing.T, c *gluster.Cluster, file string) (*results.Summary, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	code, out := c.Run(ctx, "run", file)
	if code != 0 {
		t.Fatalf("storbench run %s: exit %d:\n%s", file, code, out)
	}
	s, folder := dfs.SummaryOf(t, out)
	if ph := s.Phases[0]; ph.Status != results.StatusCompleted || len(ph.PerHost) != len(c.Agents) {
		t.Fatalf("phase %s: %s on %d hosts: %s\n%s", ph.Name, ph.Status, len(ph.PerHost), ph.Error, out)
	}
	return s, folder
}

// One brick of the replica-2 volume lost 5 s into a 20-s write phase on
// three clients and brought back at 12 s, by commands the suite runs on
// the controller. A brick whose process dies (SIGKILL) costs the clients
// nothing they would notice: the connection resets, they go on writing
// to the other brick at once, faster (one copy instead of two; measured:
// the window after the kill +17.7% against the healthy run, within
// noise). A brick that hangs - its server frozen, its network gone - is
// what clients feel: they wait network.ping-timeout (6 s on this volume,
// 42 s by default) before giving it up. The wait fills most of the event's
// 7-s window, so that compare's verdict holds on a loaded machine: with 3 s
// the window held the wait and then writes to one copy, faster, and at a
// load of 13 compare called its -49% within noise against a healthy run
// whose seconds the load scattered. So the brick's glusterfsd is
// stopped (SIGSTOP, by the test, through a dfs control: its pid is asked
// of glusterd before the phase, as the gluster CLI takes seconds on a
// loaded machine and the hang must come at its time) and, at 12 s,
// killed and started again (`gluster volume start force`), as an admin
// does with a hung brick. The events ran at their times and
// succeeded, the brick is a new process after; summary.json, `analyze`
// and report.html (in Chromium, the marks on every chart over time) say
// what the loss did to the write figure - the dip, the time under 90%,
// the recovery (a time, or absent and said to be absent; never 0), the
// errors; `compare` holds the event's window against the same seconds of
// the phase run healthy just before: slower. Then a brick that never
// comes back within the phase: the clients wait (network.ping-timeout
// 5 s) past its end, and the recovery is absent and said to be.
func brickLoss(t *testing.T, c *gluster.Cluster) {
	brick := c.Server + ":" + c.Brick(1)
	pid := fmt.Sprintf(`gluster --mode=script volume status %s %s --xml | sed -n 's:.*<pid>\(.*\)</pid>.*:\1:p'`, c.Volume, brick)
	var hung int // the brick's process, asked before each phase
	hang := c.Control("hang brick 1 (SIGSTOP)", func() error { return syscall.Kill(hung, syscall.SIGSTOP) })
	// glusterd starts no brick whose old process it still sees (its
	// /proc entry readable): the restart waits for the killed one to go.
	restart := fmt.Sprintf(`p=$(%s); kill -KILL $p; for i in $(seq 100); do [ -r /proc/$p/cmdline ] || break; sleep 0.1; done; gluster --mode=script volume start %s force`, pid, c.Volume)
	t.Cleanup(func() { restoreBrick(t, c) })
	c.Gluster("volume", "set", c.Volume, "network.ping-timeout", "6")
	_, healthy := brickRun(t, c, brickSuite(t, c, "brick-healthy", "20s", ""))
	before := c.BrickPid(1)
	hung = before
	events := fmt.Sprintf("      - {name: hang brick, at: 5s, timeout: 20s, command: %q}\n      - {name: restart brick, at: 12s, timeout: 40s, command: %q}\n", hang, restart)
	s, folder := brickRun(t, c, brickSuite(t, c, "brick-loss", "20s", events))
	if after := c.BrickPid(1); before <= 0 || after <= 0 || after == before {
		t.Errorf("brick %s: pid %d before the run, %d after: want it restarted", brick, before, after)
	}
	evs := s.Phases[0].Events
	if len(evs) != 2 {
		t.Fatalf("summary.json has %d events, want 2", len(evs))
	}
	for i, want := range []float64{5, 12} {
		e := evs[i]
		if e.StartS == nil || *e.StartS < want-0.2 || *e.StartS > want+1 || e.Exit == nil || *e.Exit != 0 {
			t.Errorf("event %s: started %v s (want %g), exit %v, error %q, output %q", e.Name, deref(e.StartS), want, e.Exit, e.Error, e.Output)
		}
	}
	if ps, err := exec.Command(c.Bin, "analyze", "--per-second", folder).CombinedOutput(); err == nil {
		t.Logf("%s", ps)
	}
	im := impactOf(t, evs[0], "write")
	t.Logf("write around the brick's hang: %s", dfs.ImpactText(im))
	checkImpact(t, im)
	checkAnalyze(t, c, folder, im)
	checkCompare(t, c, healthy, folder)
	// Chromium's look at the report (20-25 s on the loaded test machine,
	// most of it Chromium's start) goes on while the brick is brought
	// back and lost for good: it reads a finished run's folder, and the
	// brick-lost run's figure, a recovery absent, is no timing a busier
	// machine could make.
	t.Run("report-in-chromium", func(t *testing.T) {
		t.Parallel()
		checkReportInChromium(t, folder, []string{"hang brick", "restart brick"})
	})
	t.Run("brick-lost", func(t *testing.T) {
		t.Parallel()
		brickLost(t, c, hang, func(pid int) { hung = pid })
	})
}

// brickLost is brickLoss's brick that never comes back within the phase:
// the clients give a hung brick up between one and two ping-timeouts
// after it hung (with 3 s, they did 5 s after), so with 5 s, not before the phase's
// end, 7 s after the hang. hang is the control that hangs the brick whose
// process setHung was given.
func brickLost(t *testing.T, c *gluster.Cluster, hang string, setHung func(pid int)) {
	restoreBrick(t, c)
	c.Gluster("volume", "set", c.Volume, "network.ping-timeout", "5")
	setHung(c.BrickPid(1))
	lostEvent := fmt.Sprintf("      - {name: hang brick, at: 2s, timeout: 20s, command: %q}\n", hang)
	s, folder := brickRun(t, c, brickSuite(t, c, "brick-lost", "7s", lostEvent))
	if ps, err := exec.Command(c.Bin, "analyze", "--per-second", folder).CombinedOutput(); err == nil {
		t.Logf("%s", ps)
	}
	lost := impactOf(t, s.Phases[0].Events[0], "write")
	t.Logf("write after the brick's hang for good: %s", dfs.ImpactText(lost))
	if lost.RecoverS != nil || !lost.NotRecovered || lost.Note == "" {
		t.Errorf("a brick that never came back: %s, want the recovery absent and said to be", dfs.ImpactText(lost))
	}
	checkAnalyze(t, c, folder, lost)
}

// A brick of the replica-2 volume stopped (SIGSTOP) 5 s into a write
// phase and let go on at 10 s, with the clients' network.ping-timeout
// (42 s) longer than that: every write waits for it until it goes on,
// and the clients write on at once (dfs.ServerFault holds the dip and the
// recovery against the test's own times). A brick killed instead costs
// the clients nothing they would notice (brickLoss).
func brickHang(t *testing.T, c *gluster.Cluster) {
	c.Gluster("volume", "set", c.Volume, "network.ping-timeout", "42")
	pid := c.BrickPid(1)
	if pid <= 0 {
		t.Fatalf("brick 1 has no process: %d", pid)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) })
	dfs.ServerFault(t, c.Cluster, dfs.Fault{StopName: "hang brick 1", RestartName: "resume brick 1", Phase: dfs.HungServerPhase, Op: "write",
		Stop: func() error { return syscall.Kill(pid, syscall.SIGSTOP) }, Restart: func() error { return syscall.Kill(pid, syscall.SIGCONT) }})
}

// restoreBrick brings brick 1 back when it hangs or is down: its process
// killed, the volume started again (force starts the bricks that are
// not running).
func restoreBrick(t *testing.T, c *gluster.Cluster) {
	if pid := c.BrickPid(1); pid > 0 {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		for i := 0; i < 100 && syscall.Kill(pid, 0) == nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
	}
	c.Gluster("volume", "start", c.Volume, "force")
	// The clients come back to the brick on their own time (seconds):
	// a phase started before they did writes to the other brick alone,
	// and a hang of this one is nothing to it. Prepared in 50 ms since
	// fio's jobs wait at their gate from Prepare, the brick-lost phase
	// began before they were back and felt no hang.
	want := c.BrickClients(0)
	for end := time.Now().Add(30 * time.Second); c.BrickClients(1) < want && time.Now().Before(end); {
		time.Sleep(200 * time.Millisecond)
	}
	if got := c.BrickClients(1); got < want || want <= 0 {
		t.Fatalf("brick 1 has %d clients back of brick 0's %d after 30 s", got, want)
	}
}

// checkImpact asserts what a user reads in summary.json: a dip (or
// errors), and a recovery that is a time after the event, or absent and
// said to be.
func checkImpact(t *testing.T, im model.EventImpact) {
	t.Helper()
	// fio prints no status while its writes wait for the brick: the
	// interval of its first status after the wait holds the writes done
	// around it, spread over its seconds, so the dip is deep, not 0.
	if im.Before <= 0 || (im.Lowest > 0.5*im.Before || im.BelowS < 2) && im.Errors == 0 {
		t.Errorf("no dip and no error: %s", dfs.ImpactText(im))
	}
	switch {
	case im.RecoverS != nil && *im.RecoverS <= 0:
		t.Errorf("recovery %g s: a recovery is never 0", *im.RecoverS)
	case im.RecoverS == nil && (im.Note == "" || !im.NotRecovered && im.BelowS > 0):
		t.Errorf("recovery absent without saying why: %+v", im)
	}
}

// checkAnalyze runs `storbench analyze` and finds the events and their
// effect in its text, as summary.json has it.
func checkAnalyze(t *testing.T, c *gluster.Cluster, folder string, im model.EventImpact) {
	t.Helper()
	out, err := exec.Command(c.Bin, "analyze", folder).CombinedOutput()
	if err != nil {
		t.Fatalf("analyze: %v\n%s", err, out)
	}
	rec := "recovery: absent"
	if im.RecoverS != nil {
		rec = "recovered in "
	}
	for _, want := range []string{"-- Events --", "Event hang brick: ", "write: before ", rec, fmt.Sprintf("%d errors", im.Errors)} {
		if !strings.Contains(string(out), want) {
			t.Errorf("analyze does not say %q:\n%s", want, out)
		}
	}
}

// compareRE is compare's line for the hang's window against the healthy
// run: the window, the two figures, the change, slower.
var compareRE = regexp.MustCompile(`write: during hang brick \(in [^)]+\), seconds \d+-\d+\n  write [0-9.]+ -> [0-9.]+ MiB/s  -[0-9.]+%  slower`)

// checkCompare runs `storbench compare HEALTHY DEGRADED` and finds the
// hang's window held against the healthy phase.
func checkCompare(t *testing.T, c *gluster.Cluster, healthy, degraded string) {
	t.Helper()
	out, _ := exec.Command(c.Bin, "compare", healthy, degraded).CombinedOutput()
	if m := compareRE.Find(out); m == nil {
		t.Errorf("compare does not hold the hang's window, slower, against the healthy run:\n%s", out)
	} else {
		t.Logf("compare: %s", m)
	}
}

// checkReportInChromium opens the run's report.html in Chromium, with the
// report's own checks, and finds every event marked on every chart over
// time.
func checkReportInChromium(t *testing.T, folder string, names []string) {
	t.Helper()
	page, err := os.ReadFile(filepath.Join(folder, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if !strings.Contains(string(page), n) {
			t.Errorf("report.html does not list event %s", n)
		}
	}
	bin := chromium.Binary(t)
	if bin == "" {
		t.Skip("chromium is not installed and could not be installed (apt-get install -y chromium)")
	}
	shot := filepath.Join(chromium.ArtifactDir(t), "report-gluster-brick.png")
	chromium.CheckWithEvents(t, bin, filepath.Join(folder, "report.html"), shot, func(eval func(string) string) {
		var charts [][2]any
		v := eval(`JSON.stringify(Array.from(document.querySelectorAll('svg.chart')).filter(s => /(second|per host|total)/.test(s.getAttribute('aria-label')) && !/percentile/.test(s.getAttribute('aria-label'))).map(s => [s.getAttribute('aria-label'), Array.from(s.querySelectorAll('g.ev')).map(g => g.getAttribute('data-event')).join('|')]))`)
		if err := json.Unmarshal([]byte(v), &charts); err != nil {
			t.Fatalf("charts: %v (%q)", err, v)
		}
		if len(charts) < 2 {
			t.Errorf("want the charts over time, found %v", charts)
		}
		for _, ch := range charts {
			if ch[1] != strings.Join(names, "|") {
				t.Errorf("chart %q marks %q, want %v", ch[0], ch[1], names)
			}
		}
	})
	t.Logf("screenshot: %s", shot)
}

// impactOf is the event's impact on op, failing the test when absent.
func impactOf(t *testing.T, e model.PhaseEvent, op string) model.EventImpact {
	t.Helper()
	for _, im := range e.Impact {
		if im.Op == op {
			return im
		}
	}
	t.Fatalf("event %s has no impact on %s: %+v", e.Name, op, e.Impact)
	return model.EventImpact{}
}

func deref(p *float64) any {
	if p == nil {
		return "absent"
	}
	return *p
}
