// Package suite reads suite files: global settings and a list of phases of
// any engine, validated with line numbers, and expands them into the engine
// phases a controller runs.
package suite

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/engine/fio"
	"github.com/storbench/storbench/internal/units"
)

//go:embed quick.yaml
var quickYAML []byte

// Suite is a parsed suite file.
type Suite struct {
	// Name names the run and its results folder.
	Name string
	// Dir is the default target directory of file phases (fio, md).
	Dir string
	// Results is where results folders go (default ./results).
	Results string
	// Keep leaves created files and objects in place.
	Keep bool
	// S3 holds settings shared by every s3 phase (endpoint, bucket, ...).
	S3 map[string]any
	// Phases in order.
	Phases []PhaseSpec
	// Source is the file the suite came from ("built-in quick suite").
	Source string
	// base is the directory relative paths are resolved against.
	base string
}

// PhaseSpec is one entry of "phases": an engine and its parameters.
type PhaseSpec struct {
	Name   string
	Engine string
	Params map[string]any
	// Optional phases are skipped, with a note, when what they need is not
	// configured (the quick suite's S3 phase without an endpoint).
	Optional bool
	Line     int
}

var engines = []string{"fio", "md", "s3"}

var globalKeys = []string{"name", "dir", "results", "keep", "s3", "phases"}
var phaseKeys = []string{"name", "optional", "fio", "md", "s3"}

// Quick returns the built-in quick suite: the four corners scaled to a small
// machine, plus metadata and S3 phases, on ./storbench-data.
func Quick() (*Suite, error) {
	s, err := Parse("built-in quick suite", quickYAML)
	if err != nil {
		return nil, err
	}
	s.base, _ = os.Getwd()
	return s, nil
}

// Load reads a suite file.
func Load(path string) (*Suite, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("suite: %v", err)
	}
	s, err := Parse(path, b)
	if err != nil {
		return nil, err
	}
	s.base = filepath.Dir(path)
	return s, nil
}

// Parse parses suite YAML; name is used in errors ("suite.yaml:12: ...").
func Parse(name string, b []byte) (*Suite, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if len(root.Content) == 0 {
		return nil, fmt.Errorf("%s: empty suite", name)
	}
	doc := root.Content[0]
	if doc.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d: a suite is a mapping with name, dir and phases", name, doc.Line)
	}
	s := &Suite{Source: name, Results: "results"}
	for i := 0; i+1 < len(doc.Content); i += 2 {
		k, v := doc.Content[i], doc.Content[i+1]
		var err error
		switch k.Value {
		case "name":
			err = v.Decode(&s.Name)
		case "dir":
			err = v.Decode(&s.Dir)
		case "results":
			err = v.Decode(&s.Results)
		case "keep":
			err = v.Decode(&s.Keep)
		case "s3":
			err = v.Decode(&s.S3)
		case "phases":
			s.Phases, err = parsePhases(name, v)
		default:
			return nil, unknownKey(name, k, globalKeys)
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %s: %v", name, k.Line, k.Value, cleanYAMLErr(err))
		}
	}
	if len(s.Phases) == 0 {
		return nil, fmt.Errorf("%s: no phases", name)
	}
	if s.Name == "" {
		s.Name = strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	}
	return s, nil
}

func parsePhases(name string, n *yaml.Node) ([]PhaseSpec, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("want a list of phases")
	}
	var out []PhaseSpec
	for _, item := range n.Content {
		if item.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("line %d: a phase is a mapping such as {fio: {workload: default}}", item.Line)
		}
		ps := PhaseSpec{Line: item.Line}
		for i := 0; i+1 < len(item.Content); i += 2 {
			k, v := item.Content[i], item.Content[i+1]
			switch k.Value {
			case "name":
				if err := v.Decode(&ps.Name); err != nil {
					return nil, fmt.Errorf("line %d: name: %v", k.Line, cleanYAMLErr(err))
				}
			case "optional":
				if err := v.Decode(&ps.Optional); err != nil {
					return nil, fmt.Errorf("line %d: optional: %v", k.Line, cleanYAMLErr(err))
				}
			case "fio", "md", "s3":
				if ps.Engine != "" {
					return nil, fmt.Errorf("line %d: a phase has one engine, found %s and %s", k.Line, ps.Engine, k.Value)
				}
				ps.Engine = k.Value
				ps.Params = map[string]any{}
				if v.Kind != yaml.ScalarNode || v.Tag != "!!null" {
					if err := v.Decode(&ps.Params); err != nil {
						return nil, fmt.Errorf("line %d: %s: want a mapping of settings: %v", v.Line, k.Value, cleanYAMLErr(err))
					}
				}
			default:
				return nil, unknownKey(name, k, phaseKeys)
			}
		}
		if ps.Engine == "" {
			return nil, fmt.Errorf("line %d: phase names no engine (one of %s)", item.Line, strings.Join(engines, ", "))
		}
		out = append(out, ps)
	}
	return out, nil
}

func unknownKey(file string, k *yaml.Node, known []string) error {
	msg := fmt.Sprintf("%s:%d: unknown key %q", file, k.Line, k.Value)
	if s := Suggest(k.Value, known); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return fmt.Errorf("%s", msg)
}

func cleanYAMLErr(err error) string {
	return strings.TrimPrefix(err.Error(), "yaml: unmarshal errors:\n  ")
}

