package results

import (
	"slices"
	"strings"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/stats"
)

// SchemaVersion is the version of summary.json. Bump it whenever a field is
// renamed, removed or changes meaning; schema/summary.schema.json follows.
// Version 2: a figure not measured is absent, never 0 - an operation's
// latency moved from lat_ns_* fields into an optional "lat" object, and
// bw_bytes_per_s and ops_per_s are left out where nothing was measured.
// Also new in 2: leftovers and stopped_hosts per phase, unreachable per
// host. Version 3: an operation's by_size, the same figures per object
// size class (s3 with a size distribution). ReadSummary reads versions 1
// and 2 too. Version 4 (issue 20): the totals' bw_bytes_per_s and
// ops_per_s of fio and s3 phases of several hosts follow IOR's rule (all
// bytes and operations over the time from the first host's start to the
// last host's end), where version 3 added the hosts' rates (fio) or took
// the common window (s3); duration_s of those totals is that window. New:
// an operation's rule, first_done, last_done and common_window, a phase's
// start_skew_s, a host's start_ns and end_ns; later, a phase's stonewall
// (fio's stonewall with IOR's wear-out; an optional object, no version
// change; so are a host's client samples and verdicts and a phase's
// client_limits, issue 42). Versions 3 and earlier read as they were
// written. Version 5: a host's client samples, second by second, are in
// its result.json alone; summary.json keeps them in a few figures
// (client.sampled: each series' median second and highest) beside the
// verdicts. Version 4's client.samples read as those figures.
const SchemaVersion = 5

// Summary is summary.json: the figures of every phase of a run, per host and
// merged across hosts. Field names carry their units.
type Summary struct {
	SchemaVersion int `json:"schema_version"`
	// RunHead is the run as run.json names it.
	model.RunHead
	Phases []PhaseSummary `json:"phases"`
	// Sweeps are statistics across iterations per matrix point, for suite
	// phases that repeat or sweep parameters.
	Sweeps []Sweep `json:"sweeps,omitempty"`
	// Scales are the run's scales (--scale): steps, stop and knee.
	Scales []Scale `json:"scales,omitempty"`
	// Score is storbench's IO500-style headline, when the run has bandwidth
	// and metadata phases, unless the suite chose IO500's.
	Score *Score `json:"score,omitempty"`
	// IO500 is storbench's IO500-shaped score, when the suite asked for it
	// (score: io500); it names the phases it lacks, if any.
	IO500 *IO500Score `json:"io500,omitempty"`
	// NotRun are the plan's phases the run never started, in order: it
	// stopped at a phase that failed, or was interrupted, before them.
	NotRun []string `json:"not_run,omitempty"`
}

