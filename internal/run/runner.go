package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/figures"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/suite"
)

// Runner runs plans. Its fields are what a run needs from the program
// around it, given explicitly so a test runs plans in-process.
type Runner struct {
	// Engines are the engines the phases name.
	Engines engine.Registry
	// Sink hears what the run does.
	Sink Sink
	// Version is storbench's version, recorded in run.json and reported
	// by the in-process agent.
	Version string
	// Now is the clock of run ids and start times (time.Now when nil).
	Now func() time.Time
	// Self is this storbench binary, which --ssh copies to hosts that lack
	// it (os.Executable when empty).
	Self string
	// Renderers make the results folder's rendered files (summary.md,
	// report.html: report.Renderers); a run writes data and leaves the
	// rendering to them. None: the folder holds data only.
	Renderers []results.Renderer
	// Analysis is what the run asks of the analysis of its figures as it
	// goes (analyze's: the command line hands it over); a run writes data
	// and does not analyse it itself.
	Analysis Analysis
}

// Analysis is what a run asks of the analysis of its figures while it
// runs. A part left unset is not asked: events are recorded without their
// impact, and a scale stops only at a rule of its plan or at its range's
// end.
type Analysis struct {
	// EventImpacts gives each of a phase's events what it did to the
	// hosts' figures (analyze.EventImpacts).
	EventImpacts func(hosts []*model.HostResult, evs []model.PhaseEvent) []model.PhaseEvent
	// ScaleRules are the default stopping rules of a scale
	// (analyze.ScaleRules), asked before the plan's own.
	ScaleRules []ScaleRule
}

// ScaleRule looks at the steps of a scale so far, the last just run, and
// says whether the scale stops there (analyze.ScaleRule).
type ScaleRule = func(steps []results.PhaseData) model.ScaleStop

// Run runs every phase of the plan through a controller and its agents,
// writing the results folder as it goes. It stops at the first phase that
// fails; what finished stays in the folder, and run.json says what
// happened. Its error is an *Error whose Code says whether the plan was
// bad input (nothing ran), the run failed, or it was interrupted.
func (r *Runner) Run(ctx context.Context, p Plan) (*Result, error) {
	limits, err := r.precheck(p)
	if err != nil {
		return nil, err
	}
	slotted, notes, err := r.Engines.WithSlots(p.Phases, slotsOf(p.Agents.Hosts))
	if err != nil {
		return nil, badInput(err)
	}
	p.Phases, p.Notes = slotted, append(p.Notes, notes...)
	set, err := r.agents(ctx, p)
	if err != nil {
		return nil, err
	}
	defer set.close()
	// Phases that read what earlier ones wrote, checked across the plan
	// with every phase's host count (a suite did so without them).
	if p.Phases, err = r.Engines.Link(p.Phases, phaseHosts(p, len(set.agents))); err != nil {
		return nil, badInput(err)
	}
	ctx, stop := untilEnded(ctx, set)
	defer stop(nil)
	if err := r.check(ctx, p, set); err != nil {
		return nil, err
	}
	ctrl := &cluster.Controller{
		Agents: set.agents, Engines: r.Engines, Name: hostname(), DropCaches: p.Agents.DropCaches,
		MaxClockOffset: p.Agents.MaxClockOffset, Progress: r.Sink.Progress, StartAt: p.StartAt, All: set.agents,
	}
	if set.remote {
		ctrl.Lead = RemoteLead
	}
	infos, err := connect(ctx, ctrl, set)
	if err != nil {
		return nil, err
	}
	for i, l := range p.Labels {
		if l.Hosts > len(set.agents) {
			return nil, badInputf("phase %s wants %d hosts, but the run has %d agents", p.Phases[i].Name, l.Hosts, len(set.agents))
		}
	}
	if err := checkEvents(&p, infos); err != nil {
		return nil, err
	}
	if err := checkAgentTools(p, r, infos); err != nil {
		return nil, err
	}
	runID := results.NewRunID(r.now())
	// Each host's free space and memory, before anything is made.
	checked, err := checkResources(ctx, p, ctrl, runID)
	if err != nil {
		return nil, err
	}
	p.Notes = append(p.Notes, checked...)
	areas, err := r.proveShared(ctx, p, ctrl, set, runID)
	if err != nil {
		return nil, err
	}
	for _, a := range areas {
		if a.hosts > 1 {
			p.Notes = append(p.Notes, fmt.Sprintf("the %d hosts of the shared phases see one file system at %s (each read back every host's probe file)", a.hosts, a.dir))
		}
	}
	targets, stale := r.targets(ctx, ctrl, runID, p)
	p.Notes = append(p.Notes, stale...)
	folder, err := r.create(p, infos, runID, targets)
	if err != nil {
		r.unpin(ctx, ctrl, runID, areas)
		return nil, badInput(err)
	}
	r.Sink.Started(folder.RunInfo().RunID, folder.Path)
	for _, n := range p.Notes {
		r.Sink.Note(Note{Kind: NotePlan, Text: n})
	}
	pr := &phases{r: r, plan: p, ctrl: ctrl, set: set, folder: folder, areas: areas, limits: limits}
	return r.runPhases(ctx, pr, stop)
}

