package analyze

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/results"
)

// Options choose what Analyze looks at.
type Options struct {
	// Op keeps one operation (case-insensitive); empty keeps all.
	Op string
	// Host keeps one host (a client in a results folder, an endpoint in a
	// benchdata file); empty keeps all.
	Host string
	// Skip drops this much time at the start of each operation's window.
	Skip time.Duration
	// Segment is the length of the time segments (default 1s).
	Segment time.Duration
}

func (o Options) segment() time.Duration {
	if o.Segment <= 0 {
		return time.Second
	}
	return o.Segment
}

func (o Options) keepOp(op string) bool { return o.Op == "" || strings.EqualFold(o.Op, op) }

// Analysis is a results folder or a benchdata file analysed again.
type Analysis struct {
	// Source is what was analysed; Kind is "results", "benchdata" or
	// "warp" (a file recorded by warp).
	Source string `json:"source"`
	Kind   string `json:"kind"`
	RunID  string `json:"run_id,omitempty"`
	Name   string `json:"name,omitempty"`
	// Requests is the number of requests read from a benchdata or warp file.
	Requests uint64          `json:"requests,omitempty"`
	Options  AnalysisOptions `json:"options"`
	// Notes are said of the whole result (a run that never finished).
	Notes  []string        `json:"notes,omitempty"`
	Phases []PhaseAnalysis `json:"phases"`
	// IO500 is the run's IO500-shaped score as summary.json records it
	// (from whole phases: --skip and --host do not change it).
	IO500 *results.IO500Score `json:"io500,omitempty"`
}

// AnalysisOptions are the options as recorded in an analysis.
type AnalysisOptions struct {
	Op       string  `json:"op,omitempty"`
	Host     string  `json:"host,omitempty"`
	SkipS    float64 `json:"skip_s"`
	SegmentS float64 `json:"segment_s"`
}

// PhaseAnalysis is one phase: totals per operation over the analysis
// window, the same per host, and the time series rows.
type PhaseAnalysis struct {
	Name   string           `json:"name"`
	Engine model.EngineName `json:"engine"`
	Status string           `json:"status,omitempty"`
	// Formats are the text formats the phase's results print in
	// (results.PhaseSummary.Formats).
	Formats []string `json:"formats,omitempty"`
	// LatencyScope says which requests the latency figures cover: "phase"
	// (a results folder keeps one histogram per phase, so --skip does not
	// narrow them; a warp file's figures cover every request, as warp's
	// do) or "window" (a benchdata file: requests started in the window).
	LatencyScope string          `json:"latency_scope"`
	Ops          []OpAnalysis    `json:"ops"`
	PerHost      []HostAnalysis  `json:"per_host"`
	Rows         []Row           `json:"rows"`
	Notes        []string        `json:"notes,omitempty"`
	Hosts        []string        `json:"hosts"`
	Window       *results.Window `json:"-"`
	// Events are the phase's events, with what each did to the figures
	// of the hosts analysed (EventImpacts).
	Events []model.PhaseEvent `json:"events,omitempty"`
}

// HostAnalysis is one host's (or endpoint's) operations.
type HostAnalysis struct {
	Host string       `json:"host"`
	Ops  []OpAnalysis `json:"ops"`
}

// OpAnalysis is one operation's figures over its analysis window.
type OpAnalysis struct {
	Op string `json:"op"`
	// Window is where throughput was measured: from the moment every
	// worker (host, for a results folder) had started, plus --skip, to the
	// moment the first stopped.
	Window results.Window `json:"window"`
	// Ops and Bytes were done in the window (operations cut by its edges
	// count in proportion to their overlap); Errors ended in it.
	Ops    float64 `json:"ops"`
	Bytes  float64 `json:"bytes"`
	Errors float64 `json:"errors"`
	// BwBytesPerS is absent for operations that move no bytes, both are
	// absent when there was no window to measure over.
	BwBytesPerS *float64 `json:"bw_bytes_per_s,omitempty"`
	OpsPerS     *float64 `json:"ops_per_s,omitempty"`
	// ErrorKinds are the errors by kind (over the phase for a results
	// folder).
	ErrorKinds map[string]uint64 `json:"error_kinds,omitempty"`
	// Segments are the fastest, median and slowest complete segments.
	Segments *SegmentStats `json:"segments,omitempty"`
	// Iterations are per-iteration rates (ops/s) of engines that repeat
	// (md); OpsPerS is then their mean.
	Iterations []float64 `json:"iterations_ops_per_s,omitempty"`
	// Requests is how many operations the latency figures cover.
	Requests uint64 `json:"requests"`
	// Lat is absent when no latency was recorded (fio with disable_clat).
	Lat  *results.LatencySummary `json:"lat,omitempty"`
	TTFB *results.LatencySummary `json:"ttfb,omitempty"`
	// Bins is the merged latency histogram, for percentile curves.
	Bins record.Bins `json:"-"`
	// BySize is the operation per object size class (s3 phases whose
	// objects had several sizes), over the whole phase as summary.json
	// gives it: --skip does not narrow it.
	BySize []results.OpSummary `json:"by_size,omitempty"`
}

