package events_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/analyze"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/testutil"
)

// storbench's own fault action on fio and md phases, through a real
// agent process running real fio and the md engine: one host's load
// paused 2 s into the phase for 3 s. In each phase's
// per-second series every second inside the pause has no operation (md:
// but the one item its worker was on) - not a share of the operations
// around it spread over it, which is what fio, which prints no status
// while its jobs are stopped, would give - and
// operations come again after it; the impact in summary.json says the
// dip to 0 (and, for fio at its set rate, the recovery); md's latencies
// do not count the pause (no operation took the pause's 3 s), and both
// phases complete without an error. Before, both were refused ("fio
// phases cannot pause their load").
func TestPauseFioAndMd(t *testing.T) {
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skip("fio is not installed (apt-get install fio)")
	}
	const token = "sb-pause-token-0123456789abcdef"
	bin := testutil.StorbenchBin(t)
	agent := testutil.AgentProcess(t, bin, token)
	dir := t.TempDir()
	tok := filepath.Join(dir, "token")
	if err := os.WriteFile(tok, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// fio at a set rate, which this machine keeps under load, so that the
	// recovery measured is the pause's; 7 s after the pause, as a
	// recovery is 3 seconds at 90% of the rate before: an 8-s phase left
	// 3 seconds after the pause, and under CI's make race one of them was
	// slow (not seen which: the series is now logged), with no recovery.
	// md creates empty files with fsync for 9 s (a stonewall): fewer
	// files than in memory.
	suite := fmt.Sprintf(`name: pause
dir: %s
agents: [%s]
phases:
  - name: fio-read
    fio: {runtime: 12s, job: {rw: randread, bs: 4k, size: 4m, time_based: 1, rate_iops: 200}}
    events:
      - {name: hold fio, at: 2s, pause: 3s, host: %s}
  - name: md-create
    md: {items: 10000000, workers: 1, files_only: true, sync_file: true, stonewall: 9s, only: [create]}
    events:
      - {name: hold md, at: 2s, pause: 3s, host: %s}
`, t.TempDir(), agent, agent, agent)
	file := filepath.Join(dir, "suite.yaml")
	if err := os.WriteFile(file, []byte(suite), 0o644); err != nil {
		t.Fatal(err)
	}
	res := filepath.Join(dir, "results")
	out, err := exec.Command(bin, "run", file, "--token-file", tok, "--results", res).CombinedOutput()
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	folders, _ := filepath.Glob(filepath.Join(res, "*"))
	if len(folders) != 1 {
		t.Fatalf("results: %v\n%s", folders, out)
	}
	sum, err := results.ReadSummary(folders[0])
	if err != nil {
		t.Fatal(err)
	}
	ps, err := analyze.PerSecondFolder(folders[0], analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Phases) != 2 || len(ps.Phases) != 2 {
		t.Fatalf("%d phases, want 2\n%s", len(sum.Phases), out)
	}
	pauses := []float64{3, 3}
	for i, op := range []string{"read", "file-create"} {
		p := sum.Phases[i]
		if p.Status != results.StatusCompleted || len(p.Events) != 1 {
			t.Errorf("phase %s: %s, events %+v\n%s", p.Name, p.Status, p.Events, out)
			continue
		}
		e := p.Events[0]
		if e.Error != "" || e.StartS == nil || *e.StartS < 1.9 || *e.StartS > 2.6 {
			t.Errorf("phase %s: the pause started at %v s (%s), want 2 s", p.Name, deref(e.StartS), e.Error)
			continue
		}
		if want := pauses[i]; *e.EndS-*e.StartS < want-0.1 || *e.EndS-*e.StartS > want+1 {
			t.Errorf("phase %s: the pause lasted %.1fs, want %gs", p.Name, *e.EndS-*e.StartS, want)
		}
		im := impactOn(t, e, op)
		t.Logf("phase %s: %s before %.1f %s, lowest %.1f at %gs, %gs under 90%%, recovered after %s s", p.Name, op, im.Before, im.Unit, im.Lowest, im.LowestAtS, im.BelowS, recovery(im))
		if im.Before <= 0 || im.Lowest != 0 || im.Errors != 0 {
			t.Errorf("phase %s: before %g, lowest %g %s, %d errors: want the paused seconds at nothing, no error", p.Name, im.Before, im.Lowest, im.Unit, im.Errors)
		}
		// fio at its set rate is back at once; md, whose rate swings
		// with this machine's load, goes on. The recovery is counted in
		// whole seconds of the series from the pause's start: the second
		// the pause ends in may already be back (fio at rate_iops catches
		// up on the I/O the pause held back), so it can come a second
		// before the pause's end. When it comes is this machine's: under
		// make race fio did 89 and 52 reads in seconds 7 and 8 (the
		// pause held 2 to 5; 459 in second 9: it caught up), and the
		// recovery, 3 seconds in a row at 90%, came 7 s after the
		// pause's start. So fio's reads are wanted back within 2 s of
		// the pause's end, and a recovery found, after the pause began.
		if op == "read" && (im.RecoverS == nil || *im.RecoverS < 0.9) {
			t.Errorf("phase %s: recovered after %s s, want a recovery after the 3-s pause", p.Name, recovery(im))
		}
		pausedSeconds(t, ps.Phases[i], op, *e.Start, *e.End, uint64(i))
		if op == "read" {
			backAtOnce(t, ps.Phases[i], op, *e.End, im)
		}
	}
	for _, o := range sum.Phases[1].Ops {
		if o.Op == "file-create" && (o.Lat == nil || o.Lat.MaxNs >= int64(3*time.Second)) {
			t.Errorf("md file-create latency %+v: the pause counted in an operation's latency", o.Lat)
		}
	}
}

