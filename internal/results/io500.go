package results

import (
	"fmt"
	"math"
	"strconv"

	"github.com/storbench/storbench/internal/model"
)

// ScoreIO500 is the suite setting (score: io500) that asks for the
// IO500-shaped score of IO500Phases.
const ScoreIO500 = "io500"

// IO500Label says what the IO500-shaped score is and is not.
const IO500Label = "storbench's IO500-shaped score (not an IO500 submission)"

// Units of the IO500 figures, as IO500 prints them.
const (
	UnitGiBPerS = "GiB/s"
	UnitKIOPS   = "kIOPS"
)

// IO500Phase is one of IO500's scored phases: the suite phase of that name
// supplies one figure, an operation's bandwidth (GiB/s) or rate (kIOPS).
type IO500Phase struct {
	Name   string
	Engine model.EngineName
	// Op is the operation of the phase whose figure counts (an md phase
	// also records its tree's operations, which do not).
	Op   string
	Unit string
	// Write marks the phases IO500 holds to its minimum runtime
	// (verify_stonewall in io500's phase definitions).
	Write bool
}

// IO500MinWriteS is IO500's minimum runtime of a write phase in seconds
// (its stonewall-time rule; io500's src/main.c, minwrite): a shorter one
// makes the run invalid for a submission, its score still printed.
const IO500MinWriteS = 300

// IO500Phases are the phases IO500's score is made of (its standard
// mode: io500's src/phase-definitions.h, phases scored and not optional),
// in the order IO500 runs them. The ior phases are fio phases and give
// their bandwidth; mdtest's and find are md phases and give their rate,
// mdtest's (all items over the time of the slowest worker) and find's
// entries checked per second.
var IO500Phases = []IO500Phase{
	{"ior-easy-write", model.EngineFio, "write", UnitGiBPerS, true},
	{"mdtest-easy-write", model.EngineMD, "file-create", UnitKIOPS, true},
	{"ior-hard-write", model.EngineFio, "write", UnitGiBPerS, true},
	{"mdtest-hard-write", model.EngineMD, "file-create", UnitKIOPS, true},
	{"find", model.EngineMD, "find", UnitKIOPS, false},
	{"ior-easy-read", model.EngineFio, "read", UnitGiBPerS, false},
	{"mdtest-easy-stat", model.EngineMD, "file-stat", UnitKIOPS, false},
	{"ior-hard-read", model.EngineFio, "read", UnitGiBPerS, false},
	{"mdtest-hard-stat", model.EngineMD, "file-stat", UnitKIOPS, false},
	{"mdtest-easy-delete", model.EngineMD, "file-remove", UnitKIOPS, false},
	{"mdtest-hard-read", model.EngineMD, "file-read", UnitKIOPS, false},
	{"mdtest-hard-delete", model.EngineMD, "file-remove", UnitKIOPS, false},
}

// IO500Score is storbench's IO500-shaped score of a run whose suite asked
// for it: IO500's formula over the figures of the phases named as IO500's.
// Each mean is present only when every figure of its group is, and the
// score only when both are: a figure missing or zero makes them absent,
// never 0, and Missing says why.
type IO500Score struct {
	Label string `json:"label"`
	// Figures are IO500Phases' figures, in IO500's order; a figure the run
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
	for _, ip := range IO500Phases {
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
		if ip.Unit == UnitGiBPerS {
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
// a write phase shorter than IO500MinWriteS, or one shorter than its own
// deadline (sw: IOR's "Write phase needed X s instead of stonewall Y s").
// o is the phase's scored operation, nil when it has none.
func io500Invalid(ip IO500Phase, o *OpSummary, why string, sw *StonewallSummary) []string {
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
		rs = append(rs, fmt.Sprintf("its time was not measured (IO500's minimum for a write phase is %d s)", IO500MinWriteS))
	case o.DurationS < IO500MinWriteS:
		rs = append(rs, fmt.Sprintf("ran %s s, under IO500's minimum of %d s for a write phase", strconv.FormatFloat(o.DurationS, 'g', 3, 64), IO500MinWriteS))
	}
	if ip.Write && sw != nil && o.DurationS > 0 && o.DurationS < sw.DeadlineS {
		rs = append(rs, fmt.Sprintf("ran %s s, under its stonewall of %s s (IOR: the write phase needed less than its deadline)",
			strconv.FormatFloat(o.DurationS, 'g', 3, 64), strconv.FormatFloat(sw.DeadlineS, 'g', 3, 64)))
	}
	return rs
}

// io500Figure is phase ip's figure and its scored operation (nil when the
// phase has none), or why it has no figure.
func io500Figure(phases []PhaseSummary, ip IO500Phase) (float64, *OpSummary, string) {
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
	if ip.Unit == UnitGiBPerS {
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
		case ip.Unit == UnitGiBPerS && o.BwBytesPerS != nil && *o.BwBytesPerS > 0:
			return *o.BwBytesPerS / (1 << 30), o, ""
		case ip.Unit == UnitKIOPS && o.OpsPerS != nil && *o.OpsPerS > 0:
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
