package suite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/events"
	"github.com/storbench/storbench/internal/figures"
	"github.com/storbench/storbench/internal/model"
)

// Labels place an engine phase in its suite: which entry (Group), which
// matrix point, which iteration, and on how many hosts.
type Labels struct {
	// Group names the suite entry (and fio job) the phase belongs to; the
	// iterations of one matrix point share Group and Point.
	Group string
	// Point is the matrix point, in matrix order ("numjobs"="32").
	Point []KV
	// Iteration counts from 1; Iterations is the total.
	Iteration  int
	Iterations int
	// Hosts runs the phase on the first Hosts agents (0: all).
	Hosts int
	// Report is the headline metric chosen in the suite, if any.
	Report model.Headline
	// Events happen during the phase, timed from its start.
	Events []events.Spec
	// Limits are the suite entry's limits on the phase's figures.
	Limits []figures.Limit
	// Scale places the phase in a scale: its step and load.
	Scale *model.ScaleStep
}

// KV is one matrix coordinate.
type KV struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Expanded is a suite turned into engine phases.
type Expanded struct {
	Phases []engine.Phase
	// Labels holds one entry per phase.
	Labels []Labels
	// Dirs are the target directories the phases use.
	Dirs []string
	// Skipped notes optional phases left out and why.
	Skipped []string

	engines engine.Registry
}

// Estimate sums every phase's planned or estimated duration (Planned).
func (x *Expanded) Estimate() time.Duration {
	var total time.Duration
	for _, p := range x.Phases {
		d, _ := x.engines.Planned(p)
		if total > math.MaxInt64-d {
			return time.Duration(math.MaxInt64)
		}
		total += d
	}
	return total
}

// EstimateModels lists, once per engine, how the estimated durations of the
// phases were computed.
func (x *Expanded) EstimateModels() []string {
	var out []string
	seen := map[model.EngineName]bool{}
	for _, p := range x.Phases {
		if seen[p.Engine] {
			continue
		}
		seen[p.Engine] = true
		if m := x.engines.Info(p.Engine).EstimateModel; m != "" {
			out = append(out, m)
		}
	}
	return out
}

// MaxPhases is the most engine phases a suite may expand to. The count is
// made before anything is built, so iterations: 222222222 or a matrix of
// millions of points is refused at once instead of filling memory; 10,000
// phases of a few seconds each already run for more than a day.
const MaxPhases = 10_000

// ExpandOptions say what Expand may assume.
type ExpandOptions struct {
	// Engines validate the phases and list their settings.
	Engines engine.Registry
	// PlanOnly expands for a dry run, which contacts nothing: s3 phases
	// without an endpoint are planned, and the missing endpoint noted.
	PlanOnly bool
}

// Expand turns the suite's phases into engine phases: every matrix point,
// every iteration, and for an engine with an Expander (fio) what it makes
// of the entry (a phase per job file of the workload). Other engines get
// their parameters as given plus the suite's defaults (the block named
// after the engine, s3:, and dir for an engine that takes one). Every phase
// is validated by its engine, and its settings decoded once. A suite of more
// than MaxPhases is refused before anything is built; ctx ending (a signal)
// stops the expansion with ctx's error.
func (s *Suite) Expand(ctx context.Context, o ExpandOptions) (*Expanded, error) {
	if err := s.checkBlocks(o.Engines); err != nil {
		return nil, err
	}
	if err := s.checkPhaseCount(o.Engines); err != nil {
		return nil, err
	}
	var noEndpoint []model.EngineName // engines planned without an endpoint
	x := &expansion{out: &Expanded{engines: o.Engines}, dirs: map[string]bool{}, names: map[string]int{}}
	for _, ps := range s.Phases {
		where := fmt.Sprintf("%s:%d", s.Source, ps.Line)
		if err := checkSharing(o.Engines, where, ps); err != nil {
			return nil, err
		}
		if ps.Scale != nil {
			if err := CheckScale(o.Engines, ps.Engine, *ps.Scale); err != nil {
				return nil, fmt.Errorf("%s: %v", where, err)
			}
		}
		base, planNoHost, skip, err := s.entryBase(o, where, ps)
		switch {
		case err != nil:
			return nil, err
		case skip != "":
			x.out.Skipped = append(x.out.Skipped, skip)
			continue
		}
		if planNoHost && !slices.Contains(noEndpoint, ps.Engine) {
			noEndpoint = append(noEndpoint, ps.Engine)
		}
		if err := s.expandEntry(ctx, o.Engines, x, where, ps, base, planNoHost); err != nil {
			return nil, err
		}
	}
	// Phases that read what earlier ones wrote, and where files stay
	// between them, are settled across the whole suite.
	if err := x.link(o.Engines); err != nil {
		return nil, err
	}
	out := x.out
	for d := range x.dirs {
		out.Dirs = append(out.Dirs, d)
	}
	sort.Strings(out.Dirs)
	for _, eng := range noEndpoint {
		if ep, ok := o.Engines.Endpointed(eng); ok {
			out.Skipped = append(out.Skipped, ep.NoEndpoint(true))
		}
	}
	return out, nil
}