// precheck refuses a plan that is bad input on its face, before any agent
// is asked anything, and returns the limits on each phase (PhaseLimits).
func (r *Runner) precheck(p Plan) ([][]figures.Limit, error) {
	if len(p.Phases) == 0 {
		return nil, badInputf("nothing to run")
	}
	if err := model.CheckRunName(p.Name); err != nil {
		return nil, badInputf("the run's name %v", err)
	}
	if p.MaxErrorShare < 0 || p.MaxErrorShare > 100 {
		return nil, badInputf("--max-error-share %g: give a percentage from 0 to 100", p.MaxErrorShare)
	}
	return PhaseLimits(r.Engines, p)
}

// phaseHosts is how many hosts each phase of p runs on, of agents.
func phaseHosts(p Plan, agents int) []int {
	hosts := make([]int, len(p.Phases))
	for i := range hosts {
		hosts[i] = agents
		if i < len(p.Labels) && p.Labels[i].Hosts > 0 {
			hosts[i] = min(hosts[i], p.Labels[i].Hosts)
		}
	}
	return hosts
}

// targets asks each host what file system its target directories are on
// (its own mount namespace, its own client), and what runs killed earlier
// left there (staleNotes: a note for each).
func (r *Runner) targets(ctx context.Context, ctrl *cluster.Controller, runID string, p Plan) ([]results.Target, []string) {
	dirs := p.Dirs
	if len(dirs) == 0 {
		return nil, nil
	}
	targets, stale, err := ctrl.Targets(ctx, runID, dirs, p.RemoveStale)
	if err == nil {
		return targets, staleNotes(stale, len(ctrl.Agents) > 1, p.RemoveStale)
	}
	// What file system the hosts see is worth recording, not worth
	// refusing the run for: run.json keeps the controller's view.
	r.Sink.Note(Note{Kind: NoteDiagnostic, Text: "the hosts did not say what file system their target is on (" + err.Error() + "); run.json records this machine's"})
	targets = nil
	for _, d := range dirs {
		targets = append(targets, results.TargetOf(d))
	}
	return targets, nil
}

