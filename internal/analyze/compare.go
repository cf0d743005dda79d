package analyze

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/stats"
)

// Verdicts of a compared figure.
const (
	Faster      = "faster"
	Slower      = "slower"
	WithinNoise = "within noise"
	Untested    = "untested"
)

// CompareOptions tune Compare.
type CompareOptions struct {
	// ThresholdPct is the smallest relative change (percent) called faster
	// or slower; smaller significant changes are within noise.
	ThresholdPct float64
	// Alpha is the significance level of the tests (default 0.05: 95%
	// confidence, stats.DefaultConfidence).
	Alpha float64
}

func (o CompareOptions) alpha() float64 { return stats.Alpha(o.Alpha) }

// Comparison is the difference between two results, before -> after.
type Comparison struct {
	Before       string            `json:"before"`
	After        string            `json:"after"`
	ThresholdPct float64           `json:"threshold_pct"`
	Confidence   float64           `json:"confidence"`
	Settings     []SettingChange   `json:"settings_changed,omitempty"`
	Phases       []PhaseComparison `json:"phases"`
	// OnlyBefore and OnlyAfter are phases present in one result only.
	OnlyBefore []string `json:"only_before,omitempty"`
	OnlyAfter  []string `json:"only_after,omitempty"`
	// Notes are said of either result (one that never finished).
	Notes []string `json:"notes,omitempty"`
	// ClientLimits are the hosts whose verdicts on their own limits
	// differ between the runs, phase by phase: said before any figure.
	ClientLimits []ClientLimitChange `json:"client_limits_changed,omitempty"`
	// Events compare each event's window of a phase with the same
	// seconds of the same phase in the other run, where one side had
	// events: the phase healthy and degraded.
	Events []EventComparison `json:"events,omitempty"`
}

// Slower reports whether any figure got slower.
func (c *Comparison) Slower() bool {
	for _, p := range c.Phases {
		for _, o := range p.Ops {
			for _, f := range o.Figures {
				if f.Verdict == Slower {
					return true
				}
			}
		}
	}
	return false
}

// SettingChange is a setting that differs between the two runs.
type SettingChange struct {
	Key    string `json:"key"`
	Before string `json:"before"`
	After  string `json:"after"`
}

// PhaseComparison compares one phase (or one group of iterations).
type PhaseComparison struct {
	Name   string           `json:"name"`
	Engine model.EngineName `json:"engine"`
	// Iterations are the number of phases compared on each side.
	Iterations [2]int         `json:"iterations"`
	Ops        []OpComparison `json:"ops"`
}

// OpComparison compares one operation.
type OpComparison struct {
	Op      string   `json:"op"`
	Figures []Figure `json:"figures"`
	// Notes name figures measured on one side only (latency a fio job
	// switched off), which are not compared.
	Notes []string `json:"notes,omitempty"`
}

// Figure is one compared figure with its verdict.
type Figure struct {
	Name string `json:"name"`
	// Unit is "B/s", "ops/s" or "ns".
	Unit   string  `json:"unit"`
	Before float64 `json:"before"`
	After  float64 `json:"after"`
	Delta  float64 `json:"delta"`
	// RelPct is the relative change in percent (0 when before is 0).
	RelPct  float64 `json:"rel_pct"`
	Verdict string  `json:"verdict"`
	// Method names the test and its samples; P is its p-value where it
	// has one.
	Method string  `json:"method"`
	P      float64 `json:"p,omitempty"`
}

// PhaseData is one phase of a result: its summary and its hosts' results.
type PhaseData = results.PhaseData

// ReadPhases reads every phase of a results folder with its hosts.
func ReadPhases(dir string) (*results.Summary, []PhaseData, error) {
	sum, err := results.ReadSummary(dir)
	if err != nil {
		return nil, nil, err
	}
	out := make([]PhaseData, len(sum.Phases))
	for i := range sum.Phases {
		hosts, err := ReadPhaseHosts(dir, &sum.Phases[i])
		if err != nil {
			return nil, nil, err
		}
		out[i] = PhaseData{Summary: sum.Phases[i], Hosts: hosts}
	}
	return sum, out, nil
}

