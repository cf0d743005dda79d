package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/storbench/storbench/internal/analyze"
	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/figures"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/report"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/run"
	"github.com/storbench/storbench/internal/safetext"
	"github.com/storbench/storbench/internal/units"
)

// runPlan runs a plan with a Runner that prints to the command's output
// (textSink) and to what w asks for (live stream, metrics), then prints
// how the run ended, or with --json its summary.json.
func runPlan(ctx context.Context, st *State, w WatchOptions, p run.Plan) (*run.Result, error) {
	defer loadGC(st)()
	p.CommandLine = st.recordedArgs()
	if err := w.limits(st, &p); err != nil {
		return nil, err
	}
	cat, err := w.Catalog.prepare(ctx, st, &p)
	if err != nil {
		return nil, err
	}
	watched, err := w.start(ctx, st, p)
	if err != nil {
		cat.add(ctx, st, nil)
		return nil, err
	}
	text := w.textState(st)
	prog := newProgress(text, p.Phases)
	prog.local = runsHere(p.Agents)
	sink := run.FanOut{&textSink{st: text, prog: prog}}
	r := &run.Runner{Engines: st.Engines, Sink: append(sink, watched.sinks...), Version: version(), Now: st.Now, Renderers: st.renderers(),
		Analysis: run.Analysis{EventImpacts: analyze.EventImpacts, ScaleRules: analyze.ScaleRules()}}
	warnAddressLimit(text, "storbench")
	stopping := interruptWatch(ctx, text, prog)
	res, err := r.Run(ctx, p)
	stopping()
	prog.stopLayout()
	watched.close(ctx, text)
	cat.add(ctx, st, res)
	if res != nil {
		report.SweepText(text.Stdout, &res.Summary)
		report.ScaleText(text.Stdout, &res.Summary)
		if len(res.Summary.NotRun) > 0 {
			fmt.Fprintf(text.Stdout, "\n%s\n", report.NotRunNote(&res.Summary))
		}
		fmt.Fprintf(text.Stdout, "\nrun %s %s; results in %s\n", res.Summary.RunID, res.Summary.Status, res.Folder.Path)
		if w.JSON {
			if jerr := printJSON(st, res); jerr != nil && err == nil {
				err = jerr
			}
		}
		if w.Format != "" {
			if ferr := printFieldFormat(st.Stdout, res.Folder.Path, w.Format); ferr != nil && err == nil {
				err = ferr
			}
		}
	}
	return res, err
}

// limits reads --limit into p and checks every limit of p against its
// phases, before anything is opened or started: a malformed limit, or one
// on a figure the run will not have, is bad input.
func (o WatchOptions) limits(st *State, p *run.Plan) error {
	for _, s := range o.Limits {
		l, err := figures.ParseLimit(s)
		if err != nil {
			return usageErr("--limit: %v", err)
		}
		p.Limits = append(p.Limits, l)
	}
	_, err := run.PhaseLimits(st.Engines, *p)
	return err
}

// runsHere says a plan runs on this machine alone, in-process (as
// run.Runner decides).
func runsHere(a run.Agents) bool {
	return a.Launcher == nil && (len(a.Hosts) == 0 || (len(a.Hosts) == 1 && cluster.IsLocal(a.Hosts[0].String())))
}

// textSink prints a run as it goes: a line when it starts, the live
// progress line of each phase, each phase's figures when it ends, notes.
type textSink struct {
	st   *State
	prog *progress
}

var _ run.Sink = (*textSink)(nil)

func (s *textSink) Started(runID, folder string) {
	s.prog.runID = runID
	fmt.Fprintf(s.st.Stdout, "storbench %s: run %s, results in %s\n", version(), runID, folder)
}

func (s *textSink) PhaseStarted(ph engine.Phase, hosts []string) {
	fmt.Fprintf(s.st.Stdout, "\nstarting %s phase %s on %s:\n", ph.Engine, ph.Name, describeHosts(hosts))
	s.prog.start(ph)
	s.prog.watchLayout(ph, hosts)
}

func (s *textSink) Progress(p cluster.Progress) { s.prog.update(p) }

func (s *textSink) Note(n run.Note) {
	if n.Kind == run.NotePlan {
		fmt.Fprintf(s.st.Stdout, "note: %s\n", n.Text)
		return
	}
	s.st.logf(0, "%s", n.Text)
}

// PhaseDone prints the phase's figures (the totals, then each host's when
// several ran), who was stopped or unreachable, and what was left behind.
func (s *textSink) PhaseDone(d run.PhaseDone) {
	s.prog.done()
	st, ps := s.st, d.Summary
	if !d.Ran {
		leftoverLines(st, ps.Leftovers)
		return
	}
	if ps.StoppedBy == model.StoppedByAutoterm {
		fmt.Fprintf(st.Stdout, "    stopped early: the total throughput of all hosts was stable (autoterm)\n")
	}
	if t := ps.Timing; t != nil {
		st.logf(1, "    stages: prepare %.2fs, run %.2fs, cleanup %.2fs", t.PrepareS, t.RunS, t.CleanupS)
	}
	report.PhaseText(st.Stdout, ps, d.Hosts)
	if t := ps.StarvedText(); t != "" {
		fmt.Fprintf(st.Stdout, "    %s\n", safetext.Escape(t))
	}
	for _, v := range ps.ClientLimits {
		if v.Kind != model.VerdictStarved { // said just above
			fmt.Fprintf(st.Stdout, "    host %s: %s\n", safetext.Escape(v.Host), safetext.Escape(v.Text))
		}
	}
	report.LimitsText(st.Stdout, ps)
	stonewallLine(st, ps.Stonewall)
	hostLines(st, ps)
	unreachableLines(st, ps)
	for _, h := range ps.StoppedHosts {
		fmt.Fprintf(st.Stdout, "    host %s: %s; its result so far is kept, and later phases run without it\n", h, d.HostErrors[h])
	}
	leftoverLines(st, ps.Leftovers)
}