// expansion is a suite's expansion under way: the phases so far, the
// directories they use, and where in the suite each came from.
type expansion struct {
	out    *Expanded
	dirs   map[string]bool
	names  map[string]int // phases by name, to number a name's repeats
	wheres []string       // by phase: its entry's file and line
}

// add appends a phase of the entry at where, numbering a name already
// taken ("name-2").
func (x *expansion) add(where string, p engine.Phase, l Labels) {
	x.names[p.Name]++
	if n := x.names[p.Name]; n > 1 {
		p.Name = fmt.Sprintf("%s-%d", p.Name, n)
	}
	x.out.Phases = append(x.out.Phases, p)
	x.out.Labels = append(x.out.Labels, l)
	x.wheres = append(x.wheres, where)
}

// link settles the links of the phases across the suite; a refused link
// is said at its entry's line.
func (x *expansion) link(engines engine.Registry) error {
	hosts := make([]int, len(x.out.Labels))
	for i, l := range x.out.Labels {
		hosts[i] = l.Hosts
	}
	linked, err := engines.Link(x.out.Phases, hosts)
	if err != nil {
		var le *engine.LinkError
		if errors.As(err, &le) && le.Phase < len(x.wheres) {
			return fmt.Errorf("%s: %v", x.wheres[le.Phase], le.Err)
		}
		return err
	}
	x.out.Phases = linked
	return nil
}

// expandEntry adds the phases of one suite entry: every matrix point,
// every iteration, base being its settings before the matrix.
func (s *Suite) expandEntry(ctx context.Context, engines engine.Registry, x *expansion, where string, ps PhaseSpec, base map[string]any, planNoHost bool) error {
	_, own := engines.Expander(ps.Engine)
	iters := max(ps.Iterations, 1)
	for _, point := range points(ps.Matrix) {
		params, l, err := s.pointParams(x, where, ps, own, base, point)
		if err != nil {
			return err
		}
		for it := 1; it <= iters; it++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			l.Iteration = it
			phases, groups, err := s.expandOne(engines, where, ps, params, planNoHost)
			if err != nil {
				return err
			}
			for i, p := range phases {
				if err := checkEvents(engines, where, ps.Events, p); err != nil {
					return err
				}
				pl := l
				pl.Group = groups[i]
				p.Name = phaseName(groups[i], pl)
				x.add(where, p, pl)
			}
		}
	}
	return nil
}