// phaseKey groups iterations of one suite entry and matrix point; a phase
// outside a suite is its own group.
func phaseKey(p results.PhaseSummary) string {
	if p.Group == "" {
		return p.Name
	}
	var kv []string
	for _, x := range p.Point {
		kv = append(kv, x.Key+"="+x.Value)
	}
	if len(kv) == 0 {
		return p.Group
	}
	return p.Group + " [" + strings.Join(kv, " ") + "]"
}

func groupPhases(ps []PhaseData) ([]string, map[string][]PhaseData) {
	var order []string
	m := map[string][]PhaseData{}
	for _, p := range ps {
		if p.Summary.Status != results.StatusCompleted || len(p.Summary.Ops) == 0 {
			continue
		}
		k := phaseKey(p.Summary)
		if _, ok := m[k]; !ok {
			order = append(order, k)
		}
		m[k] = append(m[k], p)
	}
	return order, m
}

// CompareFolders compares two results folders.
func CompareFolders(before, after string, o CompareOptions) (*Comparison, error) {
	sa, a, err := ReadPhases(before)
	if err != nil {
		return nil, err
	}
	sb, b, err := ReadPhases(after)
	if err != nil {
		return nil, err
	}
	c := Compare(a, b, o)
	c.Before, c.After = baseName(before), baseName(after)
	c.Events = compareEvents(a, b, [2]string{c.Before, c.After}, o)
	for _, x := range []struct {
		name string
		sum  *results.Summary
	}{{c.Before, sa}, {c.After, sb}} {
		if x.sum.Status == results.StatusRunning {
			c.Notes = append(c.Notes, x.name+": "+results.NeverFinishedNote)
		}
	}
	ra, errA := results.ReadRunInfo(before)
	rb, errB := results.ReadRunInfo(after)
	if errA == nil && errB == nil {
		c.Settings = SettingsDiff(ra, rb)
	}
	return c, nil
}

// Compare compares every phase and operation present in both results.
func Compare(before, after []PhaseData, o CompareOptions) *Comparison {
	c := &Comparison{ThresholdPct: o.ThresholdPct, Confidence: 1 - o.alpha()}
	ka, ma := groupPhases(before)
	kb, mb := groupPhases(after)
	for _, k := range ka {
		pb, ok := mb[k]
		if !ok {
			c.OnlyBefore = append(c.OnlyBefore, k)
			continue
		}
		c.Phases = append(c.Phases, comparePhase(k, ma[k], pb, o))
		c.ClientLimits = append(c.ClientLimits, clientLimitChanges(k, ma[k], pb)...)
	}
	for _, k := range kb {
		if _, ok := ma[k]; !ok {
			c.OnlyAfter = append(c.OnlyAfter, k)
		}
	}
	return c
}

func comparePhase(name string, a, b []PhaseData, o CompareOptions) PhaseComparison {
	pc := PhaseComparison{Name: name, Engine: a[0].Summary.Engine, Iterations: [2]int{len(a), len(b)}}
	for _, oa := range a[0].Summary.Ops {
		if _, ok := findOp(b[0].Summary.Ops, oa.Op); !ok {
			continue
		}
		pc.Ops = append(pc.Ops, compareOp(oa.Op, a, b, o))
	}
	return pc
}

func findOp(ops []results.OpSummary, op string) (results.OpSummary, bool) {
	for _, o := range ops {
		if o.Op == op {
			return o, true
		}
	}
	return results.OpSummary{}, false
}

