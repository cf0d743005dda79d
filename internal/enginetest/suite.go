// Package enginetest is the conformance suite of the engine contract
// (engine.Engine, engine.Prepared): the promises the controller relies on,
// checked the same way against every engine, each with its real parts
// (fio on a directory, md on a directory, s3 against versitygw), from that
// engine's own package tests:
//
//	func TestConformance(t *testing.T) { enginetest.Suite{...}.Run(t) }
//
// What it checks: a phase prepares, runs, returns what it measured and
// cleans up after itself, leaving nothing it created; what its plan said
// before the run (where it writes, how long it runs, which settings are
// secret) is what the run did; a stop in the middle
// of the run ends it within a bound and still returns what was measured;
// a stop before the start returns at once; its outside tool (Info.Tool)
// is found where Env.Tools says, and the tool run is the one given
// there; Keep leaves what was made; a
// second Cleanup is harmless; and data that was there before - around the
// engine's namespace, in it, with names one character off - is untouched
// byte for byte whatever happens; a level of a file engine's namespace
// that is a symbolic link is refused before anything is made, locally and
// through an agent; and a level swapped for a symbolic link while a phase
// runs turns no removal into a deletion where the link leads.
package enginetest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
)

// Suite describes one engine under test.
type Suite struct {
	// Engine is the engine under test.
	Engine engine.Engine
	// Env is the environment phases run in (Host set; RunID is chosen
	// per test).
	Env engine.Env
	// Phase returns a phase named name: a short one that ends by itself
	// within a few seconds, or (long) one that would run far longer than
	// any test, to be stopped.
	Phase func(t *testing.T, name string, long bool) engine.Phase
	// Target is where the engine puts what it creates.
	Target Target
	// StopBound is how long Run may take to return once its context ends
	// (default 5 s).
	StopBound time.Duration
	// ThroughAgent runs the plan's checks and the refusal tests also
	// through a real agent process (`storbench agent`), as a remote run
	// prepares.
	ThroughAgent bool
	// Secret is a secret the short phase carries in its settings (s3's
	// secret key), which nothing a run records or the engine returns may
	// show; "" when the engine's phases carry none (an engine that
	// declares secret settings, Info.Secrets, must give one).
	Secret string
}

// Target is the storage an engine works on, seen from outside the engine.
type Target interface {
	// PlaceForeign puts data storbench did not create around and inside
	// the place a run runID works in, and returns a function that checks
	// it is all still there, byte for byte.
	PlaceForeign(t *testing.T, runID string) (check func(t *testing.T))
	// Created lists what exists of run runID's (what a Cleanup must
	// remove), empty when nothing does.
	Created(t *testing.T, runID string) []string
	// Purge removes what run runID kept (after Keep).
	Purge(t *testing.T, runID string)
	// Everything lists all the target holds, each item named as the
	// engine's Plan.Location names places (a file's or directory's path;
	// an object as bucket/key), so that what a run made, and where, is
	// the difference of two lists.
	Everything(t *testing.T) []string
}

// Run runs every test of the suite.
func (s Suite) Run(t *testing.T) {
	if s.StopBound == 0 {
		s.StopBound = 5 * time.Second
	}
	t.Run("PrepareRunCleanup", s.prepareRunCleanup)
	t.Run("PlanAnswers", s.planAnswers)
	t.Run("Tool", s.tool)
	t.Run("StopMidRun", s.stopMidRun)
	t.Run("StopBeforeStart", s.stopBeforeStart)
	t.Run("CleanupWithoutRun", s.cleanupWithoutRun)
	t.Run("Keep", s.keep)
	t.Run("CleanupTwice", s.cleanupTwice)
	t.Run("RefuseSymlinks", s.refuseSymlinks)
	t.Run("SwappedWorkspace", s.swappedWorkspace)
}

var runSeq struct {
	sync.Mutex
	n int
}

// runID returns a run id of its own for each test.
func runID(t *testing.T) string {
	runSeq.Lock()
	defer runSeq.Unlock()
	runSeq.n++
	return fmt.Sprintf("conf%d-%d", os.Getpid()%10000, runSeq.n)
}

func (s Suite) prepare(t *testing.T, runID string, keep, long bool) (engine.Prepared, engine.Phase) {
	t.Helper()
	env := s.Env
	env.RunID, env.Keep = runID, keep
	p := s.Phase(t, "conformance", long)
	pr, err := s.Engine.Prepare(context.Background(), env, p)
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	return pr, p
}

// snapshots collects the live snapshots of a run.
type snapshots struct {
	mu       sync.Mutex
	all      []engine.Snapshot
	measured chan struct{} // closed at the first snapshot with an operation done
	once     sync.Once
}

func newSnapshots() *snapshots { return &snapshots{measured: make(chan struct{})} }

