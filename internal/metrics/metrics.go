// Package metrics tells what a run does while it runs: Prometheus metrics
// (on every agent and on the controller) and the --live stream of JSON
// lines. Both are fed from the per-second snapshots the agents already
// send, and from each host's result at a phase's end, never from the
// per-operation path: a scrape or a slow reader costs the load nothing.
package metrics

import (
	"math"
	"slices"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
)

// The metric names, as the README lists them.
const (
	NameOps     = "storbench_ops_total"
	NameBytes   = "storbench_bytes_total"
	NameErrors  = "storbench_errors_total"
	NameLatency = "storbench_latency_seconds"
	NameState   = "storbench_phase_state"
	NameElapsed = "storbench_phase_elapsed_seconds"
	NamePlanned = "storbench_phase_planned_seconds"
)

// The states of storbench_phase_state, an OpenMetrics state set: one
// series per state, 1 for the phase's state on the host and 0 for others.
const (
	StatePrepare     = "prepare"
	StateRun         = "run"
	StateDone        = "done"
	StateFailed      = "failed"
	StateInterrupted = "interrupted"
)

var states = [...]string{StatePrepare, StateRun, StateDone, StateFailed, StateInterrupted}

// KeepPhases is how many phases a Registry keeps, newest first: a phase's
// final figures stay to be scraped after it ends, and an agent that serves
// runs for months does not grow.
const KeepPhases = 16

// Registry holds the live figures of the latest phases, per host and
// operation, and serves them as text (appendText) and as client_golang's
// metric families (Gather: a prometheus.Gatherer). Its methods are called
// about once a second per host; a scrape reads under the same lock.
type Registry struct {
	mu     sync.Mutex
	phases []*phaseHosts // oldest first
	// series is reused by each scrape.
	series []series
}

var _ prometheus.Gatherer = (*Registry)(nil)

// phaseHosts is one phase of one run, per host.
type phaseHosts struct {
	run, phase string
	hosts      map[string]*hostPhase
	// order holds the hosts sorted, the order they are served in.
	order []string
}

// hostPhase is one phase on one host.
type hostPhase struct {
	state            string
	elapsed, planned float64
	ops              map[string]*opFigures
	// order holds the operations sorted; labels are the phase's label
	// pairs as the text formats write them (host, phase, run).
	order            []string
	labels           string
	run, phase, host string
	// pairs are the same labels for client_golang, and stateLabels and
	// statePairs those of each state's series.
	pairs       []*dto.LabelPair
	stateLabels [len(states)]string
	statePairs  [len(states)][]*dto.LabelPair
}

// opFigures are one operation's counters, which never go back: a snapshot
// that arrives late (older than what is held) changes nothing.
type opFigures struct {
	ops, bytes, errors uint64
	lat                record.LiveLat
	// labels are the operation's label pairs in the text formats (host,
	// op, phase, run), and pairs the same for client_golang.
	labels string
	pairs  []*dto.LabelPair
}

// NewRegistry returns an empty Registry.
func NewRegistry() *Registry { return &Registry{} }

// host returns the figures of phase on host, made if new; r.mu is held.
// Names that are not UTF-8 are mended (a label value must be UTF-8).
func (r *Registry) host(run, phase, host string) *hostPhase {
	run, phase, host = validUTF8(run), validUTF8(phase), validUTF8(host)
	var ph *phaseHosts
	for _, p := range r.phases {
		if p.run == run && p.phase == phase {
			ph = p
		}
	}
	if ph == nil {
		ph = &phaseHosts{run: run, phase: phase, hosts: map[string]*hostPhase{}}
		r.phases = append(r.phases, ph)
		if len(r.phases) > KeepPhases {
			r.phases = r.phases[len(r.phases)-KeepPhases:]
		}
	}
	h := ph.hosts[host]
	if h == nil {
		h = newHostPhase(run, phase, host)
		ph.hosts[host] = h
		ph.order = insertSorted(ph.order, host)
	}
	return h
}

// SetState sets the phase's state on host.
func (r *Registry) SetState(run, phase, host, state string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.host(run, phase, host).state = state
}