// hostLines prints each host's headline figures under a phase's totals, as
// wekatester does, when more than one host ran.
func hostLines(st *State, ps *results.PhaseSummary) {
	if len(ps.PerHost) < 2 {
		return
	}
	for _, h := range ps.PerHost {
		if h.Error != "" && len(h.Ops) == 0 {
			fmt.Fprintf(st.Stdout, "    host %s: %s\n", h.Host, h.Error)
			continue
		}
		var parts []string
		for _, o := range h.Ops {
			s := o.Op
			if o.OpsPerS != nil {
				s += " " + units.Rate(*o.OpsPerS, "op/s")
			}
			if o.BwBytesPerS != nil {
				s += " " + units.Bandwidth(*o.BwBytesPerS)
			}
			parts = append(parts, s)
		}
		fmt.Fprintf(st.Stdout, "    host %s: %s\n", h.Host, strings.Join(parts, ", "))
	}
	if hasRule(ps, results.RuleFirstStartLastEnd) {
		skew := ""
		if ps.StartSkewS != nil {
			skew = fmt.Sprintf("; the hosts started within %.1f ms", *ps.StartSkewS*1e3)
		}
		fmt.Fprintf(st.Stdout, "    totals: all bytes and operations over the time from the first host's start to the last host's end (IOR's rule)%s\n", skew)
	}
	if ps.Window != nil {
		fmt.Fprintf(st.Stdout, "    the %d hosts all ran for %.1fs: summary.json gives the throughput inside that time as common_window\n", len(ps.PerHost), ps.Window.DurationS)
	}
	if hasRule(ps, results.RuleMdtest) {
		fmt.Fprintf(st.Stdout, "    totals: each operation started on all %d hosts at once; its rate is all items over the time from that start to the end of the slowest host (mdtest)\n", len(ps.PerHost))
	}
}

// hasRule says some total of the phase follows rule (results.Rule*), as
// its summary records how each total was taken.
func hasRule(ps *results.PhaseSummary, rule string) bool {
	return slices.ContainsFunc(ps.Ops, func(o results.OpSummary) bool { return o.Rule == rule })
}

// stonewallLine prints a stonewall write's figures at the deadline, as
// IOR prints its "stonewalling pairs accessed min: ... max: ..." line.
func stonewallLine(st *State, sw *results.StonewallSummary) {
	if sw == nil {
		return
	}
	if !sw.Hit {
		fmt.Fprintf(st.Stdout, "    stonewall %gs: not hit, every job wrote its size before it\n", sw.DeadlineS)
		return
	}
	at := units.Bytes(float64(sw.Bytes))
	if sw.BwBytesPerS != nil {
		at += fmt.Sprintf(" in %.2fs, %s", sw.DurationS, units.Bandwidth(*sw.BwBytesPerS))
	}
	wear := "no job needed a wear-out"
	if sw.WearOutS != nil {
		wear = fmt.Sprintf("wear-out %s in %.2fs", units.Bytes(float64(sw.WearOutBytes)), *sw.WearOutS)
	}
	fmt.Fprintf(st.Stdout, "    stonewall %gs: %s by the deadline (%d jobs, %s to %s each); every job wrote %d blocks of %s (%s)\n",
		sw.DeadlineS, at, sw.Jobs, units.Bytes(float64(sw.MinJobBytes)), units.Bytes(float64(sw.MaxJobBytes)), sw.WearOutBlocks, units.Bytes(float64(sw.BlockBytes)), wear)
}

// describeHosts names the hosts of a phase in its "starting" line.
func describeHosts(hosts []string) string {
	if len(hosts) > 4 {
		return fmt.Sprintf("%d hosts", len(hosts))
	}
	return strings.Join(hosts, ", ")
}

// leftoverLines prints what cleanup left, one line per host and place.
func leftoverLines(st *State, left []engine.Leftover) {
	for _, l := range left {
		fmt.Fprintf(st.Stdout, "    left behind on %s: %s\n", l.Host, l.Text())
	}
}

// unreachableLines prints, per host and endpoint, how long the endpoint
// could not be reached during the phase.
func unreachableLines(st *State, ps *results.PhaseSummary) {
	for _, h := range ps.PerHost {
		for _, u := range h.Unreachable {
			fmt.Fprintf(st.Stdout, "    %s could not reach %s for %.1fs (%d connection errors)\n", h.Host, u.Endpoint, u.Seconds, u.Errors)
		}
	}
}
