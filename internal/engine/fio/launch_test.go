package fio

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/testutil"
)

// Which job files Prepare can start with every measured job at the gate,
// and how many jobs come to it.
func TestHeldJobs(t *testing.T) {
	seed, err := os.ReadFile("workloads/default/031-iopsR.job")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, text string
		want       int // 0: not held, started by Run
	}{
		{"the seed's read-IOPS job", string(seed), 64},
		{"one section", "[r]\nrw=read\nsize=1m\n", 1},
		{"one group of two sections", "[global]\nnumjobs=4\n[r]\nrw=read\n[w]\nrw=write\nnumjobs=2\n", 6},
		{"create_only in the measured group", "[c]\ncreate_only=1\n[r]\nrw=read\n", 1},
		{"a startdelay alike everywhere", "[global]\nstartdelay=5\n[r]\nrw=read\n[w]\nrw=write\n", 2},
		{"two measured groups", "[r]\nrw=read\n[w]\nstonewall\nrw=write\n", 0},
		{"stonewall in global", "[global]\nstonewall\n[r]\nrw=read\n[w]\nrw=write\n", 0},
		{"wait_for", "[r]\nrw=read\n[w]\nrw=write\nwait_for=r\n", 0},
		{"files made after the measured jobs", "[r]\nrw=read\n[c]\nstonewall\ncreate_only=1\n", 0},
		{"a startdelay of its own", "[r]\nrw=read\n[w]\nrw=write\nstartdelay=2\n", 0},
		{"numjobs not a number", "[r]\nrw=read\nnumjobs=four\n", 0},
		{"numjobs 0", "[r]\nrw=read\nnumjobs=0\n", 0},
		{"a name the shell cannot take", "[r x]\nrw=read\n", 0},
		{"only create_only", "[c]\ncreate_only=1\n", 0},
	} {
		jf, err := ParseJobFile(tc.name, tc.text)
		if err != nil {
			t.Fatal(err)
		}
		n, ok := heldJobs(jf)
		if ok != (tc.want > 0) || n != tc.want {
			t.Errorf("%s: %d jobs, held %v; want %d", tc.name, n, ok, tc.want)
		}
	}
}

// Issue 25 item 12: Prepare starts the phase's fio, which lays out the
// files (the create_only section, once, as plain fio does) and brings every
// job to the start gate; Run only opens it. The files are in place when
// Prepare returns, the first I/O comes at the start time (not after fio's
// own start-up: forking jobs, which fio polls for every 100 ms, and its
// clock calibration, 0.3-0.5 s of every phase before), and a phase prepared
// and never run leaves no fio behind.
func TestPrepareStartsFioAtTheGate(t *testing.T) {
	if _, err := FindFio(""); err != nil {
		t.Skip(err)
	}
	text := "[global]\nioengine=psync\nfilesize=1m\nnumjobs=4\nfilename_format=$filenum/$jobnum\n" +
		"[make]\nbs=1m\ncreate_only=1\n[read]\nstonewall\nrw=read\nbs=64k\n"
	// took is how long Prepare took: fio's start-up and layout on this
	// machine as loaded now, the baseline of the bounds below.
	prepare := func(t *testing.T, dir string) (p engine.Prepared, took time.Duration) {
		b, _ := json.Marshal(Params{Dir: dir, Job: Job{Name: "pre", Text: text}})
		t0 := time.Now()
		p, err := Engine{}.Prepare(testutil.Ctx(t, testutil.Bound), engine.Env{Host: "h", RunID: "gate"}, engine.Phase{Name: "pre", Engine: "fio", Params: b})
		if err != nil {
			t.Fatal(err)
		}
		return p, time.Since(t0)
	}
	t.Run("run", func(t *testing.T) {
		dir := t.TempDir()
		p, took := prepare(t, dir)
		defer p.Cleanup(context.Background())
		for j := range 4 {
			f := filepath.Join(dir, "storbench", "gate", "h", "pre", "data", "0", strconv.Itoa(j))
			if st, err := os.Stat(f); err != nil || st.Size() != 1<<20 {
				t.Errorf("file %s not laid out when Prepare returned: %v", f, err)
			}
		}
		if n := len(fioProcs(dir)); n == 0 {
			t.Error("no fio waits at the gate after Prepare")
		}
		startAt := time.Now()
		res, err := p.Run(testutil.Ctx(t, testutil.Bound), startAt, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Before, fio's start-up came after the start time: the first job
		// started about as late as Prepare now takes. Held at the gate, it
		// starts a scheduler's wake-up after it (within 100 ms on a quiet
		// machine), a small part of that however loaded the machine is.
		first, _ := strconv.ParseInt(res.Meta["first_io_ns"], 10, 64)
		if late := time.Duration(first - startAt.UnixNano()); late < 0 || late > max(100*time.Millisecond, took/3) {
			t.Errorf("the first job started %v after the start time, want within 100 ms or a third of fio's start-up (Prepare took %v)", late, took)
		}
		out, err := ParseOutput(res.Raw["fio.json"])
		if err != nil {
			t.Fatal(err)
		}
		var made int
		var read uint64
		for _, j := range out.Jobs {
			if j.Name == "make" {
				made++
			}
			read += j.Read.IOBytes
		}
		if made != 4 || read != 4<<20 {
			t.Errorf("%d create_only jobs ran (want 4, once each), %d bytes read (want 4 MiB)", made, read)
		}
	})
	t.Run("cleaned up unrun", func(t *testing.T) {
		dir := t.TempDir()
		p, _ := prepare(t, dir)
		t0 := time.Now()
		if err := p.Cleanup(context.Background()); err != nil {
			t.Fatal(err)
		}
		// killWait is how long Cleanup waits for a fio that does not end.
		if el := time.Since(t0); el >= killWait {
			t.Errorf("Cleanup took %v: it waited for a fio that did not end", el)
		}
		nothingLeft(t, dir, "gate", "a phase that never ran")
	})
}

// nothingLeft checks that no fio of a phase under dir outlived what, and
// that the phase left nothing in DIR (run runID, host h), within 30 s:
// killed processes are reaped when the machine gets to it.
func nothingLeft(t *testing.T, dir, runID, what string) {
	t.Helper()
	var ps []string
	var ents []os.DirEntry
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		ps = fioProcs(dir)
		ents, _ = os.ReadDir(filepath.Join(dir, "storbench", runID, "h"))
		if len(ps) == 0 && len(ents) == 0 || time.Now().After(end) {
			break
		}
	}
	if len(ps) > 0 {
		t.Errorf("fio outlived %s: %v", what, ps)
	}
	if len(ents) != 0 {
		t.Errorf("left in DIR by %s: %v", what, ents)
	}
}