// figure specs: name, unit, whether a higher value is better, and how to
// read it from an OpSummary (false when it was not measured).
var figureSpecs = []struct {
	name, unit string
	higher     bool
	get        func(results.OpSummary) (float64, bool)
	pct        float64 // latency percentile, 0 for throughput and mean
}{
	{"throughput", "B/s", true, func(s results.OpSummary) (float64, bool) { return deref(s.BwBytesPerS) }, 0},
	{"ops/s", "ops/s", true, func(s results.OpSummary) (float64, bool) { return deref(s.OpsPerS) }, 0},
	{"lat mean", "ns", false, latFigure(func(l *results.LatencySummary) float64 { return l.MeanNs }), 0},
	{"lat p50", "ns", false, latFigure(func(l *results.LatencySummary) float64 { return float64(l.P50Ns) }), 50},
	{"lat p99", "ns", false, latFigure(func(l *results.LatencySummary) float64 { return float64(l.P99Ns) }), 99},
	{"lat p99.9", "ns", false, latFigure(func(l *results.LatencySummary) float64 { return float64(l.P999Ns) }), 99.9},
}

func deref(p *float64) (float64, bool) {
	if p == nil {
		return 0, false
	}
	return *p, true
}

func latFigure(f func(*results.LatencySummary) float64) func(results.OpSummary) (float64, bool) {
	return func(s results.OpSummary) (float64, bool) {
		if s.Lat == nil {
			return 0, false
		}
		return f(s.Lat), true
	}
}

func compareOp(op string, a, b []PhaseData, o CompareOptions) OpComparison {
	oc := OpComparison{Op: op}
	sa, sb := opSummaries(a, op), opSummaries(b, op)
	iterated := len(sa) > 1 && len(sb) > 1
	var ra, rb latRun
	var perSecond bool
	if !iterated {
		var note string
		ra, rb, perSecond, note = latRuns(a[0], b[0], op)
		if note != "" {
			oc.Notes = append(oc.Notes, note)
		}
	}
	for _, spec := range figureSpecs {
		va, okA := values(sa, spec.get)
		vb, okB := values(sb, spec.get)
		if !okA || !okB {
			// A figure not measured on a side is not compared; saying so
			// once per kind of figure is enough.
			if okA != okB && (spec.unit != "ns" || spec.pct == 0) {
				side := "after"
				if !okA {
					side = "before"
				}
				what := map[string]string{"B/s": "byte throughput", "ops/s": "ops/s", "ns": "latency"}[spec.unit]
				oc.Notes = append(oc.Notes, fmt.Sprintf("%s not measured %s: not compared", what, side))
			}
			continue
		}
		ma, mb := stats.Describe(va).Mean, stats.Describe(vb).Mean
		f := Figure{Name: spec.name, Unit: spec.unit, Before: ma, After: mb, Delta: mb - ma}
		if ma != 0 {
			f.RelPct = 100 * (mb - ma) / ma
		}
		var sig bool
		var tested bool
		switch {
		case !iterated && spec.unit == "ns" && perSecond:
			sig, tested, f.Method = bootstrapTest(ra, rb, spec.pct, sa[0], sb[0], o)
		case iterated:
			w := stats.WelchTest(va, vb)
			f.Method = fmt.Sprintf("Welch t-test across iterations (%d vs %d)", len(va), len(vb))
			f.P, sig, tested = w.P, w.P < o.alpha(), w.OK
		case spec.unit != "ns":
			sig, tested, f.Method, f.P = throughputTest(a[0], b[0], op, spec.unit == "B/s", o)
		case spec.pct == 0:
			la, lb := sa[0], sb[0]
			if la.Ops < 2 || lb.Ops < 2 {
				f.Method = "too few requests"
				break
			}
			w := stats.WelchMoments(float64(la.Ops), la.Lat.MeanNs, la.Lat.StddevNs, float64(lb.Ops), lb.Lat.MeanNs, lb.Lat.StddevNs)
			f.Method = fmt.Sprintf("Welch t-test on %d vs %d request latencies (assumes independent requests)", la.Ops, lb.Ops)
			f.P, sig, tested = w.P, w.P < o.alpha(), w.OK
		default:
			ba, bb := mergedBins(a[0], op), mergedBins(b[0], op)
			// The interval needs requests on both sides of the percentile.
			if need := uint64(math.Ceil(10 / (1 - spec.pct/100))); ba.Total() < need || bb.Total() < need {
				f.Method = fmt.Sprintf("too few requests (%d vs %d; %d needed for this percentile)", ba.Total(), bb.Total(), need)
				break
			}
			// Two intervals at 1-alpha/2 each that do not overlap bound the
			// error at alpha (Bonferroni).
			z := stats.NormalQuantile(1 - o.alpha()/4)
			loA, hiA := QuantileCI(ba, spec.pct, z)
			loB, hiB := QuantileCI(bb, spec.pct, z)
			sig, tested = loB > hiA || hiB < loA, true
			f.Method = fmt.Sprintf("distribution-free intervals of the percentile from %d vs %d requests do not overlap (assumes independent requests)", ba.Total(), bb.Total())
			if !sig {
				f.Method = fmt.Sprintf("distribution-free intervals of the percentile from %d vs %d requests overlap (assumes independent requests)", ba.Total(), bb.Total())
			}
		}
		f.Verdict = verdict(tested, sig, f.RelPct, spec.higher, o.ThresholdPct)
		oc.Figures = append(oc.Figures, f)
	}
	return oc
}

