package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/engine/fio"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/report"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/suite"
	"github.com/storbench/storbench/internal/units"
)

// Plan is a run ready to go: its phases and where results go. Every command
// that measures (run, fio, md, s3) builds a Plan and calls runPlan.
type Plan struct {
	Name   string
	Phases []engine.Phase
	// Labels, when set, hold one entry per phase placing it in its suite
	// (group, matrix point, iteration, host count).
	Labels []suite.Labels
	// CoVWarn flags sweep points whose iterations vary more than this
	// coefficient of variation (0: the default 5%).
	CoVWarn float64
	// Confidence is the confidence level of sweep intervals (0: the
	// default 95%).
	Confidence float64
	// Dirs are target directories checked before anything runs.
	Dirs []string
	// Hosts are the HOST arguments; with Agents they name the machines the
	// phases run on (none: this machine alone).
	Hosts []string
	// Agents are the --agents, --token-file, --ssh, ... flags.
	Agents AgentsOptions
	// ResultsRoot is where the results folder is made (default "results").
	ResultsRoot string
	Keep        bool
	AllowExec   bool
	FioBin      string
	// Settings are recorded in run.json (never secrets).
	Settings map[string]any
	// Notes are printed before the run (skipped phases).
	Notes []string
	// StartAt starts the first phase's measured stage no earlier than this
	// (after preparation), for clients started by hand (s3 --syncstart).
	StartAt time.Time
	// BenchdataInFolder writes every s3 request to benchdata.tsv.zst in the
	// phase's host folder (s3 --full); local runs only.
	BenchdataInFolder bool
}

// Result is what runPlan did.
type Result struct {
	Folder  *results.Folder
	Summary results.Summary
}

