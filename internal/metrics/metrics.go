// Package metrics tells what a run does while it runs: Prometheus metrics
// (on every agent and on the controller) and the --live stream of JSON
// lines. Both are fed from the per-second snapshots the agents already
// send, and from each host's result at a phase's end, never from the
// per-operation path: a scrape or a slow reader costs the load nothing.
package metrics

import (
	"math"
	"sort"
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

var states = []string{StatePrepare, StateRun, StateDone, StateFailed, StateInterrupted}

// KeepPhases is how many phases a Registry keeps, newest first: a phase's
// final figures stay to be scraped after it ends, and an agent that serves
// runs for months does not grow.
const KeepPhases = 16

var (
	opLabels    = []string{"run", "phase", "host", "op"}
	phaseLabels = []string{"run", "phase", "host"}
	descOps     = prometheus.NewDesc(NameOps, "Operations completed without error, per run, phase, host and operation.", opLabels, nil)
	descBytes   = prometheus.NewDesc(NameBytes, "Bytes moved by operations completed without error.", opLabels, nil)
	descErrors  = prometheus.NewDesc(NameErrors, "Operations that failed.", opLabels, nil)
	descLatency = prometheus.NewDesc(NameLatency, "Latency of operations completed without error (fio: completion latency).", opLabels, nil)
	descState   = prometheus.NewDesc(NameState, "The phase's state on the host: 1 for the current state, 0 for the others.", append(phaseLabels, "state"), nil)
	descElapsed = prometheus.NewDesc(NameElapsed, "Time the phase's load has run on the host.", phaseLabels, nil)
	descPlanned = prometheus.NewDesc(NamePlanned, "Time the phase's load is planned to run (absent when the engine cannot tell).", phaseLabels, nil)
)

// Registry holds the live figures of the latest phases, per host and
// operation, and serves them as a prometheus.Collector. Its methods are
// called about once a second per host; a scrape reads under the same lock.
type Registry struct {
	mu     sync.Mutex
	phases []*phaseHosts // oldest first
}

var _ prometheus.Collector = (*Registry)(nil)

// phaseHosts is one phase of one run, per host.
type phaseHosts struct {
	run, phase string
	hosts      map[string]*hostPhase
}

// hostPhase is one phase on one host.
type hostPhase struct {
	state            string
	elapsed, planned float64
	ops              map[string]*opFigures
}

// opFigures are one operation's counters, which never go back: a snapshot
// that arrives late (older than what is held) changes nothing.
type opFigures struct {
	ops, bytes, errors uint64
	lat                record.LiveLat
}

// NewRegistry returns an empty Registry.
func NewRegistry() *Registry { return &Registry{} }

// host returns the figures of phase on host, made if new; r.mu is held.
func (r *Registry) host(run, phase, host string) *hostPhase {
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
		h = &hostPhase{state: StatePrepare, ops: map[string]*opFigures{}}
		ph.hosts[host] = h
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
		f, ok := h.ops[o.Op]
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

func (h *hostPhase) op(name string) *opFigures {
	o := h.ops[name]
	if o == nil {
		o = &opFigures{}
		h.ops[name] = o
	}
	return o
}

func (o *opFigures) raise(ops, bytes, errs uint64) {
	o.ops, o.bytes, o.errors = max(o.ops, ops), max(o.bytes, bytes), max(o.errors, errs)
}

// Describe sends nothing: the Registry is an unchecked collector, its
// series come and go with phases.
func (r *Registry) Describe(chan<- *prometheus.Desc) {}

// Collect sends every kept phase's figures.
func (r *Registry) Collect(ch chan<- prometheus.Metric) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ph := range r.phases {
		for _, host := range sortedKeys(ph.hosts) {
			h := ph.hosts[host]
			for _, st := range states {
				v := 0.0
				if st == h.state {
					v = 1
				}
				ch <- prometheus.MustNewConstMetric(descState, prometheus.GaugeValue, v, ph.run, ph.phase, host, st)
			}
			ch <- prometheus.MustNewConstMetric(descElapsed, prometheus.GaugeValue, h.elapsed, ph.run, ph.phase, host)
			if h.planned > 0 {
				ch <- prometheus.MustNewConstMetric(descPlanned, prometheus.GaugeValue, h.planned, ph.run, ph.phase, host)
			}
			for _, op := range sortedKeys(h.ops) {
				o := h.ops[op]
				lv := []string{ph.run, ph.phase, host, op}
				ch <- prometheus.MustNewConstMetric(descOps, prometheus.CounterValue, float64(o.ops), lv...)
				ch <- prometheus.MustNewConstMetric(descBytes, prometheus.CounterValue, float64(o.bytes), lv...)
				ch <- prometheus.MustNewConstMetric(descErrors, prometheus.CounterValue, float64(o.errors), lv...)
				ch <- latencyMetric{labels: prometheus.MakeLabelPairs(descLatency, lv), lat: o.lat}
			}
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ClassicBounds are the upper bounds (seconds) of the latency histogram's
// classic buckets, which the text formats carry: every 16th bucket of
// record.LiveSchema, a factor of √2 apart from 2^-20 s (about 1 µs) to
// 2^7 s, so each classic count is exact, not re-binned.
var ClassicBounds = func() []float64 {
	var out []float64
	for i := int32(-20 * 32); i <= 7*32; i += 16 {
		out = append(out, record.LiveUpper(i))
	}
	return out
}()

// latencyMetric is one operation's latency histogram, with both classic
// buckets (OpenMetrics and Prometheus text) and native buckets (protobuf,
// for a Prometheus started with native histograms on).
type latencyMetric struct {
	labels []*dto.LabelPair
	lat    record.LiveLat
}

func (m latencyMetric) Desc() *prometheus.Desc { return descLatency }

func (m latencyMetric) Write(out *dto.Metric) error {
	l := m.lat
	h := &dto.Histogram{
		SampleCount:   new(l.N),
		SampleSum:     new(l.SumNs / 1e9),
		Schema:        new(int32(record.LiveSchema)),
		ZeroThreshold: new(math.Exp2(-40)),
		ZeroCount:     new(uint64(0)),
	}
	var cum uint64
	j := 0
	for _, b := range ClassicBounds {
		for j < len(l.Buckets) && record.LiveUpper(l.Buckets[j].I) <= b*(1+1e-9) {
			cum += l.Buckets[j].N
			j++
		}
		h.Bucket = append(h.Bucket, &dto.Bucket{UpperBound: new(b), CumulativeCount: new(cum)})
	}
	// Native buckets: spans of consecutive indices, counts as deltas.
	prevIdx, prevN := int32(0), int64(0)
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
	if len(h.PositiveSpan) == 0 {
		// No observation yet: an empty span marks the histogram as native.
		h.PositiveSpan = []*dto.BucketSpan{{Offset: new(int32(0)), Length: new(uint32(0))}}
	}
	out.Label = m.labels
	out.Histogram = h
	return nil
}