// PhaseSummary is one phase's figures.
type PhaseSummary struct {
	Name   string           `json:"name"`
	Engine model.EngineName `json:"engine"`
	// Report is what the phase's headline shows: bandwidth, iops or latency
	// (fio job files say so in a "# report" comment).
	Report model.Headline `json:"report,omitempty"`
	// RateUnit is what the engine calls its operation rates ("IOPS",
	// "ops/s", "obj/s"); absent in results written before it was kept
	// (RateName then says fio's, md's and s3's own).
	RateUnit string `json:"rate_unit,omitempty"`
	// Formats are the text formats the engine's results print in
	// (model.FormatWarp, ...), its phase's own first; absent in results
	// written before they were kept (TextFormats then says fio's, md's
	// and s3's own).
	Formats []string `json:"formats,omitempty"`
	// Status is completed, failed or interrupted.
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	// Group, Point and Iteration place the phase in its suite: the suite
	// entry (and fio job) it belongs to, its matrix point, its iteration.
	Group     string `json:"group,omitempty"`
	Point     []KV   `json:"point,omitempty"`
	Iteration int    `json:"iteration,omitempty"`
	// Scale places the phase in a scale: its load and step, and on the
	// last step run, why the scale stopped.
	Scale *model.ScaleStep `json:"scale,omitempty"`
	// Dir is the phase's folder in the results folder, relative to it.
	Dir   string   `json:"dir"`
	Hosts []string `json:"hosts"`
	// StoppedBy is "autoterm" when the controller ended the phase early
	// because the total throughput of all hosts was stable.
	StoppedBy string `json:"stopped_by,omitempty"`
	// LostHosts are hosts that stopped answering during the phase.
	LostHosts []string `json:"lost_hosts,omitempty"`
	// StoppedHosts are hosts whose agent was told to stop (SIGTERM,
	// SIGINT) during the phase: their partial results are kept, and later
	// phases ran without them.
	StoppedHosts []string `json:"stopped_hosts,omitempty"`
	// Leftovers is what the phase created and could not remove, per host:
	// what, where, how many and why. A run with leftovers exits 1.
	Leftovers []model.Leftover `json:"leftovers,omitempty"`
	// Timing is how long each stage of the phase took, as the controller saw
	// it: what storbench adds around the engine's own run.
	Timing *Timing `json:"timing,omitempty"`
	// Window, when set, is the time in which every host was running; the
	// totals' throughput of engines with per-second series (s3) is taken
	// over it when several hosts ran (OpSummary.Rule says so). fio phases
	// take IOR's rule instead, and md phases have no Window: every
	// operation starts on all hosts at a barrier, and its total is
	// mdtest's (see OpSummary.Rate).
	Window *Window `json:"window,omitempty"`
	// StartSkewS is how far apart the hosts began, in seconds: the last
	// host's start less the first's (fio: each host's first job through
	// the start gate). Absent with one host.
	StartSkewS *float64 `json:"start_skew_s,omitempty"`
	// Stonewall is a write phase's deadline figures (fio's stonewall:
	// IOR's -D with wear-out), absent for a phase without one.
	Stonewall *StonewallSummary `json:"stonewall,omitempty"`
	// Ops are the cluster totals: counts and bytes added, histograms merged.
	Ops     []OpSummary `json:"ops"`
	PerHost []HostOps   `json:"per_host"`
	// Events are the suite's events of the phase as they happened, with
	// what each did to the figures (also in the phase's events.json).
	Events []model.PhaseEvent `json:"events,omitempty"`
	// ClientStarved names the hosts whose CPU other work took while the
	// phase ran, and what showed it (each host's client in PerHost has
	// the figures): the phase's figures are those of a starved client,
	// not the storage's. Absent when no host was.
	ClientStarved []StarvedHost `json:"client_starved,omitempty"`
	// ClientLimits are the limits of their own that the hosts reached
	// (each host's client in PerHost has its samples): a host's CPU
	// saturated, its link full, its disk busy, or starved. Absent when no
	// host reached one.
	ClientLimits []HostVerdict `json:"client_limits,omitempty"`
	// Limits are the limits set on the phase's figures (--limit, a suite
	// entry's limits:) and what each figure was.
	Limits []LimitResult `json:"limits,omitempty"`
}

// StarvedHost is a host whose client was starved during a phase, and why.
type StarvedHost struct {
	Host string `json:"host"`
	Why  string `json:"why"`
}

// StarvedMark is what the figures of a phase with ClientStarved carry
// where they are shown.
const StarvedMark = "client starved"

// StatusText is the phase's status as a table shows it: with its error,
// and marked when a host's client was starved.
func (p *PhaseSummary) StatusText() string {
	status := p.Status
	if p.Error != "" {
		status += ": " + p.Error
	}
	if len(p.ClientStarved) > 0 {
		status += " (" + StarvedMark + ")"
	}
	return status
}

// StarvedText says in one line which hosts' clients were starved during
// the phase and why, and what that means for its figures; "" when none
// was.
func (p *PhaseSummary) StarvedText() string {
	if len(p.ClientStarved) == 0 {
		return ""
	}
	var on []string
	for _, h := range p.ClientStarved {
		on = append(on, h.Host+" ("+h.Why+")")
	}
	return StarvedMark + " on " + strings.Join(on, "; ") + ": these figures are the client's, not the storage's"
}

// LimitResult is one limit on a figure of a phase's totals and how the
// phase kept it.
type LimitResult struct {
	// Limit is the limit as written: PHASE/OP/FIGURE, <, <=, > or >=, and
	// the bound with its unit ("randread/read/p99<5ms").
	Limit string `json:"limit"`
	// Value is the figure as measured, in Unit; Passed says whether it
	// kept the limit. Both are absent when the figure was not measured:
	// the limit was neither kept nor crossed, and the run fails as for a
	// crossed one (exit 4), having not shown it met.
	Value  *float64 `json:"value,omitempty"`
	Passed *bool    `json:"passed,omitempty"`
	// Unit is the unit of Value: ns, ops/s, B/s, or empty for a count.
	Unit string `json:"unit,omitempty"`
}