// SegmentStats are warp's fastest / median / slowest segments.
type SegmentStats struct {
	N       int     `json:"n"`
	DurS    float64 `json:"segment_s"`
	Fastest Row     `json:"fastest"`
	Median  Row     `json:"median"`
	Slowest Row     `json:"slowest"`
}

// Row is one segment of one operation: a line of the time series CSV.
// Bytes, objects and errors of operations that span segments are spread
// over them in proportion to the time spent in each. Exact is false when
// the row comes from per-second counts rather than single requests; then
// FullOps, PartialOps and OpsStarted are unknown and OpsEnded is spread.
type Row struct {
	Index      int       `json:"index"`
	Op         string    `json:"op"`
	Host       string    `json:"host"`
	DurationS  float64   `json:"duration_s"`
	Bytes      float64   `json:"bytes"`
	FullOps    uint64    `json:"full_ops"`
	PartialOps uint64    `json:"partial_ops"`
	OpsStarted uint64    `json:"ops_started"`
	OpsEnded   float64   `json:"ops_ended"`
	Errors     float64   `json:"errors"`
	Objs       float64   `json:"objs"`
	Start      time.Time `json:"start_time"`
	End        time.Time `json:"end_time"`
	Exact      bool      `json:"exact"`
}

// MBPerS is the row's MiB/s.
func (r Row) MBPerS() float64 { return r.Bytes / (1 << 20) / r.DurationS }

// OpsEndedPerS is operations ended per second in the row.
func (r Row) OpsEndedPerS() float64 { return r.OpsEnded / r.DurationS }

// ObjsPerS is objects per second in the row (spread).
func (r Row) ObjsPerS() float64 { return r.Objs / r.DurationS }

// Analyze analyses a results folder or, when path is a file, a benchdata
// or warp file.
func Analyze(path string, o Options) (*Analysis, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return AnalyzeBenchData(path, o)
	}
	return AnalyzeFolder(path, o)
}

func (o Options) record() AnalysisOptions {
	return AnalysisOptions{Op: o.Op, Host: o.Host, SkipS: o.Skip.Seconds(), SegmentS: o.segment().Seconds()}
}

// ReadPhaseHosts reads the result.json (and per-second latency file) of
// every host of a phase that finished it. Hosts lost mid-phase left none, nor did phases that never
// ran (they have no per-host figures); any other host's file that is
// missing or damaged is an error naming it, never a phase silently read
// with fewer hosts.
func ReadPhaseHosts(dir string, ps *results.PhaseSummary) ([]*model.HostResult, error) {
	var out []*model.HostResult
	for _, h := range ps.PerHost {
		// A host lost mid-phase has a result of what it did until then
		// (its row has figures); one lost before it began has none.
		if slices.Contains(ps.LostHosts, h.Host) && len(h.Ops) == 0 {
			continue
		}
		hr, err := results.ReadHostResult(dir, ps.Dir, h.Host)
		if err != nil {
			return nil, err
		}
		if hr.LatencySeconds, err = results.ReadHostLatency(dir, ps.Dir, h.Host); err != nil {
			return nil, err
		}
		out = append(out, hr)
	}
	return out, nil
}