func (sn *snapshots) live(s engine.Snapshot) {
	sn.mu.Lock()
	sn.all = append(sn.all, s)
	sn.mu.Unlock()
	for _, o := range s.Ops {
		if o.Ops > 0 {
			sn.once.Do(func() { close(sn.measured) })
		}
	}
}

func (sn *snapshots) check(t *testing.T, host, phase string) {
	t.Helper()
	sn.mu.Lock()
	defer sn.mu.Unlock()
	for _, s := range sn.all {
		if s.Host != host || s.Phase != phase {
			t.Errorf("live snapshot of host %q phase %q, want %q %q", s.Host, s.Phase, host, phase)
			return
		}
	}
}

// measured returns the operations done in res, and fails t when there are
// none or when res names another host.
func (s Suite) measured(t *testing.T, res *engine.HostResult) uint64 {
	t.Helper()
	if res == nil {
		t.Fatal("Run returned no result")
	}
	if res.Host != s.Env.Host {
		t.Errorf("result of host %q, want %q", res.Host, s.Env.Host)
	}
	var n uint64
	for _, o := range res.Ops {
		n += o.Ops
	}
	if n == 0 {
		t.Errorf("the result holds no operation: %+v", res.Ops)
	}
	return n
}

// cleanUp runs the phase's Cleanup and checks that nothing of the run is
// left and nothing foreign was touched (check is PlaceForeign's).
func (s Suite) cleanUp(t *testing.T, pr engine.Prepared, runID string, check func(*testing.T)) {
	t.Helper()
	if err := pr.Cleanup(context.Background()); err != nil {
		t.Errorf("Cleanup: %v", err)
	}
	s.nothingLeft(t, runID)
	check(t)
}

func (s Suite) nothingLeft(t *testing.T, runID string) {
	t.Helper()
	if left := s.Target.Created(t, runID); len(left) > 0 {
		t.Errorf("left behind after Cleanup: %v", left)
	}
}

// A phase prepares, runs to its end, returns what it measured (live
// snapshots on the way), and cleans up everything it created.
func (s Suite) prepareRunCleanup(t *testing.T) {
	id := runID(t)
	check := s.Target.PlaceForeign(t, id)
	pr, p := s.prepare(t, id, false, false)
	sn := newSnapshots()
	res, err := pr.Run(context.Background(), time.Now(), sn.live)
	if err != nil {
		t.Errorf("Run: %v", err)
	}
	s.measured(t, res)
	for _, o := range res.Ops {
		if o.Errors > 0 {
			t.Errorf("%s: %d errors %v", o.Op, o.Errors, o.ErrorKinds)
		}
	}
	if res.Err != "" {
		t.Errorf("result error %q", res.Err)
	}
	sn.check(t, s.Env.Host, p.Name)
	if len(s.Target.Created(t, id)) == 0 {
		t.Error("nothing of the run's exists before Cleanup: Created sees nothing")
	}
	s.cleanUp(t, pr, id, check)
}

// A stop in the middle of the run (the context ends, as on Ctrl-C or a
// lost controller) ends Run within the bound, with the context's error and
// what was measured until then; Cleanup then removes everything.
func (s Suite) stopMidRun(t *testing.T) {
	id := runID(t)
	check := s.Target.PlaceForeign(t, id)
	pr, p := s.prepare(t, id, false, true)
	defer func() {
		s.cleanUp(t, pr, id, check)
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sn := newSnapshots()
	type out struct {
		res *engine.HostResult
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := pr.Run(ctx, time.Now(), sn.live)
		done <- out{res, err}
	}()
	select {
	case <-sn.measured:
	case o := <-done:
		t.Fatalf("the long phase ended by itself (%v) before a live snapshot showed progress", o.err)
	case <-time.After(30 * time.Second):
		t.Fatal("no live snapshot with an operation done within 30s")
	}
	cancel()
	t0 := time.Now()
	var o out
	select {
	case o = <-done:
	case <-time.After(s.StopBound + 30*time.Second):
		t.Fatalf("Run did not return %v after the stop (bound %v)", s.StopBound+30*time.Second, s.StopBound)
	}
	if el := time.Since(t0); el > s.StopBound {
		t.Errorf("Run returned %v after the stop, more than its bound %v", el.Round(time.Millisecond), s.StopBound)
	}
	if !errors.Is(o.err, context.Canceled) {
		t.Errorf("Run returned %v, want the context's error", o.err)
	}
	s.measured(t, o.res)
	sn.check(t, s.Env.Host, p.Name)
}

// A stop while Run waits for its start returns at once, having run
// nothing.
func (s Suite) stopBeforeStart(t *testing.T) {
	id := runID(t)
	check := s.Target.PlaceForeign(t, id)
	pr, _ := s.prepare(t, id, false, true)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	done := make(chan error, 1)
	go func() {
		_, err := pr.Run(ctx, time.Now().Add(time.Hour), nil)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Run returned %v, want the context's error", err)
		}
	case <-time.After(s.StopBound):
		t.Fatalf("Run waiting for its start did not return within %v of the stop", s.StopBound)
	}
	s.cleanUp(t, pr, id, check)
}