// runPhases runs every phase into the results folder and ends the run;
// stop ends ctx when the agents' launcher ended.
func (r *Runner) runPhases(ctx context.Context, pr *phases, stop context.CancelCauseFunc) (*Result, error) {
	set, folder := pr.set, pr.folder
	runErr := pr.runAll(ctx)
	if stepEnded(set, len(pr.ctrl.Lost())) {
		stop(set.endErr)
	}
	if set.endErr != nil && errors.Is(context.Cause(ctx), set.endErr) {
		r.Sink.Note(Note{Kind: NotePlan, Text: set.endErr.Error() + ": the run stopped"})
	}
	// Bad input only the target could tell (an S3 prefix with no objects)
	// found before any load: as for any bad input, no results folder is
	// left; it would hold nothing measured.
	var re *Error
	if errors.As(runErr, &re) && re.Code == BadInput && !pr.ranLoad && len(pr.leftovers) == 0 && ctx.Err() == nil {
		if err := folder.Remove(); err == nil {
			r.Sink.Note(Note{Kind: NotePlan, Text: fmt.Sprintf("nothing ran: %s removed", folder.Path)})
			return nil, runErr
		}
	}
	res, err := r.finish(ctx, folder, runErr)
	if err == nil && len(pr.notMet) > 0 {
		// Every phase ran and the results are written: only now does
		// a limit fail the run, and a failure or an interrupt wins.
		return res, limitsError(pr.notMet)
	}
	return res, err
}

func (r *Runner) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// area is a directory whose shared area (DIR/storbench/<run id>/shared)
// phases of the run work in, and the most hosts any of them runs on.
type area struct {
	dir   string
	hosts int
	phase string // the first phase that works there
}

// proveShared finds the directories whose shared area a phase works in
// (engine.Plan.SharedDir) and, before any phase runs, proves that the hosts of
// those phases see one file system at each: a host that sees another is
// named, and the run refused as bad input, with nothing created.
func (r *Runner) proveShared(ctx context.Context, p Plan, ctrl *cluster.Controller, set *agentSet, runID string) ([]area, error) {
	areas := r.sharedAreas(p, set)
	var pinned []area
	for _, a := range areas {
		var err error
		switch {
		case a.hosts >= 2:
			err = ctrl.ProveShared(ctx, runID, a.dir, set.agents[:a.hosts])
		case len(set.agents) > 1:
			err = ctrl.PinArea(ctx, runID, a.dir)
		default:
			continue // one host shares a directory with itself
		}
		if err != nil {
			r.unpin(ctx, ctrl, runID, pinned)
			return nil, sharedErr(ctx, a, err)
		}
		pinned = append(pinned, a)
	}
	return areas, nil
}

// sharedAreas finds the directories whose shared area a phase works in
// (engine.Plan.SharedDir), with the most hosts a phase there runs on; on
// several hosts, every other target directory too (hosts 0: no probe),
// whose run levels one host makes (Controller.PinArea).
func (r *Runner) sharedAreas(p Plan, set *agentSet) []area {
	var areas []area
	for i, ph := range p.Phases {
		n := len(set.agents)
		if i < len(p.Labels) && p.Labels[i].Hosts > 0 {
			n = min(n, p.Labels[i].Hosts)
		}
		dir, ok := r.Engines.SharedDir(ph, n)
		if !ok {
			continue
		}
		at := slices.IndexFunc(areas, func(a area) bool { return a.dir == dir })
		if at < 0 {
			areas = append(areas, area{dir: dir, phase: ph.Name})
			at = len(areas) - 1
		}
		areas[at].hosts = max(areas[at].hosts, n)
	}
	if len(set.agents) > 1 {
		for _, d := range p.Dirs {
			if !slices.ContainsFunc(areas, func(a area) bool { return a.dir == d }) {
				areas = append(areas, area{dir: d})
			}
		}
	}
	return areas
}

// sharedErr is the run's error when the probe of a, or making its area,
// failed.
func sharedErr(ctx context.Context, a area, err error) error {
	var ns *cluster.NotSharedError
	switch {
	case ctx.Err() != nil:
		return interruptedBeforeRun(ctx)
	case errors.Is(err, errors.ErrUnsupported) && a.phase == "":
		return badInput(err)
	case errors.As(err, &ns) || errors.Is(err, errors.ErrUnsupported):
		return badInputf("phase %s needs its hosts to share one file system: %v", a.phase, err)
	case a.phase == "":
		return &Error{Code: Failed, Err: fmt.Errorf("making the run's directory in %s: %v", a.dir, err)}
	}
	// No verdict: a host or the file system failed (ESTALE, EIO, a lost
	// agent). That is no proof they do not share, and no bad input: the
	// run fails, nothing ran.
	return &Error{Code: Failed, Err: fmt.Errorf("phase %s needs its hosts to share one file system, and the probe of %s failed before it could tell: %v", a.phase, a.dir, err)}
}

