package analyze

import (
	"math"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
)

const nsPerS = int64(time.Second)

// A fio-like host: its first interval opens when the phase was told to
// start (t=0) and holds start-up; operations ran from 1 s to 4.3 s at
// 1000/s. Each second from the real start holds a second's operations at
// 1000/s (no second of two seconds' operations next to one of none), and
// the last 0.3 s is a rate over 0.3 s.
func TestSecondsAlignedToTheOperationsWindow(t *testing.T) {
	h := &model.HostResult{Host: "h", Ops: []record.OpStats{{Op: "read", Ops: 3300, StartNs: 1 * nsPerS, EndNs: 4*nsPerS + 3*nsPerS/10}},
		Series: []record.Second{
			{StartNs: 0, EndNs: 2 * nsPerS, Op: "read", Ops: 1000},
			{StartNs: 2 * nsPerS, EndNs: 3 * nsPerS, Op: "read", Ops: 1000},
			{StartNs: 3 * nsPerS, EndNs: 4 * nsPerS, Op: "read", Ops: 1000},
			{StartNs: 4 * nsPerS, EndNs: 4*nsPerS + 3*nsPerS/10, Op: "read", Ops: 300},
		}}
	hosts := []*model.HostResult{h}
	t0 := PhaseStart(hosts)
	if t0 != nsPerS {
		t.Fatalf("the time axis starts at %d ns, not at the operations' start (1 s)", t0)
	}
	secs, err := SecondsOf(hosts, t0, time.Second, nil)
	if err != nil || len(secs) != 1 {
		t.Fatalf("%v %v", secs, err)
	}
	var total uint64
	for _, s := range secs[0].Seconds {
		total += s.Ops
		if math.Abs(s.OpsPerS-1000) > 1e-6 {
			t.Errorf("second %d: %d operations at %.1f/s, not 1000/s", s.Index, s.Ops, s.OpsPerS)
		}
	}
	if total != 3300 || len(secs[0].Seconds) != 4 {
		t.Errorf("%d operations in %d seconds: %+v", total, len(secs[0].Seconds), secs[0].Seconds)
	}
}

// An md operation that ran 10 ms of a 1 s interval: its second's rate is
// over those 10 ms (the table's rate), not its count over a second.
func TestSubSecondOperationIsARate(t *testing.T) {
	h := &model.HostResult{Host: "h", Ops: []record.OpStats{{Op: "file-stat", Ops: 6000,
		Iterations: []record.Iteration{{Items: 6000, StartNs: 2*nsPerS + nsPerS/10, EndNs: 2*nsPerS + nsPerS/10 + nsPerS/100}}}},
		Series: []record.Second{{StartNs: 2 * nsPerS, EndNs: 3 * nsPerS, Op: "file-stat", Ops: 6000}}}
	secs, err := SecondsOf([]*model.HostResult{h}, 0, time.Second, nil)
	if err != nil || len(secs) != 1 || len(secs[0].Seconds) != 1 {
		t.Fatalf("%+v %v", secs, err)
	}
	if s := secs[0].Seconds[0]; s.Ops != 6000 || math.Abs(s.OpsPerS-600000) > 1 {
		t.Errorf("a 10 ms operation of 6000 items: %d at %.1f/s, want 600000/s", s.Ops, s.OpsPerS)
	}
}
