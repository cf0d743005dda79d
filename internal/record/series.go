package record

// Count is a cumulative tally of one operation, as a live snapshot carries it.
type Count struct {
	Op     string `json:"op"`
	Ops    uint64 `json:"ops"`
	Bytes  uint64 `json:"bytes"`
	Errors uint64 `json:"errors"`
}

// Second is what one operation did on one host in one interval of the
// per-second series; EndNs (Unix ns) closes the interval and StartNs opens it.
type Second struct {
	StartNs int64  `json:"start_ns"`
	EndNs   int64  `json:"end_ns"`
	Op      string `json:"op"`
	Ops     uint64 `json:"ops"`
	Bytes   uint64 `json:"bytes"`
	Errors  uint64 `json:"errors"`
}

// Sampler turns the live counters of a set of worker recorders into cumulative
// counts and a per-interval series, and collects the workers' per-interval
// latency histograms into one per operation and interval. One goroutine
// calls Sample, typically once a second; the workers never wait for it.
type Sampler struct {
	names   []string
	workers []*Recorder
	last    []Count
	lastNs  int64
	// Series is every interval sampled so far, in time order.
	Series []Second

	// ticks[k] is the time (Unix ns) of sample k; ticks[0] the start.
	// Interval k runs from ticks[k-1] to ticks[k].
	ticks []int64
	// lat[i] holds operation i's histograms by interval.
	lat   []map[uint32]*latAcc
	dense []uint64
	done  bool
}

// latAcc is one operation's latencies in one interval, summed over workers.
type latAcc struct {
	bins Bins
	n    uint64
	sum  uint64
}

// NewSampler samples the given workers, whose recorders were made with the
// operation names in names; startNs (Unix ns) opens the first interval. It
// gives each worker's operations their per-second histograms, so it must
// be made before the workers record, and a recorder has one sampler.
func NewSampler(names []string, workers []*Recorder, startNs int64) *Sampler {
	s := &Sampler{names: names, workers: workers, last: make([]Count, len(names)), lastNs: startNs,
		ticks: []int64{startNs}, lat: make([]map[uint32]*latAcc, len(names)), dense: make([]uint64, histBins)}
	for i := range s.lat {
		s.lat[i] = map[uint32]*latAcc{}
	}
	for _, w := range workers {
		for i := range w.ops {
			if w.ops[i].iv == nil {
				w.ops[i].iv = newIntervals()
			}
		}
	}
	return s
}

// Sample reads the counters at nowNs, appends one Second per operation that
// did anything since the last sample, and returns the cumulative counts. It
// also takes in the workers' histograms of past intervals and asks them
// for the one that ends now.
func (s *Sampler) Sample(nowNs int64) []Count {
	s.collect(nowNs)
	cum := make([]Count, len(s.names))
	for i, name := range s.names {
		c := Count{Op: name}
		for _, w := range s.workers {
			ops, bytes, errs := w.Op(i).Counts()
			c.Ops += ops
			c.Bytes += bytes
			c.Errors += errs
		}
		cum[i] = c
		d := Second{StartNs: s.lastNs, EndNs: nowNs, Op: name,
			Ops: c.Ops - s.last[i].Ops, Bytes: c.Bytes - s.last[i].Bytes, Errors: c.Errors - s.last[i].Errors}
		if d.Ops > 0 || d.Errors > 0 {
			s.Series = append(s.Series, d)
		}
	}
	s.last = cum
	s.lastNs = nowNs
	return cum
}

// Rebase restarts the interval clock and counters, for engines that reset
// their recorders between iterations or stages.
func (s *Sampler) Rebase(nowNs int64) {
	s.last = make([]Count, len(s.names))
	s.lastNs = nowNs
}

// collect is the sampler's side of the swap (see intervals): for every
// worker that has answered the last request, it takes the buffer the worker
// left, which holds the interval that request closed, and asks for the
// interval that ends now.
func (s *Sampler) collect(nowNs int64) {
	if s.done {
		return
	}
	s.ticks = append(s.ticks, nowNs)
	tick := uint32(len(s.ticks) - 1)
	for i := range s.names {
		used := false
		for _, w := range s.workers {
			iv := w.ops[i].iv
			a := iv.ack.Load()
			if a>>1 != iv.asked {
				continue // busy with one operation since before the last request
			}
			if iv.asked != 0 {
				b := &iv.buf[a&1^1]
				if iv.asked == tick-1 {
					n, sum := b.drainInto(s.dense)
					s.add(i, tick-1, nil, n, sum)
					used = used || n > 0
				} else {
					s.drainLate(i, iv.asked, b)
				}
			}
			iv.asked = tick
			iv.want.Store(tick)
		}
		if used {
			s.flush(i, tick-1)
		}
	}
}

// drainLate adds a buffer that came back late to its interval, without
// the dense buffer (which may hold another interval's counts).
func (s *Sampler) drainLate(op int, interval uint32, b *intervalBuf) {
	if b.n == 0 {
		return
	}
	var bins Bins
	for i, c := range b.counts {
		if c != 0 {
			bins = append(bins, Bin{V: binValue(i), N: uint64(c)})
			b.counts[i] = 0
		}
	}
	s.add(op, interval, bins, b.n, b.sumNs)
	b.n, b.sumNs = 0, 0
}

// add counts n operations with latency sum into an interval, and bins when
// given (else they are in the dense buffer until flush).
func (s *Sampler) add(op int, interval uint32, bins Bins, n, sum uint64) {
	if n == 0 {
		return
	}
	a := s.lat[op][interval]
	if a == nil {
		a = &latAcc{}
		s.lat[op][interval] = a
	}
	a.n += n
	a.sum += sum
	if bins != nil {
		a.bins = Merge(a.bins, bins)
	}
}

// flush moves the dense buffer's counts into an interval's bins.
func (s *Sampler) flush(op int, interval uint32) {
	var bins Bins
	for i, c := range s.dense {
		if c != 0 {
			bins = append(bins, Bin{V: binValue(i), N: c})
			s.dense[i] = 0
		}
	}
	a := s.lat[op][interval]
	if a.bins == nil {
		a.bins = bins
	} else {
		a.bins = Merge(a.bins, bins)
	}
}

// LatSeconds returns the latency histogram of every operation in every
// interval in which some ended, ordered by interval then operation. Call
// it once, after the workers have stopped and the last Sample: it takes in
// what the workers still hold, which the last Sample could not ask for.
func (s *Sampler) LatSeconds() []LatSecond {
	if !s.done {
		s.done = true
		for i := range s.names {
			for _, w := range s.workers {
				iv := w.ops[i].iv
				// The worker has stopped: the buffer it was recording
				// into holds the interval of the request it had not
				// answered (the one the last Sample made, if it had).
				if iv.asked != 0 {
					s.drainLate(i, iv.asked, &iv.buf[iv.ack.Load()&1])
				}
			}
		}
	}
	var out []LatSecond
	for k := 1; k < len(s.ticks); k++ {
		for i, name := range s.names {
			a := s.lat[i][uint32(k)]
			if a == nil || a.n == 0 {
				continue
			}
			out = append(out, LatSecond{Op: name, StartNs: s.ticks[k-1], EndNs: s.ticks[k], SumNs: float64(a.sum), Bins: a.bins})
		}
	}
	return out
}
