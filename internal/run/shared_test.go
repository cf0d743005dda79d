package run

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/engine/fio"
	"github.com/storbench/storbench/internal/results"
)

// sharedWrite and sharedRead are IOR-hard's shape on one file: three
// 47,008-byte blocks per host, interleaved with the other hosts'.
const sharedJob = `[global]
ioengine=psync
filename=ior-hard
bs=47008
offset=(${STORBENCH_HOST_INDEX}*47008)
size=(((3-1)*${STORBENCH_HOST_COUNT}+1)*47008)
io_size=141024
verify=crc32c
`

func sharedPhase(t *testing.T, name, dir, rw string, ps fio.Params) engine.Phase {
	t.Helper()
	ps.Dir = dir
	ps.Job = fio.Job{Name: name, Text: sharedJob + "[" + name + "]\nrw=" + rw + ":((${STORBENCH_HOST_COUNT}-1)*47008)\n"}
	if rw == "write" {
		ps.Job.Text += "do_verify=0\n"
	}
	b, err := json.Marshal(ps)
	if err != nil {
		t.Fatal(err)
	}
	return engine.Phase{Name: name, Engine: "fio", Params: b}
}

// The shared file a write phase keeps for a later read phase is removed at
// the end of the run when the run stops before that phase: a phase fails
// in between, or Ctrl-C comes. With --keep it stays. When every phase
// runs, the last one removes it, and nothing of the run is left.
func TestSharedAreaRemovedAtTheEndOfTheRun(t *testing.T) {
	if _, err := fio.FindFio(""); err != nil {
		t.Skip(err)
	}
	for _, c := range []struct {
		name      string
		middle    fakeParams
		keep      bool
		stopAfter time.Duration
		kind      int  // the exit code
		left      bool // the shared file is there after the run
	}{
		{name: "a phase fails", middle: fakeParams{FailPrepare: "disk on fire"}, kind: Failed},
		{name: "interrupted", middle: fakeParams{UntilStop: true}, stopAfter: 1500 * time.Millisecond, kind: Interrupted},
		{name: "kept", middle: fakeParams{FailPrepare: "disk on fire"}, keep: true, kind: Failed, left: true},
		{name: "every phase runs", middle: fakeParams{Ops: 1}, kind: -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, sink, root := runner(t)
			r.Engines = engine.Registry{"fake": fakeEngine{}, "fio": fio.Engine{}}
			dir := t.TempDir()
			p := Plan{Name: "shared", ResultsRoot: root, MaxErrorShare: 5, Keep: c.keep, Dirs: []string{dir}, Phases: []engine.Phase{
				sharedPhase(t, "w", dir, "write", fio.Params{Shared: true}),
				fakePhaseOf(t, "middle", c.middle),
				sharedPhase(t, "r", dir, "read", fio.Params{Shared: true, ReadFrom: fio.ReadFromNeighbour}),
			}}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			if c.stopAfter > 0 {
				// Once the write phase is done: the middle phase runs
				// until stopped.
				go func() {
					for !strings.Contains(strings.Join(sinkEvents(sink), "\n"), "phase started middle") {
						time.Sleep(20 * time.Millisecond)
					}
					time.Sleep(c.stopAfter)
					cancel()
				}()
			}
			res, err := r.Run(ctx, p)
			var re *Error
			switch {
			case c.kind < 0 && err != nil:
				t.Fatalf("run: %v\n%s", err, strings.Join(sinkEvents(sink), "\n"))
			case c.kind >= 0 && (!errors.As(err, &re) || re.Code != c.kind):
				t.Fatalf("run: %v, want kind %d\n%s", err, c.kind, strings.Join(sinkEvents(sink), "\n"))
			}
			file := filepath.Join(engine.SharedArea(dir, res.Folder.RunInfo().RunID), "fio", "ior-hard")
			fi, serr := os.Stat(file)
			if c.left {
				if serr != nil || fi.Size() != 3*47008 {
					t.Errorf("--keep: the shared file %s: %v", file, serr)
				}
				return
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("DIR holds %v after the run", ents)
			}
			if c.kind < 0 {
				s := res.Summary
				if s.Status != results.StatusCompleted || len(s.Phases) != 3 || s.Phases[2].Ops[0].Bytes != 3*47008 {
					t.Errorf("status %s, phases %+v", s.Status, s.Phases)
				}
			}
		})
	}
}

func sinkEvents(s *recordingSink) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.events...)
}
