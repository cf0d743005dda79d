package record

import (
	"sync/atomic"
)

// Histogram bounds for native engines: 1 ns to 1 hour at 2 significant
// digits (1% bucket width, close to fio's 1.6%), HdrHistogram's scheme
// (interval.go writes it out), about 37 KB per histogram.
const (
	histLowest  = 1
	histHighest = 3_600_000_000_000
	histSigFigs = 2
)

// OpStats is everything recorded about one kind of operation (read, write,
// create, get, ...) on one host, or merged across hosts.
type OpStats struct {
	Op     string `json:"op"`
	Ops    uint64 `json:"ops"`
	Bytes  uint64 `json:"bytes"`
	Errors uint64 `json:"errors"`
	// ErrorKinds counts errors by a short kind ("ENOSPC", "timeout", "403").
	ErrorKinds map[string]uint64 `json:"error_kinds,omitempty"`
	// StartNs and EndNs (Unix ns) bound the window in which the operation ran.
	StartNs int64 `json:"start_ns"`
	EndNs   int64 `json:"end_ns"`
	// Lat is the request latency; TTFB the time to first byte where it applies.
	Lat  Hist  `json:"lat"`
	TTFB *Hist `json:"ttfb,omitempty"`
	// ReportedBwBytesPerS and ReportedOpsPerS, when set, are the engine's own
	// throughput figures (fio's bw_bytes and iops) for one host, used
	// instead of counts over the window so a host's summary equals the
	// engine's output exactly. Combine drops them: across hosts the rate is
	// all bytes and operations over the merged window, never a sum of rates.
	ReportedBwBytesPerS float64 `json:"reported_bw_bytes_per_s,omitempty"`
	ReportedOpsPerS     float64 `json:"reported_ops_per_s,omitempty"`
	// Iterations holds one entry per iteration for engines that repeat a phase
	// (md), each with its own window, so rates can be computed mdtest's way.
	Iterations []Iteration `json:"iterations,omitempty"`
	// CrossHost, where the engine tells, is how many of the items done
	// were created by another host (md's stat, read, rename and remove
	// with a stride or a tree all hosts share): those no client cache of
	// this host could answer.
	CrossHost *uint64 `json:"cross_host_items,omitempty"`
	// Found, where the engine tells, is how many entries a search matched
	// (md's find: name, size and -newer), of the Ops it checked.
	Found *uint64 `json:"found,omitempty"`
}

// Iteration is one repetition of an operation: Items done between StartNs and
// EndNs (Unix ns; EndNs is when the slowest worker reached the barrier).
type Iteration struct {
	Items   uint64 `json:"items"`
	StartNs int64  `json:"start_ns"`
	EndNs   int64  `json:"end_ns"`
}

// Seconds returns the window length in seconds.
func (o OpStats) Seconds() float64 { return float64(o.EndNs-o.StartNs) / 1e9 }

// Span is when ops began and ended: the earliest start and the latest end
// of those with a window (Unix ns), or zeros when none has one.
func Span(ops []OpStats) (start, end int64) {
	for _, o := range ops {
		if o.StartNs == 0 && o.EndNs == 0 {
			continue
		}
		if start == 0 || o.StartNs < start {
			start = o.StartNs
		}
		end = max(end, o.EndNs)
	}
	return start, end
}

// Combine merges the statistics of the same operation from two workers or two
// hosts: counts add, histograms add, the window spans both, and iterations with
// the same index combine: items add, the start is the earlier and the end the
// later. Hosts of one md phase start each iteration at the same instant (the
// barrier's common start), so the merged iteration runs from that start to
// the end of the slowest host: mdtest's window. The engines' own rates are
// not kept: a merged operation's rate is its counts over its window, from
// the first start to the last end (IOR's rule), as a sum of the hosts'
// rates overstates the total when the hosts did not run at the same time.
func (o OpStats) Combine(x OpStats) OpStats {
	out := o
	out.ReportedBwBytesPerS, out.ReportedOpsPerS = 0, 0
	out.Ops += x.Ops
	out.Bytes += x.Bytes
	out.Errors += x.Errors
	if len(x.ErrorKinds) > 0 {
		out.ErrorKinds = make(map[string]uint64, len(o.ErrorKinds)+len(x.ErrorKinds))
		for k, v := range o.ErrorKinds {
			out.ErrorKinds[k] += v
		}
		for k, v := range x.ErrorKinds {
			out.ErrorKinds[k] += v
		}
	}
	switch {
	case o.StartNs == 0 && o.EndNs == 0:
		out.StartNs, out.EndNs = x.StartNs, x.EndNs
	case x.StartNs != 0 || x.EndNs != 0:
		out.StartNs, out.EndNs = min(o.StartNs, x.StartNs), max(o.EndNs, x.EndNs)
	}
	if x.CrossHost != nil {
		n := *x.CrossHost
		if o.CrossHost != nil {
			n += *o.CrossHost
		}
		out.CrossHost = &n
	}
	if x.Found != nil {
		n := *x.Found
		if o.Found != nil {
			n += *o.Found
		}
		out.Found = &n
	}
	out.Lat = o.Lat.Combine(x.Lat)
	if x.TTFB != nil {
		t := *x.TTFB
		if o.TTFB != nil {
			t = o.TTFB.Combine(t)
		}
		out.TTFB = &t
	}
	if len(x.Iterations) > 0 {
		n := max(len(o.Iterations), len(x.Iterations))
		its := make([]Iteration, n)
		copy(its, o.Iterations)
		for i, it := range x.Iterations {
			if its[i].Items == 0 && its[i].StartNs == 0 {
				its[i] = it
				continue
			}
			its[i] = Iteration{
				Items:   its[i].Items + it.Items,
				StartNs: min(its[i].StartNs, it.StartNs),
				EndNs:   max(its[i].EndNs, it.EndNs),
			}
		}
		out.Iterations = its
	}
	return out
}