// unpin removes the shared areas made and pinned (ProveShared, PinArea),
// when the run stops before its first phase.
func (r *Runner) unpin(ctx context.Context, ctrl *cluster.Controller, runID string, areas []area) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	for _, a := range areas {
		_ = ctrl.RemoveShared(cctx, runID, a.dir)
	}
}

// check refuses, before anything is created, what would fail at once:
// target directories, phases their engine refuses, fio job files fio
// rejects, benchdata files that cannot be made. Directories and fio are
// checked here only for this machine; remote agents check their own when
// preparing.
func (r *Runner) check(ctx context.Context, p Plan, set *agentSet) error {
	if p.BenchdataInFolder && (set.remote || len(set.agents) != 1) {
		return badInputf("--full keeps every request in the results folder of a local run; with agents use --benchdata PATH (written on each agent)")
	}
	if set.local != nil {
		for _, d := range p.Dirs {
			if d == set.local.Dir.Run && set.local.Dir.At != "" {
				d = set.local.Dir.At // this machine's own path for it
			}
			if err := engine.CheckDir(d); err != nil {
				return badInput(err)
			}
		}
	}
	for _, ph := range p.Phases {
		if ctx.Err() != nil {
			return interruptedBeforeRun(ctx)
		}
		if err := r.Engines.Validate(ph); err != nil {
			return badInputf("phase %s: %v", ph.Name, err)
		}
	}
	// What engines check across the plan (trees made and removed, job
	// files through fio's own parser), before a results folder exists: a
	// plan they refuse is bad input, not a failed run.
	env := engine.CheckEnv{Keep: p.Keep, AllowExec: p.AllowExec, Tools: p.Tools, Local: set.local != nil}
	if err := r.Engines.CheckPlan(ctx, env, p.Phases); err != nil {
		if ctx.Err() != nil {
			return interruptedBeforeRun(ctx)
		}
		return badInput(err)
	}
	return nil
}

// create makes the results folder and its run.json.
func (r *Runner) create(p Plan, infos []cluster.Info, runID string, targets []results.Target) (*results.Folder, error) {
	root := p.ResultsRoot
	if root == "" {
		root = "results"
	}
	now := r.now
	plan := make([]engine.Phase, len(p.Phases))
	for i, ph := range p.Phases {
		plan[i] = r.Engines.Redacted(ph)
	}
	info := infos[0]
	if p.Fingerprint != nil { // the hosts that answered, not those asked for
		fp := *p.Fingerprint
		fp.Hosts = len(infos)
		p.Fingerprint = &fp
	}
	folder, err := results.Create(root, results.RunInfo{
		RunHead: model.RunHead{RunID: runID, Name: p.Name, StartedAt: now().UTC()}, CommandLine: p.CommandLine,
		Versions: results.Versions{Storbench: r.Version, Go: runtime.Version(), Fio: info.FioVersion, Kernel: info.Kernel},
		Agents:   infos, Targets: targets, Plan: plan, Settings: p.Settings,
		Labels: p.RunLabels, Fingerprint: p.Fingerprint,
	})
	if err != nil {
		return nil, err
	}
	folder.Renderers = r.Renderers
	folder.CoVWarn = p.CoVWarn
	folder.Confidence = p.Confidence
	folder.Score = p.Score
	return folder, nil
}