// fioProcs are the pids of processes whose command line names a job file
// under dir.
func fioProcs(dir string) []string {
	var pids []string
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if c, _ := os.ReadFile(p); strings.Contains(string(c), dir) && strings.Contains(string(c), ".fio") {
			pids = append(pids, filepath.Base(filepath.Dir(p)))
		}
	}
	return pids
}

// A job that fails before it comes to the gate fails Prepare in fio's
// words, at once, where Prepare would wait for it forever: its own
// exec_prerun failed, or it was killed.
func TestPrepareJobFailsBeforeTheGate(t *testing.T) {
	if _, err := FindFio(""); err != nil {
		t.Skip(err)
	}
	prepare := func(t *testing.T, dir, prerun string) (time.Duration, error) {
		text := "[global]\nioengine=psync\nsize=1m\n[ok]\nrw=read\n[bad]\nrw=read\nexec_prerun=" + prerun + "\n"
		b, _ := json.Marshal(Params{Dir: dir, Job: Job{Name: "pf", Text: text}})
		// Where Prepare waited for the job for ever, it fails here.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		t0 := time.Now()
		p, err := Engine{}.Prepare(ctx, engine.Env{Host: "h", RunID: "pf", AllowExec: true}, engine.Phase{Name: "pf", Engine: "fio", Params: b})
		took := time.Since(t0)
		if ctx.Err() != nil {
			t.Fatalf("Prepare still waited after %v: %v", took, err)
		}
		if err == nil {
			err = p.Cleanup(context.Background())
			nothingLeft(t, dir, "pf", "the healthy Prepare")
			if err != nil {
				t.Fatal(err)
			}
			return took, nil
		}
		return took, err
	}
	// The baseline: the same job file, its job's own exec_prerun passing,
	// brought to the gate on this machine as loaded now.
	base, err := prepare(t, t.TempDir(), "true")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, prerun, want string }{
		{"its own exec_prerun failed", "false", "exec_prerun failed"},
		{"killed", "kill -9 $PPID && sleep 2", "got signal=9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			el, err := prepare(t, dir, tc.prerun)
			if err == nil || !strings.Contains(err.Error(), "fio job pf failed before its start") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("after %v: %v", el, err)
			}
			// At once: the failure is seen when the job fails, about when
			// the healthy job came to the gate; then fio is ended and its
			// job file read by fio's parser (one more start-up).
			if bound := 4*base + 2*time.Second; el > bound {
				t.Errorf("Prepare failed %v after it began, want within %v (the healthy Prepare took %v)", el, bound, base)
			}
			nothingLeft(t, dir, "pf", "the failed Prepare")
		})
	}
}