// A phase prepared and never run (another host failed to prepare) is
// cleaned up all the same.
func (s Suite) cleanupWithoutRun(t *testing.T) {
	id := runID(t)
	check := s.Target.PlaceForeign(t, id)
	pr, _ := s.prepare(t, id, false, false)
	s.cleanUp(t, pr, id, check)
}

// Keep leaves what the phase created in place; nothing else changes.
func (s Suite) keep(t *testing.T) {
	id := runID(t)
	check := s.Target.PlaceForeign(t, id)
	pr, _ := s.prepare(t, id, true, false)
	res, err := pr.Run(context.Background(), time.Now(), nil)
	if err != nil {
		t.Errorf("Run: %v", err)
	}
	s.measured(t, res)
	if err := pr.Cleanup(context.Background()); err != nil {
		t.Errorf("Cleanup: %v", err)
	}
	if len(s.Target.Created(t, id)) == 0 {
		t.Error("Keep: nothing left after Cleanup")
	}
	check(t)
	s.Target.Purge(t, id)
	s.nothingLeft(t, id)
	check(t)
}

// A second Cleanup is harmless: no error, nothing else removed.
func (s Suite) cleanupTwice(t *testing.T) {
	id := runID(t)
	check := s.Target.PlaceForeign(t, id)
	pr, _ := s.prepare(t, id, false, false)
	if _, err := pr.Run(context.Background(), time.Now(), nil); err != nil {
		t.Errorf("Run: %v", err)
	}
	for i := 1; i <= 2; i++ {
		if err := pr.Cleanup(context.Background()); err != nil {
			t.Errorf("Cleanup %d: %v", i, err)
		}
	}
	s.nothingLeft(t, id)
	check(t)
}

// Files is the Target of a file engine: files under Dir, where a run puts
// what it creates under Dir/storbench/<run id>/.
type Files struct {
	Dir string
}

// PlaceForeign writes files next to and inside Dir/storbench, some named
// one character away from the run's own directory, and in a directory of
// another run.
func (f Files) PlaceForeign(t *testing.T, runID string) func(t *testing.T) {
	t.Helper()
	want := map[string][]byte{}
	for i, rel := range []string{
		"user.dat",
		"data/keep/a.bin",
		"storbench/other-run/h/p/file",
		"storbench/" + runID + "0/near-miss",
		"storbench/" + runID + ".txt",
		"storbench-" + runID + "/x",
	} {
		p := filepath.Join(f.Dir, rel)
		if _, err := os.Stat(p); err == nil {
			b, _ := os.ReadFile(p)
			want[p] = b
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		b := make([]byte, 1000+i*517)
		for j := range b {
			b[j] = byte(j*31 + i)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		want[p] = b
	}
	return func(t *testing.T) {
		t.Helper()
		for p, b := range want {
			got, err := os.ReadFile(p)
			if err != nil || string(got) != string(b) {
				t.Errorf("foreign file %s changed or gone (%v, %d of %d bytes)", p, err, len(got), len(b))
			}
		}
	}
}

// Created lists the entries under Dir/storbench/<run id>.
func (f Files) Created(t *testing.T, runID string) []string {
	t.Helper()
	var out []string
	root := filepath.Join(f.Dir, "storbench", runID)
	_ = filepath.WalkDir(root, func(p string, _ os.DirEntry, err error) error {
		if err == nil {
			rel, _ := filepath.Rel(f.Dir, p)
			out = append(out, rel)
		}
		return nil
	})
	if _, err := os.Lstat(filepath.Join(f.Dir, "storbench", ".storbench-created-by-"+runID)); err == nil {
		out = append(out, "storbench/.storbench-created-by-"+runID)
	}
	// The leases of the run's processes (engine's leases.go) go with the
	// last of what they hold.
	leases, _ := filepath.Glob(filepath.Join(f.Dir, "storbench", ".storbench-live-"+runID+".*"))
	for _, l := range leases {
		out = append(out, "storbench/"+filepath.Base(l))
	}
	sort.Strings(out)
	if len(out) > 20 {
		out = append(out[:20], fmt.Sprintf("... %d in all", len(out)))
	}
	return out
}

// Everything lists every file and directory under Dir (Dir itself not).
func (f Files) Everything(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(f.Dir, func(p string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != f.Dir {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("listing %s: %v", f.Dir, err)
	}
	return out
}

// Purge removes Dir/storbench/<run id>.
func (f Files) Purge(t *testing.T, runID string) {
	t.Helper()
	if err := os.RemoveAll(filepath.Join(f.Dir, "storbench", runID)); err != nil {
		t.Fatal(err)
	}
}
