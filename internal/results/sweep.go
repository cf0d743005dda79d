package results

import (
	"encoding/json"
	"math"
	"strings"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/stats"
)

// KV is one matrix coordinate of a phase ("numjobs" = "32").
type KV struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// DefaultCoVWarn is the coefficient of variation above which a sweep point is
// flagged unstable: its iterations disagree by more than run-to-run noise
// should allow.
const DefaultCoVWarn = 0.05

// Sweep is one operation at one matrix point, across its iterations.
type Sweep struct {
	Group  string           `json:"group"`
	Engine model.EngineName `json:"engine"`
	Point  []KV             `json:"point,omitempty"`
	Op     string           `json:"op"`
	// Formats are the text formats of the point's phases
	// (PhaseSummary.Formats); absent in results written before they were
	// kept.
	Formats []string `json:"formats,omitempty"`
	// Headline names the metric the point is judged by (bw_bytes_per_s,
	// ops_per_s or lat_ns_mean); Metrics holds all of them that were
	// measured (latency is absent when a fio job switched it off).
	Headline string          `json:"headline"`
	Metrics  map[string]Stat `json:"metrics"`
	// Hosts spreads the headline across hosts: the lowest, highest and mean
	// host figure of each iteration, averaged over iterations (the Gluster
	// procedure's min/max/avg per client).
	Hosts *Stat3 `json:"hosts,omitempty"`
	// Unstable is set when the headline's CoV exceeds the warning threshold.
	Unstable bool `json:"unstable,omitempty"`
	// Phases are the phases (by name) that make up the point.
	Phases []string `json:"phases"`
}

// Stat3 is the per-host spread of a metric.
type Stat3 struct {
	Min float64 `json:"min"`
	Max float64 `json:"max"`
	Avg float64 `json:"avg"`
}

// Stat describes a metric's values across iterations.
type Stat struct {
	N      int       `json:"n"`
	Values []float64 `json:"values"`
	Mean   float64   `json:"mean"`
	Min    float64   `json:"min"`
	Max    float64   `json:"max"`
	// Stddev is the sample standard deviation (n-1); CoV is Stddev/|Mean|.
	Stddev float64 `json:"stddev"`
	CoV    float64 `json:"cov"`
	// CILow and CIHigh bound the confidence interval of the mean at
	// Confidence (0.95 for 95%): Student's t with n-1 degrees of freedom.
	// Both equal Mean for n < 2.
	Confidence float64 `json:"confidence"`
	CILow      float64 `json:"ci_low"`
	CIHigh     float64 `json:"ci_high"`
}

