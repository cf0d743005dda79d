// Package suite reads suite files: global settings and a list of phases of
// any engine, validated with line numbers, and expands them into the engine
// phases a controller runs.
package suite

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/events"
	"github.com/storbench/storbench/internal/figures"
	"github.com/storbench/storbench/internal/infile"
	"github.com/storbench/storbench/internal/model"
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
	// Blocks hold, by engine, the settings every phase of the engine
	// takes unless it sets its own: a top-level mapping named after the
	// engine (s3: endpoint, bucket, ...). Expand refuses a block naming no
	// engine.
	Blocks map[model.EngineName]map[string]any
	// Agents are the hosts the suite runs on (host{1...8}:7761 ranges).
	Agents []string
	// DropCaches asks every agent to drop the page cache before each phase.
	DropCaches bool
	// Score chooses the run's score: "io500" (model.ScoreIO500) is
	// storbench's IO500-shaped score of the phases named as IO500's; empty
	// is the default score over every bandwidth and metadata figure.
	Score string
	// Labels label the run for the catalog (labels: {raid: "6"}); the
	// command line's --label adds to them and wins.
	Labels map[string]string
	// Phases in order.
	Phases []PhaseSpec
	// Source is the file the suite came from ("built-in quick suite").
	Source string
	// base is the directory relative paths are resolved against.
	base string
	// blockKeys are the keys of Blocks as written, for errors.
	blockKeys []*yaml.Node
}

// PhaseSpec is one entry of "phases": an engine and its parameters.
type PhaseSpec struct {
	Name   string
	Engine model.EngineName
	Params map[string]any
	// Optional phases are skipped, with a note, when what they need is not
	// configured (the quick suite's S3 phase without an endpoint).
	Optional bool
	// Iterations runs every matrix point this many times (default 1).
	Iterations int
	// Matrix sweeps parameters: every combination of the values runs.
	Matrix []Dim
	// Report chooses the headline metric of fio phases: bandwidth, iops or
	// latency (default: the job file's "# report" comment, else by block size).
	Report model.Headline
	// Shared runs the phase's work in the run's shared area, one set of
	// files for all hosts (fio: N-to-1 files); the run first proves the
	// hosts see one file system there.
	Shared bool
	// ReadFrom, "neighbour", makes host i read what host (i+1) mod n wrote
	// in an earlier phase (IOR's -C, mdtest's -N).
	ReadFrom string
	// Events happen during each of the entry's phases (events.Spec).
	Events []events.Spec
	// Limits are limits on the figures of each of the entry's phases,
	// written OP/FIGURE<VALUE (read/p99<5ms); their Ref.Phase is the
	// entry's name, or its engine's when it has none.
	Limits []figures.Limit
	// Scale steps one load parameter up until the rate flattens (scale:
	// jobs=1..64); its steps are Matrix, of one key.
	Scale *Scale
	Line  int
}

// Dim is one swept parameter and its values, in file order.
type Dim struct {
	Key    string
	Values []any
}

// isSettings says v can be an engine's settings: a mapping, or nothing
// (the engine's defaults).
func isSettings(v *yaml.Node) bool {
	return v.Kind == yaml.MappingNode || v.Kind == yaml.ScalarNode && v.Tag == "!!null"
}

// globalKeys are a suite's keys besides its engines' blocks: any other key
// whose value is a mapping of settings names an engine (s3:), which the
// expansion finds in the engine list.
var globalKeys = []string{"name", "dir", "results", "keep", "agents", "drop_caches", "score", "labels", "phases"}

// phaseKeys are the keys of a phase entry besides its engine's: any other
// key whose value is a mapping of settings names the engine (fio:, md:,
// ...), which the expansion finds in the engine list.
var phaseKeys = []string{"name", "optional", "iterations", "matrix", "scale", "report", "shared", "read_from", "events", "limits"}

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
	b, err := infile.Read("suite", path, infile.TextLimit)
	if infile.IsRefusal(err) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("suite: %v", err)
	}
	s, err := Parse(path, b)
	if err != nil {
		return nil, err
	}
	// Absolute: the paths a suite names are its folder's wherever they
	// are read from (fio runs in a folder of its own).
	if s.base, err = filepath.Abs(filepath.Dir(path)); err != nil {
		return nil, fmt.Errorf("suite %s: %v", path, err)
	}
	return s, nil
}