// pointParams are an entry's settings at one matrix point, and the labels
// of its phases there (all but the iteration and group). own says the
// engine expands its own entries: it is given the entry's sharing itself.
func (s *Suite) pointParams(x *expansion, where string, ps PhaseSpec, own bool, base map[string]any, point []struct {
	Key   string
	Value any
}) (map[string]any, Labels, error) {
	params := map[string]any{}
	for k, v := range base {
		params[k] = v
	}
	l := Labels{Iterations: max(ps.Iterations, 1), Report: ps.Report, Events: ps.Events, Limits: ps.Limits}
	for _, kv := range point {
		l.Point = append(l.Point, KV{Key: kv.Key, Value: fmt.Sprint(kv.Value)})
		if kv.Key == "hosts" {
			n, err := toInt(kv.Value)
			if err != nil || n < 1 {
				return nil, l, fmt.Errorf("%s: matrix hosts: %v is not a host count", where, kv.Value)
			}
			l.Hosts = n
			if ps.Scale != nil {
				l.Scale = ps.Scale.Step(n)
			}
			continue
		}
		if ps.Scale != nil {
			n, _ := toInt(kv.Value)
			l.Scale = ps.Scale.Step(n)
		}
		params[paramKey(own, kv.Key)] = kv.Value
	}
	if d, ok := params["dir"].(string); ok {
		params["dir"] = s.abs(d)
		x.dirs[params["dir"].(string)] = true
	}
	if !own {
		if ps.Shared {
			params["shared"] = true
		}
		if ps.ReadFrom != "" {
			params["read_from"] = ps.ReadFrom
		}
	}
	return params, l, nil
}

// entryBase is an entry's settings before its matrix: its own, and the
// suite's defaults (its engine's block, then dir for an engine that takes
// one). planNoHost says a dry run plans it without the endpoint it needs;
// skip says why an optional entry is left out.
func (s *Suite) entryBase(o ExpandOptions, where string, ps PhaseSpec) (base map[string]any, planNoHost bool, skip string, err error) {
	base = map[string]any{}
	for k, v := range ps.Params {
		base[k] = v
	}
	for k, v := range s.Blocks[ps.Engine] {
		if _, ok := base[k]; !ok {
			base[k] = v
		}
	}
	if err := noNulls(base); err != nil {
		return nil, false, "", fmt.Errorf("%s: %s: %v", where, ps.Engine, err)
	}
	if d, ok := base["dir"].(string); ok {
		// A relative dir is the suite file's folder's, as every path a
		// suite names is: fio runs in a folder of its own, where a
		// relative path would lead elsewhere.
		base["dir"] = s.abs(d)
	}
	if _, ok := base["dir"]; !ok && takesDir(o.Engines, ps.Engine) {
		if s.Dir == "" {
			return nil, false, "", fmt.Errorf("%s: %s phase has no dir and the suite sets none: give -d DIR (or dir: in the suite)", where, ps.Engine)
		}
		base["dir"] = s.abs(s.Dir)
	}
	if ep, ok := o.Engines.Endpointed(ps.Engine); ok && !ep.HasEndpoint(base) {
		if ps.Optional {
			return nil, false, fmt.Sprintf("%s: %s", where, ep.NoEndpoint(false)), nil
		}
		planNoHost = o.PlanOnly
	}
	return base, planNoHost, "", nil
}

// checkSharing refuses shared and read_from on a phase whose engine has no
// such mode: one that expands its own entries is given them (fio), one
// that does not has them when it lists them among its settings.
func checkSharing(engines engine.Registry, where string, ps PhaseSpec) error {
	if _, own := engines.Expander(ps.Engine); own || !ps.Shared && ps.ReadFrom == "" {
		return nil
	}
	keys := engines.Info(ps.Engine).ParamKeys
	for key, set := range map[string]bool{"shared": ps.Shared, "read_from": ps.ReadFrom != ""} {
		if set && !contains(keys, key) {
			return fmt.Errorf("%s: %s: %s phases have no such mode; it is for %s phases", where, key, ps.Engine, sharers(engines))
		}
	}
	return nil
}

