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

// Results written before fio's jobs were added up on their host list an
// operation once per job (fio without group_reporting), each job's window
// over the same seconds: each second's time counts once, its rate is its
// operations (issue 35: before, half of them with two jobs).
func TestJobsOverTheSameSecondsCountOnce(t *testing.T) {
	job := func(start, end int64) record.OpStats {
		return record.OpStats{Op: "w write", Ops: 4000, StartNs: start, EndNs: end}
	}
	h := &model.HostResult{Host: "h", Ops: []record.OpStats{job(nsPerS, 5*nsPerS), job(nsPerS+5e6, 5*nsPerS+1e7)}}
	for i := range int64(4) {
		h.Series = append(h.Series, record.Second{StartNs: (i + 1) * nsPerS, EndNs: (i + 2) * nsPerS, Op: "w write", Ops: 2000})
	}
	secs, err := SecondsOf([]*model.HostResult{h}, PhaseStart([]*model.HostResult{h}), time.Second, nil)
	if err != nil || len(secs) != 1 {
		t.Fatalf("%+v %v", secs, err)
	}
	for _, s := range secs[0].Seconds {
		if s.Ops != 2000 || math.Abs(s.OpsPerS-2000) > 25 || !s.Full {
			t.Errorf("second %d: %d operations at %.1f/s over %.3f s (full %v), want 2000 at 2000/s", s.Index, s.Ops, s.OpsPerS, s.Seconds, s.Full)
		}
	}
}

// Several hosts' total in a second is their operations over the time the
// second was covered: a host that failed 0.4 s into it adds its
// operations, not its rate as if it had run the whole second; the last
// second, which the hosts left 0.3 s and 0.6 s into it, is a partial
// second over 0.6 s, not full.
func TestTotalOfHostsOverTheWallClock(t *testing.T) {
	host := func(name string, end int64, perS uint64) *model.HostResult {
		h := &model.HostResult{Host: name, Ops: []record.OpStats{{Op: "write", StartNs: 0, EndNs: end}}}
		for at := int64(0); at < end; at += nsPerS {
			to := min(at+nsPerS, end)
			h.Series = append(h.Series, record.Second{StartNs: at, EndNs: to, Op: "write", Ops: perS * uint64(to-at) / uint64(nsPerS)})
		}
		return h
	}
	a, b := host("a", 3*nsPerS+3*nsPerS/10, 1000), host("b", 2*nsPerS+4*nsPerS/10, 1000)
	c := host("c", 3*nsPerS+6*nsPerS/10, 1000)
	secs, err := SecondsOf([]*model.HostResult{a, b, c}, 0, time.Second, nil)
	if err != nil || len(secs) != 1 || len(secs[0].Seconds) != 4 {
		t.Fatalf("%+v %v", secs, err)
	}
	s := secs[0].Seconds
	for i, want := range []struct {
		rate, seconds float64
		full          bool
	}{{3000, 1, true}, {3000, 1, true}, {2400, 1, true}, {900.0 / 0.6, 0.6, false}} {
		if math.Abs(s[i].OpsPerS-want.rate) > 1 || math.Abs(s[i].Seconds-want.seconds) > 1e-9 || s[i].Full != want.full {
			t.Errorf("second %d: %.1f/s over %.3f s (full %v), want %.1f/s over %.1f s (full %v)", i, s[i].OpsPerS, s[i].Seconds, s[i].Full, want.rate, want.seconds, want.full)
		}
	}
}