// runPlan runs every phase of the plan through a controller and its agents
// (this machine in-process, or the hosts given), writing the results folder
// as it goes. It stops at the
// first phase that fails; what finished stays in the folder, and run.json
// says what happened.
func runPlan(ctx context.Context, st *State, p Plan) (*Result, error) {
	if len(p.Phases) == 0 {
		return nil, usageErr("nothing to run")
	}
	if p.Agents.MaxErrorShare < 0 || p.Agents.MaxErrorShare > 100 {
		return nil, usageErr("--max-error-share %g: give a percentage from 0 to 100", p.Agents.MaxErrorShare)
	}
	set, err := p.Agents.buildAgents(ctx, st, p.Hosts, p)
	if err != nil {
		return nil, err
	}
	defer set.close()
	// Directories and fio are checked here only for this machine; remote
	// agents check their own when preparing.
	for _, d := range p.Dirs {
		if set.local == nil {
			break
		}
		if err := engine.CheckDir(d); err != nil {
			return nil, asUsage(err)
		}
	}
	usesFio := false
	for _, ph := range p.Phases {
		if ctx.Err() != nil {
			return nil, interrupted()
		}
		if err := st.Engines.Validate(ph); err != nil {
			return nil, asUsage(fmt.Errorf("phase %s: %v", ph.Name, err))
		}
		if ph.Engine == model.EngineFio {
			usesFio = true
			if err := fio.CheckPhase(ph, p.AllowExec); err != nil {
				return nil, asUsage(err)
			}
		}
		if ph.Engine == model.EngineS3 && set.local != nil {
			if err := checkBenchdata(ph); err != nil {
				return nil, err
			}
		}
	}
	if usesFio && set.local != nil {
		bin, err := fio.FindFio(p.FioBin)
		if err != nil {
			return nil, asUsage(err)
		}
		// fio's own parser, before a results folder exists: a job file it
		// rejects is bad input, not a failed run.
		if err := fio.ParseOnly(ctx, bin, p.Phases); err != nil {
			if ctx.Err() != nil {
				return nil, interrupted()
			}
			return nil, asUsage(err)
		}
	}

	hostname, _ := os.Hostname()
	ctrl := &cluster.Controller{
		Agents: set.agents, Engines: st.Engines, Name: hostname, DropCaches: p.Agents.DropCaches,
		MaxClockOffset: p.Agents.MaxClockOffset,
	}
	if set.remote {
		ctrl.Lead = 2 * time.Second
	}
	infos, err := ctrl.Connect(ctx)
	if err != nil {
		return nil, usageErr("agents: %v", err)
	}
	info := infos[0]
	for i, l := range p.Labels {
		if l.Hosts > len(set.agents) {
			return nil, usageErr("phase %s wants %d hosts, but the run has %d agents", p.Phases[i].Name, l.Hosts, len(set.agents))
		}
	}
	var hostNames []string
	for _, a := range set.agents {
		hostNames = append(hostNames, a.Name())
	}

	root := p.ResultsRoot
	if root == "" {
		root = "results"
	}
	runID := results.NewRunID(st.Now())
	var targets []results.Target
	for _, d := range p.Dirs {
		targets = append(targets, results.TargetOf(d))
	}
	folder, err := results.Create(root, results.RunInfo{
		RunID: runID, Name: p.Name, StartedAt: st.Now().UTC(), CommandLine: st.recordedArgs(),
		Versions: results.Versions{Storbench: version(), Go: runtime.Version(), Fio: info.FioVersion, Kernel: info.Kernel},
		Agents:   infos, Targets: targets, Plan: redacted(st.Engines, p.Phases), Settings: p.Settings,
	})
	if err != nil {
		return nil, asUsage(err)
	}
	folder.Markdown = report.Markdown
	folder.Extra = map[string]func(*results.Summary) []byte{"sweep.tsv": report.SweepTSV}
	folder.CoVWarn = p.CoVWarn
	folder.Confidence = p.Confidence
	fmt.Fprintf(st.Stdout, "storbench %s: run %s, results in %s\n", version(), runID, folder.Path)
	for _, n := range p.Notes {
		fmt.Fprintf(st.Stdout, "note: %s\n", n)
	}

	prog := newProgress(st)
	ctrl.Progress = prog.update
	var runErr error
	if p.BenchdataInFolder && (set.remote || len(set.agents) != 1) {
		runErr = usageErr("--full keeps every request in the results folder of a local run; with agents use --benchdata PATH (written on each agent)")
	}
	ctrl.StartAt = p.StartAt
	agents := ctrl.Agents
	var leftovers []engine.Leftover
	var overShare []string // phases with too many failed requests
	ranLoad := false
	for i, ph := range p.Phases {
		if runErr != nil {
			break
		}
		if p.BenchdataInFolder && ph.Engine == model.EngineS3 {
			if ph, err = withBenchdata(ph, filepath.Join(folder.Path, folder.NextPhaseDir(ph.Name), "hosts", results.SafeName(agents[0].Name()))); err != nil {
				runErr = err
				break
			}
		}
		var label suite.Labels
		if i < len(p.Labels) {
			label = p.Labels[i]
		}
		ctrl.Agents = agents
		if label.Hosts > 0 {
			ctrl.Agents = agents[:label.Hosts]
		}
		fmt.Fprintf(st.Stdout, "\nstarting %s phase %s on %s:\n", ph.Engine, ph.Name, describeHosts(ctrl.Agents))
		prog.start(ph)
		out, err := ctrl.RunPhase(ctx, runID, p.Keep, ph)
		ctrl.StartAt = time.Time{}
		prog.done()
		if out == nil {
			// Nothing ran: preparation failed or the run was interrupted first.
			base, left := engine.SplitLeftovers(err)
			if base == nil {
				base = err
			}
			ps := results.PhaseSummary{Name: ph.Name, Engine: ph.Engine, Status: statusOf(ctx, err), Error: errText(base), Hosts: hostNames, Leftovers: left}
			applyLabel(&ps, label)
			_ = folder.AddPhase(ps, nil)
			leftovers = append(leftovers, left...)
			leftoverLines(st, left)
			runErr = base
			if errors.Is(err, engine.ErrUnsupported) && !ranLoad {
				// Found before any load: bad input, said in one line.
				runErr = asUsage(base)
			}
			break
		}
		ranLoad = true
		ps := results.BuildPhase(ph.Name, ph.Engine, out.Results)
		ps.LostHosts = out.Lost
		ps.StoppedHosts = out.Stopped
		ps.Leftovers = out.Leftovers
		leftovers = append(leftovers, out.Leftovers...)
		ps.StoppedBy = out.StoppedBy
		if out.StoppedBy == "autoterm" {
			fmt.Fprintf(st.Stdout, "    stopped early: the total throughput of all hosts was stable (autoterm)\n")
		}
		for _, h := range out.Lost {
			ps.PerHost = append(ps.PerHost, results.HostOps{Host: h, Error: "lost: " + errText(out.Errors[h])})
		}
		ps.Timing = &results.Timing{PrepareS: out.Prepare.Seconds(), RunS: out.End.Sub(out.Start).Seconds(), CleanupS: out.Cleanup.Seconds()}
		st.logf(1, "    stages: prepare %.2fs, run %.2fs, cleanup %.2fs", ps.Timing.PrepareS, ps.Timing.RunS, ps.Timing.CleanupS)
		for _, h := range out.Results {
			if r := h.Meta["report"]; r != "" {
				ps.Report = model.Headline(r)
			}
		}
		applyLabel(&ps, label)
		if err != nil {
			ps.Status, ps.Error = statusOf(ctx, err), errText(err)
		}
		if msg := errorShare(&ps, p.Agents.MaxErrorShare); msg != "" && err == nil {
			// The figures stand for a target that failed too often to
			// be judged: the phase failed, later phases still run.
			ps.Status, ps.Error = results.StatusFailed, msg
			overShare = append(overShare, ph.Name+": "+msg)
		}
		if werr := folder.AddPhase(ps, out.Results); werr != nil && err == nil {
			err = werr
		}
		report.PhaseText(st.Stdout, &ps, out.Results)
		hostLines(st, &ps)
		unreachableLines(st, &ps)
		for _, h := range out.Stopped {
			fmt.Fprintf(st.Stdout, "    host %s: %s; its result so far is kept, and later phases run without it\n", h, errText(out.Errors[h]))
		}
		leftoverLines(st, out.Leftovers)
		if err != nil {
			runErr = err
			break
		}
	}
	if runErr == nil && len(overShare) > 0 {
		runErr = errors.New(strings.Join(overShare, "; "))
	}
	if runErr == nil && len(leftovers) > 0 {
		runErr = fmt.Errorf("cleanup left %s behind (listed above and under leftovers in summary.json)", countLeftovers(leftovers))
	}

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
	// report.html, from the folder as it now stands (a report that cannot
	// be rendered never fails the run; one that cannot be written does).
	if b, err := report.HTMLFolder(folder.Path, ""); err != nil {
		st.logf(0, "report.html: %v", err)
	} else {
		_ = folder.Save("report.html", b)
	}
	// Whatever could not be saved, from the first phase on, is named in
	// one line; the figures of a phase left out were printed above.
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
	sum := folder.Summary()
	report.SweepText(st.Stdout, &sum)
	fmt.Fprintf(st.Stdout, "\nrun %s %s; results in %s\n", runID, status, folder.Path)
	res := &Result{Folder: folder, Summary: folder.Summary()}
	switch {
	case status == results.StatusInterrupted:
		if u := folder.Unsaved(); u != nil {
			return res, &ExitError{Code: ExitInterrupted, Err: fmt.Errorf("interrupted; %v", u)}
		}
		return res, &ExitError{Code: ExitInterrupted, Err: errors.New("interrupted; results so far are kept")}
	case runErr != nil:
		var ee *ExitError
		if errors.As(runErr, &ee) {
			return res, runErr
		}
		return res, &ExitError{Code: ExitFailed, Err: runErr}
	}
	return res, nil
}