// AnalyzeFolder analyses every phase of a results folder from its hosts'
// result.json: per-second series for throughput and segments, merged
// histograms for latency.
func AnalyzeFolder(dir string, o Options) (*Analysis, error) {
	sum, err := results.ReadSummary(dir)
	if err != nil {
		return nil, err
	}
	a := &Analysis{Source: filepath.Base(filepath.Clean(dir)), Kind: "results", RunID: sum.RunID, Name: sum.Name, Options: o.record(), IO500: sum.IO500}
	if sum.Status == results.StatusRunning {
		a.Notes = append(a.Notes, results.NeverFinishedNote)
	}
	hostSeen, opSeen := false, false
	var longest time.Duration
	for i := range sum.Phases {
		ps := &sum.Phases[i]
		hosts, err := ReadPhaseHosts(dir, ps)
		if err != nil {
			return nil, err
		}
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
		// A phase no longer than --skip has nothing left to measure: it is
		// left out with a note, never shown with its unskipped figures.
		if span := seriesSpan(hosts); o.Skip > 0 && span <= o.Skip {
			a.Notes = append(a.Notes, fmt.Sprintf("phase %s (%s) is not longer than --skip %s: left out", ps.Name, span.Round(time.Millisecond), o.Skip))
			longest = max(longest, span)
			continue
		}
		pa := AnalyzeHosts(ps.Name, ps.Engine, ps.TextFormats(), ps.Status, hosts, o)
		pa.Events = EventImpacts(hosts, ps.Events)
		opSeen = opSeen || len(pa.Ops) > 0
		a.Phases = append(a.Phases, pa)
	}
	if o.Host != "" && !hostSeen {
		return nil, fmt.Errorf("no host %q in %s", o.Host, dir)
	}
	if len(a.Phases) == 0 && o.Skip > 0 {
		return nil, fmt.Errorf("%s: %w: --skip %s is as long as every phase (the longest ran %s)", dir, ErrNoData, o.Skip, longest.Round(time.Millisecond))
	}
	if o.Op != "" && !opSeen {
		return nil, fmt.Errorf("%s: %w: no operation %q in any phase (--op)", dir, ErrNoData, o.Op)
	}
	return a, nil
}

// seriesSpan is how long a phase's per-second series run, from the first
// host's start to the last host's end.
func seriesSpan(hosts []*model.HostResult) time.Duration {
	var lo, hi int64
	for _, h := range hosts {
		for _, s := range h.Series {
			if lo == 0 || s.StartNs < lo {
				lo = s.StartNs
			}
			hi = max(hi, s.EndNs)
		}
	}
	return time.Duration(hi - lo)
}

// TextFormats are the text formats the phase's results print in: its
// Formats, or for an analysis written before they were kept, those of its
// engine.
func (p PhaseAnalysis) TextFormats() []string {
	if len(p.Formats) > 0 {
		return p.Formats
	}
	return results.LegacyFormats(p.Engine)
}

// AnalyzeHosts analyses one phase from its hosts' results.
func AnalyzeHosts(name string, eng model.EngineName, formats []string, status string, hosts []*model.HostResult, o Options) PhaseAnalysis {
	pa := PhaseAnalysis{Name: name, Engine: eng, Formats: formats, Status: status, LatencyScope: "phase"}
	var lists [][]record.OpStats
	for _, h := range hosts {
		pa.Hosts = append(pa.Hosts, h.Host)
		lists = append(lists, h.Ops)
	}
	rowHost := ""
	if len(hosts) == 1 {
		rowHost = hosts[0].Host
	}
	for _, op := range record.CombineAll(lists...) {
		if !o.keepOp(op.Op) {
			continue
		}
		var series [][]record.Second
		for _, h := range hosts {
			series = append(series, opSeries(h.Series, op.Op))
		}
		oa, rows := seriesOp(op, series, rowHost, o)
		pa.Ops = append(pa.Ops, oa)
		pa.Rows = append(pa.Rows, rows...)
	}
	if len(hosts) > 1 {
		for _, h := range hosts {
			ha := HostAnalysis{Host: h.Host}
			for _, op := range h.Ops {
				if !o.keepOp(op.Op) {
					continue
				}
				oa, _ := seriesOp(op, [][]record.Second{opSeries(h.Series, op.Op)}, h.Host, o)
				ha.Ops = append(ha.Ops, oa)
			}
			pa.PerHost = append(pa.PerHost, ha)
		}
	}
	addBySize(&pa, name, eng, formats, hosts)
	if o.Skip > 0 {
		pa.Notes = append(pa.Notes, "latency covers the whole phase: a results folder keeps one histogram per phase, so --skip narrows throughput only")
	}
	return pa
}

