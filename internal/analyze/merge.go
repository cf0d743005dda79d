package analyze

import (
	"fmt"
	"time"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
)

// MergeOptions say where a merge goes.
type MergeOptions struct {
	// Root receives the merged results folder.
	Root string
	// Now and CommandLine are recorded in the merged run.json.
	Now         time.Time
	CommandLine []string
	// Setup is called on the new folder before any phase is added (to set
	// its Renderers).
	Setup func(*results.Folder)
}

// Merge combines results folders recorded separately on several clients
// (storbench runs started by hand at the same time) into one, as if one run
// had used every client. Phases are matched by name. Each phase keeps only
// the time in which every client was running: the per-second series are
// cut to that window and the totals' throughput is what was done inside
// it. Histograms are added, so percentiles stay exact (they cover each
// client's whole phase); every host's own result is kept.
func Merge(inputs []string, o MergeOptions) (*results.Folder, error) {
	if len(inputs) < 2 {
		return nil, fmt.Errorf("merge needs at least two results folders")
	}
	var ins []mergeInput
	for _, dir := range inputs {
		run, err := results.ReadRunInfo(dir)
		if err != nil {
			return nil, err
		}
		_, ph, err := ReadPhases(dir)
		if err != nil {
			return nil, err
		}
		ins = append(ins, mergeInput{dir, run, ph})
	}
	order, byName, err := mergeGroups(ins)
	if err != nil {
		return nil, err
	}
	var agents []model.AgentInfo
	for _, in := range ins {
		agents = append(agents, in.run.Agents...)
	}
	first := ins[0].run
	f, err := results.Create(o.Root, results.RunInfo{
		RunHead:     model.RunHead{RunID: results.NewRunID(o.Now), Name: "merged-" + first.Name, StartedAt: first.StartedAt},
		CommandLine: o.CommandLine, Versions: first.Versions, Agents: agents, Targets: first.Targets, Plan: first.Plan,
		Settings: map[string]any{"merged_from": inputs},
	})
	if err != nil {
		return nil, err
	}
	if o.Setup != nil {
		o.Setup(f)
	}
	status := results.StatusCompleted
	for _, name := range order {
		group := byName[name]
		var hosts []*model.HostResult
		for _, p := range group {
			hosts = append(hosts, p.Hosts...)
			if p.Summary.Status != results.StatusCompleted {
				status = p.Summary.Status
			}
		}
		ps, err := mergePhase(name, group[0].Summary.Engine, group[0].Summary.Formats, hosts)
		if err != nil {
			_ = f.Finish(results.StatusFailed, err)
			return f, err
		}
		ps.Report, ps.RateUnit, ps.Group, ps.Point, ps.Iteration = group[0].Summary.Report, group[0].Summary.RateUnit, group[0].Summary.Group, group[0].Summary.Point, group[0].Summary.Iteration
		if err := f.AddPhase(ps, hosts); err != nil {
			return f, err
		}
	}
	return f, f.Finish(status, nil)
}

// mergeInput is one results folder given to Merge.
type mergeInput struct {
	dir    string
	run    *results.RunInfo
	phases []PhaseData
}

// mergeGroups groups the inputs' phases by name, in the order they first
// appear. It refuses one run given twice (or a copy of it), a host in a
// phase of two inputs (either would count a client twice) and an input
// with no phase in common with the others.
func mergeGroups(ins []mergeInput) ([]string, map[string][]PhaseData, error) {
	seenRun := map[string]string{}
	for _, in := range ins {
		if prev, ok := seenRun[in.run.RunID]; ok {
			return nil, nil, fmt.Errorf("merge: %s and %s are the same run (%s): merging it twice would double every rate", prev, in.dir, in.run.RunID)
		}
		seenRun[in.run.RunID] = in.dir
	}
	var order []string
	byName := map[string][]PhaseData{}
	hostIn := map[string]map[string]string{} // phase -> host -> input
	shares := make([]bool, len(ins))
	firstIn := map[string]int{}
	for i, in := range ins {
		for _, p := range in.phases {
			name := p.Summary.Name
			if j, ok := firstIn[name]; !ok {
				order = append(order, name)
				firstIn[name] = i
				hostIn[name] = map[string]string{}
			} else if j != i {
				shares[i], shares[j] = true, true
			}
			for _, h := range p.Hosts {
				if prev, ok := hostIn[name][h.Host]; ok {
					return nil, nil, fmt.Errorf("merge: host %s is in both %s and %s for phase %s: one client counted twice would double its rates (clients with one name need distinct host names)", h.Host, prev, in.dir, name)
				}
				hostIn[name][h.Host] = in.dir
			}
			byName[name] = append(byName[name], p)
		}
	}
	for i, in := range ins {
		if !shares[i] {
			return nil, nil, fmt.Errorf("merge: %s has no phase in common with the other results (phases are matched by name)", in.dir)
		}
	}
	return order, byName, nil
}

// mergePhase cuts every host's series to the common window and builds the
// phase's summary with totals over that window.
func mergePhase(name string, eng model.EngineName, formats []string, hosts []*model.HostResult) (results.PhaseSummary, error) {
	for _, h := range hosts {
		if len(h.Series) == 0 {
			return results.PhaseSummary{}, fmt.Errorf("phase %s: host %s has no per-second series to find the common time", name, h.Host)
		}
	}
	w, sums := results.CommonWindow(hosts)
	if w == nil {
		return results.PhaseSummary{}, fmt.Errorf("phase %s: the results do not overlap in time (start them together, e.g. s3 --syncstart)", name)
	}
	for _, h := range hosts {
		h.Series = results.CutSeries(h.Series, *w)
	}
	ps := results.BuildPhase(name, eng, formats, hosts)
	d := w.DurationS
	ps.Window = w
	for i := range ps.Ops {
		o := &ps.Ops[i]
		if o.Rate != nil {
			continue // md: rates per iteration, mdtest's way
		}
		o.DurationS, o.Rule = d, results.RuleCommonWindow
		o.BwBytesPerS, o.OpsPerS = results.WindowRates(sums[o.Op], o.Bytes, d)
	}
	return ps, nil
}
