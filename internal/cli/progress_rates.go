package cli

import (
	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/record"
)

// hostSince is what one host did between two of its snapshots: each
// operation's counts, over the time between them on its own clock (s).
type hostSince struct {
	ops map[string]record.Count
	s   float64
}

// opsPerS is the host's operations a second, all operations added.
func (h hostSince) opsPerS() float64 {
	if h.s <= 0 {
		return 0
	}
	var n uint64
	for _, c := range h.ops {
		n += c.Ops
	}
	return float64(n) / h.s
}

// sinceLast is what every host did since its snapshot at the last update
// (since the phase's start at the first), over the time between the two
// on the host's own clock: a loaded host whose two seconds arrive in one
// update is two seconds' operations over two seconds, not over the one
// second between updates (a progress line of 3,239 op/s where the hosts
// did at most 2,027). A host with nothing new in one update keeps its
// last interval's.
func (p *progress) sinceLast(pr cluster.Progress) map[string]hostSince {
	out := make(map[string]hostSince, len(pr.Hosts))
	told := make(map[string]hostSince, len(pr.Hosts))
	cur := make(map[string]engine.Snapshot, len(pr.Hosts))
	for _, h := range pr.Hosts {
		cur[h.Host] = h
		prev := p.prevSnap[h.Host]
		if h.Elapsed <= prev.Elapsed {
			// Late by one update at most: a host silent longer (lost,
			// stalled) does nothing, as far as anyone can tell.
			out[h.Host] = p.lastSince[h.Host]
			continue
		}
		hs := hostSince{ops: make(map[string]record.Count, len(h.Ops)), s: (h.Elapsed - prev.Elapsed).Seconds()}
		for _, c := range h.Ops {
			var b record.Count
			for _, x := range prev.Ops {
				if x.Op == c.Op {
					b = x
				}
			}
			if c.Ops < b.Ops || c.Bytes < b.Bytes || c.Errors < b.Errors {
				b = record.Count{} // counters went back: a new start
			}
			hs.ops[c.Op] = record.Count{Op: c.Op, Ops: c.Ops - b.Ops, Bytes: c.Bytes - b.Bytes, Errors: c.Errors - b.Errors}
		}
		out[h.Host], told[h.Host] = hs, hs
	}
	p.prevSnap, p.lastSince = cur, told
	return out
}

// rateOf is op's operations and bytes a second, every host's over its
// own interval, added, and its errors in those intervals.
func rateOf(since map[string]hostSince, op string) (ops, bytes float64, errs uint64) {
	for _, h := range since {
		c, ok := h.ops[op]
		if !ok || h.s <= 0 {
			continue
		}
		ops += float64(c.Ops) / h.s
		bytes += float64(c.Bytes) / h.s
		errs += c.Errors
	}
	return ops, bytes, errs
}