// latRuns reads an operation's per-second latency on both sides, for the
// block bootstrap; ok is false when a side kept none (results written
// before they were kept, fio with latency off), and note says why when
// the files could not be read.
func latRuns(a, b PhaseData, op string) (ra, rb latRun, ok bool, note string) {
	side := func(p PhaseData) (latRun, bool, error) {
		secs, err := SecondsOf(p.Hosts, PhaseStart(p.Hosts), time.Second, func(x string) bool { return x == op })
		if err != nil || len(secs) == 0 || !secs[0].Latency {
			return latRun{}, false, err
		}
		return latRunOf(secs[0]), true, nil
	}
	ra, okA, errA := side(a)
	rb, okB, errB := side(b)
	for _, err := range []error{errA, errB} {
		if err != nil {
			note = fmt.Sprintf("per-second latency unreadable (%v): latency tested as if requests were independent", err)
		}
	}
	if okA && okB && (len(ra.n) < 2*stats.MinBlocks || len(rb.n) < 2*stats.MinBlocks) {
		return ra, rb, false, fmt.Sprintf("latency: %d vs %d seconds are too few for a block bootstrap over seconds (%d needed): tested as if requests were independent",
			len(ra.n), len(rb.n), 2*stats.MinBlocks)
	}
	return ra, rb, okA && okB, note
}

// bootstrapTest compares a latency figure (pct: its percentile, 0 for the
// mean) of two runs by a circular block bootstrap over seconds on each
// side: intervals of the figure at 1-alpha/2 each, on the log scale; the
// change is significant when they do not overlap, which bounds the error
// at alpha (Bonferroni), as the percentile intervals of single requests
// do. Resampling blocks of seconds keeps what independent requests do not
// have: a run's latency wanders, and its seconds are alike with their
// neighbours.
func bootstrapTest(ra, rb latRun, pct float64, sa, sb results.OpSummary, o CompareOptions) (sig, tested bool, method string) {
	if pct > 0 {
		need := uint64(math.Ceil(10 / (1 - pct/100)))
		if sa.Ops < need || sb.Ops < need {
			return false, false, fmt.Sprintf("too few requests (%d vs %d; %d needed for this percentile)", sa.Ops, sb.Ops, need)
		}
	}
	ea, okA := bootstrapLatency(ra, pct, 1)
	eb, okB := bootstrapLatency(rb, pct, 2)
	if !okA || !okB {
		return false, false, fmt.Sprintf("too few seconds with latency for a block bootstrap (%d vs %d; %d needed)", len(ra.n), len(rb.n), 2*stats.MinBlocks)
	}
	conf := 1 - o.alpha()/2
	loA, hiA := ea.interval(conf)
	loB, hiB := eb.interval(conf)
	sig = loB > hiA || hiB < loA
	how := "overlap"
	if sig {
		how = "do not overlap"
	}
	return sig, true, fmt.Sprintf("block bootstrap over %d vs %d seconds (circular blocks of %d vs %d s, %d resamples each): %.4g%% intervals %s",
		ea.bb.N, eb.bb.N, ea.bb.L, eb.bb.L, BootstrapResamples, 100*conf, how)
}