// checkPhaseCount counts the phases the suite expands to, without building
// them, and refuses more than MaxPhases. Counts saturate above the limit,
// so no product overflows.
func (s *Suite) checkPhaseCount(engines engine.Registry) error {
	const over = MaxPhases + 1
	mul := func(a, b int64) int64 {
		if a == 0 || b == 0 {
			return 0
		}
		if a > over/b {
			return over
		}
		return min(a*b, over)
	}
	var total int64
	for _, ps := range s.Phases {
		if ep, ok := engines.Endpointed(ps.Engine); ok && ps.Optional && !ep.HasEndpoint(ps.Params) && !ep.HasEndpoint(s.Blocks[ps.Engine]) {
			continue
		}
		n := int64(max(ps.Iterations, 1))
		points := int64(1)
		for _, d := range ps.Matrix {
			points = mul(points, int64(len(d.Values)))
		}
		n = mul(n, points)
		jobs := s.entryCount(engines, ps)
		n = mul(n, int64(jobs))
		if n >= over {
			pts := thousands(points)
			if points >= over {
				pts = "more than " + thousands(MaxPhases)
			}
			what := plural(int64(max(ps.Iterations, 1)), "iteration") + " x " + pts + " matrix point"
			if pts != "1" {
				what += "s"
			}
			if jobs != 1 {
				what += " x " + plural(int64(jobs), "phase") + " per point"
			}
			full, ok := exactCount(engines, ps, s)
			count := "more than " + thousands(MaxPhases)
			if ok {
				count = thousands(full)
			}
			return fmt.Errorf("%s:%d: this entry expands to %s phases (%s); a suite runs at most %s phases: split it or sweep fewer values",
				s.Source, ps.Line, count, what, thousands(MaxPhases))
		}
		total += n // each n is at most MaxPhases: no overflow
	}
	if total > MaxPhases {
		return fmt.Errorf("%s: the suite expands to %s phases; a suite runs at most %s phases: split it into several suites",
			s.Source, thousands(total), thousands(MaxPhases))
	}
	return nil
}

// exactCount is an entry's phase count when it fits an int64, for the
// error line.
func exactCount(engines engine.Registry, ps PhaseSpec, s *Suite) (int64, bool) {
	n := int64(max(ps.Iterations, 1))
	f := []int64{}
	for _, d := range ps.Matrix {
		f = append(f, int64(len(d.Values)))
	}
	f = append(f, int64(s.entryCount(engines, ps)))
	for _, x := range f {
		if x != 0 && n > math.MaxInt64/x {
			return 0, false
		}
		n *= x
	}
	return n, true
}

// entry is ps at one matrix point with params, for its engine's Expander.
func (s *Suite) entry(where string, ps PhaseSpec, params map[string]any) engine.Entry {
	m := map[string][]any{}
	for _, d := range ps.Matrix {
		m[d.Key] = d.Values
	}
	return engine.Entry{Where: where, Name: ps.Name, Params: params, Matrix: m, Shared: ps.Shared, ReadFrom: ps.ReadFrom, Base: s.base}
}

// entryCount is how many phases an entry makes per matrix point and
// iteration: its engine's Expander says (fio: the workload's job files),
// else one.
func (s *Suite) entryCount(engines engine.Registry, ps PhaseSpec) int {
	if x, own := engines.Expander(ps.Engine); own {
		return max(x.Count(s.entry("", ps, ps.Params)), 1)
	}
	return 1
}

// takesDir says eng's phases work in a directory (dir among its settings),
// which the suite's dir gives when the entry sets none.
func takesDir(engines engine.Registry, eng model.EngineName) bool {
	return contains(engines.Info(eng).ParamKeys, "dir")
}

// sharers names the engines whose phases can be shared or read_from:
// those that expand their own entries.
func sharers(engines engine.Registry) string {
	var out []string
	for _, n := range engines.Names() {
		if _, own := engines.Expander(n); own {
			out = append(out, string(n))
		}
	}
	return strings.Join(out, " and ")
}

// plural prints "1 iteration", "3 iterations".
func plural(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return thousands(n) + " " + what + "s"
}

// thousands prints n with comma separators: 10,000.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// phaseName is a phase's name in results: the group, the matrix point and
// the iteration ("read-sweep numjobs=32 bs=4k #2").
func phaseName(group string, l Labels) string {
	parts := []string{group}
	for _, kv := range l.Point {
		parts = append(parts, kv.Key+"="+kv.Value)
	}
	if l.Iterations > 1 {
		parts = append(parts, fmt.Sprintf("#%d", l.Iteration))
	}
	return strings.Join(parts, " ")
}

// paramKey maps a matrix key to the engine's parameter name: flag-style
// names ("obj.size") become parameter names ("obj_size"), except for an
// engine that expands its own entries (fio: keys are fio options).
func paramKey(own bool, k string) string {
	if own {
		return k
	}
	return strings.ReplaceAll(k, ".", "_")
}

