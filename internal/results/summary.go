package results

import (
	"math"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/record"
)

// SchemaVersion is the version of summary.json. Bump it whenever a field is
// renamed, removed or changes meaning; schema/summary.schema.json follows.
const SchemaVersion = 1

// Summary is summary.json: the figures of every phase of a run, per host and
// merged across hosts. Field names carry their units.
type Summary struct {
	SchemaVersion int            `json:"schema_version"`
	RunID         string         `json:"run_id"`
	Name          string         `json:"name"`
	Status        string         `json:"status"`
	StartedAt     time.Time      `json:"started_at"`
	EndedAt       time.Time      `json:"ended_at,omitzero"`
	Phases        []PhaseSummary `json:"phases"`
	// Sweeps are statistics across iterations per matrix point, for suite
	// phases that repeat or sweep parameters.
	Sweeps []Sweep `json:"sweeps,omitempty"`
	// Score is storbench's IO500-style headline, when the run has bandwidth
	// and metadata phases.
	Score *Score `json:"score,omitempty"`
}

// PhaseSummary is one phase's figures.
type PhaseSummary struct {
	Name   string `json:"name"`
	Engine string `json:"engine"`
	// Report is what the phase's headline shows: bandwidth, iops or latency
	// (fio job files say so in a "# report" comment).
	Report string `json:"report,omitempty"`
	// Status is completed, failed or interrupted.
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	// Group, Point and Iteration place the phase in its suite: the suite
	// entry (and fio job) it belongs to, its matrix point, its iteration.
	Group     string `json:"group,omitempty"`
	Point     []KV   `json:"point,omitempty"`
	Iteration int    `json:"iteration,omitempty"`
	// Dir is the phase's folder in the results folder, relative to it.
	Dir   string   `json:"dir"`
	Hosts []string `json:"hosts"`
	// StoppedBy is "autoterm" when the controller ended the phase early
	// because the total throughput of all hosts was stable.
	StoppedBy string `json:"stopped_by,omitempty"`
	// LostHosts are hosts that stopped answering during the phase.
	LostHosts []string `json:"lost_hosts,omitempty"`
	// Timing is how long each stage of the phase took, as the controller saw
	// it: what storbench adds around the engine's own run.
	Timing *Timing `json:"timing,omitempty"`
	// Window, when set, is the time in which every host was running; the
	// totals' throughput of engines with per-second series (s3) is taken
	// over it when several hosts ran. fio phases add the hosts' own figures
	// instead, and md phases have no Window: every operation starts on all
	// hosts at a barrier, and its total is mdtest's (see OpSummary.Rate).
	Window *Window `json:"window,omitempty"`
	// Ops are the cluster totals: counts and bytes added, histograms merged.
	Ops     []OpSummary `json:"ops"`
	PerHost []HostOps   `json:"per_host"`
}

// Timing is a phase's stages in seconds.
type Timing struct {
	PrepareS float64 `json:"prepare_s"`
	RunS     float64 `json:"run_s"`
	CleanupS float64 `json:"cleanup_s"`
}

// HostOps is one host's figures for a phase.
type HostOps struct {
	Host  string      `json:"host"`
	Error string      `json:"error,omitempty"`
	Ops   []OpSummary `json:"ops"`
}