// Parse parses suite YAML; name is used in errors ("suite.yaml:12: ...").
func Parse(name string, b []byte) (*Suite, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		return nil, yamlSyntaxErr(name, err)
	}
	if len(root.Content) == 0 {
		return nil, fmt.Errorf("%s: empty suite", name)
	}
	doc := root.Content[0]
	if doc.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d: a suite is a mapping with name, dir and phases", name, doc.Line)
	}
	s := &Suite{Source: name, Results: "results"}
	scoreLine := 0
	for i := 0; i+1 < len(doc.Content); i += 2 {
		k, v := doc.Content[i], doc.Content[i+1]
		var err error
		switch k.Value {
		case "name":
			if err = v.Decode(&s.Name); err == nil {
				err = model.CheckRunName(s.Name)
			}
		case "dir":
			err = v.Decode(&s.Dir)
		case "results":
			err = v.Decode(&s.Results)
		case "keep":
			err = v.Decode(&s.Keep)
		case "agents":
			if v.Kind == yaml.ScalarNode {
				var one string
				err = v.Decode(&one)
				s.Agents = []string{one}
			} else {
				err = v.Decode(&s.Agents)
			}
		case "drop_caches":
			err = v.Decode(&s.DropCaches)
		case "score":
			scoreLine = k.Line
			if v.Decode(&s.Score) != nil || s.Score != model.ScoreIO500 {
				return nil, fmt.Errorf("%s:%d: score: want io500 (IO500's formula over the phases named as IO500's)", name, k.Line)
			}
		case "labels":
			err = v.Decode(&s.Labels)
		case "phases":
			s.Phases, err = parsePhases(name, v)
		default:
			if !isSettings(v) {
				return nil, unknownKey(name, k, globalKeys)
			}
			err = s.addBlock(k, v)
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %s: %v", name, k.Line, k.Value, cleanYAMLErr(err))
		}
	}
	if len(s.Phases) == 0 {
		return nil, fmt.Errorf("%s: no phases", name)
	}
	if s.Score == model.ScoreIO500 {
		if err := checkIO500(name, scoreLine, s.Phases); err != nil {
			return nil, err
		}
	}
	if s.Name == "" {
		s.Name = strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	}
	if err := checkText(name, s); err != nil {
		return nil, err
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
		var limits *yaml.Node
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
			case "iterations":
				it, err := parseIterations(k, v)
				if err != nil {
					return nil, err
				}
				ps.Iterations = it
			case "report":
				if err := v.Decode(&ps.Report); err != nil || !slices.Contains(model.Headlines, ps.Report) {
					return nil, fmt.Errorf("line %d: report: want bandwidth, iops or latency", k.Line)
				}
			case "shared":
				if err := v.Decode(&ps.Shared); err != nil {
					return nil, fmt.Errorf("line %d: shared: want true or false", k.Line)
				}
			case "read_from":
				var from string
				if err := v.Decode(&from); err != nil || (from != "neighbour" && from != "neighbor") {
					return nil, fmt.Errorf("line %d: read_from: want neighbour (host i reads what host i+1 wrote in an earlier phase)", k.Line)
				}
				ps.ReadFrom = "neighbour"
			case "events":
				evs, err := parseEvents(v)
				if err != nil {
					return nil, err
				}
				ps.Events = evs
			case "limits":
				limits = v
			case "matrix":
				m, err := parseMatrix(v)
				if err != nil {
					return nil, err
				}
				ps.Matrix = m
			case "scale":
				if err := parseScaleKey(&ps, k, v); err != nil {
					return nil, err
				}
			default:
				if err := parseEngineKey(name, &ps, k, v); err != nil {
					return nil, err
				}
			}
		}
		if err := parseLimits(&ps, limits); err != nil {
			return nil, err
		}
		if ps.Engine == "" {
			return nil, fmt.Errorf("line %d: phase names no engine (an engine's name as a key, with its settings: fio: {workload: default})", item.Line)
		}
		if err := scaleMatrix(item.Line, &ps); err != nil {
			return nil, err
		}
		out = append(out, ps)
	}
	return out, nil
}

// parseIterations reads a phase's iterations: a whole number, 1 or
// more. It is read as a number first: YAML would cut 2.5 to 2 without a
// word.
func parseIterations(k, v *yaml.Node) (int, error) {
	var f float64
	if err := v.Decode(&f); err != nil {
		return 0, fmt.Errorf("line %d: iterations: %q: want a whole number, 1 or more", k.Line, v.Value)
	}
	if f != math.Trunc(f) || f >= 1<<63 {
		return 0, fmt.Errorf("line %d: iterations: %s: want a whole number, 1 or more", k.Line, v.Value)
	}
	if f < 1 {
		return 0, fmt.Errorf("line %d: iterations: %s; want 1 or more", k.Line, v.Value)
	}
	return int(f), nil
}

