package fio

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/testutil"
	"github.com/storbench/storbench/internal/units"
)

// The two passes of a stonewall phase on IOR's ior-hard shape, offsets
// hand-computed: 2 jobs of 47,008-byte blocks with a gap of 2 blocks
// (job k's block b at k x 47008 + b x 141024). The deadline pass runs each
// job in a section of its own at its own offset for the deadline, syncing
// nothing (IOR's -e syncs once, after the wear-out); the wear-out pass
// writes job 0's blocks 3 and 4 (it wrote 3, job 1 wrote 5), and syncs.
func TestStonewallPasses(t *testing.T) {
	jf, err := ParseJobFile("hard", "[global]\ngroup_reporting\n[hard]\nrw=write:94016\nbs=47008\noffset=0\noffset_increment=47008\nnumjobs=2\nfilename=ior-hard\nsize=10g\nfsync_on_close=1\n")
	if err != nil {
		t.Fatal(err)
	}
	j, err := jf.seqJob("write")
	if err != nil {
		t.Fatal(err)
	}
	p1, err := jf.deadlinePass(j, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	want1 := map[string]map[string]string{
		"hard.job0": {"offset": "0", "runtime": "2000ms", "numjobs": "1", "offset_increment": "0", "filename": "ior-hard", "fsync_on_close": "0", "size": "10g"},
		"hard.job1": {"offset": "47008", "runtime": "2000ms", "numjobs": "1", "offset_increment": "0", "filename": "ior-hard", "fsync_on_close": "0", "size": "10g"},
	}
	checkSections(t, p1, want1)
	p2, err := jf.wearOutPass(j, []int64{3, 5}, 5)
	if err != nil || p2 == nil {
		t.Fatalf("wear-out pass %v, %v", p2, err)
	}
	checkSections(t, p2, map[string]map[string]string{
		"hard.job0": {"offset": "423072", "size": "188032", "io_size": "94016", "filename": "ior-hard", "fsync_on_close": "1", "rw": "write:94016"},
	})
	if p, err := jf.wearOutPass(j, []int64{5, 5}, 5); p != nil || err != nil {
		t.Errorf("every job at its count, yet a wear-out pass: %v %v", p, err)
	}
}

// checkSections checks that jf's job sections are exactly want's, each
// with (at least) the options given.
func checkSections(t *testing.T, jf *JobFile, want map[string]map[string]string) {
	t.Helper()
	seen := 0
	for _, s := range jf.Sections {
		if isGlobal(s.Name) {
			if _, ok := s.Get("group_reporting"); ok {
				t.Errorf("[%s] keeps group_reporting: fio would not report each job's bytes", s.Name)
			}
			continue
		}
		opts, ok := want[s.Name]
		if !ok {
			t.Errorf("unexpected section [%s]:\n%s", s.Name, jf.Render())
			continue
		}
		seen++
		for k, v := range opts {
			if got, _ := jf.Lookup(s, k); got != v {
				t.Errorf("[%s] %s=%q, want %q", s.Name, k, got, v)
			}
		}
	}
	if seen != len(want) {
		t.Errorf("%d job sections, want %d:\n%s", seen, len(want), jf.Render())
	}
}

// A job of a stonewall phase that wrote its whole size before the
// deadline has its file synced as it ends (IOR's rank closes and, with
// -e, syncs its file then), not once fio has ended: here fio ends 0.4 s
// later (the job's own exec_postrun sleeps), and the phase's window
// ends with the job's sync, well before. Before, the window held fio's end
// (fio looks for ended jobs every 10 ms, then reports). The sleep ends
// before fio's first status report (1 s), which would wait for it and
// count the wait in the job's runtime.
func TestStonewallSyncsAJobAsItEnds(t *testing.T) {
	if _, err := FindFio(""); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	text := "[w]\nioengine=psync\nrw=write\nbs=64k\nsize=1m\nfsync_on_close=1\nexec_postrun=sleep 0.4\n"
	sw := units.Duration(time.Minute)
	b, _ := json.Marshal(Params{Dir: dir, Stonewall: &sw, Job: Job{Name: "w", Text: text}})
	p, err := Engine{}.Prepare(testutil.Ctx(t, testutil.Bound), engine.Env{Host: "h", RunID: "ends", AllowExec: true}, engine.Phase{Name: "w", Engine: "fio", Params: b})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Cleanup(context.Background())
	startAt := time.Now().Add(150 * time.Millisecond)
	late := testutil.StartLateness()
	res, err := p.Run(testutil.Ctx(t, testutil.Bound), startAt, nil)
	late.Stop()
	if err != nil {
		t.Fatal(err)
	}
	first, err := strconv.ParseInt(res.Meta["first_io_ns"], 10, 64)
	if err != nil {
		t.Fatalf("first_io_ns %q: %v", res.Meta["first_io_ns"], err)
	}
	ran := time.Since(time.Unix(0, first))
	if ran < 400*time.Millisecond {
		t.Fatalf("fio ended %v after the job began: the job's own exec_postrun did not run", ran)
	}
	// Timed from the job's first write: on a loaded machine fio's
	// start-up may take longer than the lead. The job's exec_postrun
	// (0.4 s, longer on a loaded machine, never shorter) comes after its
	// sync and before fio's end: it lies between the window's end and
	// fio's, where a window that held fio's end left next to nothing.
	// The job's end is when the agent read the job's line, a wake-up
	// later, as late as this machine's (at a load of 17 the window ended
	// 292 ms before fio's end): the 300 ms wanted shrink by two of the
	// latest wake-ups seen meanwhile, to no less than 100 ms.
	_, end := record.Span(res.Ops)
	need := max(300*time.Millisecond-2*late.Max(), 100*time.Millisecond)
	if w := time.Duration(end - first); w <= 0 || ran-w < need {
		t.Errorf("the window ended %v after the first write, fio %v after it, want %v before (wake-ups up to %v late): the job's file was synced after fio ended, not as the job did",
			w, ran, need, late.Max())
	}
	if res.Meta[model.MetaWearOutBlocks] != "16" {
		t.Errorf("the hosts agreed on %s blocks, want 16 (1 MiB of 64 KiB)", res.Meta[model.MetaWearOutBlocks])
	}
}
