package results

import (
	"fmt"
	"math"
	"strconv"

	"github.com/storbench/storbench/internal/model"
)

// IO500Label says what the IO500-shaped score is and is not.
const IO500Label = "storbench's IO500-shaped score (not an IO500 submission)"

// IO500Score is storbench's IO500-shaped score of a run whose suite asked
// for it: IO500's formula over the figures of the phases named as IO500's.
// Each mean is present only when every figure of its group is, and the
// score only when both are: a figure missing or zero makes them absent,
// never 0, and Missing says why.
type IO500Score struct {
	Label string `json:"label"`
	// Figures are model.IO500Phases' figures, in IO500's order; a figure the run
	// does not have is absent.
	Figures []IO500Figure `json:"figures"`
	// BandwidthGiB is the geometric mean of the four ior bandwidths (GiB/s),
	// MetadataKIOPS that of the eight metadata rates (kIOPS), Score the
	// geometric mean of the two.
	BandwidthGiB  *float64 `json:"bandwidth_gib_per_s,omitempty"`
	MetadataKIOPS *float64 `json:"metadata_kiops,omitempty"`
	Score         *float64 `json:"score,omitempty"`
	// Missing names each phase without a figure and why ("mdtest-hard-read:
	// failed", "find: did not run").
	Missing []string `json:"missing,omitempty"`
	// Valid is whether IO500's rules would accept the run (io500's
	// src/main.c); Invalid says why not, a line per reason naming its
	// phase. IO500 prints an invalid run's score marked [INVALID], so the
	// score stays when every phase has a figure.
	Valid   bool     `json:"valid"`
	Invalid []string `json:"invalid,omitempty"`
}

// IO500Figure is one phase's figure in the score.
type IO500Figure struct {
	Phase string   `json:"phase"`
	Op    string   `json:"op"`
	Unit  string   `json:"unit"`
	Value *float64 `json:"value,omitempty"`
	// DurationS is how long the phase's operation ran, in seconds (absent
	// when it has none); Invalid marks a phase IO500 would mark [INVALID].
	DurationS *float64 `json:"duration_s,omitempty"`
	// StonewallS is the deadline a write phase wrote to (IO500's
	// stonewall-time), absent for a phase without one.
	StonewallS *float64 `json:"stonewall_s,omitempty"`
	Invalid    bool     `json:"invalid,omitempty"`
}

// ComputeIO500 computes the IO500-shaped score from a run's phases. A
// phase is found by its name; one that did not complete, lacks the
// operation or measured 0 of it has no figure. It judges the run by IO500's
// rules too (Valid, Invalid).
func ComputeIO500(phases []PhaseSummary) *IO500Score {
	s := &IO500Score{Label: IO500Label}
	var bw, md []float64
	for _, ip := range model.IO500Phases {
		f := IO500Figure{Phase: ip.Name, Op: ip.Op, Unit: ip.Unit}
		v, o, why := io500Figure(phases, ip)
		if why != "" {
			s.Missing = append(s.Missing, ip.Name+": "+why)
		} else {
			f.Value = &v
		}
		if o != nil && o.DurationS > 0 {
			f.DurationS = Figure(o.DurationS)
		}
		sw := phaseStonewall(phases, ip.Name)
		if sw != nil {
			f.StonewallS = Figure(sw.DeadlineS)
		}
		for _, r := range io500Invalid(ip, o, why, sw) {
			f.Invalid = true
			s.Invalid = append(s.Invalid, ip.Name+": "+r)
		}
		s.Figures = append(s.Figures, f)
		if ip.Unit == model.UnitGiBPerS {
			bw = append(bw, v)
		} else {
			md = append(md, v)
		}
	}
	s.BandwidthGiB, s.MetadataKIOPS = geomeanOf(bw), geomeanOf(md)
	if s.BandwidthGiB != nil && s.MetadataKIOPS != nil {
		s.Score = Figure(math.Sqrt(*s.BandwidthGiB * *s.MetadataKIOPS))
	}
	s.Valid = len(s.Invalid) == 0
	return s
}

// phaseStonewall is the stonewall figures of the phase named name, if any.
func phaseStonewall(phases []PhaseSummary, name string) *StonewallSummary {
	for i := range phases {
		if phases[i].Name == name {
			return phases[i].Stonewall
		}
	}
	return nil
}

// io500Invalid is why IO500 would mark phase ip [INVALID] (io500's
// src/main.c and src/phase_ior.c): a score of 0 (no figure: why), errors,
// a write phase shorter than model.IO500MinWriteS, or one shorter than its own
// deadline (sw: IOR's "Write phase needed X s instead of stonewall Y s").
// o is the phase's scored operation, nil when it has none.
func io500Invalid(ip model.IO500Phase, o *OpSummary, why string, sw *StonewallSummary) []string {
	var rs []string
	if why != "" {
		rs = append(rs, why+", a score of 0")
	}
	if o == nil {
		return rs
	}
	if o.Errors > 0 {
		rs = append(rs, fmt.Sprintf("%d %s errors", o.Errors, o.Op))
	}
	switch {
	case !ip.Write:
	case !(o.DurationS > 0):
		rs = append(rs, fmt.Sprintf("its time was not measured (IO500's minimum for a write phase is %d s)", model.IO500MinWriteS))
	case o.DurationS < model.IO500MinWriteS:
		rs = append(rs, fmt.Sprintf("ran %s s, under IO500's minimum of %d s for a write phase", strconv.FormatFloat(o.DurationS, 'g', 3, 64), model.IO500MinWriteS))
	}
	if ip.Write && sw != nil && o.DurationS > 0 && o.DurationS < sw.DeadlineS {
		rs = append(rs, fmt.Sprintf("ran %s s, under its stonewall of %s s (IOR: the write phase needed less than its deadline)",
			strconv.FormatFloat(o.DurationS, 'g', 3, 64), strconv.FormatFloat(sw.DeadlineS, 'g', 3, 64)))
	}
	return rs
}

// io500Figure is phase ip's figure and its scored operation (nil when the
// phase has none), or why it has no figure.
func io500Figure(phases []PhaseSummary, ip model.IO500Phase) (float64, *OpSummary, string) {
	var p *PhaseSummary
	for i := range phases {
		if phases[i].Name == ip.Name {
			p = &phases[i]
			break
		}
	}
	switch {
	case p == nil:
		return 0, nil, "did not run"
	case p.Engine != ip.Engine:
		return 0, nil, fmt.Sprintf("is a %s phase, not %s", p.Engine, ip.Engine)
	case p.Status != StatusCompleted: // its error is the phase's, told with it
		return 0, nil, p.Status
	}
	what := ip.Op + " rate"
	if ip.Unit == model.UnitGiBPerS {
		what = ip.Op + " bandwidth"
	}
	var op *OpSummary
	for i := range p.Ops {
		o := &p.Ops[i]
		if o.Op != ip.Op {
			continue
		}
		op = o
		switch {
		case ip.Unit == model.UnitGiBPerS && o.BwBytesPerS != nil && *o.BwBytesPerS > 0:
			return *o.BwBytesPerS / (1 << 30), o, ""
		case ip.Unit == model.UnitKIOPS && o.OpsPerS != nil && *o.OpsPerS > 0:
			return *o.OpsPerS / 1000, o, ""
		}
	}
	return 0, op, "measured no " + what
}

// geomeanOf is the geometric mean of xs, absent when any is not above 0.
func geomeanOf(xs []float64) *float64 {
	for _, x := range xs {
		if !(x > 0) {
			return nil
		}
	}
	return Figure(geomean(xs))
}