// Met says whether the limit was measured and kept.
func (l LimitResult) Met() bool { return l.Passed != nil && *l.Passed }

// Timing is a phase's stages in seconds.
type Timing struct {
	PrepareS float64 `json:"prepare_s"`
	RunS     float64 `json:"run_s"`
	// CleanupS is how long the run waited for the phase's cleanup; a
	// removal of files that goes on in the background (Removal*) is not
	// in it.
	CleanupS float64 `json:"cleanup_s"`
	// RemovalS is how long the removal of the phase's files took on the
	// slowest host when it went on in the background, after the phase:
	// it overlapped what followed (the next phase's preparation, writing
	// the results) and was awaited before the next phase's start.
	// RemovalStartNs and RemovalEndNs (Unix ns) bound it across hosts;
	// RemovalEndNs is absent when a removal did not end in time (the
	// phase's leftovers say so). All absent when cleanup was not done in
	// the background.
	RemovalS       *float64 `json:"removal_s,omitempty"`
	RemovalStartNs int64    `json:"removal_start_ns,omitempty"`
	RemovalEndNs   int64    `json:"removal_end_ns,omitempty"`
}

// HostOps is one host's figures for a phase.
type HostOps struct {
	Host  string `json:"host"`
	Error string `json:"error,omitempty"`
	// StartNs and EndNs (Unix ns) are when the host began its first
	// operation and ended its last: the edges of the totals' window.
	StartNs int64       `json:"start_ns,omitempty"`
	EndNs   int64       `json:"end_ns,omitempty"`
	Ops     []OpSummary `json:"ops"`
	// Unreachable is how long this host could not reach each endpoint
	// that failed it (S3 connection errors).
	Unreachable []model.Unreachable `json:"unreachable,omitempty"`
	// Client is how much of the host's CPU was left to the phase: other
	// work's share, steal, the load average, storbench's timers'
	// lateness, and whether that starved it; its own samples in a few
	// figures (the series are in the host's result.json), and the
	// verdicts.
	Client *model.ClientSummary `json:"client,omitempty"`
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
	// BwBytesPerS is absent for operations that move no bytes (md's
	// create and stat, s3 DELETE and STAT), and both are absent when there
	// was no window to measure over.
	BwBytesPerS *float64 `json:"bw_bytes_per_s,omitempty"`
	OpsPerS     *float64 `json:"ops_per_s,omitempty"`
	// Lat is the operation's latency (fio: completion latency, clat). It
	// is absent when none was recorded: fio job files can switch latency
	// off (disable_lat, disable_clat).
	Lat *LatencySummary `json:"lat,omitempty"`
	// TTFB is the time to first byte, where the engine measures it (s3).
	TTFB *LatencySummary `json:"ttfb,omitempty"`
	// Rule, in the totals, says how BwBytesPerS and OpsPerS were taken
	// across hosts: one of the Rule constants.
	Rule string `json:"rule,omitempty"`
	// FirstDone and LastDone are the stonewall figures IOR and elbencho
	// print beside the total, in the totals of a phase of several hosts:
	// what all hosts had done when the first host finished, and when the
	// last did, each from the first host's start.
	FirstDone *DoneFigure `json:"first_done,omitempty"`
	LastDone  *DoneFigure `json:"last_done,omitempty"`
	// CommonWindow is the throughput inside the phase's Window (the time
	// in which every host ran), where the phase has one.
	CommonWindow *DoneFigure `json:"common_window,omitempty"`
	// BySize splits the operation by object size class, when the phase's
	// objects had several sizes (s3 with a size distribution): its figures
	// for the requests on objects of each class (a ranged read counts in
	// its object's class), in the order of the classes. A class's
	// throughput is its requests over the host's window, hosts' figures
	// added.
	BySize []OpSummary `json:"by_size,omitempty"`
	// Size is the size class an entry of BySize covers.
	Size *record.SizeClass `json:"size,omitempty"`
	// Rate is the per-iteration rate statistics, for phases that repeat (md):
	// each iteration's rate is the items of all workers over the time of the
	// slowest, as mdtest computes it. Across hosts, every host began the
	// iteration at one common start (a barrier), and the total's rate is the
	// items of all hosts over the time from that start to the end of the
	// slowest host: never below the slowest host's rate, never above the
	// sum of the hosts' rates.
	Rate *RateStats `json:"rate,omitempty"`
	// CrossHostItems is how many of the items were created by another
	// host, for md's operations on items (stat, read, rename, remove) with
	// a stride (-N) or a tree all hosts share: what no client cache could
	// have answered. Absent where the engine does not tell.
	CrossHostItems *uint64 `json:"cross_host_items,omitempty"`
	// Found is how many entries a search matched (md's find: IO500's
	// found count), of the Ops it checked. Absent for other operations.
	Found *uint64 `json:"found,omitempty"`
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
// measured, and totals with histograms merged. A total's throughput
// follows one rule, named in its Rule: with several hosts, all bytes and
// operations over the time from the first host's start to the last
// host's end (IOR's rule), or md's per-iteration rate (mdtest's); with
// one host, that host's own figure. Beside it stand the stonewall figures
// (first and last host done) and, for engines with per-second series (s3),
// the throughput inside the time in which every host ran. formats are the
// text formats the engine offers (PhaseSummary.Formats), which say which
// of these rules its figures follow.
func BuildPhase(name string, eng model.EngineName, formats []string, hosts []*model.HostResult) PhaseSummary {
	ps := PhaseSummary{Name: name, Engine: eng, Formats: formats, Status: "completed"}
	lists := make([][]record.OpStats, 0, len(hosts))
	longest := map[string]float64{}
	var sizes sizeTotals
	var starts []int64
	for _, h := range hosts {
		if h == nil {
			continue
		}
		ps.Hosts = append(ps.Hosts, h.Host)
		ho := HostOps{Host: h.Host, Error: h.Err, Unreachable: h.Unreachable, Client: clientSummary(h.Client)}
		if h.Client != nil && h.Client.Starved {
			ps.ClientStarved = append(ps.ClientStarved, StarvedHost{Host: h.Host, Why: h.Client.Why})
		}
		ps.ClientLimits = append(ps.ClientLimits, hostVerdicts(h)...)
		ho.StartNs, ho.EndNs = record.Span(h.Ops)
		if ho.StartNs != 0 {
			starts = append(starts, ho.StartNs)
		}
		for _, o := range h.Ops {
			s := Op(o)
			s.BySize = bySize(h.BySize, o.Op)
			ho.Ops = append(ho.Ops, s)
			longest[o.Op] = max(longest[o.Op], s.DurationS)
		}
		ps.PerHost = append(ps.PerHost, ho)
		lists = append(lists, h.Ops)
		sizes.add(h.BySize)
	}
	if len(starts) > 1 {
		ps.StartSkewS = Figure(float64(slices.Max(starts)-slices.Min(starts)) / 1e9)
	}
	several := len(lists) > 1
	// Only a stonewall phase's hosts record its figures (fio's).
	ps.Stonewall = StonewallOf(hosts)
	var inWin map[string][2]float64
	if several && commonWindow(ps.TextFormats()) {
		ps.Window, inWin = CommonWindow(hosts)
	}
	for _, o := range record.CombineAll(lists...) {
		// Combine keeps no engine's own rate across hosts: Op computes
		// the total from all bytes and operations over the merged window,
		// which runs from the first host's start to the last one's end.
		s := Op(o)
		switch {
		case s.Rate != nil:
			s.Rule, s.DurationS = RuleMdtest, longest[o.Op]
		case !several:
			s.Rule = RuleHostWindow
			if o.ReportedBwBytesPerS > 0 || o.ReportedOpsPerS > 0 {
				s.Rule = RuleEngine
			}
		default:
			s.Rule = RuleFirstStartLastEnd
			s.FirstDone, s.LastDone = stonewall(hosts, o.Op, o.Bytes > 0)
			if ps.Window != nil {
				bw, ops := WindowRates(inWin[o.Op], s.Bytes, ps.Window.DurationS)
				s.CommonWindow = &DoneFigure{DurationS: ps.Window.DurationS, Bytes: inWin[o.Op][0], Ops: inWin[o.Op][1], BwBytesPerS: bw, OpsPerS: ops}
			}
		}
		s.BySize = sizes.of(o.Op)
		ps.Ops = append(ps.Ops, s)
	}
	return ps
}

// bySize is the per-size-class figures of operation op.
func bySize(stats []record.SizeOpStats, op string) []OpSummary {
	var out []OpSummary
	for _, st := range stats {
		if st.Op != op {
			continue
		}
		s := Op(st.OpStats)
		class := st.Size
		s.Size = &class
		out = append(out, s)
	}
	return out
}

// sizeTotals merges the hosts' per-size-class statistics: counts add,
// histograms merge, and throughput is all a class's bytes and requests
// over the time from the first host's start to the last one's end.
type sizeTotals struct {
	lists [][]record.SizeOpStats
}

func (t *sizeTotals) add(stats []record.SizeOpStats) { t.lists = append(t.lists, stats) }

// of returns operation op's totals per size class.
func (t *sizeTotals) of(op string) []OpSummary {
	var out []OpSummary
	for _, st := range record.CombineBySize(t.lists...) {
		if st.Op != op {
			continue
		}
		s := Op(st.OpStats)
		class := st.Size
		s.Size = &class
		out = append(out, s)
	}
	return out
}

// WindowRates are the throughput of work done in a window of d seconds:
// bytes and ops inside it (w), over it. Byte throughput is absent for an
// operation that moved no bytes at all, both are absent for no window.
func WindowRates(w [2]float64, bytes uint64, d float64) (bw, ops *float64) {
	if d <= 0 {
		return nil, nil
	}
	if bytes > 0 {
		bw = Figure(w[0] / d)
	}
	return bw, Figure(w[1] / d)
}

// Figure returns a measured figure, for the optional fields of OpSummary.
func Figure(v float64) *float64 { return &v }

// Op computes the figures of one operation's statistics.
func Op(o record.OpStats) OpSummary {
	s := OpSummary{
		Op: o.Op, Ops: o.Ops, Bytes: o.Bytes, Errors: o.Errors, ErrorKinds: o.ErrorKinds,
		DurationS: o.Seconds(), Lat: LatencyOf(o.Lat), CrossHostItems: o.CrossHost, Found: o.Found,
	}
	if s.DurationS > 0 {
		s.OpsPerS = Figure(float64(o.Ops) / s.DurationS)
		if o.Bytes > 0 {
			s.BwBytesPerS = Figure(float64(o.Bytes) / s.DurationS)
		}
	}
	if o.ReportedOpsPerS > 0 || o.ReportedBwBytesPerS > 0 {
		s.OpsPerS, s.BwBytesPerS = Figure(o.ReportedOpsPerS), nil
		if o.Bytes > 0 || o.ReportedBwBytesPerS > 0 {
			s.BwBytesPerS = Figure(o.ReportedBwBytesPerS)
		}
	}
	if o.TTFB != nil {
		s.TTFB = LatencyOf(*o.TTFB)
	}
	if len(o.Iterations) > 0 {
		s.Rate = IterationRates(o.Iterations)
		s.OpsPerS, s.BwBytesPerS = nil, nil
		if len(s.Rate.PerIter) > 0 {
			s.OpsPerS = Figure(s.Rate.Mean)
			if o.Bytes > 0 && o.Ops > 0 {
				s.BwBytesPerS = Figure(s.Rate.Mean * float64(o.Bytes) / float64(o.Ops))
			}
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

// LatencyOf summarises a distribution, or returns nil when it holds no
// sample: latency was not recorded (fio with disable_clat), which is not a
// latency of 0.
func LatencyOf(h record.Hist) *LatencySummary {
	if h.Stats.N == 0 && h.Bins.Total() == 0 {
		return nil
	}
	l := Latency(h)
	return &l
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
	d := stats.Describe(r.PerIter)
	r.Max, r.Min, r.Mean, r.Stddev = d.Max, d.Min, d.Mean, d.Stddev
	return r
}