// CombineAll merges lists of OpStats by operation name, keeping the order in
// which names first appear.
func CombineAll(lists ...[]OpStats) []OpStats {
	var out []OpStats
	idx := map[string]int{}
	for _, l := range lists {
		for _, o := range l {
			if i, ok := idx[o.Op]; ok {
				out[i] = out[i].Combine(o)
				continue
			}
			idx[o.Op] = len(out)
			out = append(out, o)
		}
	}
	return out
}

// Recorder records the operations of one worker. Only that worker writes to
// it, so recording takes no lock and allocates nothing; counts are atomics so a
// sampler may read them live, the per-second histograms change hands with
// the sampler through two atomics (see intervals), and the phase's
// histograms are read only after the worker has stopped.
type Recorder struct {
	ops []OpRecorder
}

// OpRecorder records one kind of operation for one worker.
type OpRecorder struct {
	ops    atomic.Uint64
	bytes  atomic.Uint64
	errors atomic.Uint64

	lat  phaseHist
	ttfb phaseHist
	// iv, set by a Sampler, keeps the latencies per interval as well.
	iv    *intervals
	stats LatStats
	tstat LatStats
	kinds map[string]uint64
}

// NewRecorder returns a recorder for the operations named in ops, indexed in
// the same order. With ttfb, each operation also keeps a time-to-first-byte
// histogram.
func NewRecorder(ops []string, ttfb bool) *Recorder {
	r := &Recorder{ops: make([]OpRecorder, len(ops))}
	for i := range r.ops {
		r.ops[i].lat = newPhaseHist()
		if ttfb {
			r.ops[i].ttfb = newPhaseHist()
		}
	}
	return r
}

// Op returns the recorder of operation i (its index in NewRecorder's list).
func (r *Recorder) Op(i int) *OpRecorder { return &r.ops[i] }

// Record records one successful operation that took latNs and moved bytes.
func (o *OpRecorder) Record(latNs, bytes int64) {
	o.ops.Add(1)
	if bytes > 0 {
		o.bytes.Add(uint64(bytes))
	}
	o.observe(latNs)
}

// RecordTTFB records the time to first byte of an operation also passed to
// Record. It does nothing when the recorder keeps no TTFB histogram.
func (o *OpRecorder) RecordTTFB(ns int64) {
	if o.ttfb == nil {
		return
	}
	o.ttfb[binIndex(clamp(ns))]++
	welford(&o.tstat, ns)
}

// RecordError counts one failed operation of the given kind. It is the slow
// path: the first error of a kind allocates a map entry.
func (o *OpRecorder) RecordError(kind string) {
	o.errors.Add(1)
	if o.kinds == nil {
		o.kinds = map[string]uint64{}
	}
	o.kinds[kind]++
}

// Counts returns the live cumulative operation, byte and error counts; safe to
// call while the worker records.
func (o *OpRecorder) Counts() (ops, bytes, errors uint64) {
	return o.ops.Load(), o.bytes.Load(), o.errors.Load()
}

func (o *OpRecorder) observe(ns int64) {
	v := clamp(ns)
	i := binIndex(v)
	o.lat[i]++
	if o.iv != nil {
		o.iv.record(i, v)
	}
	welford(&o.stats, ns)
}

func welford(s *LatStats, ns int64) {
	if s.N == 0 || ns < s.Min {
		s.Min = ns
	}
	if ns > s.Max {
		s.Max = ns
	}
	s.N++
	x := float64(ns)
	d := x - s.Mean
	s.Mean += d / float64(s.N)
	s.M2 += d * (x - s.Mean)
}

func clamp(ns int64) int64 {
	if ns < histLowest {
		return histLowest
	}
	if ns > histHighest {
		return histHighest
	}
	return ns
}

// Stats returns what was recorded for operation i, with no window set. Call
// it only after the worker has stopped.
func (r *Recorder) Stats(i int, name string) OpStats {
	o := &r.ops[i]
	s := OpStats{
		Op:     name,
		Ops:    o.ops.Load(),
		Bytes:  o.bytes.Load(),
		Errors: o.errors.Load(),
		Lat:    Hist{Stats: o.stats, Bins: o.lat.bins()},
	}
	if len(o.kinds) > 0 {
		s.ErrorKinds = make(map[string]uint64, len(o.kinds))
		for k, v := range o.kinds {
			s.ErrorKinds[k] = v
		}
	}
	if o.ttfb != nil && o.tstat.N > 0 {
		s.TTFB = &Hist{Stats: o.tstat, Bins: o.ttfb.bins()}
	}
	return s
}

// Reset clears operation i so the recorder can serve another iteration.
func (r *Recorder) Reset(i int) {
	o := &r.ops[i]
	o.ops.Store(0)
	o.bytes.Store(0)
	o.errors.Store(0)
	clear(o.lat)
	clear(o.ttfb)
	o.stats, o.tstat, o.kinds = LatStats{}, LatStats{}, nil
}
