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
// counts and a per-interval series. One goroutine calls Sample, typically once
// a second; the workers never wait for it.
type Sampler struct {
	names   []string
	workers []*Recorder
	last    []Count
	lastNs  int64
	// Series is every interval sampled so far, in time order.
	Series []Second
}

// NewSampler samples the given workers, whose recorders were made with the
// operation names in names; startNs (Unix ns) opens the first interval.
func NewSampler(names []string, workers []*Recorder, startNs int64) *Sampler {
	return &Sampler{names: names, workers: workers, last: make([]Count, len(names)), lastNs: startNs}
}

// Sample reads the counters at nowNs, appends one Second per operation that
// did anything since the last sample, and returns the cumulative counts.
func (s *Sampler) Sample(nowNs int64) []Count {
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