func verdict(tested, sig bool, relPct float64, higherBetter bool, threshold float64) string {
	if !tested {
		return Untested
	}
	if !sig || math.Abs(relPct) < threshold || relPct == 0 {
		return WithinNoise
	}
	if (relPct > 0) == higherBetter {
		return Faster
	}
	return Slower
}

func opSummaries(ps []PhaseData, op string) []results.OpSummary {
	var out []results.OpSummary
	for _, p := range ps {
		if s, ok := findOp(p.Summary.Ops, op); ok {
			out = append(out, s)
		}
	}
	return out
}

// values reads a figure of every iteration; false when any iteration
// lacks it.
func values(ss []results.OpSummary, get func(results.OpSummary) (float64, bool)) ([]float64, bool) {
	out := make([]float64, len(ss))
	for i, s := range ss {
		v, ok := get(s)
		if !ok {
			return nil, false
		}
		out[i] = v
	}
	return out, len(out) > 0
}

func mergedBins(p PhaseData, op string) record.Bins {
	var b record.Bins
	for _, h := range p.Hosts {
		for _, o := range h.Ops {
			if o.Op == op {
				b = record.Merge(b, o.Lat.Bins)
			}
		}
	}
	return b
}

// throughputTest tests a phase's throughput: across the iterations an md
// phase runs internally, else on the per-second series cut into 1 s
// segments of the common window, in batch means.
func throughputTest(a, b PhaseData, op string, bytes bool, o CompareOptions) (sig, tested bool, method string, p float64) {
	ra, rb := iterRates(a, op, bytes), iterRates(b, op, bytes)
	if len(ra) > 1 && len(rb) > 1 {
		w := stats.WelchTest(ra, rb)
		return w.P < o.alpha(), w.OK, fmt.Sprintf("Welch t-test across the phase's iterations (%d vs %d)", len(ra), len(rb)), w.P
	}
	xa, xb := perSecond(a, op, bytes), perSecond(b, op, bytes)
	size := min(stats.BatchSize(len(xa)), stats.BatchSize(len(xb)))
	if size == 0 {
		return false, false, fmt.Sprintf("too few seconds to test (%d vs %d; 8 needed)", len(xa), len(xb)), 0
	}
	ma, mb := stats.BatchMeans(xa, size), stats.BatchMeans(xb, size)
	w := stats.WelchTest(ma, mb)
	return w.P < o.alpha(), w.OK, fmt.Sprintf("Welch t-test on batch means of %d s (%d vs %d batches)", size, len(ma), len(mb)), w.P
}

func iterRates(p PhaseData, op string, bytes bool) []float64 {
	s, ok := findOp(p.Summary.Ops, op)
	if !ok || s.Rate == nil {
		return nil
	}
	out := append([]float64(nil), s.Rate.PerIter...)
	if bytes && s.Ops > 0 {
		for i := range out {
			out[i] *= float64(s.Bytes) / float64(s.Ops)
		}
	}
	return out
}