// Suggest returns the known word closest to w, if it is close enough to be a
// likely typo.
func Suggest(w string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if d := editDistance(strings.ToLower(w), k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// Expanded is a suite turned into engine phases.
type Expanded struct {
	Phases []engine.Phase
	// Dirs are the target directories the phases use.
	Dirs []string
	// Skipped notes optional phases left out and why.
	Skipped []string
}

// Expand turns the suite's phases into engine phases: a fio phase becomes one
// phase per job file of its workload, with overrides; other engines get their
// parameters as given, plus the suite's defaults (dir for md, the s3 block
// for s3). Every phase is validated by its engine. s3Configured tells whether
// an S3 endpoint is available from the environment.
func (s *Suite) Expand(s3Configured bool) (*Expanded, error) {
	out := &Expanded{}
	dirs := map[string]bool{}
	names := map[string]int{}
	add := func(p engine.Phase) {
		names[p.Name]++
		if n := names[p.Name]; n > 1 {
			p.Name = fmt.Sprintf("%s-%d", p.Name, n)
		}
		out.Phases = append(out.Phases, p)
	}
	for _, ps := range s.Phases {
		where := fmt.Sprintf("%s:%d", s.Source, ps.Line)
		params := map[string]any{}
		for k, v := range ps.Params {
			params[k] = v
		}
		switch ps.Engine {
		case "fio", "md":
			if _, ok := params["dir"]; !ok {
				if s.Dir == "" {
					return nil, fmt.Errorf("%s: %s phase has no dir and the suite sets none", where, ps.Engine)
				}
				params["dir"] = s.Dir
			}
			d, _ := params["dir"].(string)
			params["dir"] = s.abs(d)
			dirs[params["dir"].(string)] = true
		case "s3":
			for k, v := range s.S3 {
				if _, ok := params[k]; !ok {
					params[k] = v
				}
			}
			if _, ok := params["host"]; !ok && !s3Configured {
				if ps.Optional {
					out.Skipped = append(out.Skipped, fmt.Sprintf("%s: s3 phase skipped: no S3 endpoint (set STORBENCH_HOST, or s3: host: in the suite)", where))
					continue
				}
			}
		}
		if ps.Engine == "fio" {
			phases, err := expandFio(where, ps, params, s.base)
			if err != nil {
				return nil, err
			}
			for _, p := range phases {
				add(p)
			}
			continue
		}
		b, err := json.Marshal(params)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
		name := ps.Name
		if name == "" {
			name = ps.Engine
			if op, ok := params["op"].(string); ok {
				name += "-" + op
			}
		}
		p := engine.Phase{Name: name, Engine: ps.Engine, Params: b}
		if err := engine.Validate(p); err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
		add(p)
	}
	for d := range dirs {
		out.Dirs = append(out.Dirs, d)
	}
	sort.Strings(out.Dirs)
	return out, nil
}

func (s *Suite) abs(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(s.base, p)
}

// fioKeys are the settings of a fio phase in a suite.
var fioKeys = []string{"dir", "workload", "runtime", "size", "numjobs"}

func expandFio(where string, ps PhaseSpec, params map[string]any, base string) ([]engine.Phase, error) {
	var o FioSettings
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
		case "runtime":
			o.Runtime = str
		case "size":
			o.Size = str
		case "numjobs":
			var n int
			if n, err = toInt(v); err == nil {
				o.Numjobs = n
			}
		default:
			msg := fmt.Sprintf("%s: fio: unknown setting %q", where, k)
			if s := Suggest(k, fioKeys); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			return nil, fmt.Errorf("%s", msg)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: fio: %s: %v", where, k, err)
		}
	}
	phases, err := FioPhases(o)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", where, err)
	}
	if ps.Name != "" {
		for i := range phases {
			phases[i].Name = ps.Name + "-" + phases[i].Name
		}
	}
	return phases, nil
}

func toInt(v any) (int, error) {
	switch x := v.(type) {
	case int:
		return x, nil
	case float64:
		if x == float64(int(x)) {
			return int(x), nil
		}
	case string:
		var n int
		if _, err := fmt.Sscan(x, &n); err == nil {
			return n, nil
		}
	}
	return 0, fmt.Errorf("want a whole number, got %v", v)
}

// FioSettings are a fio phase's settings as a user writes them, on the
// command line or in a suite.
type FioSettings struct {
	Dir      string
	Workload string
	Runtime  string
	Size     string
	Numjobs  int
}

// FioPhases turns fio settings into one engine phase per job file.
func FioPhases(o FioSettings) ([]engine.Phase, error) {
	var ov fio.Overrides
	if o.Runtime != "" {
		d, err := units.ParseDuration(o.Runtime)
		if err != nil {
			return nil, fmt.Errorf("--runtime: %v", err)
		}
		if d < 1e9 {
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
	jobs, err := fio.LoadWorkload(o.Workload)
	if err != nil {
		return nil, err
	}
	var out []engine.Phase
	for _, j := range jobs {
		b, err := json.Marshal(fio.Params{Dir: o.Dir, Job: j, Overrides: ov})
		if err != nil {
			return nil, err
		}
		p := engine.Phase{Name: j.Name, Engine: "fio", Params: b}
		if err := engine.Validate(p); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// Pretty renders phase parameters for a dry run.
func Pretty(p engine.Phase) string {
	var b bytes.Buffer
	_ = json.Indent(&b, p.Params, "", "  ")
	return b.String()
}