// addBySize gives every operation that has them its per-size-class
// figures, as summary.json has them: totals and per host.
func addBySize(pa *PhaseAnalysis, name string, eng model.EngineName, formats []string, hosts []*model.HostResult) {
	if !slices.ContainsFunc(hosts, func(h *model.HostResult) bool { return len(h.BySize) > 0 }) {
		return
	}
	ps := results.BuildPhase(name, eng, formats, hosts)
	find := func(ops []results.OpSummary, op string) []results.OpSummary {
		for _, o := range ops {
			if o.Op == op {
				return o.BySize
			}
		}
		return nil
	}
	for i := range pa.Ops {
		pa.Ops[i].BySize = find(ps.Ops, pa.Ops[i].Op)
	}
	for i := range pa.PerHost {
		for _, h := range ps.PerHost {
			if h.Host != pa.PerHost[i].Host {
				continue
			}
			for j := range pa.PerHost[i].Ops {
				pa.PerHost[i].Ops[j].BySize = find(h.Ops, pa.PerHost[i].Ops[j].Op)
			}
		}
	}
}

func opSeries(all []record.Second, op string) []record.Second {
	var out []record.Second
	for _, s := range all {
		if s.Op == op && s.EndNs > s.StartNs {
			out = append(out, s)
		}
	}
	return out
}

// seriesOp computes one operation's figures from its statistics and its
// per-second series on each host. The window is the time in which every
// host's series was running, plus the skip.
func seriesOp(op record.OpStats, perHost [][]record.Second, rowHost string, o Options) (OpAnalysis, []Row) {
	oa := OpAnalysis{Op: op.Op, Requests: op.Ops, ErrorKinds: op.ErrorKinds, Lat: results.LatencyOf(op.Lat), Bins: op.Lat.Bins}
	if op.TTFB != nil {
		oa.TTFB = results.LatencyOf(*op.TTFB)
	}
	var ws, we int64
	for i, s := range perHost {
		if len(s) == 0 {
			ws, we = 0, 0
			break
		}
		lo, hi := s[0].StartNs, s[0].EndNs
		for _, x := range s {
			lo, hi = min(lo, x.StartNs), max(hi, x.EndNs)
		}
		if i == 0 {
			ws, we = lo, hi
		} else {
			ws, we = max(ws, lo), min(we, hi)
		}
	}
	if len(op.Iterations) > 0 {
		s := results.Op(op) // the mean of the iterations' rates, as in summary.json
		oa.Iterations, oa.OpsPerS, oa.BwBytesPerS = s.Rate.PerIter, s.OpsPerS, s.BwBytesPerS
		oa.Ops, oa.Bytes, oa.Errors = float64(op.Ops), float64(op.Bytes), float64(op.Errors)
		oa.Window = results.Window{StartNs: op.StartNs, EndNs: op.EndNs, DurationS: op.Seconds()}
	}
	ws += int64(o.Skip)
	if we <= ws {
		if oa.Iterations == nil {
			// No series: the phase's own figures over its own window.
			s := results.Op(op)
			oa.Window = results.Window{StartNs: op.StartNs, EndNs: op.EndNs, DurationS: s.DurationS}
			oa.Ops, oa.Bytes, oa.Errors = float64(op.Ops), float64(op.Bytes), float64(op.Errors)
			oa.BwBytesPerS, oa.OpsPerS = s.BwBytesPerS, s.OpsPerS
		}
		return oa, nil
	}
	acc := newSegAcc(ws, we, o.segment())
	for _, s := range perHost {
		for _, x := range s {
			acc.spread(x.StartNs, x.EndNs, float64(x.Bytes), float64(x.Ops), float64(x.Errors))
		}
	}
	if oa.Iterations == nil {
		oa.Window = results.Window{StartNs: ws, EndNs: we, DurationS: float64(we-ws) / 1e9}
		oa.Ops, oa.Bytes, oa.Errors = acc.inOps, acc.inBytes, acc.inErrs
		oa.BwBytesPerS, oa.OpsPerS = results.WindowRates([2]float64{acc.inBytes, acc.inOps}, op.Bytes, oa.Window.DurationS)
	}
	rows := acc.rows(op.Op, rowHost, false)
	if oa.Iterations == nil {
		oa.Segments = segmentStats(rows)
	}
	return oa, rows
}

// segAcc spreads work over the segments of a window.
type segAcc struct {
	start, end, dur int64
	bytes, objs     []float64
	ended, errs     []float64
	full, partial   []uint64
	started         []uint64
	// in* are the totals inside [start, end).
	inBytes, inOps, inErrs float64
}