// finish writes the run's status, the files rendered at the end and what
// could not be saved, and returns the run's outcome.
func (r *Runner) finish(ctx context.Context, folder *results.Folder, runErr error) (*Result, error) {
	status := results.StatusCompleted
	switch {
	case ctx.Err() != nil:
		status = results.StatusInterrupted
	case runErr != nil:
		status = results.StatusFailed
	}
	if err := folder.Finish(status, runErr); err != nil && runErr == nil {
		runErr = err
	}
	// The final files (report.html), from the folder as it now stands (a
	// report that cannot be rendered never fails the run; one that cannot
	// be written does).
	for _, err := range folder.RenderFinal() {
		r.Sink.Note(Note{Kind: NoteDiagnostic, Text: err.Error()})
	}
	// Whatever could not be saved, from the first phase on, is named in
	// one line; the figures of a phase left out were told to the sink.
	if u := folder.Unsaved(); u != nil {
		var prev *results.UnsavedError
		switch {
		case runErr == nil, errors.As(runErr, &prev):
			runErr = u
		default:
			runErr = fmt.Errorf("%v; %v", runErr, u)
		}
		if status == results.StatusCompleted {
			status = results.StatusFailed
			_ = folder.Finish(status, runErr)
		}
	}
	res := &Result{Folder: folder, Summary: folder.Summary()}
	switch {
	case status == results.StatusInterrupted:
		if u := folder.Unsaved(); u != nil {
			return res, &Error{Code: Interrupted, Err: fmt.Errorf("interrupted; %v", u)}
		}
		return res, &Error{Code: Interrupted, Err: errors.New("interrupted; results so far are kept")}
	case runErr != nil:
		var re *Error
		if errors.As(runErr, &re) {
			return res, runErr
		}
		return res, &Error{Code: Failed, Err: runErr}
	}
	return res, nil
}

// phases takes a run's phases through the controller, one after another.
type phases struct {
	r      *Runner
	plan   Plan
	ctrl   *cluster.Controller
	set    *agentSet
	folder *results.Folder

	// areas are the directories whose shared area phases work in.
	areas []area

	leftovers []engine.Leftover
	overShare []string // phases with too many failed requests
	starved   []string // phases whose tool gave up for want of CPU
	ranLoad   bool
	// limits are the limits on each phase, by its place in the plan (at
	// is the phase running); notMet are those crossed or not measured.
	limits [][]figures.Limit
	at     int
	notMet []results.LimitResult
	// stepNotMet is len(notMet) before the last phase was judged: a
	// scale stopped by a limit takes its crossing step's back (scaleStep).
	stepNotMet int
	// written is the count of blocks every job of each stonewall phase
	// wrote, by phase name (fio.WrittenBlocks).
	written map[string]int64
	// lastStep is the last phase run that is a scale's step, and steps
	// the steps of the scale under way (scaleStep).
	lastStep *results.PhaseData
	steps    []results.PhaseData
}

// runAll runs every phase until one fails, removes what phases left in
// the shared area, and says why the run failed.
func (pr *phases) runAll(ctx context.Context) error {
	p := pr.plan
	var err error
	for i := 0; i < len(p.Phases); i++ {
		ph := p.Phases[i]
		var label suite.Labels
		if i < len(p.Labels) {
			label = p.Labels[i]
		}
		// A phase that reads what a stonewall phase wrote reads the
		// blocks it wrote per job (IO500's stonewall file).
		if ph, err = pr.r.Engines.WithCarried(ph, pr.written); err != nil {
			err = pr.notRun(ctx, ph, label, err)
			pr.notStarted(p.Phases[i+1:])
			break
		}
		pr.at = i
		if err = pr.one(ctx, ph, label); err != nil {
			pr.notStarted(p.Phases[i+1:])
			break
		}
		if label.Scale != nil {
			if i, err = pr.scaleStep(i, label); err != nil {
				break
			}
		}
	}
	// The last phases' files, removed in the background, are gone (or
	// reported) before the run ends, interrupted or not.
	pr.removed(pr.ctrl.Settle(ctx, pr.folder.RunInfo().RunID, pr.set.agents))
	pr.removeShared(ctx)
	if err != nil {
		return err
	}
	if len(pr.overShare) > 0 {
		return errors.New(strings.Join(pr.overShare, "; "))
	}
	if len(pr.starved) > 0 {
		return fmt.Errorf("phase %s failed on a starved CPU, not for the storage (said above and in summary.json); the other phases ran", strings.Join(pr.starved, ", "))
	}
	if len(pr.leftovers) > 0 {
		return fmt.Errorf("cleanup left %s behind (listed above and under leftovers in summary.json)", countLeftovers(pr.leftovers))
	}
	return nil
}

