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

// Results of a starved run written before fio's intervals ended at fio's
// own times (issue 37): the agent read fio's status of 4.84 s at 5.3 s
// and its final output, after fio's end (5.005 s), at 5.5 s, so the last
// interval lies after the job's window, and so does its histogram. And a
// run whose last status fio took at 5.002 s, 3 ms before its end. The
// operations and latency of the window's last 5 ms, or past them, go to
// the window's last second, the one its 5 ms past 5 s are merged into,
// where they are counted in the rate: no second of the window's sliver
// with operations over no time (drawn at 0 ops/s: "point 5 of 6 is 0.00x
// the median", its operations missing from a chart's sum: 224 of 1536)
// or over 3 ms (one write at 333 ops/s), and the seconds' rates over
// their time add up to the operations.
func TestWindowsEdgeSliverIsCounted(t *testing.T) {
	for name, marks := range map[string][][2]int64{
		"read late after the end":      {{810, 52}, {1817, 65}, {2829, 64}, {3817, 64}, {5300, 65}, {5500, 10}},
		"a status 3 ms before the end": {{810, 52}, {1817, 65}, {2829, 64}, {3817, 64}, {5002, 74}, {5005, 1}},
	} {
		t.Run(name, func(t *testing.T) {
			secs := starvedSeconds(t, 5005, marks)
			var ops, latN uint64
			var drawn float64
			for _, s := range secs {
				ops += s.Ops
				latN += s.LatN
				drawn += s.OpsPerS * s.Seconds
				if s.OpsPerS < 0.25*64 || s.OpsPerS > 2.5*64 {
					t.Errorf("second %d: %d operations at %.1f ops/s over %.3f s, the job wrote 64 a second", s.Index, s.Ops, s.OpsPerS, s.Seconds)
				}
			}
			if n := len(secs); n != 5 || ops != 320 || latN != 320 || math.Abs(drawn-320) > 0.5 {
				t.Errorf("%d seconds, %d operations, %d latencies, rates over their time add up to %.1f; want 5 seconds, 320 of each", n, ops, latN, drawn)
			}
		})
	}
}

// starvedSeconds are the seconds of one host whose write window is
// [0, endMs) and whose intervals, each with a histogram, follow one
// another from 0, each closed at marks[k][0] ms with marks[k][1] writes.
func starvedSeconds(t *testing.T, endMs int64, marks [][2]int64) []OpSecond {
	t.Helper()
	ms := int64(time.Millisecond)
	h := &model.HostResult{Host: "h", Ops: []record.OpStats{{Op: "write", Ops: 320, StartNs: 0, EndNs: endMs * ms}}}
	var from int64
	var lat []record.LatSecond
	for _, m := range marks {
		to, ops := m[0], uint64(m[1])
		h.Series = append(h.Series, record.Second{StartNs: from, EndNs: to * ms, Op: "write", Ops: ops, Bytes: ops << 16})
		lat = append(lat, record.LatSecond{StartNs: from, EndNs: to * ms, Op: "write", SumNs: float64(ops) * 5e4, Bins: record.Bins{{V: 50000, N: ops}}})
		from = to * ms
	}
	var err error
	if h.LatencySeconds, err = record.EncodeLatSeconds(lat); err != nil {
		t.Fatal(err)
	}
	secs, err := SecondsOf([]*model.HostResult{h}, 0, time.Second, nil)
	if err != nil || len(secs) != 1 {
		t.Fatalf("%+v %v", secs, err)
	}
	return secs[0].Seconds
}

// An interval wholly outside its operation's window (a tick read after
// the operation ended) is counted at the window's nearest point, and its
// second's rate is over the time the window spends in that second (and
// in the window's edge sliver merged into it): a second with operations
// and no interval inside the window had a rate of 0 over 0 s, its
// operations neither in its rate nor in the chart's sum (issue 37). A
// rate not measured is never 0, and the window says when the host did
// the operations.
func TestOperationsOutsideTheWindowHaveARate(t *testing.T) {
	for name, c := range map[string]struct {
		start, end, from, to int64 // ms: the window, the interval
		ops                  uint64
		second               int
		seconds              float64
	}{
		"window inside a second":    {2200, 2600, 2700, 3000, 400, 2, 0.4},
		"window's sliver merged in": {2500, 3040, 3100, 3300, 540, 2, 0.54},
	} {
		t.Run(name, func(t *testing.T) {
			ms := int64(time.Millisecond)
			h := &model.HostResult{Host: "h", Ops: []record.OpStats{{Op: "read", Ops: c.ops, StartNs: c.start * ms, EndNs: c.end * ms}},
				Series: []record.Second{{StartNs: c.from * ms, EndNs: c.to * ms, Op: "read", Ops: c.ops}}}
			secs, err := SecondsOf([]*model.HostResult{h}, 0, time.Second, nil)
			if err != nil || len(secs) != 1 || len(secs[0].Seconds) != 1 {
				t.Fatalf("%+v %v", secs, err)
			}
			s := secs[0].Seconds[0]
			if s.Index != c.second || s.Ops != c.ops || math.Abs(s.Seconds-c.seconds) > 1e-9 || math.Abs(s.OpsPerS*s.Seconds-float64(c.ops)) > 1e-6 {
				t.Errorf("second %d: %d operations at %.1f ops/s over %.3f s; want second %d, %d operations over the window's %.2f s in it",
					s.Index, s.Ops, s.OpsPerS, s.Seconds, c.second, c.ops, c.seconds)
			}
		})
	}
}
