package run

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/events"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/suite"
)

// checkEvents refuses, before any load, events the run cannot carry out:
// a host that is not one of the phase's agents, a command on an agent
// not started with --allow-events, a cache drop without root. An event's
// host may be written as the agent's name or its address (host:port); it
// is kept as the name.
func checkEvents(p *Plan, infos []cluster.Info) error {
	names := make([]string, len(infos))
	for i, in := range infos {
		names[i] = in.Host
	}
	// How an agent comes to allow event commands: its own flag, or, for
	// the agents this run starts, the run's.
	allow := "start it with storbench agent --allow-events"
	if l := p.Agents.Launcher; l != nil {
		allow = "give storbench run --allow-events, which starts the agents of " + l.Flag() + " allowing them"
	}
	p.Labels = slices.Clone(p.Labels)
	for i := range p.Labels {
		if i >= len(p.Phases) || len(p.Labels[i].Events) == 0 {
			continue
		}
		l := &p.Labels[i]
		n := len(infos)
		if l.Hosts > 0 {
			n = min(n, l.Hosts)
		}
		l.Events = slices.Clone(l.Events)
		for k := range l.Events {
			if err := checkEvent(p.Phases[i].Name, &l.Events[k], infos[:n], infos, names, allow); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkEvent checks one event of phase against the agents that run it
// (of all the run's), naming its host as the run does; allow says how an
// agent comes to run event commands.
func checkEvent(phase string, e *events.Spec, infos, all []cluster.Info, names []string, allow string) error {
	what := fmt.Sprintf("phase %s: event %s (line %d)", phase, e.Name, e.Line)
	if e.Host == "" {
		if e.Action == model.EventDropCaches && os.Geteuid() != 0 {
			return badInputf("%s: drop_caches needs the controller to run as root", what)
		}
		return nil
	}
	is := func(in cluster.Info) bool { return in.Host == e.Host || in.Addr != "" && in.Addr == e.Host }
	at := slices.IndexFunc(infos, is)
	switch {
	case at < 0 && slices.ContainsFunc(all, is):
		return badInputf("%s: host %s does not run this phase (it runs on %s)", what, e.Host, strings.Join(names[:len(infos)], ", "))
	case at < 0:
		return badInputf("%s: host %s is not one of the run's agents (%s)", what, e.Host, strings.Join(names, ", "))
	case e.Action == model.EventCommand && !infos[at].AllowEvents:
		return badInputf("%s: agent %s does not run event commands: %s", what, e.Host, allow)
	case e.Action == model.EventDropCaches && !infos[at].Root:
		return badInputf("%s: drop_caches needs agent %s to run as root", what, e.Host)
	}
	e.Host = infos[at].Host
	return nil
}

// scheduleEvents sets the controller to start the phase's events with its
// load; the function returned gives their records once the phase ended
// (none when the load never started).
func (pr *phases) scheduleEvents(ph engine.Phase, label suite.Labels) func() []model.PhaseEvent {
	if len(label.Events) == 0 {
		return func() []model.PhaseEvent { return nil }
	}
	planned, _ := pr.r.Engines.Planned(ph)
	env := []string{"STORBENCH_RUN_ID=" + pr.folder.RunInfo().RunID, "STORBENCH_PHASE=" + ph.Name}
	var sched *events.Schedule
	pr.ctrl.AtStart = func(ctx context.Context, start time.Time, agents []cluster.Agent) func() {
		hosts := func(name string) (events.Executor, bool) {
			for _, a := range agents {
				if ea, ok := a.(cluster.EventAgent); ok && a.Name() == name {
					return ea.Event, true
				}
			}
			return nil, false
		}
		local := func(ctx context.Context, a events.Action) events.Outcome { return cluster.Act(ctx, a, true) }
		sched = events.Start(ctx, label.Events, planned, start, local, hosts, env)
		return func() { sched.Stop() }
	}
	return func() []model.PhaseEvent {
		pr.ctrl.AtStart = nil
		return sched.Stop()
	}
}

// recordEvents adds the phase's events, with what they did to its
// figures, to its summary, writes them to the phase's events.json and
// says each in a note.
func (pr *phases) recordEvents(ps *results.PhaseSummary, evs []model.PhaseEvent, hosts []*model.HostResult) {
	if len(evs) == 0 {
		return
	}
	ps.Events = evs
	if f := pr.r.Analysis.EventImpacts; f != nil {
		ps.Events = f(hosts, evs)
	}
	for _, e := range ps.Events {
		pr.r.Sink.Note(Note{Kind: NotePlan, Text: EventLine(e)})
	}
}

// saveEvents writes events.json in the phase's folder, which it makes
// when no host's result made it (the phase's only hosts were lost).
func (pr *phases) saveEvents(phaseDir string, evs []model.PhaseEvent) error {
	if len(evs) == 0 {
		return nil
	}
	b, err := json.MarshalIndent(evs, "", "  ")
	if err != nil {
		return err
	}
	name := filepath.Join(phaseDir, "events.json")
	if err := os.MkdirAll(filepath.Join(pr.folder.Path, phaseDir), 0o755); err != nil {
		return pr.folder.Save(name, nil) // says what could not be saved, and why
	}
	return pr.folder.Save(name, append(b, '\n'))
}

// EventLine says what an event did, in a line: when it ran, where, and
// how it ended.
func EventLine(e model.PhaseEvent) string {
	on := "controller"
	if e.Host != "" {
		on = e.Host
	}
	if e.StartS == nil {
		return fmt.Sprintf("event %s (due at %.1fs on %s): %s", e.Name, e.PlannedS, on, e.Error)
	}
	how := "done"
	if e.Exit != nil {
		how = fmt.Sprintf("exit %d", *e.Exit)
	}
	if e.Error != "" {
		how = "failed: " + e.Error
	}
	return fmt.Sprintf("event %s at %.1fs-%.1fs on %s: %s", e.Name, *e.StartS, *e.EndS, on, how)
}