// points returns every combination of the matrix values, the first key
// varying slowest; one empty point for no matrix.
func points(m []Dim) [][]struct {
	Key   string
	Value any
} {
	type kv = struct {
		Key   string
		Value any
	}
	out := [][]kv{{}}
	for _, d := range m {
		var next [][]kv
		for _, p := range out {
			for _, v := range d.Values {
				q := append(append([]kv(nil), p...), kv{d.Key, v})
				next = append(next, q)
			}
		}
		out = next
	}
	return out
}

// expandOne makes the engine phases of one point and iteration, with the
// group each belongs to. noEndpoint validates an s3 phase as if it named
// one (a dry run's plan).
func (s *Suite) expandOne(engines engine.Registry, where string, ps PhaseSpec, params map[string]any, noEndpoint bool) ([]engine.Phase, []string, error) {
	if x, own := engines.Expander(ps.Engine); own {
		phases, err := x.Expand(s.entry(where, ps, params))
		if err != nil {
			return nil, nil, err
		}
		groups := make([]string, len(phases))
		for i, p := range phases {
			groups[i] = p.Name
		}
		return phases, groups, nil
	}
	if err := checkKeys(engines, where, ps.Engine, params); err != nil {
		return nil, nil, err
	}
	b, err := json.Marshal(params)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", where, err)
	}
	name := ps.Name
	if name == "" {
		name = string(ps.Engine)
		if op, ok := params["op"].(string); ok {
			name += "-" + op
		}
	}
	p := engine.Phase{Name: name, Engine: ps.Engine, Params: b}
	check := p
	if ep, ok := engines.Endpointed(ps.Engine); ok && noEndpoint {
		if check.Params, err = json.Marshal(ep.WithPlaceholder(params)); err != nil {
			return nil, nil, fmt.Errorf("%s: %v", where, err)
		}
	}
	if err := engines.Validate(check); err != nil {
		return nil, nil, fmt.Errorf("%s: %v", where, err)
	}
	return []engine.Phase{p}, []string{name}, nil
}

// checkKeys refuses parameters the engine does not know, with a suggestion,
// when the engine lists its keys.
func checkKeys(engines engine.Registry, where string, eng model.EngineName, params map[string]any) error {
	e, err := engines.Lookup(eng)
	if err != nil {
		var names []string
		for _, n := range engines.Names() {
			names = append(names, string(n))
		}
		if s := Suggest(string(eng), names); s != "" {
			return fmt.Errorf("%s: %v (did you mean %q?)", where, err, s)
		}
		return fmt.Errorf("%s: %v", where, err)
	}
	if err := noNulls(params); err != nil {
		return fmt.Errorf("%s: %s: %v", where, eng, err)
	}
	known := e.Info().ParamKeys
	if known == nil {
		return nil
	}
	for k := range params {
		if !contains(known, k) {
			msg := fmt.Sprintf("%s: %s: unknown setting %q", where, eng, k)
			if s := Suggest(k, known); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			return fmt.Errorf("%s", msg)
		}
	}
	return nil
}

// noNulls refuses a setting, or an option in a mapping of them (fio's
// job: and options:), that YAML read as nothing: an engine would take it
// as the text "<nil>" (fio was handed ioengine=<nil>) or as its default.
// Keys are tried in order, so the error names the same one every time.
func noNulls(params map[string]any) error {
	for _, k := range slices.Sorted(maps.Keys(params)) {
		v := params[k]
		if v == nil {
			return fmt.Errorf("%s has no value (YAML reads null, ~ and an empty value as none): %s", k, giveValue)
		}
		if m, ok := v.(map[string]any); ok {
			for _, mk := range slices.Sorted(maps.Keys(m)) {
				if m[mk] == nil {
					return fmt.Errorf("%s: %s has no value (YAML reads null, ~ and an empty value as none): %s", k, mk, giveValue)
				}
			}
		}
	}
	return nil
}

// giveValue says how to mend a setting YAML read as none.
const giveValue = `give one, in quotes if it is the word null ("null", fio's null engine)`

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (s *Suite) abs(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(s.base, p)
}
