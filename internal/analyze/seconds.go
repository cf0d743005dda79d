package analyze

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/results"
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
	// Seconds is the time in the segment in which some host did the
	// operation (the union of the hosts' spans in it), and Full says it
	// covers the segment (90% or more of it; a segment at a window's edge
	// may be longer, having taken in a sliver): a segment in which the
	// operation began or ended, on some host or all, is not full.
	Seconds float64
	Full    bool
	// OpsPerS and BytesPerS are the hosts' operations and bytes in the
	// segment over Seconds: the rate on the wall clock, however many jobs
	// or hosts did the work, so that OpsPerS x Seconds is the segment's
	// operations.
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
// its last: a segment inside the run with nothing in it is a stall, kept
// as zero. An operation that runs in iterations (md) has segments only
// within its iterations: between them it is not stalled but waiting for
// the other operations.
type OpSeconds struct {
	Op      string
	Seconds []OpSecond
	// Latency says whether per-second histograms were kept for it.
	Latency bool
}

// PhaseStart is the start of a phase's time axis: the phase's real start,
// the earliest start of any host's operation window, or, where hosts tell
// none, the earliest interval of any host's series. (An engine's
// per-second histograms cover the same intervals as its series, or fewer:
// those in which operations ended.)
func PhaseStart(hosts []*model.HostResult) int64 {
	if t0 := phaseStartOf(hosts); t0 != 0 {
		return t0
	}
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
// latency switched off). A file that decompresses to more than the
// host's operations could have written is refused (exit code 2).
func HostLatSeconds(h *model.HostResult) ([]record.LatSecond, error) {
	if len(h.LatencySeconds) == 0 {
		return nil, nil
	}
	secs, err := record.DecodeLatSecondsLimit(h.LatencySeconds, record.LatSecondsBound(h.Ops))
	if err != nil {
		return nil, fmt.Errorf("host %s: %s: %w", h.Host, record.LatSecondsFile, err)
	}
	return secs, nil
}

// SecondsOf adds hosts' per-second series and histograms into segments of
// seg (a second when 0) counted from t0, per operation, in the order the
// operations first appear. keep chooses operations (nil: all).
func SecondsOf(hosts []*model.HostResult, t0 int64, seg time.Duration, keep func(op string) bool) ([]OpSeconds, error) {
	if seg <= 0 {
		seg = time.Second
	}
	sa := &secondsAcc{t0: t0, seg: int64(seg), byOp: map[string]map[int]*secAcc{}, lat: map[string]bool{}, iters: iterSegments(hosts, t0, int64(seg))}
	for hi, h := range hosts {
		wins := opWindows(h)
		for _, s := range h.Series {
			if s.EndNs <= s.StartNs || (keep != nil && !keep(s.Op)) {
				continue
			}
			sa.addInterval(hi, s, wins[s.Op])
		}
		secs, err := HostLatSeconds(h)
		if err != nil {
			return nil, err
		}
		for _, s := range secs {
			if s.EndNs < s.StartNs || (keep != nil && !keep(s.Op)) {
				continue
			}
			sa.addLatency(s, wins[s.Op])
		}
	}
	return sa.seconds(), nil
}

// secondsAcc adds hosts' seconds into segments, for SecondsOf.
type secondsAcc struct {
	t0, seg int64
	order   []string
	byOp    map[string]map[int]*secAcc
	lat     map[string]bool
	// iters[op] are the segments (first, last) wholly inside each
	// iteration of an operation that runs in iterations: only there is a
	// segment without operations a stall.
	iters map[string][][2]int
}

// secAcc is one segment of an operation, with each host's share.
type secAcc struct {
	OpSecond
	host map[int]*hostAcc
}

// hostAcc is a host's part of a segment.
type hostAcc struct {
	ops, bytes float64 // unrounded shares, for rates
	// spans are the host's pieces in the segment (Unix ns).
	spans []window
}

// iterSegments are, per operation that runs in iterations, the segments
// of seg from t0 wholly inside each iteration.
func iterSegments(hosts []*model.HostResult, t0, seg int64) map[string][][2]int {
	iters := map[string][][2]int{}
	for _, h := range hosts {
		for _, o := range h.Ops {
			for _, it := range o.Iterations {
				first := -floorDiv(t0-it.StartNs, seg) // ceil((start-t0)/seg)
				last := floorDiv(it.EndNs-t0, seg) - 1
				iters[o.Op] = append(iters[o.Op], [2]int{int(first), int(last)})
			}
		}
	}
	return iters
}

// inRun says segment i of op is inside one of its iterations (always, for
// an operation without iterations).
func (sa *secondsAcc) inRun(op string, i int) bool {
	its, ok := sa.iters[op]
	if !ok {
		return true
	}
	for _, r := range its {
		if i >= r[0] && i <= r[1] {
			return true
		}
	}
	return false
}

// get is segment i of op, made when new.
func (sa *secondsAcc) get(op string, i int) *secAcc {
	m := sa.byOp[op]
	if m == nil {
		m = map[int]*secAcc{}
		sa.byOp[op] = m
		sa.order = append(sa.order, op)
	}
	a := m[i]
	if a == nil {
		a = &secAcc{OpSecond: OpSecond{Index: i, StartNs: sa.t0 + int64(i)*sa.seg}, host: map[int]*hostAcc{}}
		m[i] = a
	}
	return a
}

// addInterval adds host hi's interval s: its part inside the operation's
// windows, spread over the segments it covers (see align.go).
func (sa *secondsAcc) addInterval(hi int, s record.Second, wins []window) {
	ps := pieces(s.StartNs, s.EndNs, wins, sa.t0, sa.seg)
	for k, p := range ps {
		a := sa.get(s.Op, p.index)
		ops, bytes, errs := share(s.Ops, ps, k), share(s.Bytes, ps, k), share(s.Errors, ps, k)
		a.Ops += ops
		a.Bytes += bytes
		a.Errors += errs
		x := a.host[hi]
		if x == nil {
			x = &hostAcc{}
			a.host[hi] = x
		}
		f := fraction(ps, k)
		x.ops += f * float64(s.Ops)
		x.bytes += f * float64(s.Bytes)
		x.spans = append(x.spans, window{p.lo, p.hi})
	}
}

// addLatency adds a host's histogram of one interval to the segment it
// falls in.
func (sa *secondsAcc) addLatency(s record.LatSecond, wins []window) {
	sa.lat[s.Op] = true
	a := sa.get(s.Op, latPiece(s.StartNs, max(s.EndNs, s.StartNs+1), wins, sa.t0, sa.seg))
	if a.Bins == nil {
		a.Bins = s.Bins // decoded for this call: not shared
	} else {
		a.Bins = record.Merge(a.Bins, s.Bins)
	}
	a.LatN += s.Bins.Total()
	a.SumNs += s.SumNs
}

// seconds are the operations' segments, first to last, with the rates of
// each (every host's share over the time it ran in the segment) and empty
// segments inside an iteration (stalls).
func (sa *secondsAcc) seconds() []OpSeconds {
	out := make([]OpSeconds, 0, len(sa.order))
	for _, op := range sa.order {
		m := sa.byOp[op]
		idx := make([]int, 0, len(m))
		for i := range m {
			idx = append(idx, i)
		}
		sort.Ints(idx)
		o := OpSeconds{Op: op, Latency: sa.lat[op]}
		for i := idx[0]; i <= idx[len(idx)-1]; i++ {
			a := m[i]
			if a == nil {
				if sa.inRun(op, i) {
					// A stall: a whole segment without an operation.
					o.Seconds = append(o.Seconds, OpSecond{Index: i, StartNs: sa.t0 + int64(i)*sa.seg, Seconds: float64(sa.seg) / 1e9, Full: true})
				}
				continue
			}
			a.rates(sa.seg)
			a.Hosts = len(a.host)
			o.Seconds = append(o.Seconds, a.OpSecond)
		}
		out = append(out, o)
	}
	return out
}

// rates sets the segment's covered time and its rates over it.
func (a *secAcc) rates(seg int64) {
	var spans []window
	var ops, bytes float64
	for _, x := range a.host {
		spans = append(spans, x.spans...)
		ops += x.ops
		bytes += x.bytes
	}
	var covered int64
	for _, w := range unionOf(spans) {
		covered += w.end - w.start
	}
	a.Seconds = float64(covered) / 1e9
	a.Full = covered >= seg-sliver(seg)
	if covered > 0 {
		a.OpsPerS, a.BytesPerS = ops/a.Seconds, bytes/a.Seconds
	}
}

// PerSecond is `analyze --per-second`: per phase and operation, one row
// per second (or segment) with throughput and latency percentiles, all
// hosts added (or the one asked for).
type PerSecond struct {
	Source  string           `json:"source"`
	RunID   string           `json:"run_id,omitempty"`
	Name    string           `json:"name,omitempty"`
	Options AnalysisOptions  `json:"options"`
	Notes   []string         `json:"notes,omitempty"`
	Phases  []PerSecondPhase `json:"phases"`
}

// PerSecondPhase is one phase's seconds. Start is its time axis' origin:
// the earliest interval of any host.
type PerSecondPhase struct {
	Name   string           `json:"name"`
	Engine model.EngineName `json:"engine"`
	Start  time.Time        `json:"start_time"`
	Hosts  []string         `json:"hosts"`
	Ops    []PerSecondOp    `json:"ops"`
	Notes  []string         `json:"notes,omitempty"`
}

// PerSecondOp is one operation's rows.
type PerSecondOp struct {
	Op   string      `json:"op"`
	Rows []SecondRow `json:"rows"`
}

// SecondRow is one second (segment) of one operation. Throughput is the
// hosts' rates added; latency comes from the second's merged histogram.
// BwBytesPerS is absent for operations that move no bytes, Lat where no
// per-second histogram was kept or nothing ended in the second.
type SecondRow struct {
	Second      int            `json:"second"`
	Start       time.Time      `json:"start_time"`
	Ops         uint64         `json:"ops"`
	OpsPerS     float64        `json:"ops_per_s"`
	BwBytesPerS *float64       `json:"bw_bytes_per_s,omitempty"`
	Errors      uint64         `json:"errors"`
	Hosts       int            `json:"hosts"`
	Lat         *SecondLatency `json:"lat,omitempty"`
}

// SecondLatency is a second's latency in nanoseconds.
type SecondLatency struct {
	Requests uint64  `json:"requests"`
	MeanNs   float64 `json:"mean_ns"`
	P50Ns    int64   `json:"p50_ns"`
	P99Ns    int64   `json:"p99_ns"`
	P999Ns   int64   `json:"p99_9_ns"`
}

// PerSecondFolder reads a results folder's per-second series and
// histograms. --skip drops the first seconds of each operation.
func PerSecondFolder(dir string, o Options) (*PerSecond, error) {
	sum, err := results.ReadSummary(dir)
	if err != nil {
		return nil, err
	}
	out := &PerSecond{Source: filepath.Base(filepath.Clean(dir)), RunID: sum.RunID, Name: sum.Name, Options: o.record()}
	if sum.Status == results.StatusRunning {
		out.Notes = append(out.Notes, results.NeverFinishedNote)
	}
	hostSeen := false
	for i := range sum.Phases {
		ps := &sum.Phases[i]
		hosts, err := ReadPhaseHosts(dir, ps)
		if err != nil {
			return nil, err
		}
		t0 := PhaseStart(hosts)
		if o.Host != "" {
			var keep []*model.HostResult
			for _, h := range hosts {
				if h.Host == o.Host {
					keep = append(keep, h)
				}
			}
			hosts = keep
			hostSeen = hostSeen || len(keep) > 0
		}
		p, err := perSecondPhase(ps.Name, ps.Engine, hosts, t0, o)
		if err != nil {
			return nil, fmt.Errorf("%s: phase %s: %v", dir, ps.Name, err)
		}
		out.Phases = append(out.Phases, p)
	}
	if o.Host != "" && !hostSeen {
		return nil, fmt.Errorf("no host %q in %s", o.Host, dir)
	}
	return out, nil
}

func perSecondPhase(name string, eng model.EngineName, hosts []*model.HostResult, t0 int64, o Options) (PerSecondPhase, error) {
	p := PerSecondPhase{Name: name, Engine: eng, Start: time.Unix(0, t0).UTC()}
	moved := map[string]bool{}
	for _, h := range hosts {
		p.Hosts = append(p.Hosts, h.Host)
		for _, x := range h.Ops {
			moved[x.Op] = moved[x.Op] || x.Bytes > 0
		}
	}
	ops, err := SecondsOf(hosts, t0, o.segment(), o.keepOp)
	if err != nil {
		return p, err
	}
	var noLat []string
	for _, op := range ops {
		po := PerSecondOp{Op: op.Op}
		var first int64 = -1
		for _, s := range op.Seconds {
			if first < 0 {
				first = s.StartNs
			}
			if s.StartNs < first+int64(o.Skip) {
				continue
			}
			r := SecondRow{Second: s.Index, Start: time.Unix(0, s.StartNs).UTC(), Ops: s.Ops, OpsPerS: s.OpsPerS,
				Errors: s.Errors, Hosts: s.Hosts}
			if moved[op.Op] {
				bw := s.BytesPerS
				r.BwBytesPerS = &bw
			}
			if s.LatN > 0 {
				r.Lat = &SecondLatency{Requests: s.LatN, MeanNs: s.MeanNs(),
					P50Ns: s.Bins.Percentile(50), P99Ns: s.Bins.Percentile(99), P999Ns: s.Bins.Percentile(99.9)}
			}
			po.Rows = append(po.Rows, r)
		}
		if !op.Latency {
			noLat = append(noLat, op.Op)
		}
		p.Ops = append(p.Ops, po)
	}
	if len(noLat) > 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("no latency per second for %s: %s", strings.Join(noLat, ", "), NoLatSecondsReason))
	}
	return p, nil
}

// NoLatSecondsReason says why an operation may have no per-second
// latency.
const NoLatSecondsReason = "the results were written before storbench kept per-second histograms, or the fio job records no latency"
