package cluster

import (
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/record"
)

// liveSeries is what a host's live snapshots told of its phase: the
// per-second series between them and the counts of the last. A host lost
// mid-phase sends no result: what it did until then is this, kept as its
// own (lostResult), so that the phase's totals and its per-host figures
// both hold its bytes.
type liveSeries struct {
	last   engine.Snapshot
	have   bool
	series []record.Second
}

// add takes in snapshot s of a host whose phase began at start (the
// controller's clock; s.Elapsed counts from the host's own start).
func (l *liveSeries) add(s engine.Snapshot, start time.Time) {
	if s.Stage == "start" || (l.have && s.Elapsed <= l.last.Elapsed) {
		return
	}
	from, to := start.Add(l.last.Elapsed).UnixNano(), start.Add(s.Elapsed).UnixNano()
	for _, c := range s.Ops {
		var b record.Count
		for _, x := range l.last.Ops {
			if x.Op == c.Op {
				b = x
			}
		}
		if c.Ops < b.Ops || c.Bytes < b.Bytes || c.Errors < b.Errors {
			b = record.Count{} // counters went back: a new start
		}
		if c.Ops > b.Ops || c.Errors > b.Errors {
			l.series = append(l.series, record.Second{StartNs: from, EndNs: to, Op: c.Op, Ops: c.Ops - b.Ops, Bytes: c.Bytes - b.Bytes, Errors: c.Errors - b.Errors})
		}
	}
	l.last, l.have = s, true
}

// lostResult is the result of a host lost mid-phase, from its live
// snapshots: every operation's counts until its last one, over the time
// from the phase's start to it, and the series between them; no latency
// (the live figures keep none a result can hold), so none is shown.
// why is the loss; nil when the host sent no snapshot with a count.
func (l *liveSeries) lostResult(host string, start time.Time, why error) *engine.HostResult {
	if !l.have || l.last.Elapsed <= 0 {
		return nil
	}
	res := &engine.HostResult{Host: host, Series: l.series, Err: "lost: " + why.Error()}
	end := start.Add(l.last.Elapsed).UnixNano()
	for _, c := range l.last.Ops {
		if c.Ops > 0 || c.Errors > 0 {
			res.Ops = append(res.Ops, record.OpStats{Op: c.Op, Ops: c.Ops, Bytes: c.Bytes, Errors: c.Errors, StartNs: start.UnixNano(), EndNs: end})
		}
	}
	if len(res.Ops) == 0 {
		return nil
	}
	return res
}