// parseLimits reads a phase's limits: a list of OP/FIGURE<VALUE, each on
// the figures of every phase of the entry, read once its name is known.
func parseLimits(ps *PhaseSpec, n *yaml.Node) error {
	if n == nil {
		return nil
	}
	var texts []string
	if err := n.Decode(&texts); err != nil || len(texts) == 0 {
		return fmt.Errorf("line %d: limits: want a list of OP/FIGURE<VALUE ([read/p99<5ms, read/rate>20k])", n.Line)
	}
	name := ps.Name
	if name == "" {
		name = string(ps.Engine)
	}
	for _, t := range texts {
		l, err := figures.ParsePhaseLimit(name, t)
		if err != nil {
			return fmt.Errorf("line %d: limits: %v", n.Line, err)
		}
		ps.Limits = append(ps.Limits, l)
	}
	return nil
}

// parseEngineKey reads a phase key that is not one of phaseKeys: an
// engine's name with its settings, which it sets on ps (a phase has one);
// a key close to one of phaseKeys is taken for a misspelling. Split out of
// parsePhases to keep it short.
func parseEngineKey(name string, ps *PhaseSpec, k, v *yaml.Node) error {
	if Suggest(k.Value, phaseKeys) != "" {
		return unknownKey(name, k, phaseKeys)
	}
	if !isSettings(v) {
		return fmt.Errorf("line %d: %s: want an engine's settings as a mapping (%s: {...}), or one of the keys of a phase (%s)", k.Line, k.Value, k.Value, strings.Join(phaseKeys, ", "))
	}
	if ps.Engine != "" {
		return fmt.Errorf("line %d: a phase has one engine, found %s and %s", k.Line, ps.Engine, k.Value)
	}
	ps.Engine = model.EngineName(k.Value)
	ps.Params = map[string]any{}
	if v.Kind != yaml.ScalarNode || v.Tag != "!!null" {
		if err := v.Decode(&ps.Params); err != nil {
			return fmt.Errorf("line %d: %s: want a mapping of settings: %v", v.Line, k.Value, cleanYAMLErr(err))
		}
	}
	return nil
}

