package cli

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/suite"
)

// scaleFlag registers --scale on a command whose engine scales param
// (jobs, concurrent, workers), with iodepth too for fio.
func scaleFlag(f *pflag.FlagSet, to *string, params string) {
	f.StringVar(to, "scale", "", "step up the load until the rate stops growing and report the knee: "+params+
		" or hosts (the first N agents), doubling (jobs=1..64) or by a fixed step (jobs=1..64:+4); see docs/run.md")
}

// scalePhases builds a command line's scale: one step per load of the
// --scale text, each a phase (or the phases build makes of the
// settings) named "<group> <param>=<load>", with the labels that make
// the run stop when the rate flattens.
func scalePhases(st *State, eng model.EngineName, text, group string, params map[string]any, build func(map[string]any) ([]engine.Phase, error)) ([]engine.Phase, []suite.Labels, error) {
	sc, err := suite.ParseScale(text)
	if err == nil {
		err = suite.CheckScale(st.Engines, eng, sc)
	}
	if err != nil {
		return nil, nil, usageErr("--%v", err)
	}
	var phases []engine.Phase
	var labels []suite.Labels
	for _, load := range sc.Loads() {
		p := maps.Clone(params)
		l := suite.Labels{Group: group, Iteration: 1, Iterations: 1, Scale: sc.Step(load), Point: []suite.KV{{Key: sc.Param, Value: strconv.Itoa(load)}}}
		switch {
		case sc.Param == "hosts":
			l.Hosts = load
		case slices.Contains(st.Engines.Info(eng).ParamKeys, sc.Key()):
			p[sc.Key()] = load
		default:
			// A job option of an engine that expands its own entries
			// (fio's iodepth) goes under options:, where a suite's scale
			// sets it too (as a matrix key); at the top it was refused as
			// an unknown setting, so --scale iodepth never ran.
			opts := map[string]any{}
			if o, ok := p["options"].(map[string]any); ok {
				opts = maps.Clone(o)
			}
			opts[sc.Key()] = load
			p["options"] = opts
		}
		ph, err := build(p)
		if err != nil {
			return nil, nil, asUsage(fmt.Errorf("--scale %s, the step %s=%d: %w", sc, sc.Param, load, err))
		}
		if len(ph) != 1 {
			return nil, nil, usageErr("--scale steps one job; this runs %d at each step: give one job (--rw, or a workload of one job file)", len(ph))
		}
		ph[0].Name = fmt.Sprintf("%s %s=%d", group, sc.Param, load)
		phases, labels = append(phases, ph[0]), append(labels, l)
	}
	return phases, labels, nil
}