// applyLabel copies a phase's place in its suite into its summary, and the
// suite's choice of headline. A fio phase whose job file names no headline
// is judged by bandwidth at block sizes of 64 KiB and more, by IOPS below.
func applyLabel(ps *results.PhaseSummary, l suite.Labels) {
	ps.Group, ps.Iteration = l.Group, l.Iteration
	for _, kv := range l.Point {
		ps.Point = append(ps.Point, results.KV{Key: kv.Key, Value: kv.Value})
	}
	if l.Report != "" {
		ps.Report = l.Report
	}
	if ps.Report == "" && ps.Engine == model.EngineFio {
		ps.Report = model.HeadlineBandwidth
		if bs := results.PointValue(ps.Point, "bs"); bs != "" {
			if n, err := units.ParseSize(bs); err == nil && n < 64<<10 {
				ps.Report = model.HeadlineIOPS
			}
		}
	}
}

// withBenchdata points an s3 phase's benchdata file into dir (made here).
func withBenchdata(ph engine.Phase, dir string) (engine.Phase, error) {
	var m map[string]any
	if err := json.Unmarshal(ph.Params, &m); err != nil {
		return ph, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ph, err
	}
	m["benchdata"] = filepath.Join(dir, "benchdata.tsv.zst")
	b, err := json.Marshal(m)
	if err != nil {
		return ph, err
	}
	ph.Params = b
	return ph, nil
}

