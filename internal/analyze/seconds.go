package analyze

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/record"
)

// OpSecond is one second (or segment) of one operation in a phase, its
// hosts added: the intervals of the per-second series and histograms whose
// midpoint falls in it.
type OpSecond struct {
	// Index counts seconds (segments) from the phase's start.
	Index   int
	StartNs int64
	// Ops, Bytes and Errors are the series' counts.
	Ops, Bytes, Errors uint64
	// OpsPerS and BytesPerS add each host's rate (its counts over the time
	// its intervals cover in the segment).
	OpsPerS, BytesPerS float64
	// Hosts is how many hosts reported the operation in the segment.
	Hosts int
	// Bins, LatN and SumNs are the latency of the operations that ended in
	// the segment; LatN is 0 where no histogram was kept.
	Bins  record.Bins
	LatN  uint64
	SumNs float64
}

// MeanNs is the segment's mean latency (0 without latency).
func (s OpSecond) MeanNs() float64 {
	if s.LatN == 0 {
		return 0
	}
	return s.SumNs / float64(s.LatN)
}

// OpSeconds is one operation's segments, every segment from its first to
// its last (a segment inside the run with nothing in it is a stall, kept
// as zero).
type OpSeconds struct {
	Op      string
	Seconds []OpSecond
	// Latency says whether per-second histograms were kept for it.
	Latency bool
}

// PhaseStart is the start of a phase's time axis: the earliest interval of
// any host's series. (An engine's per-second histograms cover the same
// intervals as its series, or fewer: those in which operations ended.)
func PhaseStart(hosts []*engine.HostResult) int64 {
	t0 := int64(math.MaxInt64)
	for _, h := range hosts {
		for _, s := range h.Series {
			t0 = min(t0, s.StartNs)
		}
	}
	if t0 == math.MaxInt64 {
		return 0
	}
	return t0
}

// HostLatSeconds decodes a host's per-second histograms; none when the
// host kept none (results written before they were kept, or fio with
// latency switched off).
func HostLatSeconds(h *engine.HostResult) ([]record.LatSecond, error) {
	if len(h.LatencySeconds) == 0 {
		return nil, nil
	}
	secs, err := record.DecodeLatSeconds(h.LatencySeconds)
	if err != nil {
		return nil, fmt.Errorf("host %s: %s: %v", h.Host, record.LatSecondsFile, err)
	}
	return secs, nil
}

// SecondsOf adds hosts' per-second series and histograms into segments of
// seg (a second when 0) counted from t0, per operation, in the order the
// operations first appear. keep chooses operations (nil: all).
func SecondsOf(hosts []*engine.HostResult, t0 int64, seg time.Duration, keep func(op string) bool) ([]OpSeconds, error) {
	if seg <= 0 {
		seg = time.Second
	}
	type hostAcc struct {
		ops, bytes, errs uint64
		dur              int64
	}
	type acc struct {
		OpSecond
		host map[int]*hostAcc
	}
	var order []string
	byOp := map[string]map[int]*acc{}
	lat := map[string]bool{}
	get := func(op string, startNs, endNs int64) *acc {
		m := byOp[op]
		if m == nil {
			m = map[int]*acc{}
			byOp[op] = m
			order = append(order, op)
		}
		i := int(floorDiv((startNs+endNs)/2-t0, int64(seg)))
		a := m[i]
		if a == nil {
			a = &acc{OpSecond: OpSecond{Index: i, StartNs: t0 + int64(i)*int64(seg)}, host: map[int]*hostAcc{}}
			m[i] = a
		}
		return a
	}
	for hi, h := range hosts {
		for _, s := range h.Series {
			if s.EndNs <= s.StartNs || (keep != nil && !keep(s.Op)) {
				continue
			}
			a := get(s.Op, s.StartNs, s.EndNs)
			a.Ops += s.Ops
			a.Bytes += s.Bytes
			a.Errors += s.Errors
			x := a.host[hi]
			if x == nil {
				x = &hostAcc{}
				a.host[hi] = x
			}
			x.ops += s.Ops
			x.bytes += s.Bytes
			x.dur += s.EndNs - s.StartNs
		}
		secs, err := HostLatSeconds(h)
		if err != nil {
			return nil, err
		}
		for _, s := range secs {
			if s.EndNs < s.StartNs || (keep != nil && !keep(s.Op)) {
				continue
			}
			lat[s.Op] = true
			a := get(s.Op, s.StartNs, max(s.EndNs, s.StartNs+1))
			if a.Bins == nil {
				a.Bins = s.Bins // decoded for this call: not shared
			} else {
				a.Bins = record.Merge(a.Bins, s.Bins)
			}
			a.LatN += s.Bins.Total()
			a.SumNs += s.SumNs
		}
	}
	out := make([]OpSeconds, 0, len(order))
	for _, op := range order {
		m := byOp[op]
		idx := make([]int, 0, len(m))
		for i := range m {
			idx = append(idx, i)
		}
		sort.Ints(idx)
		o := OpSeconds{Op: op, Latency: lat[op]}
		for i := idx[0]; i <= idx[len(idx)-1]; i++ {
			a := m[i]
			if a == nil {
				o.Seconds = append(o.Seconds, OpSecond{Index: i, StartNs: t0 + int64(i)*int64(seg)})
				continue
			}
			for _, x := range a.host {
				if x.dur > 0 {
					d := float64(x.dur) / 1e9
					a.OpsPerS += float64(x.ops) / d
					a.BytesPerS += float64(x.bytes) / d
				}
			}
			a.Hosts = len(a.host)
			o.Seconds = append(o.Seconds, a.OpSecond)
		}
		out = append(out, o)
	}
	return out, nil
}
