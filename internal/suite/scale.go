package suite

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
)

// MaxScaleSteps is the most steps a scale runs: doubling from 1 reaches a
// million in 20; a fixed step over a wide range would run for days, so
// such a range is refused, saying so, before any load.
const MaxScaleSteps = 24

// Scale is a load parameter stepped from From to To: doubled at each
// step (Add 0) or increased by Add.
type Scale struct {
	Param    string
	From, To int
	Add      int
}

// scaleKeys maps a scale's parameter to the engine setting it sets; the
// setting must be one of the engine's (ParamKeys), or, for an engine
// that expands its own entries (fio), one of its job options. hosts
// takes the first N agents instead.
var scaleKeys = map[string]string{"jobs": "numjobs", "iodepth": "iodepth", "concurrent": "concurrent", "workers": "workers", "hosts": "hosts"}

var scaleRe = regexp.MustCompile(`^([a-z_]+)=(-?[0-9]+)\.\.(-?[0-9]+)(?::\+(-?[0-9]+))?$`)

// ParseScale reads "jobs=1..64" (doubling) or "jobs=1..64:+4" (a fixed
// step).
func ParseScale(s string) (Scale, error) {
	m := scaleRe.FindStringSubmatch(s)
	if m == nil {
		return Scale{}, fmt.Errorf("scale %q: want PARAM=FROM..TO, doubling, or PARAM=FROM..TO:+N, a fixed step (jobs=1..64, concurrent=8..256:+8)", s)
	}
	sc := Scale{Param: m[1]}
	if _, ok := scaleKeys[sc.Param]; !ok {
		return Scale{}, fmt.Errorf("scale %q: no load parameter %s; want jobs, iodepth (fio), concurrent (s3), workers (md) or hosts", s, sc.Param)
	}
	var err error
	num := func(t string) int {
		n, e := strconv.Atoi(t)
		if e != nil && err == nil {
			err = fmt.Errorf("scale %q: %s is too large", s, t)
		}
		return n
	}
	sc.From, sc.To = num(m[2]), num(m[3])
	if m[4] != "" {
		sc.Add = num(m[4])
		if err == nil && sc.Add < 1 {
			err = fmt.Errorf("scale %q: the step +%s adds nothing; want +1 or more", s, m[4])
		}
	}
	switch {
	case err != nil:
		return Scale{}, err
	case sc.From < 1:
		return Scale{}, fmt.Errorf("scale %q: the range starts at %d; want 1 or more", s, sc.From)
	case sc.To <= sc.From:
		return Scale{}, fmt.Errorf("scale %q: the range %d..%d does not go up; want FROM below TO", s, sc.From, sc.To)
	}
	if n := sc.count(); n > MaxScaleSteps {
		return Scale{}, fmt.Errorf("scale %q: %d steps; a scale runs at most %d: take a larger step or a shorter range", s, n, MaxScaleSteps)
	}
	return sc, nil
}

// parseScaleKey reads a phase's scale: key.
func parseScaleKey(ps *PhaseSpec, k, v *yaml.Node) error {
	var text string
	if err := v.Decode(&text); err != nil || v.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: scale: want PARAM=FROM..TO such as jobs=1..64", k.Line)
	}
	sc, err := ParseScale(text)
	if err != nil {
		return fmt.Errorf("line %d: %v", k.Line, err)
	}
	ps.Scale = &sc
	return nil
}

// scaleMatrix makes a scale's steps the phase's matrix, of one key.
func scaleMatrix(line int, ps *PhaseSpec) error {
	if ps.Scale == nil {
		return nil
	}
	// A scale decides at each step whether to go on: iterations or a
	// matrix around it would make that decision ambiguous.
	if ps.Iterations > 1 || len(ps.Matrix) > 0 {
		return fmt.Errorf("line %d: scale steps one parameter alone: no iterations or matrix beside it", line)
	}
	ps.Matrix = []Dim{ps.Scale.Dim()}
	return nil
}

// count is the number of steps, saturating just above MaxScaleSteps.
func (sc Scale) count() int {
	if sc.Add > 0 {
		return min((sc.To-sc.From)/sc.Add+1, MaxScaleSteps+1)
	}
	n := 0
	for v := sc.From; v <= sc.To && n <= MaxScaleSteps; v *= 2 {
		n++
	}
	return n
}

// Loads are the loads of the steps, from From; the last is To when the
// steps do not land on it, so the top of the range is always measured.
func (sc Scale) Loads() []int {
	var out []int
	for v := sc.From; v < sc.To && len(out) < MaxScaleSteps; {
		out = append(out, v)
		if sc.Add > 0 {
			v += sc.Add
		} else {
			v *= 2
		}
	}
	return append(out, sc.To)
}

// String is the scale as given ("jobs=1..64", "jobs=1..64:+4").
func (sc Scale) String() string {
	s := fmt.Sprintf("%s=%d..%d", sc.Param, sc.From, sc.To)
	if sc.Add > 0 {
		s += fmt.Sprintf(":+%d", sc.Add)
	}
	return s
}

// Key is the setting (or matrix key) a step sets: numjobs for jobs.
func (sc Scale) Key() string { return scaleKeys[sc.Param] }

// Dim is the scale as a matrix of one key.
func (sc Scale) Dim() Dim {
	d := Dim{Key: sc.Key()}
	for _, v := range sc.Loads() {
		d.Values = append(d.Values, v)
	}
	return d
}

// Step is the label of the step whose load is v.
func (sc Scale) Step(v int) *model.ScaleStep {
	loads := sc.Loads()
	return &model.ScaleStep{Param: sc.Param, Load: v, Step: slices.Index(loads, v) + 1, Steps: len(loads)}
}

// CheckScale refuses a scale of a parameter eng does not have.
func CheckScale(engines engine.Registry, eng model.EngineName, sc Scale) error {
	if scales(engines, eng, sc.Param) {
		return nil
	}
	var has []string
	for _, p := range []string{"jobs", "iodepth", "concurrent", "workers", "hosts"} {
		if scales(engines, eng, p) {
			has = append(has, p)
		}
	}
	return fmt.Errorf("scale %s: %s phases have no %s; they scale %s", sc, eng, sc.Param, joinOr(has))
}

// scales says eng's phases have the load parameter param: hosts for
// every engine, iodepth for one that expands its own entries (a fio job
// option), else the setting the parameter sets among its ParamKeys.
func scales(engines engine.Registry, eng model.EngineName, param string) bool {
	if param == "hosts" {
		return true
	}
	if _, own := engines.Expander(eng); own && param == "iodepth" {
		return true
	}
	return slices.Contains(engines.Info(eng).ParamKeys, scaleKeys[param])
}

// joinOr lists words as "a, b or c".
func joinOr(ws []string) string {
	switch len(ws) {
	case 0:
		return ""
	case 1:
		return ws[0]
	}
	out := ws[0]
	for _, w := range ws[1 : len(ws)-1] {
		out += ", " + w
	}
	return out + " or " + ws[len(ws)-1]
}
