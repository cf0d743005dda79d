package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
	dir := t.TempDir()
	first, second := startAgent(t, "h0", nil), startAgent(t, "h1", nil)
	c := newController(remoteFor(first, "h0"), lateRun{remoteFor(second, "h1"), 2 * time.Second})
	ctx := testutil.Ctx(t, testutil.Bound)
	if _, err := c.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.PinArea(ctx, "r", dir); err != nil {
		t.Fatal(err)
	}
	stopped := stopInRun(ctx, first.srv, 300*time.Millisecond)
	out, err := c.RunPhase(ctx, "r", false, sharedWrite(t, dir, 3))
	if serr := testutil.Recv(t, stopped, testutil.Bound, "h0's stop"); serr != nil {
		t.Fatalf("stop: %v", serr)
	}
	if err != nil {
		t.Fatalf("the phase failed: %v", err)
	}
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
	if len(out.Leftovers) > 0 {
		t.Errorf("the phase left %v", out.Leftovers)
	}
	if _, err := os.Stat(filepath.Join(engine.SharedArea(dir, "r"), "fio")); !os.IsNotExist(err) {
		t.Errorf("the shared file after the phase, which h1 removes in h0's stead: %v, want it gone", err)
	}
	if left := c.RemoveShared(ctx, "r", dir); len(left) > 0 {
		t.Errorf("the run-level cleanup left %v", left)
	}
	leftUnder(t, dir)
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
	dir := t.TempDir()
	var tas []*testAgent
	var agents []Agent
	for i := range 3 {
		name := "h" + strconv.Itoa(i)
		tas = append(tas, startAgent(t, name, nil))
		agents = append(agents, remoteFor(tas[i], name))
	}
	c := newController(agents...)
	ctx := testutil.Ctx(t, testutil.Bound)
	if _, err := c.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.PinArea(ctx, "r", dir); err != nil {
		t.Fatal(err)
	}
	var stops []<-chan error
	for _, ta := range tas {
		stops = append(stops, stopInRun(ctx, ta.srv, 500*time.Millisecond))
	}
	out, err := c.RunPhase(ctx, "r", false, sharedWrite(t, dir, 10))
	for i, st := range stops {
		if serr := testutil.Recv(t, st, testutil.Bound, "a stop"); serr != nil {
			t.Fatalf("h%d's stop: %v", i, serr)
		}
	}
	if err != nil {
		t.Fatalf("the phase: %v", err)
	}
	if len(out.Stopped) != 3 {
		t.Fatalf("stopped %v, want every host", out.Stopped)
	}
	if !out.End.Before(out.Start.Add(5 * time.Second)) {
		t.Fatalf("the phase ran %s of its 10 s: the hosts were not stopped mid-phase", out.End.Sub(out.Start))
	}
	leftUnder(t, dir)
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
	dir := t.TempDir()
	first, second := startAgent(t, "h0", nil), startAgent(t, "h1", nil)
	c := newController(remoteFor(first, "h0"), lateRun{remoteFor(second, "h1"), 2 * time.Second})
	ctx := testutil.Ctx(t, testutil.Bound)
	if _, err := c.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.PinArea(ctx, "r", dir); err != nil {
		t.Fatal(err)
	}
	// h0's 1-s run ends before h1's begins.
	stopped := stopInRun(ctx, second.srv, 300*time.Millisecond)
	out, err := c.RunPhase(ctx, "r", false, sharedWrite(t, dir, 1))
	if serr := testutil.Recv(t, stopped, testutil.Bound, "h1's stop"); serr != nil {
		t.Fatalf("stop: %v", serr)
	}
	if err != nil {
		t.Fatalf("the phase failed: %v", err)
	}
	if len(out.Stopped) != 1 || out.Stopped[0] != "h1" {
		t.Fatalf("stopped %v, want h1", out.Stopped)
	}
	if why := out.Errors["h1"]; why == nil || strings.Contains(why.Error(), "was left to") {
		t.Errorf("h1's stop says %v, want it not to have left anything to others", why)
	}
	if len(out.Leftovers) > 0 {
		t.Errorf("the phase left %v", out.Leftovers)
	}
	if _, err := os.Stat(filepath.Join(engine.SharedArea(dir, "r"), "fio")); !os.IsNotExist(err) {
		t.Errorf("the shared file after the phase: %v, want it gone", err)
	}
	if left := c.RemoveShared(ctx, "r", dir); len(left) > 0 {
		t.Errorf("the run-level cleanup left %v", left)
	}
	leftUnder(t, dir)
}