// edge is how far the event's recorded start and end may lie from the
// signals that stopped and continued the load: the runner stamps them
// around the engine's Pause, and on a loaded machine a second whose end
// the record put inside the pause once held one operation of fio's,
// done after the SIGCONT. A 3-s pause keeps a whole second inside.
const edge = 300 * time.Millisecond

// pausedSeconds checks op's per-second rows (all hosts): every second
// wholly inside the pause, from start to end, less edge at each side,
// without an operation (but the in-flight ones, at most inFlight, that end
// in the pause), and operations again in a second after it.
func pausedSeconds(t *testing.T, ph analyze.PerSecondPhase, op string, start, end time.Time, inFlight uint64) {
	t.Helper()
	for _, o := range ph.Ops {
		if o.Op != op {
			continue
		}
		inside, after := 0, false
		var rows []string
		for _, r := range o.Rows {
			rows = append(rows, fmt.Sprintf("%d:%d(%.0f/s)", r.Second, r.Ops, r.OpsPerS))
			switch {
			case !r.Start.Before(start.Add(edge)) && !r.Start.Add(time.Second).After(end.Add(-edge)):
				inside++
				if r.Ops > inFlight {
					t.Errorf("phase %s: second %d, inside the pause, has %d operations", ph.Name, r.Second, r.Ops)
				}
			case r.Start.After(end) && r.Ops > 0:
				after = true
			}
		}
		t.Logf("phase %s: %s per second %v", ph.Name, op, rows)
		if inside == 0 || !after {
			t.Errorf("phase %s: %d seconds inside the pause, operations after it: %v (seconds %v)", ph.Name, inside, after, rows)
		}
		return
	}
	t.Errorf("phase %s: no per-second rows of %s", ph.Name, op)
}

// backAtOnce fails t unless one of op's seconds that begin from a second
// before the pause's end to 2 s after it is at 90% of the figure before
// the pause (im's, in its unit) or more: a load held at its set rate
// comes back as the pause ends.
func backAtOnce(t *testing.T, ph analyze.PerSecondPhase, op string, end time.Time, im model.EventImpact) {
	t.Helper()
	val := func(r analyze.SecondRow) float64 {
		if im.Unit != "MiB/s" {
			return r.OpsPerS
		}
		if r.BwBytesPerS == nil {
			return 0
		}
		return *r.BwBytesPerS / (1 << 20)
	}
	for _, o := range ph.Ops {
		if o.Op != op {
			continue
		}
		for _, r := range o.Rows {
			if !r.Start.Before(end.Add(-time.Second)) && r.Start.Before(end.Add(2*time.Second)) && val(r) >= 0.9*im.Before {
				return
			}
		}
	}
	t.Errorf("phase %s: no second of %s from a second before the pause's end to 2 s after it at 90%% of %.1f %s", ph.Name, op, im.Before, im.Unit)
}

// impactOn is the event's impact on op, failing the test when absent.
func impactOn(t *testing.T, e model.PhaseEvent, op string) model.EventImpact {
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

func recovery(im model.EventImpact) string {
	if im.RecoverS == nil {
		return "absent (" + im.Note + ")"
	}
	return fmt.Sprintf("%.1f", *im.RecoverS)
}
