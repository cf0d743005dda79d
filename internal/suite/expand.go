package suite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/engine/fio"
	"github.com/storbench/storbench/internal/events"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/units"
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
		if e, err := x.engines.Lookup(p.Engine); err == nil {
			if es, ok := e.(engine.Estimator); ok {
				out = append(out, es.EstimateModel())
			}
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
	// S3Configured says an S3 endpoint is available from the environment.
	S3Configured bool
	// PlanOnly expands for a dry run, which contacts nothing: s3 phases
	// without an endpoint are planned, and the missing endpoint noted.
	PlanOnly bool
}

// Expand turns the suite's phases into engine phases: every matrix point,
// every iteration, and for fio every job file of the workload. Other engines
// get their parameters as given plus the suite's defaults (dir for md, the s3
// block for s3). Every phase is validated by its engine. A suite of more
// than MaxPhases is refused before anything is built; ctx ending (a signal)
// stops the expansion with ctx's error.
func (s *Suite) Expand(ctx context.Context, o ExpandOptions) (*Expanded, error) {
	if err := s.checkPhaseCount(o.S3Configured); err != nil {
		return nil, err
	}
	s3Configured := o.S3Configured
	noEndpoint := false // some s3 phase was planned without an endpoint
	out := &Expanded{engines: o.Engines}
	dirs := map[string]bool{}
	names := map[string]int{}
	var wheres []string // by phase: its entry's file and line
	where := ""
	add := func(p engine.Phase, l Labels) {
		names[p.Name]++
		if n := names[p.Name]; n > 1 {
			p.Name = fmt.Sprintf("%s-%d", p.Name, n)
		}
		out.Phases = append(out.Phases, p)
		out.Labels = append(out.Labels, l)
		wheres = append(wheres, where)
	}
	for _, ps := range s.Phases {
		where = fmt.Sprintf("%s:%d", s.Source, ps.Line)
		if err := checkSharing(o.Engines, where, ps); err != nil {
			return nil, err
		}
		base := map[string]any{}
		for k, v := range ps.Params {
			base[k] = v
		}
		planNoHost := false
		switch ps.Engine {
		case model.EngineFio, model.EngineMD:
			if _, ok := base["dir"]; !ok {
				if s.Dir == "" {
					return nil, fmt.Errorf("%s: %s phase has no dir and the suite sets none", where, ps.Engine)
				}
				base["dir"] = s.Dir
			}
		case model.EngineS3:
			for k, v := range s.S3 {
				if _, ok := base[k]; !ok {
					base[k] = v
				}
			}
			if !hasS3Host(base) && !s3Configured {
				if ps.Optional {
					out.Skipped = append(out.Skipped, fmt.Sprintf("%s: s3 phase skipped: no S3 endpoint (set STORBENCH_HOST and keys, or s3: host: in the suite)", where))
					continue
				}
				planNoHost = o.PlanOnly
				noEndpoint = noEndpoint || planNoHost
			}
		}
		iters := max(ps.Iterations, 1)
		for _, point := range points(ps.Matrix) {
			params := map[string]any{}
			for k, v := range base {
				params[k] = v
			}
			l := Labels{Iterations: iters, Report: ps.Report, Events: ps.Events}
			for _, kv := range point {
				l.Point = append(l.Point, KV{Key: kv.Key, Value: fmt.Sprint(kv.Value)})
				if kv.Key == "hosts" {
					n, err := toInt(kv.Value)
					if err != nil || n < 1 {
						return nil, fmt.Errorf("%s: matrix hosts: %v is not a host count", where, kv.Value)
					}
					l.Hosts = n
					continue
				}
				params[paramKey(ps.Engine, kv.Key)] = kv.Value
			}
			if d, ok := params["dir"].(string); ok {
				params["dir"] = s.abs(d)
				dirs[params["dir"].(string)] = true
			}
			if ps.Engine != model.EngineFio {
				if ps.Shared {
					params["shared"] = true
				}
				if ps.ReadFrom != "" {
					params["read_from"] = ps.ReadFrom
				}
			}
			for it := 1; it <= iters; it++ {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				l.Iteration = it
				phases, groups, err := s.expandOne(o.Engines, where, ps, params, planNoHost)
				if err != nil {
					return nil, err
				}
				for i, p := range phases {
					if err := checkEvents(o.Engines, where, ps.Events, p); err != nil {
						return nil, err
					}
					pl := l
					pl.Group = groups[i]
					p.Name = phaseName(groups[i], pl)
					add(p, pl)
				}
			}
		}
	}
	// Phases that read what earlier ones wrote, and where files stay
	// between them, are settled across the whole suite.
	hosts := make([]int, len(out.Labels))
	for i, l := range out.Labels {
		hosts[i] = l.Hosts
	}
	linked, err := fio.Link(out.Phases, hosts)
	if err != nil {
		var le *fio.LinkError
		if errors.As(err, &le) && le.Phase < len(wheres) {
			return nil, fmt.Errorf("%s: %v", wheres[le.Phase], le.Err)
		}
		return nil, err
	}
	out.Phases = linked
	for d := range dirs {
		out.Dirs = append(out.Dirs, d)
	}
	sort.Strings(out.Dirs)
	if noEndpoint {
		out.Skipped = append(out.Skipped, "s3 phases have no S3 endpoint yet: set STORBENCH_HOST or host: in the suite's s3 block before running")
	}
	return out, nil
}