// OpSummary is the figures of one operation (read, write, create, get, ...).
type OpSummary struct {
	Op         string            `json:"op"`
	Ops        uint64            `json:"ops"`
	Bytes      uint64            `json:"bytes"`
	Errors     uint64            `json:"errors"`
	ErrorKinds map[string]uint64 `json:"error_kinds,omitempty"`
	// DurationS is the measured window in seconds (per host: that host's; in
	// the totals: the common window when the phase has one, else the
	// longest host window).
	DurationS float64 `json:"duration_s"`
	// BwBytesPerS and OpsPerS are throughput; totals add the hosts' figures,
	// each over its own window, as the seeds' "total bandwidth" does, or
	// for phases with a common Window, everything done inside it over it.
	BwBytesPerS float64 `json:"bw_bytes_per_s"`
	OpsPerS     float64 `json:"ops_per_s"`

	LatNsMean   float64 `json:"lat_ns_mean"`
	LatNsStddev float64 `json:"lat_ns_stddev"`
	LatNsMin    int64   `json:"lat_ns_min"`
	LatNsMax    int64   `json:"lat_ns_max"`
	LatNsP50    int64   `json:"lat_ns_p50"`
	LatNsP90    int64   `json:"lat_ns_p90"`
	LatNsP99    int64   `json:"lat_ns_p99"`
	LatNsP995   int64   `json:"lat_ns_p99_5"`
	LatNsP999   int64   `json:"lat_ns_p99_9"`

	// TTFB is the time to first byte, where the engine measures it (s3).
	TTFB *LatencySummary `json:"ttfb,omitempty"`
	// Rate is the per-iteration rate statistics, for phases that repeat (md):
	// each iteration's rate is the items of all workers over the time of the
	// slowest, as mdtest computes it. Across hosts, every host began the
	// iteration at one common start (a barrier), and the total's rate is the
	// items of all hosts over the time from that start to the end of the
	// slowest host: never below the slowest host's rate, never above the
	// sum of the hosts' rates.
	Rate *RateStats `json:"rate,omitempty"`
}

// LatencySummary is a latency distribution in nanoseconds.
type LatencySummary struct {
	MeanNs   float64 `json:"mean_ns"`
	StddevNs float64 `json:"stddev_ns"`
	MinNs    int64   `json:"min_ns"`
	MaxNs    int64   `json:"max_ns"`
	P50Ns    int64   `json:"p50_ns"`
	P90Ns    int64   `json:"p90_ns"`
	P99Ns    int64   `json:"p99_ns"`
	P995Ns   int64   `json:"p99_5_ns"`
	P999Ns   int64   `json:"p99_9_ns"`
}

// RateStats are statistics across iterations, in operations per second.
type RateStats struct {
	Iterations int       `json:"iterations"`
	PerIter    []float64 `json:"per_iteration_ops_per_s"`
	Max        float64   `json:"max_ops_per_s"`
	Min        float64   `json:"min_ops_per_s"`
	Mean       float64   `json:"mean_ops_per_s"`
	// Stddev is the sample standard deviation (n-1).
	Stddev float64 `json:"stddev_ops_per_s"`
}

// BuildPhase makes a phase's summary from its hosts' results: per host as
// measured, and totals with histograms merged.
func BuildPhase(name, eng string, hosts []*engine.HostResult) PhaseSummary {
	ps := PhaseSummary{Name: name, Engine: eng, Status: "completed"}
	lists := make([][]record.OpStats, 0, len(hosts))
	rates := map[string][2]float64{} // op -> summed bytes/s, ops/s
	longest := map[string]float64{}
	for _, h := range hosts {
		if h == nil {
			continue
		}
		ps.Hosts = append(ps.Hosts, h.Host)
		ho := HostOps{Host: h.Host, Error: h.Err}
		for _, o := range h.Ops {
			s := Op(o)
			ho.Ops = append(ho.Ops, s)
			r := rates[o.Op]
			rates[o.Op] = [2]float64{r[0] + s.BwBytesPerS, r[1] + s.OpsPerS}
			longest[o.Op] = max(longest[o.Op], s.DurationS)
		}
		ps.PerHost = append(ps.PerHost, ho)
		lists = append(lists, h.Ops)
	}
	var inWin map[string][2]float64
	if eng != "fio" && eng != "md" && len(ps.Hosts) > 1 {
		ps.Window, inWin = CommonWindow(hosts)
	}
	for _, o := range record.CombineAll(lists...) {
		s := Op(o)
		s.DurationS = longest[o.Op]
		if s.Rate == nil {
			s.BwBytesPerS, s.OpsPerS = rates[o.Op][0], rates[o.Op][1]
			if ps.Window != nil {
				w := inWin[o.Op]
				s.DurationS = ps.Window.DurationS
				s.BwBytesPerS, s.OpsPerS = w[0]/s.DurationS, w[1]/s.DurationS
			}
		}
		ps.Ops = append(ps.Ops, s)
	}
	return ps
}