// UnmarshalJSON reads a Stat, and also one from a summary.json of schema
// version 1, whose interval was always at 95% and named ci95_low and
// ci95_high, so older results folders still report their intervals.
func (s *Stat) UnmarshalJSON(b []byte) error {
	type plain Stat
	var v struct {
		plain
		CI95Low  *float64 `json:"ci95_low"`
		CI95High *float64 `json:"ci95_high"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*s = Stat(v.plain)
	if s.Confidence == 0 && v.CI95Low != nil && v.CI95High != nil {
		s.Confidence, s.CILow, s.CIHigh = 0.95, *v.CI95Low, *v.CI95High
	}
	return nil
}

// DescribeStat computes a Stat of xs with its interval at confidence (0.95
// for 95%; stats.DefaultConfidence when not in (0.5, 1)).
func DescribeStat(xs []float64, confidence float64) Stat {
	if !stats.ValidConfidence(confidence) {
		confidence = stats.DefaultConfidence
	}
	d := stats.Describe(xs)
	s := Stat{N: d.N, Values: append([]float64(nil), xs...), Mean: d.Mean, Min: d.Min, Max: d.Max,
		Stddev: d.Stddev, CoV: d.CoV, Confidence: confidence}
	s.CILow, s.CIHigh = d.MeanInterval(confidence)
	return s
}

// SweepOptions tune Sweeps.
type SweepOptions struct {
	// CoVWarn is the coefficient of variation above which a point is
	// flagged unstable (0: DefaultCoVWarn).
	CoVWarn float64
	// Confidence is the confidence level of the intervals (0.95 for 95%;
	// 0: stats.DefaultConfidence).
	Confidence float64
}

// headline picks the metric a phase is judged by.
func headline(p PhaseSummary) string {
	switch {
	case p.Report == model.HeadlineLatency:
		return "lat_ns_mean"
	case p.Report == model.HeadlineBandwidth:
		return "bw_bytes_per_s"
	case p.Report == model.HeadlineIOPS:
		return "ops_per_s"
	case p.Offers(model.FormatMdtest), p.Offers(model.FormatWarp):
		// mdtest's and warp's tables lead with operation rates.
		return "ops_per_s"
	}
	return "bw_bytes_per_s"
}

// metric returns one of an operation's figures by name, and whether it
// was measured.
func metric(o OpSummary, name string) (float64, bool) {
	switch name {
	case "bw_bytes_per_s":
		if o.BwBytesPerS != nil {
			return *o.BwBytesPerS, true
		}
	case "ops_per_s":
		if o.OpsPerS != nil {
			return *o.OpsPerS, true
		}
	case "lat_ns_mean":
		if o.Lat != nil {
			return o.Lat.MeanNs, true
		}
	case "lat_ns_p99":
		if o.Lat != nil {
			return float64(o.Lat.P99Ns), true
		}
	}
	return 0, false
}

var sweepMetrics = []string{"bw_bytes_per_s", "ops_per_s", "lat_ns_mean", "lat_ns_p99"}

// Sweeps groups completed phases by suite entry, matrix point and operation
// and describes each group across its iterations. Phases with no group, and
// groups of a single phase with no matrix point, are left out.
func Sweeps(phases []PhaseSummary, o SweepOptions) []Sweep {
	if o.CoVWarn <= 0 {
		o.CoVWarn = DefaultCoVWarn
	}
	type key struct{ group, point, op string }
	idx := map[key]int{}
	var out []Sweep
	values := map[key]map[string][]float64{}
	spread := map[key][][3]float64{}
	for _, p := range phases {
		if p.Group == "" || p.Status != StatusCompleted {
			continue
		}
		pk := pointKey(p.Point)
		for _, o := range p.Ops {
			k := key{p.Group, pk, o.Op}
			i, ok := idx[k]
			if !ok {
				i = len(out)
				idx[k] = i
				out = append(out, Sweep{Group: p.Group, Engine: p.Engine, Point: p.Point, Op: o.Op, Formats: p.Formats, Headline: headline(p)})
				values[k] = map[string][]float64{}
			}
			out[i].Phases = append(out[i].Phases, p.Name)
			for _, m := range sweepMetrics {
				if v, ok := metric(o, m); ok {
					values[k][m] = append(values[k][m], v)
				}
			}
			if len(p.PerHost) > 1 {
				var hv []float64
				for _, h := range p.PerHost {
					for _, ho := range h.Ops {
						if v, ok := metric(ho, out[i].Headline); ok && ho.Op == o.Op {
							hv = append(hv, v)
						}
					}
				}
				if len(hv) > 0 {
					d := stats.Describe(hv)
					spread[k] = append(spread[k], [3]float64{d.Min, d.Max, d.Mean})
				}
			}
		}
	}
	kept := out[:0]
	for _, sw := range out {
		k := key{sw.Group, pointKey(sw.Point), sw.Op}
		if len(sw.Phases) < 2 && len(sw.Point) == 0 {
			continue
		}
		sw.Metrics = map[string]Stat{}
		for _, m := range sweepMetrics {
			if len(values[k][m]) > 0 {
				sw.Metrics[m] = DescribeStat(values[k][m], o.Confidence) // a metric never measured is absent
			}
		}
		if sp := spread[k]; len(sp) > 0 {
			var s3 Stat3
			for _, x := range sp {
				s3.Min += x[0] / float64(len(sp))
				s3.Max += x[1] / float64(len(sp))
				s3.Avg += x[2] / float64(len(sp))
			}
			sw.Hosts = &s3
		}
		sw.Unstable = sw.Metrics[sw.Headline].N > 1 && sw.Metrics[sw.Headline].CoV > o.CoVWarn
		kept = append(kept, sw)
	}
	return kept
}

func pointKey(p []KV) string {
	parts := make([]string, len(p))
	for i, kv := range p {
		parts[i] = kv.Key + "=" + kv.Value
	}
	return strings.Join(parts, ",")
}

// PointValue returns the value of key in a point, or "".
func PointValue(p []KV, key string) string {
	for _, kv := range p {
		if kv.Key == key {
			return kv.Value
		}
	}
	return ""
}

// Score is the IO500-style headline older runs recorded: the geometric
// mean of the bandwidth figures (GiB/s) of fio bandwidth phases, that of
// the rates (kIOPS) of metadata phases, and the geometric mean of the two.
// It is no longer computed (it mixed unlike figures); kept so their
// summary.json still reads.
type Score struct {
	Label        string  `json:"label"`
	BandwidthGiB float64 `json:"bandwidth_gib_per_s"`
	MetadataKOps float64 `json:"metadata_kiops"`
	Score        float64 `json:"score"`
	// BandwidthFigures and MetadataFigures count what went into each mean.
	BandwidthFigures int `json:"bandwidth_figures"`
	MetadataFigures  int `json:"metadata_figures"`
}

func geomean(xs []float64) float64 {
	var sum float64
	for _, x := range xs {
		sum += math.Log(x)
	}
	return math.Exp(sum / float64(len(xs)))
}

// SortedPointValues lists the distinct values of key across sweeps, in the
// order they first appear.
func SortedPointValues(sws []Sweep, key string) []string {
	seen := map[string]bool{}
	var out []string
	for _, sw := range sws {
		v := PointValue(sw.Point, key)
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
