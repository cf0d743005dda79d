package metrics_test

import (
	"bufio"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/metrics"
	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/run"
)

// snap is host's snapshot after sec seconds at rate operations a second
// of 4 KiB, latencies spread from 1 to 2 ms (1 to 4 ms on h2).
func snap(host string, sec int, rate uint64) engine.Snapshot {
	n := rate * uint64(sec)
	var bins record.Bins
	if n > 0 {
		hi := int64(2_000_000)
		if host == "h2" {
			hi = 4_000_000
		}
		for v := int64(1_000_000); v <= hi; v += 10_000 {
			bins = append(bins, record.Bin{V: v, N: 1})
		}
		bins = scale(bins, n)
	}
	s := engine.Snapshot{Host: host, Phase: "p", Stage: "run", Elapsed: time.Duration(sec) * time.Second,
		Ops: []record.Count{{Op: "GET", Ops: n, Bytes: n * 4096}}}
	if n > 0 {
		s.Lat = []record.LiveLat{record.LiveLatOf("GET", bins, 0)}
	}
	return s
}

// scale makes bins hold n operations, spread evenly.
func scale(b record.Bins, n uint64) record.Bins {
	out := make(record.Bins, len(b))
	per, rest := n/uint64(len(b)), n%uint64(len(b))
	for i := range b {
		out[i] = record.Bin{V: b[i].V, N: per}
		if uint64(i) < rest {
			out[i].N++
		}
	}
	return out
}