// Op computes the figures of one operation's statistics.
func Op(o record.OpStats) OpSummary {
	s := OpSummary{
		Op: o.Op, Ops: o.Ops, Bytes: o.Bytes, Errors: o.Errors, ErrorKinds: o.ErrorKinds,
		DurationS: o.Seconds(),
	}
	if s.DurationS > 0 {
		s.BwBytesPerS = float64(o.Bytes) / s.DurationS
		s.OpsPerS = float64(o.Ops) / s.DurationS
	}
	if o.ReportedOpsPerS > 0 || o.ReportedBwBytesPerS > 0 {
		s.BwBytesPerS, s.OpsPerS = o.ReportedBwBytesPerS, o.ReportedOpsPerS
	}
	l := Latency(o.Lat)
	s.LatNsMean, s.LatNsStddev, s.LatNsMin, s.LatNsMax = l.MeanNs, l.StddevNs, l.MinNs, l.MaxNs
	s.LatNsP50, s.LatNsP90, s.LatNsP99, s.LatNsP995, s.LatNsP999 = l.P50Ns, l.P90Ns, l.P99Ns, l.P995Ns, l.P999Ns
	if o.TTFB != nil {
		t := Latency(*o.TTFB)
		s.TTFB = &t
	}
	if len(o.Iterations) > 0 {
		s.Rate = IterationRates(o.Iterations)
		s.OpsPerS = s.Rate.Mean
		if o.Ops > 0 {
			s.BwBytesPerS = s.Rate.Mean * float64(o.Bytes) / float64(o.Ops)
		}
	}
	return s
}

// Latency summarises a distribution.
func Latency(h record.Hist) LatencySummary {
	return LatencySummary{
		MeanNs: h.Stats.Mean, StddevNs: h.Stats.Stddev(), MinNs: h.Stats.Min, MaxNs: h.Stats.Max,
		P50Ns: h.Bins.Percentile(50), P90Ns: h.Bins.Percentile(90), P99Ns: h.Bins.Percentile(99),
		P995Ns: h.Bins.Percentile(99.5), P999Ns: h.Bins.Percentile(99.9),
	}
}

// IterationRates computes mdtest's per-iteration table: each iteration's rate
// is its items over its window, then max, min, mean and sample stddev.
func IterationRates(its []record.Iteration) *RateStats {
	r := &RateStats{Iterations: len(its)}
	for _, it := range its {
		d := float64(it.EndNs-it.StartNs) / 1e9
		if d <= 0 {
			continue
		}
		r.PerIter = append(r.PerIter, float64(it.Items)/d)
	}
	r.Max, r.Min, r.Mean, r.Stddev = Describe(r.PerIter)
	return r
}

// Describe returns max, min, mean and sample standard deviation (n-1) of xs;
// all zero for none, stddev zero for one.
func Describe(xs []float64) (maxV, minV, mean, stddev float64) {
	if len(xs) == 0 {
		return 0, 0, 0, 0
	}
	maxV, minV = math.Inf(-1), math.Inf(1)
	var sum float64
	for _, x := range xs {
		maxV, minV = math.Max(maxV, x), math.Min(minV, x)
		sum += x
	}
	mean = sum / float64(len(xs))
	if len(xs) > 1 {
		var ss float64
		for _, x := range xs {
			ss += (x - mean) * (x - mean)
		}
		stddev = math.Sqrt(ss / float64(len(xs)-1))
	}
	return maxV, minV, mean, stddev
}