// notStarted records the phases the run stops before: the summary lists
// them, so that a later phase of the suite is not lost from sight.
func (pr *phases) notStarted(rest []engine.Phase) {
	if len(rest) == 0 {
		return
	}
	names := make([]string, len(rest))
	for i, ph := range rest {
		names[i] = ph.Name
	}
	pr.folder.SetNotRun(names)
}

// removeShared is the run-level cleanup of the shared area: after the last
// phase, or the phase that failed, or Ctrl-C, one agent removes what phases
// left there (engine.Plan.SharedDir: the last phase that used an entry removed
// it already when all went well). What stays is told to the sink and
// fails the run.
func (pr *phases) removeShared(ctx context.Context) {
	if pr.plan.Keep || len(pr.areas) == 0 {
		return
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Minute)
	defer cancel()
	for _, a := range pr.areas {
		left := pr.ctrl.RemoveShared(cctx, pr.folder.RunInfo().RunID, a.dir)
		for _, l := range left {
			on := ""
			if l.Host != "" {
				on = " on " + l.Host
			}
			pr.r.Sink.Note(Note{Kind: NoteDiagnostic, Text: fmt.Sprintf("left behind%s: %s", on, l.Text())})
		}
		pr.leftovers = append(pr.leftovers, left...)
	}
}

// one runs one phase, on the first label.Hosts agents when set, and
// records it.
func (pr *phases) one(ctx context.Context, ph engine.Phase, label suite.Labels) error {
	agents := pr.set.agents
	ph, err := pr.logRequests(ph)
	if err != nil {
		return err
	}
	pr.ctrl.Agents = agents
	if label.Hosts > 0 {
		pr.ctrl.Agents = agents[:label.Hosts]
	}
	names := make([]string, len(pr.ctrl.Agents))
	for i, a := range pr.ctrl.Agents {
		names[i] = a.Name()
	}
	for _, a := range pr.r.Engines.Advice(ph, len(names)) {
		pr.r.Sink.Note(Note{Kind: NotePlan, Text: a})
	}
	pr.r.Sink.PhaseStarted(ph, names)
	evDone := pr.scheduleEvents(ph, label)
	out, err := pr.ctrl.RunPhase(ctx, pr.folder.RunInfo().RunID, pr.plan.Keep, ph)
	pr.ctrl.Agents, pr.ctrl.StartAt = agents, time.Time{}
	evs := evDone()
	if out == nil {
		return pr.notRun(ctx, ph, label, err)
	}
	pr.ranLoad = true
	if n, ok := pr.r.Engines.Carried(ph, out.Results); ok {
		if pr.written == nil {
			pr.written = map[string]int64{}
		}
		pr.written[ph.Name] = n
	}
	pr.removed(out.Removals)
	ps := pr.summary(ph, label, out)
	pr.recordEvents(&ps, evs, out.Results)
	starved := err != nil && ctx.Err() == nil && gaveUpStarved(out)
	if err != nil {
		ps.Status, ps.Error = statusOf(ctx, err), stopText(ctx, err)
	}
	if starved {
		// The tool gave up for want of CPU on every host that failed: the
		// machine, not the storage, failed the phase. It is recorded as
		// failed, and the run goes on with the next phase.
		pr.starved = append(pr.starved, ph.Name)
		err = nil
	}
	if msg := errorShare(&ps, pr.plan.MaxErrorShare); msg != "" && err == nil {
		// The figures stand for a target that failed too often to be
		// judged: the phase failed, later phases still run.
		ps.Status, ps.Error = results.StatusFailed, msg
		pr.overShare = append(pr.overShare, ph.Name+": "+msg)
	}
	pr.stepNotMet = len(pr.notMet)
	if pr.at < len(pr.limits) {
		pr.notMet = append(pr.notMet, judgeLimits(&ps, pr.limits[pr.at])...)
	}
	pr.lastStep = nil
	if label.Scale != nil {
		pr.lastStep = &results.PhaseData{Summary: ps, Hosts: out.Results}
	}
	phaseDir := pr.folder.NextPhaseDir(ps.Name)
	if werr := pr.folder.AddPhase(ps, out.Results); werr != nil && err == nil {
		err = werr
	}
	if werr := pr.saveEvents(phaseDir, ps.Events); werr != nil && err == nil {
		err = werr
	}
	if rk, ok := ranksOf(phaseDir, out.Results); ok {
		if werr := pr.folder.Update(func(ri *results.RunInfo) { ri.Ranks = append(ri.Ranks, rk) }); werr != nil && err == nil {
			err = werr
		}
	}
	hostErrs := map[string]string{}
	for h, e := range out.Errors {
		hostErrs[h] = errText(e)
	}
	pr.r.Sink.PhaseDone(PhaseDone{Summary: &ps, Ran: true, Hosts: out.Results, HostErrors: hostErrs})
	return err
}