// Snapshot takes in one host's live snapshot.
func (r *Registry) Snapshot(run string, s engine.Snapshot) {
	if s.Phase == "" {
		return // a host that has sent nothing yet
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	h := r.host(run, s.Phase, s.Host)
	if h.state == StatePrepare {
		h.state = StateRun
	}
	h.elapsed = max(h.elapsed, s.Elapsed.Seconds())
	h.planned = s.Planned.Seconds()
	for _, c := range s.Ops {
		h.op(c.Op).raise(c.Ops, c.Bytes, c.Errors)
	}
	for _, l := range s.Lat {
		o := h.op(l.Op)
		if l.N >= o.lat.N {
			o.lat = l
		}
	}
}

// Result takes in a host's result at the end of a phase (res may be
// nil: the phase failed before measuring): its counts include the last
// moments no snapshot carried. Operations the snapshots named differently
// (fio jobs with several names) are left as they were.
func (r *Registry) Result(run, phase, host string, res *model.HostResult, state string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := r.host(run, phase, host)
	h.state = state
	if res == nil {
		return
	}
	for _, o := range res.Ops {
		f, ok := h.ops[validUTF8(o.Op)]
		if !ok && len(h.ops) > 0 {
			continue
		}
		if f == nil {
			f = h.op(o.Op)
		}
		f.raise(o.Ops, o.Bytes, o.Errors)
		if o.Lat.Bins.Total() >= f.lat.N && len(o.Lat.Bins) > 0 {
			f.lat = record.LiveLatOf(o.Op, o.Lat.Bins, o.Lat.Stats.Mean*float64(o.Lat.Stats.N))
		}
	}
}

func newHostPhase(run, phase, host string) *hostPhase {
	h := &hostPhase{state: StatePrepare, ops: map[string]*opFigures{}, run: run, phase: phase, host: host}
	kv := []string{"host", host, "phase", phase, "run", run}
	h.labels, h.pairs = labelPairs(kv...), dtoPairs(kv...)
	for i, st := range states {
		h.stateLabels[i], h.statePairs[i] = labelPairs(append(kv, "state", st)...), dtoPairs(append(kv, "state", st)...)
	}
	return h
}

func (h *hostPhase) op(name string) *opFigures {
	name = validUTF8(name)
	o := h.ops[name]
	if o == nil {
		kv := []string{"host", h.host, "op", name, "phase", h.phase, "run", h.run}
		o = &opFigures{labels: labelPairs(kv...), pairs: dtoPairs(kv...)}
		h.ops[name] = o
		h.order = insertSorted(h.order, name)
	}
	return o
}

// insertSorted adds s to the sorted list.
func insertSorted(list []string, s string) []string {
	i, _ := slices.BinarySearch(list, s)
	return slices.Insert(list, i, s)
}

func (o *opFigures) raise(ops, bytes, errs uint64) {
	o.ops, o.bytes, o.errors = max(o.ops, ops), max(o.bytes, bytes), max(o.errors, errs)
}

// classicIndex are the LiveSchema indices whose upper bounds are the
// classic buckets': every 16th, a factor of √2 apart from 2^-20 s (about 1
// µs) to 2^7 s, so each classic count is exact, not re-binned.
var classicIndex = func() []int32 {
	var out []int32
	for i := int32(-20 * 32); i <= 7*32; i += 16 {
		out = append(out, i)
	}
	return out
}()

// ClassicBounds are the upper bounds (seconds) of the latency histogram's
// classic buckets, which the text formats carry.
var ClassicBounds = func() []float64 {
	out := make([]float64, len(classicIndex))
	for k, i := range classicIndex {
		out[k] = record.LiveUpper(i)
	}
	return out
}()

// classicCount returns the cumulative count of l's buckets up to index i
// (a classic bucket's), given cum, that of those before l.Buckets[j];
// called for each classic bucket in order, from 0 and 0.
func classicCount(l *record.LiveLat, i int32, cum uint64, j int) (uint64, int) {
	for j < len(l.Buckets) && l.Buckets[j].I <= i {
		cum += l.Buckets[j].N
		j++
	}
	return cum, j
}

// nativeHistogram is one operation's latency for client_golang, with both
// classic buckets and native buckets (for a Prometheus started with native
// histograms on).
func nativeHistogram(l record.LiveLat) *dto.Histogram {
	h := &dto.Histogram{
		SampleCount:   new(l.N),
		SampleSum:     new(l.SumNs / 1e9),
		Schema:        new(int32(record.LiveSchema)),
		ZeroThreshold: new(math.Exp2(-40)),
		ZeroCount:     new(uint64(0)),
		Bucket:        make([]*dto.Bucket, len(classicIndex)),
	}
	// The classic buckets and their counts in two allocations, not a
	// hundred.
	buckets, counts := make([]dto.Bucket, len(classicIndex)), make([]uint64, len(classicIndex))
	var cum uint64
	j := 0
	for k, i := range classicIndex {
		cum, j = classicCount(&l, i, cum, j)
		counts[k] = cum
		buckets[k].UpperBound, buckets[k].CumulativeCount = &ClassicBounds[k], &counts[k]
		h.Bucket[k] = &buckets[k]
	}
	// Native buckets: spans of consecutive indices, counts as deltas.
	prevIdx, prevN := int32(0), int64(0)
	h.PositiveDelta = make([]int64, 0, len(l.Buckets))
	for k, b := range l.Buckets {
		if k == 0 || b.I != prevIdx+1 {
			off := b.I
			if k > 0 {
				off = b.I - prevIdx - 1
			}
			h.PositiveSpan = append(h.PositiveSpan, &dto.BucketSpan{Offset: new(off), Length: new(uint32(0))})
		}
		sp := h.PositiveSpan[len(h.PositiveSpan)-1]
		*sp.Length++
		h.PositiveDelta = append(h.PositiveDelta, int64(b.N)-prevN)
		prevIdx, prevN = b.I, int64(b.N)
	}
	return h
}