func newSegAcc(start, end int64, dur time.Duration) *segAcc {
	n := int((end - start) / int64(dur))
	return &segAcc{start: start, end: end, dur: int64(dur),
		bytes: make([]float64, n), objs: make([]float64, n), ended: make([]float64, n), errs: make([]float64, n),
		full: make([]uint64, n), partial: make([]uint64, n), started: make([]uint64, n)}
}

// spread adds a span [s, e) that did ops operations moving bytes, with
// errs errors, in proportion to its overlap with each segment and with the
// window. Counts of a per-second interval are treated as spread evenly
// over it.
func (a *segAcc) spread(s, e int64, bytes, ops, errs float64) {
	if e <= s {
		return
	}
	span := float64(e - s)
	if ov := min(e, a.end) - max(s, a.start); ov > 0 {
		f := float64(ov) / span
		a.inBytes += f * bytes
		a.inOps += f * ops
		a.inErrs += f * errs
	}
	n := int64(len(a.bytes))
	for i := max(floorDiv(s-a.start, a.dur), 0); i < n; i++ {
		lo := a.start + i*a.dur
		hi := lo + a.dur
		if lo >= e {
			break
		}
		ov := min(e, hi) - max(s, lo)
		if ov <= 0 {
			continue
		}
		f := float64(ov) / span
		a.bytes[i] += f * bytes
		a.objs[i] += f * ops
		a.ended[i] += f * ops
		a.errs[i] += f * errs
	}
}

// request adds one request [s, e): bytes and the object spread by overlap,
// exact counts of full, partial, started and ended operations, and its
// error (if any) where it ended.
func (a *segAcc) request(s, e int64, bytes float64, failed bool) {
	n := int64(len(a.bytes))
	if n == 0 {
		return
	}
	if e < s {
		e = s
	}
	// Segments are half-open: a request ending exactly on a boundary ended
	// in the segment before it.
	si, ei := floorDiv(s-a.start, a.dur), floorDiv(e-1-a.start, a.dur)
	if e == s || si == ei {
		if si >= 0 && si < n {
			if !failed {
				a.bytes[si] += bytes
				a.objs[si]++
				a.full[si]++
			}
			a.started[si]++
			a.ended[si]++
			if failed {
				a.errs[si]++
			}
		}
		return
	}
	if si >= 0 && si < n {
		a.started[si]++
	}
	if ei >= 0 && ei < n {
		a.ended[ei]++
		if failed {
			a.errs[ei]++
		}
	}
	if failed {
		return
	}
	span := float64(e - s)
	for i := max(si, 0); i <= min(ei, n-1); i++ {
		lo := a.start + i*a.dur
		ov := min(e, lo+a.dur) - max(s, lo)
		if ov <= 0 {
			continue
		}
		f := float64(ov) / span
		a.bytes[i] += f * bytes
		a.objs[i] += f
		a.partial[i]++
	}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

func (a *segAcc) rows(op, host string, exact bool) []Row {
	out := make([]Row, len(a.bytes))
	d := time.Duration(a.dur)
	for i := range out {
		st := time.Unix(0, a.start+int64(i)*a.dur).UTC()
		out[i] = Row{Index: i, Op: op, Host: host, DurationS: d.Seconds(), Bytes: a.bytes[i],
			FullOps: a.full[i], PartialOps: a.partial[i], OpsStarted: a.started[i], OpsEnded: a.ended[i],
			Errors: a.errs[i], Objs: a.objs[i], Start: st, End: st.Add(d), Exact: exact}
	}
	return out
}

// segmentStats ranks rows by bytes (by objects when nothing moved data)
// and picks the fastest, the median (upper middle) and the slowest.
func segmentStats(rows []Row) *SegmentStats {
	if len(rows) == 0 {
		return nil
	}
	list := append([]Row(nil), rows...)
	byBytes := false
	for _, r := range list {
		byBytes = byBytes || r.Bytes > 0
	}
	sort.SliceStable(list, func(i, j int) bool {
		if byBytes && list[i].Bytes != list[j].Bytes {
			return list[i].Bytes > list[j].Bytes
		}
		return list[i].Objs > list[j].Objs
	})
	return &SegmentStats{N: len(list), DurS: list[0].DurationS, Fastest: list[0], Median: list[len(list)/2], Slowest: list[len(list)-1]}
}

// ErrNoData is returned when nothing is left to analyse.
var ErrNoData = errors.New("nothing to analyse")