// Each second brings one line per host with a new snapshot and one for
// the total, readable by a follower at once (before the stream ends); a
// host with nothing new has no line and is not in the total (its second
// was counted once, when it came); two seconds that came in one call are
// two lines; the phase's end writes what came after the last snapshot.
func TestLiveLines(t *testing.T) {
	pr, pw := io.Pipe()
	l := &metrics.Live{Open: func() (io.WriteCloser, error) { return pw, nil }}
	l.Started("run1", "folder")
	l.PhaseStarted(engine.Phase{Name: "p"}, []string{"h1", "h2"})
	lines := make(chan metrics.LiveLine, 100)
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var ln metrics.LiveLine
			if err := json.Unmarshal(sc.Bytes(), &ln); err != nil {
				t.Errorf("not JSON: %s", sc.Text())
			}
			lines <- ln
		}
		close(lines)
	}()
	next := func() metrics.LiveLine {
		select {
		case ln := <-lines:
			return ln
		case <-time.After(5 * time.Second):
			t.Fatal("no line within 5 s: the stream is not flushed")
		}
		return metrics.LiveLine{}
	}
	l.Progress(cluster.Progress{Hosts: []engine.Snapshot{snap("h1", 0, 1000), snap("h2", 0, 500)}})
	l.Progress(cluster.Progress{Hosts: []engine.Snapshot{snap("h1", 1, 1000), snap("h2", 1, 500)}})
	h1, h2, tot := next(), next(), next()
	if h1.Host != "h1" || h1.OpsPerS != 1000 || h1.BytesPerS != 1000*4096 || h1.Run != "run1" || h1.Phase != "p" {
		t.Errorf("h1: %+v", h1)
	}
	if h2.Host != "h2" || h2.OpsPerS != 500 {
		t.Errorf("h2: %+v", h2)
	}
	if !tot.Total || tot.Hosts != 2 || tot.OpsPerS != 1500 || len(tot.Ops) != 1 || tot.Ops[0].OpsPerS != 1500 {
		t.Errorf("total: %+v", tot)
	}
	// h1's p50 is near 1.5 ms, h2's near 2.5 ms; p99.9 of the total is h2's top.
	if h1.P50Ns == nil || *h1.P50Ns < 1_450_000 || *h1.P50Ns > 1_550_000*1.023 {
		t.Errorf("h1 p50: %v", h1.P50Ns)
	}
	if tot.P999Ns == nil || *tot.P999Ns < 3_900_000 || *tot.P999Ns > 4_000_000*1.023 {
		t.Errorf("total p99.9: %v", tot.P999Ns)
	}
	if h1.Count != 1000 || h1.IntervalS != 1 || tot.Count != 1500 {
		t.Errorf("second 1 counts: h1 %d in %v s, total %d", h1.Count, h1.IntervalS, tot.Count)
	}
	// h2 sends nothing new: no line for it, and not in the total.
	l.Progress(cluster.Progress{Elapsed: 2 * time.Second, Hosts: []engine.Snapshot{snap("h1", 2, 2000), snap("h2", 1, 500)}})
	h1, tot = next(), next()
	if h1.Host != "h1" || h1.OpsPerS != 3000 || !tot.Total || tot.Hosts != 1 || tot.OpsPerS != 3000 || tot.Count != 3000 {
		t.Errorf("second 2: h1 %+v total %+v", h1, tot)
	}
	// h2's seconds 2 and 3 arrive in one call (a loaded host): two lines,
	// and a total for each second with its true interval (issue 35: one
	// total over both said interval_s 1.0 for two seconds' operations).
	l.Progress(cluster.Progress{Elapsed: 3 * time.Second, Seconds: []engine.Snapshot{snap("h1", 3, 2000), snap("h2", 2, 500), snap("h2", 3, 500)},
		Hosts: []engine.Snapshot{snap("h1", 3, 2000), snap("h2", 3, 500)}})
	h1, a, b, t2, t3 := next(), next(), next(), next(), next()
	if a.ElapsedS != 2 || b.ElapsedS != 3 || a.Count != 500 || b.Count != 500 {
		t.Errorf("two seconds in one call: %+v %+v", a, b)
	}
	if !t2.Total || t2.Count != 500 || t2.Hosts != 1 || t2.ElapsedS != 2 || t2.IntervalS != 1 || t2.OpsPerS != 500 {
		t.Errorf("second 2's total: %+v", t2)
	}
	if !t3.Total || t3.Count != h1.Count+500 || t3.Hosts != 2 || t3.ElapsedS != 3 || t3.IntervalS != 1 || t3.OpsPerS != 2500 {
		t.Errorf("second 3's total: %+v", t3)
	}
	for _, tot := range []metrics.LiveLine{t2, t3} {
		if tot.OpsPerS != float64(tot.Count)/tot.IntervalS {
			t.Errorf("total at %gs: %d operations in %g s at %g ops/s", tot.ElapsedS, tot.Count, tot.IntervalS, tot.OpsPerS)
		}
	}
	// A second with no operation has no percentiles (absent, not 0).
	l.Progress(cluster.Progress{Hosts: []engine.Snapshot{{Host: "h1", Phase: "p", Elapsed: 4 * time.Second, Ops: snap("h1", 3, 2000).Ops, Lat: snap("h1", 3, 2000).Lat}}})
	if h1 = next(); h1.OpsPerS != 0 || h1.P50Ns != nil {
		t.Errorf("idle second: %+v", h1)
	}
	next()
	// The phase ends 0.5 s later with 100 more operations than the last
	// snapshot: a last line over that half second, and its total.
	l.Progress(cluster.Progress{Elapsed: 4500 * time.Millisecond, Final: true})
	res := &engine.HostResult{Host: "h1", Ops: []record.OpStats{{Op: "GET", Ops: 3*2000 + 100, Bytes: (3*2000 + 100) * 4096}}}
	l.PhaseDone(run.PhaseDone{Hosts: []*engine.HostResult{res}})
	h1, tot = next(), next()
	if h1.Count != 100 || h1.IntervalS != 0.5 || h1.OpsPerS != 200 || tot.Count != 100 || tot.ElapsedS != 4.5 {
		t.Errorf("the last partial second: %+v, total %+v", h1, tot)
	}
	if dropped, err := l.Close(); dropped != 0 || err != nil {
		t.Errorf("close: %d dropped, %v", dropped, err)
	}
	if _, ok := <-lines; ok {
		t.Error("lines after the stream closed")
	}
}

// A reader that never reads does not stall the run: Progress returns at
// once, and what could not wait is dropped and counted.
func TestLiveNeverBlocks(t *testing.T) {
	pr, pw := io.Pipe()
	l := &metrics.Live{Open: func() (io.WriteCloser, error) { return pw, nil }}
	l.Started("r", "f")
	l.PhaseStarted(engine.Phase{Name: "p"}, nil)
	start := time.Now()
	for s := range 200 {
		l.Progress(cluster.Progress{Hosts: []engine.Snapshot{snap("h1", s, 10)}})
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("200 seconds of lines took %s with a stalled reader", d)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	dropped, err := l.Close()
	if dropped == 0 || err != nil {
		t.Errorf("stalled reader: %d dropped, %v", dropped, err)
	}
}

var _ run.Sink = (*metrics.Live)(nil)