// logRequests has ph's engine log every request in the phase's folder,
// under its first host, when the plan keeps benchdata there.
func (pr *phases) logRequests(ph engine.Phase) (engine.Phase, error) {
	if !pr.r.Engines.Info(ph.Engine).LogsRequests || !pr.plan.BenchdataInFolder {
		return ph, nil
	}
	dir := filepath.Join(pr.folder.Path, pr.folder.NextPhaseDir(ph.Name), "hosts", results.SafeName(pr.set.agents[0].Name()))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ph, err
	}
	return pr.r.Engines.LogRequestsIn(ph, dir)
}

// notRun records a phase whose load never ran: preparation failed, or the
// run was interrupted first.
func (pr *phases) notRun(ctx context.Context, ph engine.Phase, label suite.Labels, err error) error {
	base, left := engine.SplitLeftovers(err)
	if base == nil {
		base = err
	}
	ps := results.PhaseSummary{Name: ph.Name, Engine: ph.Engine, Status: statusOf(ctx, err), Error: stopText(ctx, base), Hosts: pr.set.names(), Leftovers: left}
	applyLabel(pr.r.Engines, ph, &ps, label)
	_ = pr.folder.AddPhase(ps, nil)
	pr.leftovers = append(pr.leftovers, left...)
	pr.r.Sink.PhaseDone(PhaseDone{Summary: &ps})
	if errors.Is(err, engine.ErrUnsupported) && !pr.ranLoad {
		// Found before any load: bad input, said in one line.
		return badInput(base)
	}
	return base
}

// summary is the summary of a phase whose load ran.
func (pr *phases) summary(ph engine.Phase, label suite.Labels, out *cluster.Outcome) results.PhaseSummary {
	ps := results.BuildPhase(ph.Name, ph.Engine, pr.r.Engines.TextFormats(ph.Engine), out.Results)
	ps.LostHosts, ps.StoppedHosts, ps.StoppedBy = out.Lost, out.Stopped, out.StoppedBy
	ps.Leftovers = out.Leftovers
	pr.leftovers = append(pr.leftovers, out.Leftovers...)
	for _, h := range out.Lost {
		// A host lost mid-phase has its row from its live figures
		// (cluster: what it did until then is its own); one lost before
		// has none.
		if !slices.ContainsFunc(ps.PerHost, func(x results.HostOps) bool { return x.Host == h }) {
			ps.PerHost = append(ps.PerHost, results.HostOps{Host: h, Error: "lost: " + errText(out.Errors[h])})
		}
	}
	ps.Timing = &results.Timing{PrepareS: out.Prepare.Seconds(), RunS: out.End.Sub(out.Start).Seconds(), CleanupS: out.Cleanup.Seconds()}
	for _, h := range out.Results {
		if r := h.Meta[model.MetaReport]; r != "" {
			ps.Report = model.Headline(r)
		}
	}
	applyLabel(pr.r.Engines, ph, &ps, label)
	return ps
}
