package run

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/storbench/storbench/internal/cluster"
)

// launch starts the plan's agents with its Launcher and returns them;
// close stops them all and notes what was left. It refuses, before the
// launcher starts anything, a phase wanting more hosts than it has agents,
// and, before any load, a host whose agent did not start (unless
// AllowPartial).
func (r *Runner) launch(ctx context.Context, p Plan) (*agentSet, error) {
	l := p.Agents.Launcher
	for i, lb := range p.Labels {
		if lb.Hosts <= l.Planned() {
			continue
		}
		if s, ok := l.(cluster.Sizer); ok {
			return nil, badInput(s.TooFew(p.Phases[i].Name, lb.Hosts))
		}
		return nil, badInputf("phase %s wants %d hosts, but %s starts %d agents", p.Phases[i].Name, lb.Hosts, l.Flag(), l.Planned())
	}
	self := r.Self
	if self == "" {
		var err error
		if self, err = os.Executable(); err != nil {
			return nil, badInputf("%s: cannot find this storbench binary: %v", l.Flag(), err)
		}
	}
	prefix := strings.TrimPrefix(strings.TrimPrefix(l.Flag(), "--launcher "), "--")
	started, err := l.Start(ctx, cluster.Launch{
		Token: oneRunToken(), Binary: self, Version: r.Version, Secrets: p.Secrets, SecretNames: r.Engines.SecretNames(), AllowEvents: p.Agents.AllowEvents,
		Logf: func(format string, args ...any) {
			r.Sink.Note(Note{Kind: NoteDiagnostic, Text: prefix + ": " + fmt.Sprintf(format, args...)})
		},
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, interruptedBeforeRun(ctx)
		}
		return nil, badInput(err)
	}
	agents, failed := started.Agents(), started.Failed()
	all := len(agents) + len(failed)
	stop := func() {
		for _, left := range started.Stop() {
			r.Sink.Note(Note{Kind: NotePlan, Text: l.Flag() + ": left running: " + left})
		}
	}
	if len(failed) > 0 {
		msg := l.Flag() + ": " + strings.Join(failed, "; ")
		if !p.Agents.AllowPartial {
			stop()
			return nil, badInputf("%s: the run was refused before any load (--allow-partial runs on the %d of %d agents that started)", msg, len(agents), all)
		}
		r.Sink.Note(Note{Kind: NotePlan, Text: fmt.Sprintf("%s; running on %d of %d agents (--allow-partial)", msg, len(agents), all)})
	}
	set := &agentSet{remote: true, close: stop}
	if e, ok := started.(cluster.Ender); ok {
		ended, why := e.Ended()
		set.ended, set.endErr = ended, &agentsEnded{why: why}
	}
	hn := hostname()
	for _, a := range agents {
		a.Controller, a.DropCaches = hn, p.Agents.DropCaches
		set.agents = append(set.agents, a)
	}
	return set, nil
}

// agentsEnded is why a run stopped when its launcher's agents went away on
// their own (cluster.Ender: the Slurm step or mpiexec job ended), in the
// launcher's words.
type agentsEnded struct{ why string }

func (e *agentsEnded) Error() string { return e.why }

// untilEnded returns ctx, cancelled with the set's endErr when its agents
// go away on their own (the run then ends as interrupted), and its
// cancel, which takes the cause.
func untilEnded(ctx context.Context, set *agentSet) (context.Context, context.CancelCauseFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	if set.ended == nil {
		return ctx, cancel
	}
	go func() {
		select {
		case <-set.ended:
			cancel(set.endErr)
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// connect connects the controller to the set's agents. A failure is bad
// input (the agents named cannot be reached), unless ctx ended or the
// agents' launcher ended meanwhile (endedMeanwhile): the run was then
// interrupted.
func connect(ctx context.Context, ctrl *cluster.Controller, set *agentSet) ([]cluster.Info, error) {
	infos, err := ctrl.Connect(ctx)
	if err == nil {
		return infos, nil
	}
	if ctx.Err() != nil {
		return nil, interruptedBeforeRun(ctx)
	}
	if err := endedMeanwhile(set, launcherEndWait); err != nil {
		return nil, err
	}
	return nil, badInputf("agents: %v", err)
}

// launcherEndWait is how long a run that could not reach its agents waits
// for their launcher's end (endedMeanwhile).
const launcherEndWait = 5 * time.Second

// endedMeanwhile is, after a failure to reach the set's agents, the
// error of their launcher's end when it ended meanwhile, else nil. An
// agent that dies with its job (a rank killed) refuses connections before
// the launcher sees the job end, so the end is awaited a while: up to
// wait.
func endedMeanwhile(set *agentSet, wait time.Duration) error {
	ended, ok := set.endErr.(*agentsEnded)
	if set.ended == nil || !ok {
		return nil
	}
	select {
	case <-set.ended:
		return ended.beforeRun()
	case <-time.After(wait):
		return nil
	}
}

// stepEnded reports that the set's agents went away on their own. When
// every agent stopped (scancel sends them SIGTERM: they return what they
// measured, clean up and exit) the phase may end before the step does: it
// then waits up to five seconds for the step.
func stepEnded(set *agentSet, lost int) bool {
	if set.ended == nil {
		return false
	}
	if lost >= len(set.agents) {
		select {
		case <-set.ended:
		case <-time.After(5 * time.Second):
		}
	}
	select {
	case <-set.ended:
		return true
	default:
		return false
	}
}
