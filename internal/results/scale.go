package results

import "github.com/storbench/storbench/internal/model"

// Scale is one scale of a run (--scale, a suite's scale:): its steps as
// they ran, why it stopped and its knee.
type Scale struct {
	Group string `json:"group"`
	// Param is the load stepped (jobs, iodepth, concurrent, workers,
	// hosts).
	Param string       `json:"param"`
	Steps []ScalePoint `json:"steps"`
	// StopKind and Stop say why the scale stopped (model.ScaleFlat, ...);
	// absent while it runs or when the run ended first.
	StopKind string `json:"stop_kind,omitempty"`
	Stop     string `json:"stop,omitempty"`
	// Knee is the most load before the rate flattened or latency broke
	// (ScaleRangeEnd: the top of the range, the knee at or beyond it);
	// absent when the scale did not stop by a rule.
	Knee *int `json:"knee,omitempty"`
	// KneeOpsPerS is the rate at the knee.
	KneeOpsPerS *float64 `json:"knee_ops_per_s,omitempty"`
}

// ScalePoint is one step of a scale: its load and the figures of the
// operation the scale follows (the phase's most frequent).
type ScalePoint struct {
	Load  int    `json:"load"`
	Phase string `json:"phase"`
	Op    string `json:"op,omitempty"`
	// OpsPerS and P99Ns are absent when the step measured none.
	OpsPerS *float64 `json:"ops_per_s,omitempty"`
	P99Ns   *int64   `json:"p99_ns,omitempty"`
}

// Scales gathers the scales of phases, in order of their first step.
func Scales(phases []PhaseSummary) []Scale {
	var out []Scale
	at := map[string]int{}
	for _, p := range phases {
		if p.Scale == nil {
			continue
		}
		i, ok := at[p.Group]
		if !ok || p.Scale.Step == 1 {
			at[p.Group], i = len(out), len(out)
			out = append(out, Scale{Group: p.Group, Param: p.Scale.Param})
		}
		sc := &out[i]
		pt := ScalePoint{Load: p.Scale.Load, Phase: p.Name}
		if o, ok := ScaleOp(p); ok {
			pt.Op, pt.OpsPerS = o.Op, o.OpsPerS
			if o.Lat != nil {
				v := o.Lat.P99Ns
				pt.P99Ns = &v
			}
		}
		sc.Steps = append(sc.Steps, pt)
		if p.Scale.StopKind != "" {
			sc.StopKind, sc.Stop = p.Scale.StopKind, p.Scale.Stop
			k := len(sc.Steps) - 1 // the range ended: the last step
			if sc.StopKind != model.ScaleRangeEnd {
				k-- // the last step flattened or broke: the one before
			}
			if k >= 0 {
				load := sc.Steps[k].Load
				sc.Knee, sc.KneeOpsPerS = &load, sc.Steps[k].OpsPerS
			}
		}
	}
	return out
}

// ScaleOp is the operation a scale follows in a phase: the one with the
// most operations that has a rate.
func ScaleOp(ps PhaseSummary) (OpSummary, bool) {
	var best OpSummary
	found := false
	for _, o := range ps.Ops {
		if o.OpsPerS != nil && (!found || o.Ops > best.Ops) {
			best, found = o, true
		}
	}
	return best, found
}