// perSecond is op's throughput in each complete second of the window in
// which every host ran, summed over hosts.
func perSecond(p PhaseData, op string, bytes bool) []float64 {
	pa := AnalyzeHosts(p.Summary.Name, p.Summary.Engine, p.Summary.TextFormats(), p.Summary.Status, p.Hosts, Options{Op: op, Segment: time.Second})
	var out []float64
	for _, r := range pa.Rows {
		if r.Op != op {
			continue
		}
		if bytes {
			out = append(out, r.Bytes/r.DurationS)
		} else {
			out = append(out, r.ObjsPerS())
		}
	}
	return out
}

// SettingsDiff lists settings that differ between two runs: versions, host
// count, run settings, and every phase's parameters. Values naming the run
// (its id in paths and prefixes) are compared with the id taken out.
func SettingsDiff(a, b *results.RunInfo) []SettingChange {
	fa, fb := flatSettings(a), flatSettings(b)
	keys := map[string]bool{}
	for k := range fa {
		keys[k] = true
	}
	for k := range fb {
		keys[k] = true
	}
	var out []SettingChange
	for k := range keys {
		if fa[k] != fb[k] {
			out = append(out, SettingChange{Key: k, Before: orDash(fa[k]), After: orDash(fb[k])})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func flatSettings(r *results.RunInfo) map[string]string {
	m := map[string]string{
		"version.storbench": r.Versions.Storbench, "version.go": r.Versions.Go,
		"version.fio": r.Versions.Fio, "version.kernel": r.Versions.Kernel,
	}
	if r.Agents != nil {
		m["hosts"] = fmt.Sprint(len(r.Agents))
	}
	for k, v := range r.Settings {
		flatten(m, "settings."+k, v, r.RunID)
	}
	for _, p := range r.Plan {
		var v any
		if json.Unmarshal(p.Params, &v) == nil {
			flatten(m, "phase "+p.Name+"."+string(p.Engine), v, r.RunID)
		}
	}
	for k, v := range m {
		if v == "" {
			delete(m, k)
		}
	}
	return m
}

func flatten(m map[string]string, prefix string, v any, runID string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			flatten(m, prefix+"."+k, e, runID)
		}
	case []any:
		b, _ := json.Marshal(x)
		m[prefix] = strings.ReplaceAll(string(b), runID, "<run>")
	case nil:
	case string:
		if !strings.Contains(x, "\n") {
			m[prefix] = strings.ReplaceAll(x, runID, "<run>")
			return
		}
		// A job file: one setting per option, named by its section.
		section := ""
		for _, line := range strings.Split(x, "\n") {
			line = strings.TrimSpace(line)
			switch {
			case line == "" || line[0] == '#' || line[0] == ';':
			case line[0] == '[':
				section = strings.Trim(line, "[]")
			default:
				k, v, _ := strings.Cut(line, "=")
				m[prefix+"["+section+"]."+strings.TrimSpace(k)] = strings.ReplaceAll(strings.TrimSpace(v), runID, "<run>")
			}
		}
	default:
		s := fmt.Sprint(x)
		if len(s) > 200 {
			s = s[:200] + "..."
		}
		m[prefix] = strings.ReplaceAll(s, runID, "<run>")
	}
}

func baseName(p string) string {
	p = strings.TrimRight(p, "/")
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// ComparePaths compares two results, each a results folder or a file of
// requests (storbench's s3 benchdata or a warp file). A file is one phase
// with no name of its own: it is compared with every s3 phase of the other
// side that has an operation in common with it (with the other file when
// both are files). Its figures are analyze's: throughput over the
// window analyze measures, the per-second series of that window for the
// test, latency histograms from its requests.
func ComparePaths(before, after string, o CompareOptions) (*Comparison, error) {
	if isDir(before) && isDir(after) {
		return CompareFolders(before, after, o)
	}
	a, fileA, err := readSide(before)
	if err != nil {
		return nil, err
	}
	b, fileB, err := readSide(after)
	if err != nil {
		return nil, err
	}
	switch {
	case fileA && fileB:
		b[0].Summary.Name = a[0].Summary.Name
	case fileA:
		a = pairFile(a[0], b)
	default:
		b = pairFile(b[0], a)
	}
	c := Compare(a, b, o)
	c.Before, c.After = baseName(before), baseName(after)
	c.Events = compareEvents(a, b, [2]string{c.Before, c.After}, o)
	for _, x := range []struct {
		name string
		file bool
		path string
	}{{c.Before, fileA, before}, {c.After, fileB, after}} {
		if x.file {
			continue
		}
		if sum, err := results.ReadSummary(x.path); err == nil && sum.Status == results.StatusRunning {
			c.Notes = append(c.Notes, x.name+": "+results.NeverFinishedNote)
		}
	}
	return c, nil
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// readSide reads a results folder's phases, or a file of requests as one
// phase (true).
func readSide(path string) ([]PhaseData, bool, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, false, err
	}
	if fi.IsDir() {
		_, ps, err := ReadPhases(path)
		return ps, false, err
	}
	p, err := FilePhase(path)
	if err != nil {
		return nil, true, err
	}
	return []PhaseData{p}, true, nil
}

// pairFile returns the file's phase once for every phase of others that
// prints as warp (s3's: a request file is warp's or s3's) and has an
// operation in common with it, under that phase's name.
func pairFile(file PhaseData, others []PhaseData) []PhaseData {
	var out []PhaseData
	seen := map[string]bool{}
	for _, p := range others {
		k := phaseKey(p.Summary)
		if !p.Summary.Offers(model.FormatWarp) || seen[k] {
			continue
		}
		common := false
		for _, op := range file.Summary.Ops {
			_, ok := findOp(p.Summary.Ops, op.Op)
			common = common || ok
		}
		if !common {
			continue
		}
		seen[k] = true
		f := file
		f.Summary.Name, f.Summary.Group, f.Summary.Point = p.Summary.Name, p.Summary.Group, p.Summary.Point
		out = append(out, f)
	}
	return out
}

// FilePhase analyses a file of requests (storbench's s3 benchdata or a warp
// file) with 1 s segments and returns it as one phase: per operation
// analyze's throughput over its window and the latency of the requests it
// covers, with one host (the file) whose series are the window's seconds.
func FilePhase(path string) (PhaseData, error) {
	a, err := AnalyzeBenchData(path, Options{Segment: time.Second})
	if err != nil {
		return PhaseData{}, err
	}
	pa := a.Phases[0]
	ps := results.PhaseSummary{Name: pa.Name, Engine: pa.Engine, Status: results.StatusCompleted, Hosts: []string{a.Source}}
	host := &model.HostResult{Host: a.Source}
	for _, oa := range pa.Ops {
		ps.Ops = append(ps.Ops, results.OpSummary{Op: oa.Op, Ops: oa.Requests, Bytes: uint64(math.Round(oa.Bytes)),
			Errors: uint64(math.Round(oa.Errors)), ErrorKinds: oa.ErrorKinds, DurationS: oa.Window.DurationS,
			BwBytesPerS: oa.BwBytesPerS, OpsPerS: oa.OpsPerS, Lat: oa.Lat, TTFB: oa.TTFB})
		host.Ops = append(host.Ops, record.OpStats{Op: oa.Op, Ops: oa.Requests, StartNs: oa.Window.StartNs, EndNs: oa.Window.EndNs,
			Lat: record.Hist{Bins: oa.Bins}})
	}
	for _, r := range pa.Rows {
		host.Series = append(host.Series, record.Second{StartNs: r.Start.UnixNano(), EndNs: r.End.UnixNano(), Op: r.Op,
			Ops: uint64(math.Round(r.Objs)), Bytes: uint64(math.Round(r.Bytes)), Errors: uint64(math.Round(r.Errors))})
	}
	return PhaseData{Summary: ps, Hosts: []*model.HostResult{host}}, nil
}
