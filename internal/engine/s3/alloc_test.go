package s3

import (
	"io"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/record"
)

// The engine's own per-request work (recording, the benchdata line, the
// upload body) allocates nothing; what remains per request is the SDK's.
func TestPerRequestBookkeepingAllocatesNothing(t *testing.T) {
	c := &config{endpoints: []string{"a:1", "b:2"}}
	ph := &phase{c: c, ops: []string{"GET"}, picker: newHostPicker(2, "weighed", 0), monoBase: time.Now()}
	l, err := newOpLog(t.TempDir()+"/x.zst", 1)
	if err != nil {
		t.Fatal(err)
	}
	wk := &worker{ph: ph, rec: record.NewRecorder(ph.ops, true),
		epRec: []*record.Recorder{record.NewRecorder(ph.ops, true), record.NewRecorder(ph.ops, true)}}
	wk.log.l = l
	d := newDataBlock(64<<10, 1)
	sink := make([]byte, 64<<10)
	t0 := time.Now()
	// AllocsPerRun counts whole allocations per run, so 2000 runs (a
	// few of the op log's flushes) find one a request as 20000 did.
	allocs := testing.AllocsPerRun(2000, func() {
		ep := ph.picker.pick()
		wk.finish(0, ep, t0, t0.Add(time.Microsecond), 4096, nil)
		wk.body.reset(d, 12345, 64<<10)
		_, _ = io.ReadFull(&wk.body, sink)
	})
	wk.log.flush()
	if err := l.close(); err != nil {
		t.Fatal(err)
	}
	if allocs > 0.01 {
		t.Fatalf("%.2f allocations per request in storbench's own code", allocs)
	}
}