// interrupted is the error of a run stopped by a signal before anything
// was created.
func interrupted() error {
	return &ExitError{Code: ExitInterrupted, Err: errors.New("interrupted before anything ran")}
}

// checkBenchdata refuses an s3 phase's benchdata file that cannot be
// created on this machine: its directory missing, or the file already there
// (storbench writes only files it creates).
func checkBenchdata(ph engine.Phase) error {
	var p struct {
		BenchData string `json:"benchdata"`
	}
	if json.Unmarshal(ph.Params, &p) != nil || p.BenchData == "" {
		return nil
	}
	if fi, err := os.Stat(filepath.Dir(p.BenchData)); err != nil || !fi.IsDir() {
		return usageErr("--benchdata %s: directory %s does not exist", p.BenchData, filepath.Dir(p.BenchData))
	}
	if _, err := os.Lstat(p.BenchData); err == nil {
		return usageErr("--benchdata %s: the file exists; give a new file name (storbench writes only files it creates)", p.BenchData)
	}
	return nil
}

// redacted returns the phases without secrets, for run.json.
func redacted(engines engine.Registry, phases []engine.Phase) []engine.Phase {
	out := make([]engine.Phase, len(phases))
	for i, ph := range phases {
		out[i] = engines.Redacted(ph)
	}
	return out
}

func statusOf(ctx context.Context, err error) string {
	switch {
	case ctx.Err() != nil:
		return results.StatusInterrupted
	case err != nil:
		return results.StatusFailed
	}
	return results.StatusCompleted
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// errorShare says why a phase failed too often, or "" when it did not:
// more than maxPct percent of its requests failed, or a host could not
// reach an endpoint for more than maxPct percent of its run (with backoff
// on connection errors, a dead server fails few requests: its time counts).
func errorShare(ps *results.PhaseSummary, maxPct float64) string {
	var ok, failed uint64
	for _, o := range ps.Ops {
		ok += o.Ops
		failed += o.Errors
	}
	if failed > 0 {
		if share := 100 * float64(failed) / float64(ok+failed); share > maxPct {
			return fmt.Sprintf("%.1f%% of requests failed (%d of %d), more than --max-error-share %g%%", share, failed, ok+failed, maxPct)
		}
	}
	for _, h := range ps.PerHost {
		var run float64
		for _, o := range h.Ops {
			run = max(run, o.DurationS)
		}
		for _, u := range h.Unreachable {
			if run > 0 && 100*u.Seconds/run > maxPct {
				return fmt.Sprintf("%s could not reach %s for %.1fs of %.1fs (%.0f%%), more than --max-error-share %g%%",
					h.Host, u.Endpoint, u.Seconds, run, 100*u.Seconds/run, maxPct)
			}
		}
	}
	return ""
}

// leftoverLines prints what cleanup left, one line per host and place.
func leftoverLines(st *State, left []engine.Leftover) {
	for _, l := range left {
		fmt.Fprintf(st.Stdout, "    left behind on %s: %s\n", l.Host, l.Text())
	}
}

// countLeftovers says how much was left in a few words.
func countLeftovers(left []engine.Leftover) string {
	hosts := map[string]bool{}
	for _, l := range left {
		hosts[l.Host] = true
	}
	places := "1 place"
	if len(left) != 1 {
		places = fmt.Sprintf("%d places", len(left))
	}
	if len(hosts) == 1 {
		return "files or objects in " + places + " on 1 host"
	}
	return fmt.Sprintf("files or objects in %s on %d hosts", places, len(hosts))
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