// checkIO500 refuses a suite that asks for the IO500-shaped score and
// cannot give it: each of IO500's phases must be one suite entry of that
// name, of the engine that measures its figure, run once (no iterations,
// no matrix), a fio one as one inline job (job files would name the
// phase after each job), an md one running the operation that counts.
func checkIO500(file string, line int, phases []PhaseSpec) error {
	var missing []string
	for _, ip := range model.IO500Phases {
		at := -1
		for i, ps := range phases {
			if ps.Name != ip.Name {
				continue
			}
			if at >= 0 {
				return fmt.Errorf("%s:%d: phase %s: score: io500 takes one figure from it, and two phases have this name (lines %d and %d)", file, ps.Line, ps.Name, phases[at].Line, ps.Line)
			}
			at = i
		}
		if at < 0 {
			missing = append(missing, ip.Name)
			continue
		}
		ps := phases[at]
		where := fmt.Sprintf("%s:%d: phase %s: score: io500", file, ps.Line, ps.Name)
		switch {
		case ps.Engine != ip.Engine && ip.Unit == model.UnitGiBPerS:
			return fmt.Errorf("%s takes %s's bandwidth from a %s phase", where, ip.Name, ip.Engine)
		case ps.Engine != ip.Engine:
			return fmt.Errorf("%s takes %s's rate from an %s phase", where, ip.Name, ip.Engine)
		case ps.Iterations > 1 || len(ps.Matrix) > 0:
			return fmt.Errorf("%s takes one figure from it: no iterations or matrix", where)
		}
		if ps.Engine == model.EngineFio {
			if _, inline := ps.Params["job"]; !inline {
				return fmt.Errorf("%s needs its one fio job inline (job: {...}), so the phase keeps its name", where)
			}
			continue
		}
		if only, ok := ps.Params["only"].([]any); ok {
			word := strings.TrimPrefix(ip.Op, "file-")
			if !slices.ContainsFunc(only, func(x any) bool { return x == word }) {
				return fmt.Errorf("%s takes its %s rate, which only: %s does not run", where, ip.Op, flowList(only))
			}
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s:%d: score: io500 takes one figure from each of IO500's phases, and no phase is named %s (name them as IO500 does: see examples/io500-shapes.yaml)", file, line, strings.Join(missing, ", "))
	}
	return nil
}

// flowList writes a YAML list as a suite writes it: [create, stat].
func flowList(xs []any) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func parseMatrix(v *yaml.Node) ([]Dim, error) {
	if v.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("line %d: matrix: want a mapping of parameter: [values]", v.Line)
	}
	if len(v.Content) == 0 {
		return nil, fmt.Errorf("line %d: matrix is empty", v.Line)
	}
	var out []Dim
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, vals := v.Content[i], v.Content[i+1]
		d := Dim{Key: k.Value}
		if vals.Kind == yaml.SequenceNode {
			if err := vals.Decode(&d.Values); err != nil {
				return nil, fmt.Errorf("line %d: matrix %s: %v", vals.Line, k.Value, cleanYAMLErr(err))
			}
		} else {
			var one any
			if err := vals.Decode(&one); err != nil {
				return nil, fmt.Errorf("line %d: matrix %s: %v", vals.Line, k.Value, cleanYAMLErr(err))
			}
			d.Values = []any{one}
		}
		if len(d.Values) == 0 {
			return nil, fmt.Errorf("line %d: matrix %s has no values", vals.Line, k.Value)
		}
		for _, x := range d.Values {
			if x == nil {
				return nil, fmt.Errorf("line %d: matrix %s: a value YAML reads as none (null, ~ or empty): %s", vals.Line, k.Value, giveValue)
			}
			if _, isMap := x.(map[string]any); isMap {
				return nil, fmt.Errorf("line %d: matrix %s: values must be plain (numbers, sizes, words)", vals.Line, k.Value)
			}
		}
		out = append(out, d)
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

// yamlTypeErr is the YAML library's "line 1: cannot unmarshal !!seq into
// string" (the value quoted between backquotes for scalars).
var yamlTypeErr = regexp.MustCompile("^line \\d+: cannot unmarshal !!(\\w+)(?: `(.*)`)? into (\\S+)$")

// cleanYAMLErr says a YAML decoding error in the suite writer's words: what
// was given and what is wanted, not the library's tags and Go types.
func cleanYAMLErr(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: unmarshal errors:\n  ")
	m := yamlTypeErr.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	got := map[string]string{"seq": "a list", "map": "a mapping"}[m[1]]
	if got == "" {
		got = strconv.Quote(m[2])
	}
	want := "another kind of value"
	switch t := m[3]; {
	case t == "string":
		want = "a string"
	case t == "bool":
		want = "true or false"
	case strings.HasPrefix(t, "int") || strings.HasPrefix(t, "uint"):
		want = "a whole number"
	case strings.HasPrefix(t, "float"):
		want = "a number"
	case strings.HasPrefix(t, "[]"):
		want = "a list"
	case strings.HasPrefix(t, "map"):
		want = "a mapping of keys to values"
	}
	return fmt.Sprintf("%s: want %s", got, want)
}

// yamlLine is the YAML library's "yaml: line 3: did not find expected key".
var yamlLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// yamlSyntaxErr says that a file is not YAML in the user's words: the file
// and line ("suite.yaml:3: ...") where the library prefixes its own
// ("yaml: line 3: ..."), and what it found.
func yamlSyntaxErr(name string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s:%s: not valid YAML: %s (check the indentation, quotes and brackets there)", name, m[1], m[2])
	}
	return fmt.Errorf("%s: not valid YAML: %s (a suite is a YAML text file)", name, msg)
}

// Suggest returns the known word closest to w, if it is close enough to be a
// likely typo.
func Suggest(w string, known []string) string { return engine.Suggest(w, known) }

func toInt(v any) (int, error) { return engine.WholeNumber(v) }

// Pretty renders phase parameters for a dry run.
func Pretty(p engine.Phase) string {
	var b bytes.Buffer
	_ = json.Indent(&b, p.Params, "", "  ")
	return b.String()
}

// addBlock keeps the engine settings block v under its key k.
func (s *Suite) addBlock(k, v *yaml.Node) error {
	var m map[string]any
	if err := v.Decode(&m); err != nil {
		return err
	}
	if s.Blocks == nil {
		s.Blocks = map[model.EngineName]map[string]any{}
	}
	s.Blocks[model.EngineName(k.Value)] = m
	s.blockKeys = append(s.blockKeys, k)
	return nil
}

// Block returns the settings block of engine name, made empty when the
// suite has none, so a command can add the environment's settings to it
// (those the engine applies: Registry.ApplyEnvironment).
func (s *Suite) Block(name model.EngineName) map[string]any {
	if s.Blocks[name] == nil {
		if s.Blocks == nil {
			s.Blocks = map[model.EngineName]map[string]any{}
		}
		s.Blocks[name] = map[string]any{}
	}
	return s.Blocks[name]
}

// checkBlocks refuses a top-level block that names no engine, as an
// unknown key.
func (s *Suite) checkBlocks(engines engine.Registry) error {
	for _, k := range s.blockKeys {
		if _, err := engines.Lookup(model.EngineName(k.Value)); err != nil {
			known := slices.Clone(globalKeys)
			for _, n := range engines.Names() {
				known = append(known, string(n))
			}
			return unknownKey(s.Source, k, known)
		}
	}
	return nil
}