// checkSharing refuses shared and read_from on a phase whose engine has no
// such mode: fio has, and an engine that lists them among its settings.
func checkSharing(engines engine.Registry, where string, ps PhaseSpec) error {
	if ps.Engine == model.EngineFio || !ps.Shared && ps.ReadFrom == "" {
		return nil
	}
	var keys []string
	if e, err := engines.Lookup(ps.Engine); err == nil {
		if kl, ok := e.(engine.KeyLister); ok {
			keys = kl.ParamKeys()
		}
	}
	for key, set := range map[string]bool{"shared": ps.Shared, "read_from": ps.ReadFrom != ""} {
		if set && !contains(keys, key) {
			return fmt.Errorf("%s: %s: %s phases have no such mode; it is for fio phases", where, key, ps.Engine)
		}
	}
	return nil
}

// hasS3Host reports s3 parameters that name an endpoint.
func hasS3Host(params map[string]any) bool {
	_, h := params["host"]
	_, hs := params["hosts"]
	return h || hs
}

// checkPhaseCount counts the phases the suite expands to, without building
// them, and refuses more than MaxPhases. Counts saturate above the limit,
// so no product overflows.
func (s *Suite) checkPhaseCount(s3Configured bool) error {
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
		if ps.Engine == model.EngineS3 && ps.Optional && !s3Configured && !hasS3Host(ps.Params) && !hasS3Host(s.S3) {
			continue
		}
		n := int64(max(ps.Iterations, 1))
		points := int64(1)
		for _, d := range ps.Matrix {
			points = mul(points, int64(len(d.Values)))
		}
		n = mul(n, points)
		jobs := 1
		if ps.Engine == model.EngineFio {
			jobs = s.fioJobCount(ps)
			n = mul(n, int64(jobs))
		}
		if n >= over {
			pts := thousands(points)
			if points >= over {
				pts = "more than " + thousands(MaxPhases)
			}
			what := plural(int64(max(ps.Iterations, 1)), "iteration") + " x " + pts + " matrix point"
			if pts != "1" {
				what += "s"
			}
			if ps.Engine == model.EngineFio {
				what += " x " + plural(int64(jobs), "job file")
			}
			full, ok := exactCount(ps, s)
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
func exactCount(ps PhaseSpec, s *Suite) (int64, bool) {
	n := int64(max(ps.Iterations, 1))
	f := []int64{}
	for _, d := range ps.Matrix {
		f = append(f, int64(len(d.Values)))
	}
	if ps.Engine == model.EngineFio {
		f = append(f, int64(s.fioJobCount(ps)))
	}
	for _, x := range f {
		if x != 0 && n > math.MaxInt64/x {
			return 0, false
		}
		n *= x
	}
	return n, true
}

// fioJobCount is how many job files an fio entry runs per matrix point and
// iteration: one for an inline job, else the workload's (the most of any
// workload the matrix sweeps). A workload that cannot be read counts 1; the
// expansion then says what is wrong with it.
func (s *Suite) fioJobCount(ps PhaseSpec) int {
	if _, inline := ps.Params["job"]; inline {
		return 1
	}
	workloads := []any{ps.Params["workload"]}
	for _, d := range ps.Matrix {
		if d.Key == "workload" {
			workloads = d.Values
		}
	}
	most := 1
	for _, w := range workloads {
		str := "default"
		if w != nil {
			str = fmt.Sprint(w)
		}
		if strings.ContainsAny(str, "/.") && !filepath.IsAbs(str) {
			str = filepath.Join(s.base, str)
		}
		if jobs, err := fio.LoadWorkload(str); err == nil {
			most = max(most, len(jobs))
		}
	}
	return most
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
// names ("obj.size") become parameter names ("obj_size").
func paramKey(eng model.EngineName, k string) string {
	if eng == model.EngineFio {
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
	if ps.Engine == model.EngineFio {
		phases, err := expandFio(where, ps, params, s.base)
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
	if noEndpoint {
		withHost := map[string]any{"host": "endpoint.invalid:9000"}
		for k, v := range params {
			withHost[k] = v
		}
		if check.Params, err = json.Marshal(withHost); err != nil {
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
		return fmt.Errorf("%s: %v", where, err)
	}
	kl, ok := e.(engine.KeyLister)
	if !ok {
		return nil
	}
	known := kl.ParamKeys()
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

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// fioKeys are the settings of a fio phase in a suite; any other key in a
// matrix is a fio option set in every job section (bs, rw, iodepth, ...).
var fioKeys = []string{"dir", "workload", "job", "runtime", "size", "numjobs", "options"}

func expandFio(where string, ps PhaseSpec, params map[string]any, base string) ([]engine.Phase, error) {
	o := FioSettings{Options: map[string]string{}, Shared: ps.Shared, ReadFrom: ps.ReadFrom}
	matrixKeys := map[string]bool{}
	for _, d := range ps.Matrix {
		matrixKeys[d.Key] = true
	}
	for k, v := range params {
		str := fmt.Sprint(v)
		var err error
		switch k {
		case "dir":
			o.Dir = str
		case "workload":
			o.Workload = str
			if strings.ContainsAny(str, "/.") && !filepath.IsAbs(str) {
				o.Workload = filepath.Join(base, str)
			}
		case "job":
			m, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: fio: job: want a mapping of fio options (rw: read, bs: 4k, ...)", where)
			}
			o.Job = stringMap(m)
		case "options":
			m, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: fio: options: want a mapping of fio options", where)
			}
			for ok, ov := range stringMap(m) {
				o.Options[ok] = ov
			}
		case "runtime":
			o.Runtime = str
		case "size":
			o.Size = str
		case "numjobs":
			var n int
			if n, err = toInt(v); err == nil {
				o.Numjobs = n
				if n < 1 {
					err = fmt.Errorf("numjobs %d: want 1 or more; leave it out for the job files' own numjobs", n)
				}
			}
		default:
			if !matrixKeys[k] {
				msg := fmt.Sprintf("%s: fio: unknown setting %q", where, k)
				if s := Suggest(k, fioKeys); s != "" {
					msg += fmt.Sprintf(" (did you mean %q?)", s)
				} else {
					msg += " (fio job options go under options: or job:)"
				}
				return nil, fmt.Errorf("%s", msg)
			}
			o.Options[k] = str
		}
		if err != nil {
			return nil, fmt.Errorf("%s: fio: %s: %v", where, k, err)
		}
	}
	// A swept numjobs, or one for an inline job, is set in every section;
	// a plain numjobs on a workload keeps the latency sections at one job.
	if o.Numjobs > 0 && (matrixKeys["numjobs"] || o.Job != nil) {
		o.Options["numjobs"] = strconv.Itoa(o.Numjobs)
		o.Numjobs = 0
	}
	if o.Job != nil {
		if o.Workload != "" {
			return nil, fmt.Errorf("%s: fio: give workload or job, not both", where)
		}
		o.JobName = ps.Name
		if o.JobName == "" {
			o.JobName = "job"
		}
	}
	phases, err := FioPhases(o)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", where, err)
	}
	if ps.Name != "" && o.Job == nil {
		for i := range phases {
			phases[i].Name = ps.Name + "-" + phases[i].Name
		}
	}
	return phases, nil
}

func stringMap(m map[string]any) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = fmt.Sprint(v)
	}
	return out
}

// FioSettings are a fio phase's settings as a user writes them, on the
// command line or in a suite.
type FioSettings struct {
	Dir      string
	Workload string
	// Job, instead of Workload, is one job's fio options, as the seeds write
	// a fio command line (rw: read, bs: 256k, iodepth: 1, ...); JobName names it.
	Job     map[string]string
	JobName string
	// Report, with Job, is the headline the job's figures are shown by
	// (bandwidth, iops or latency), as a job file's "# report" comment.
	Report  string
	Runtime string
	Size    string
	Numjobs int
	// Options are set in every job section (see fio.Overrides.Options).
	Options map[string]string
	// Shared and ReadFrom are the phase's sharing (fio.Params).
	Shared   bool
	ReadFrom string
}

// FioPhases turns fio settings into one engine phase per job file.
func FioPhases(o FioSettings) ([]engine.Phase, error) {
	var ov fio.Overrides
	if o.Runtime != "" {
		d, err := units.ParseDuration(o.Runtime)
		if err != nil {
			return nil, fmt.Errorf("--runtime: %v", err)
		}
		if d < time.Second {
			return nil, fmt.Errorf("--runtime %s: fio runs in whole seconds; give at least 1s", o.Runtime)
		}
		ov.RuntimeS = int64(d.Seconds())
	}
	if o.Size != "" {
		n, err := units.ParseSize(o.Size)
		if err != nil {
			return nil, fmt.Errorf("--size: %v", err)
		}
		if n < 4096 {
			return nil, fmt.Errorf("--size %s: files must hold at least one 4 KiB block", o.Size)
		}
		ov.SizeBytes = n
	}
	if o.Numjobs < 0 || o.Numjobs > 4096 {
		return nil, fmt.Errorf("--numjobs %d: want 1 to 4096", o.Numjobs)
	}
	ov.Numjobs = o.Numjobs
	if len(o.Options) > 0 {
		ov.Options = o.Options
	}
	var jobs []fio.Job
	if o.Job != nil {
		jobs = []fio.Job{inlineJob(o.JobName, o.Job)}
		if o.Report != "" {
			jobs[0].Text = "# report " + o.Report + "\n" + jobs[0].Text
		}
	} else {
		var err error
		if jobs, err = fio.LoadWorkload(o.Workload); err != nil {
			return nil, err
		}
	}
	var out []engine.Phase
	for _, j := range jobs {
		b, err := json.Marshal(fio.Params{Dir: o.Dir, Job: j, Overrides: ov, Shared: o.Shared, ReadFrom: o.ReadFrom})
		if err != nil {
			return nil, err
		}
		p := engine.Phase{Name: j.Name, Engine: model.EngineFio, Params: b}
		if err := (fio.Engine{}).Validate(p); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// inlineJob writes a job file of one section from a suite's job: mapping,
// options sorted for a stable text.
func inlineJob(name string, opts map[string]string) fio.Job {
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "[%s]\n", name)
	for _, k := range keys {
		if opts[k] == "" || opts[k] == "true" && isFlag(k) {
			fmt.Fprintf(&b, "%s\n", k)
			continue
		}
		fmt.Fprintf(&b, "%s=%s\n", k, opts[k])
	}
	return fio.Job{Name: name, Text: b.String()}
}

// isFlag lists fio options written without a value.
func isFlag(k string) bool {
	switch k {
	case "group_reporting", "readonly", "stonewall", "time_based", "thread":
		return true
	}
	return false
}

func (s *Suite) abs(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(s.base, p)
}
