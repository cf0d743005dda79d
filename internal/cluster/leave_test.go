package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/engine/fio"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/testutil"
)

// stageOf is the stage of srv's session ("" without one).
func stageOf(srv *Server) string {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.sess == nil {
		return ""
	}
	return srv.sess.stage
}

// sharedWrite is a fio phase on dir in which each host writes its own
// 1 MiB of one shared file, for runtime seconds at 256 KiB/s.
func sharedWrite(t *testing.T, dir string, runtime int) engine.Phase {
	t.Helper()
	text := "[global]\nioengine=psync\nbs=4k\nrate=256k\nfilename=one\noffset=(${STORBENCH_HOST_INDEX}*1048576)\nsize=1m\ntime_based=1\nruntime=" +
		strconv.Itoa(runtime) + "\n[w]\nrw=write\n"
	b, err := json.Marshal(fio.Params{Dir: dir, Shared: true, Job: fio.Job{Name: "w", Text: text}})
	if err != nil {
		t.Fatal(err)
	}
	return engine.Phase{Name: "w", Engine: model.EngineFio, Params: b}
}

// stopInRun stops srv as SIGTERM does (Serve's end: Stop, then its pins
// go) once its session runs, after a further pause; it says how the stop
// went on the channel it returns.
func stopInRun(ctx context.Context, srv *Server, pause time.Duration) <-chan error {
	stopped := make(chan error, 1)
	go func() {
		for stageOf(srv) != "run" {
			if ctx.Err() != nil {
				stopped <- ctx.Err()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(pause)
		err := srv.Stop(ctx, "terminated signal received")
		_ = srv.unpinAll()
		stopped <- err
	}()
	return stopped
}

// leftUnder fails t when anything of the run is left in dir.
func leftUnder(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(names) > 0 {
		out, _ := exec.Command("find", dir).CombinedOutput()
		t.Errorf("left under DIR after the run: %v\n%s", names, out)
	}
}

// sharedRun is a run of hosts h0, h1, ... whose controller pinned area
// "r" on dir: what a test of hosts leaving a shared phase stages it on
// and checks after it.
type sharedRun struct {
	ctx  context.Context
	c    *Controller
	srvs []*Server // each host's agent's
	dir  string
	out  *Outcome // the phase's, once it ran
}

// pinnedHosts starts the agents of n hosts h0, h1, ... with start and a
// controller of them (wrap, given a host's index, wrapping its agent),
// connects it and pins area "r" on a new temp dir.
func pinnedHosts(t *testing.T, n int, start func(testing.TB, string) *testAgent, wrap func(int, Agent) Agent) *sharedRun {
	t.Helper()
	run := &sharedRun{dir: t.TempDir()}
	var agents []Agent
	for i := range n {
		name := "h" + strconv.Itoa(i)
		ta := start(t, name)
		run.srvs = append(run.srvs, ta.srv)
		agents = append(agents, wrap(i, remoteFor(ta, name)))
	}
	run.c = newController(agents...)
	run.ctx = testutil.Ctx(t, testutil.Bound)
	if _, err := run.c.Connect(run.ctx); err != nil {
		t.Fatal(err)
	}
	if err := run.c.PinArea(run.ctx, "r", run.dir); err != nil {
		t.Fatal(err)
	}
	return run
}

// awaitStops fails t unless each host's stop (stops[i] host i's) went
// well.
func awaitStops(t *testing.T, stops []<-chan error) {
	t.Helper()
	for i, st := range stops {
		if serr := testutil.Recv(t, st, testutil.Bound, "a stop"); serr != nil {
			t.Fatalf("h%d's stop: %v", i, serr)
		}
	}
}

// stopDuringShared runs a shared write of runtime seconds on h0 and h1,
// their agents started by start and wrapped by wrap (given the host's
// index), and has stop
// stop the agent of host (h0 or h1), given its server and the other's;
// it awaits that stop and fails t when the stop or the phase fails.
func stopDuringShared(t *testing.T, start func(testing.TB, string) *testAgent, wrap func(int, Agent) Agent, runtime int, host string, stop func(ctx context.Context, srv, other *Server) <-chan error) *sharedRun {
	t.Helper()
	run := pinnedHosts(t, 2, start, wrap)
	srv, other := run.srvs[0], run.srvs[1]
	if host == "h1" {
		srv, other = other, srv
	}
	stopped := stop(run.ctx, srv, other)
	out, err := run.c.RunPhase(run.ctx, "r", false, sharedWrite(t, run.dir, runtime))
	if serr := testutil.Recv(t, stopped, testutil.Bound, host+"'s stop"); serr != nil {
		t.Fatalf("stop: %v", serr)
	}
	if err != nil {
		t.Fatalf("the phase failed: %v", err)
	}
	run.out = out
	return run
}

// onH1 wraps h1's agent (index 1) by late, and no other.
func onH1(late func(Agent) Agent) func(int, Agent) Agent {
	return func(i int, a Agent) Agent {
		if i == 1 {
			return late(a)
		}
		return a
	}
}

// stoppedMidPhase is stopDuringShared with host's agent told to stop
// (SIGTERM) 300 ms into its run, h1's run 2 s late.
func stoppedMidPhase(t *testing.T, host string, runtime int) *sharedRun {
	t.Helper()
	late := onH1(func(a Agent) Agent { return lateRun{a, 2 * time.Second} })
	return stopDuringShared(t, startH2Agent, late, runtime, host, func(ctx context.Context, srv, _ *Server) <-chan error {
		return stopInRun(ctx, srv, 300*time.Millisecond)
	})
}

// nothingLeft fails t when the phase left anything, when the shared file
// is still there after it (why says who removed it, if not the first
// host), when the run-level cleanup leaves anything, or when anything of
// the run is left under DIR.
func (r *sharedRun) nothingLeft(t *testing.T, why string) {
	t.Helper()
	if len(r.out.Leftovers) > 0 {
		t.Errorf("the phase left %v", r.out.Leftovers)
	}
	if _, err := os.Stat(filepath.Join(engine.SharedArea(r.dir, "r"), "fio")); !os.IsNotExist(err) {
		t.Errorf("the shared file after the phase%s: %v, want it gone", why, err)
	}
	if left := r.c.RemoveShared(r.ctx, "r", r.dir); len(left) > 0 {
		t.Errorf("the run-level cleanup left %v", left)
	}
	leftUnder(t, r.dir)
}

// The first host's agent told to stop mid-phase (SIGTERM) cleans up on
// its own while the other hosts go on with the phase: the controller
// tells it others still run it, so it leaves the shared file, which a
// host whose fio opens it late still has to open, to them; the user is
// told, and h1 removes it when the phase is cleaned up, in h0's stead.
// Nothing of the run is left after the run-level cleanup. Removing it at
// the stop, as the first host's cleanup after every host's run does,
// failed h1 with "open(.../shared/fio/one): no such file or directory".
func TestStoppedFirstHostLeavesTheSharedFile(t *testing.T) {
	if _, err := fio.FindFio(""); err != nil {
		t.Skip(err)
	}
	run := stoppedMidPhase(t, "h0", 3)
	out := run.out
	if len(out.Stopped) != 1 || out.Stopped[0] != "h0" {
		t.Fatalf("stopped %v, want h0", out.Stopped)
	}
	if why := out.Errors["h0"]; why == nil || !strings.Contains(why.Error(), "was left to the hosts still running the phase") {
		t.Errorf("h0's stop says %v, want it to say it left the shared files to the hosts still running", why)
	}
	for _, r := range out.Results {
		if r.Host == "h1" && (r.Err != "" || len(r.Ops) == 0 || r.Ops[0].Bytes == 0) {
			t.Errorf("h1, whose fio began after h0 stopped: %+v", r)
		}
	}
	run.nothingLeft(t, ", which h1 removes in h0's stead")
}

// Every host's agent told to stop at once mid-phase (scancel of a Slurm
// step): of the agents asking whether others still run the phase, the
// last hears none does and removes what the hosts share, whatever its
// rank; no agent is left for the run-level cleanup, and nothing of the
// run is left under DIR. Agents that all left the shared file to a
// run-level cleanup (the backed-out solo cleanup) left it there, with the
// run's directories above it.
func TestEveryHostStoppedAtOnceLeavesNothing(t *testing.T) {
	if _, err := fio.FindFio(""); err != nil {
		t.Skip(err)
	}
	run := pinnedHosts(t, 3, startH2Agent, func(_ int, a Agent) Agent { return a })
	var stops []<-chan error
	for _, srv := range run.srvs {
		stops = append(stops, stopInRun(run.ctx, srv, 500*time.Millisecond))
	}
	out, err := run.c.RunPhase(run.ctx, "r", false, sharedWrite(t, run.dir, 10))
	awaitStops(t, stops)
	if err != nil {
		t.Fatalf("the phase: %v", err)
	}
	if len(out.Stopped) != 3 {
		t.Fatalf("stopped %v, want every host", out.Stopped)
	}
	if !out.End.Before(out.Start.Add(5 * time.Second)) {
		t.Fatalf("the phase ran %s of its 10 s: the hosts were not stopped mid-phase", out.End.Sub(out.Start))
	}
	leftUnder(t, run.dir)
}

// Of the hosts that still run a phase, the last to leave it hears it is
// alone, although a host whose run ended may still be there: stopped
// before its cleanup (scancel as the phase ends), it asks no one and
// removes only its own files, so the last running host must remove what
// the hosts share. Counting h1, done, as running told h2 others still ran
// the phase, and no host removed it. h0, told others ran it, is said to
// have left what they share.
func TestLastRunningHostIsAlone(t *testing.T) {
	h := newBarrierHub([]string{"h0", "h1", "h2"}, BarrierLead)
	h.shares = true
	if err := h.ended("h1", nil); err != nil {
		t.Fatalf("h1's normal end: %v", err)
	}
	if !h.goes(0) {
		t.Errorf("h0, leaving while h2 runs, heard it was alone")
	}
	if h.goes(2) {
		t.Errorf("h2, the last host running, heard others still run the phase")
	}
	stop := fmt.Errorf("%w (terminated)", ErrStopped)
	if err := h.ended("h0", stop); !errors.Is(err, ErrStopped) || !strings.Contains(err.Error(), "was left to the hosts still running") {
		t.Errorf("h0's stop: %v, want it to say what the hosts share stays", err)
	}
	if err := h.ended("h2", stop); err != stop {
		t.Errorf("h2's stop: %v, want %v alone (it removed what the hosts share)", err, stop)
	}
}

// A host stopped mid-phase after every other host's run ended is the
// last running host: it removes the shared file itself, though it is not
// the first host, and the first host's cleanup when the phase is cleaned
// up finds it gone and reports nothing left.
func TestLastRunningHostStoppedRemovesTheSharedFile(t *testing.T) {
	if _, err := fio.FindFio(""); err != nil {
		t.Skip(err)
	}
	// h0's 1-s run ends before h1's begins.
	run := stoppedMidPhase(t, "h1", 1)
	if len(run.out.Stopped) != 1 || run.out.Stopped[0] != "h1" {
		t.Fatalf("stopped %v, want h1", run.out.Stopped)
	}
	if why := run.out.Errors["h1"]; why == nil || strings.Contains(why.Error(), "was left to") {
		t.Errorf("h1's stop says %v, want it not to have left anything to others", why)
	}
	run.nothingLeft(t, "")
}

// An answer to a leave line (POST /v1/leave) whose body does not decode
// is refused with 400 saying so, and is not taken for an answer: decoded
// as far as it went it would say no other host runs the phase, and the
// leaving agent would remove what the hosts share from under them. The
// controller's well-formed answer after it is still taken, once.
func TestMalformedLeaveAnswerIsRefused(t *testing.T) {
	ta := startAgent(t, "a", nil)
	a := remoteFor(ta, "a")
	t.Cleanup(a.Close)
	ctx := testutil.Ctx(t, testutil.Bound)
	if err := a.Prepare(ctx, Request{RunID: "r", Phase: tickPhaseOf(t, 100, 50, 1)}); err != nil {
		t.Fatal(err)
	}
	post := func(body string) (int, string) {
		t.Helper()
		req, err := a.request(ctx, http.MethodPost, "leave", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Body, req.ContentLength = io.NopCloser(strings.NewReader(body)), int64(len(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return resp.StatusCode, string(b)
	}
	for _, bad := range []string{`{"others":`, `{"others":"yes"}`, ``} {
		if code, answer := post(bad); code != http.StatusBadRequest || !strings.Contains(answer, "bad leave request") {
			t.Errorf("leave body %q: answered %d %q, want 400 saying the leave request is bad", bad, code, answer)
		}
	}
	if code, answer := post(`{"others":true}`); code != http.StatusNoContent {
		t.Errorf("the well-formed answer after the malformed ones: %d %q, want 204 (a malformed one taken for the answer?)", code, answer)
	}
	if code, _ := post(`{"others":true}`); code != http.StatusConflict {
		t.Errorf("a second answer: %d, want 409 (the agent has its answer)", code)
	}
}
