package main

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/record"
)

// liveLine does the command line's live-line work on every update and
// records when each came.
//
// Each rate is a host's own: what its counts grew by between its two
// latest snapshots, over the time its own clock says passed between them
// (Snapshot.Elapsed), summed over the hosts. A rate over the controller's
// time between updates would count a second of counts that arrived in
// less (the last update, made as the phase ends, came 0.1-0.3 s after the
// one before and gave 48.7M-87.7M op/s where 12.3M was true), and a host
// whose snapshot came late would count nothing then two seconds at once.
type liveLine struct {
	mu    sync.Mutex
	at    []time.Time
	hosts map[string]*hostRate
	last  string
}

// hostRate is one host's latest snapshot and the rates it gave.
type hostRate struct {
	elapsed time.Duration
	prev    map[string]record.Count
	// ops and bytes are per second, by operation.
	ops, bytes map[string]float64
}

// see takes a host's snapshot: when its clock moved on, its rates are
// the growth of its counts over that time.
func (h *hostRate) see(elapsed time.Duration, counts []record.Count) {
	if elapsed <= h.elapsed {
		return // the same snapshot again, or one older
	}
	dt := (elapsed - h.elapsed).Seconds()
	cur := make(map[string]record.Count, len(counts))
	for _, c := range counts {
		cur[c.Op] = c
		if p, ok := h.prev[c.Op]; ok && c.Ops >= p.Ops && c.Bytes >= p.Bytes {
			h.ops[c.Op], h.bytes[c.Op] = float64(c.Ops-p.Ops)/dt, float64(c.Bytes-p.Bytes)/dt
		}
	}
	h.elapsed, h.prev = elapsed, cur
}

func (l *liveLine) update(pr cluster.Progress) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.at = append(l.at, time.Now())
	if l.hosts == nil {
		l.hosts = map[string]*hostRate{}
	}
	ops, bytes := map[string]float64{}, map[string]float64{}
	var order []string
	lo, hi := -1.0, 0.0
	for _, s := range pr.Hosts {
		h := l.hosts[s.Host]
		if h == nil {
			h = &hostRate{ops: map[string]float64{}, bytes: map[string]float64{}}
			l.hosts[s.Host] = h
		}
		h.see(s.Elapsed, s.Ops)
		r := 0.0
		for _, c := range s.Ops {
			if _, seen := ops[c.Op]; !seen {
				order = append(order, c.Op)
			}
			ops[c.Op] += h.ops[c.Op]
			bytes[c.Op] += h.bytes[c.Op]
			r += h.ops[c.Op]
		}
		if lo < 0 || r < lo {
			lo = r
		}
		hi = max(hi, r)
	}
	var parts []string
	for _, op := range order {
		parts = append(parts, fmt.Sprintf("%s %.0f op/s %.1f MB/s", op, ops[op], bytes[op]/1e6))
	}
	parts = append(parts, fmt.Sprintf("per host op/s: min %.0f, max %.0f (%d hosts)", max(lo, 0), hi, len(pr.Hosts)))
	l.last = fmt.Sprintf("[%s] %s  %s", pr.Phase, pr.Elapsed.Round(time.Second), strings.Join(parts, ", "))
}
