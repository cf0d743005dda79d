package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/run"
	"github.com/storbench/storbench/internal/stats"
	"github.com/storbench/storbench/internal/suite"
	"github.com/storbench/storbench/internal/units"
)

// RunOptions are the flags of `storbench run`.
type RunOptions struct {
	Dir     string
	Results string
	// Tools are where the outside tools are (--tool, --fio-bin).
	Tools engine.Tools
	Keep  bool
	// RemoveStale removes what killed runs left (run.Plan.RemoveStale).
	RemoveStale bool
	AllowExec   bool
	// AllowEvents starts the agents of --ssh or --launcher with
	// --allow-events.
	AllowEvents bool
	DryRun      bool
	// MaxDuration refuses a suite whose estimated duration is longer.
	MaxDuration string
	// CoVWarn is the CoV (percent) above which a sweep point is unstable.
	CoVWarn float64
	// Confidence is the confidence (percent) of sweep intervals.
	Confidence float64
	// GitCommit is a git repository the summary files are committed to.
	GitCommit string
	// Agents are the controller's agent settings; a suite's agents: list
	// adds to --agents.
	Agents AgentsOptions
	// Watch says how the run is watched and what it prints.
	Watch WatchOptions
}

// AddFlags registers the options' flags.
func (o *RunOptions) AddFlags(f *pflag.FlagSet) {
	f.StringVarP(&o.Dir, "directory", "d", "", "target directory for file phases, replacing the suite's dir")
	f.StringVar(&o.Results, "results", "", "folder that receives the results folder (default: the suite's, else ./results)")
	addToolFlags(f, &o.Tools, "")
	f.BoolVar(&o.Keep, "keep", false, "keep created files and objects")
	f.BoolVar(&o.RemoveStale, "remove-stale", false, "remove what runs killed earlier (SIGKILL, a lost host) left under DIR/storbench; a run whose process still runs, here or on another host, is never touched (without it, such leftovers are only named)")
	f.BoolVar(&o.AllowExec, "allow-exec", false, "allow fio job files that run commands or reach past DIR (exec_prerun, exec_postrun, ioengine=exec, external, network and device engines)")
	f.BoolVar(&o.AllowEvents, "allow-events", false, "start the agents of --ssh or --launcher allowing the commands of the suite's events that name their host (as storbench agent --allow-events); agents started apart decide with their own flag")
	f.BoolVar(&o.DryRun, "dry-run", false, "print the expanded plan and its estimated duration, run nothing")
	f.StringVar(&o.MaxDuration, "max-duration", "", "refuse a suite whose estimated duration exceeds this (e.g. 2h)")
	f.Float64Var(&o.CoVWarn, "cov-warn", 100*results.DefaultCoVWarn, "flag a sweep point unstable when its iterations' coefficient of variation exceeds this percentage")
	f.Float64Var(&o.Confidence, "confidence", 100*stats.DefaultConfidence, "confidence of the sweep points' intervals of the mean, in percent")
	nonZero(f, "confidence", "")
	f.StringVar(&o.GitCommit, "git-commit", "", "after the run, copy the summary files into this git repository and commit them")
	o.Agents.AddFlags(f)
	o.Watch.AddFlags(f)
	nonZero(f, "max-duration", "no limit")
	nonZero(f, "cov-warn", "")
}

func newRunCommand(st *State) *cobra.Command {
	var o RunOptions
	cmd := &cobra.Command{
		Use:   "run [SUITE.yaml]",
		Short: "Run a suite of phases (fio, md, s3) as one run with one results folder",
		Long: `Runs every phase of a suite file in order, as one run with one results folder.
With no file, runs the built-in quick suite: the four corners scaled to finish
in about two minutes on a small machine, on ./storbench-data (created if
missing), plus the metadata phase and, when the environment names an S3
endpoint and keys, an S3 phase.`,
		Example: `  storbench run
  storbench run examples/weka-four-corners.yaml
  storbench run suite.yaml --dry-run`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			file := ""
			if len(args) == 1 {
				file = args[0]
			}
			_, err := runSuite(cmd.Context(), st, o, file)
			return err
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// runSuite runs `storbench run`.
func runSuite(ctx context.Context, st *State, o RunOptions, file string) (*run.Result, error) {
	if err := st.Engines.CheckTools(o.Tools); err != nil {
		return nil, asUsage(err)
	}
	s, defaulted, err := loadSuite(o, file)
	if err != nil {
		return nil, err
	}
	// Phases take what they leave unset from the environment, as a
	// command's flags do (s3's endpoint); the keys travel in the plan,
	// never in a phase or run.json.
	env, err := st.environment()
	if err != nil {
		return nil, err
	}
	applied, err := env.applyToSuite(s)
	if err != nil {
		return nil, err
	}
	x, err := s.Expand(ctx, suite.ExpandOptions{Engines: st.Engines, PlanOnly: o.DryRun})
	if err != nil {
		if ctx.Err() != nil {
			return nil, interrupted()
		}
		return nil, asUsage(err)
	}
	if err := checkLocalEventHosts(o, s, x); err != nil {
		return nil, err
	}
	// As `storbench s3` does: a local phase without keys is bad input,
	// found before anything runs (agents on other machines hold their own).
	secrets, lacking, err := runSecrets(st.Engines, applied, x.Phases, !o.Agents.remote() && len(s.Agents) == 0)
	if err != nil {
		return nil, err
	}
	if o.DryRun {
		return nil, dryRunSuite(ctx, st, o, s, x, lacking)
	}
	if lacking != nil {
		return nil, usageErr("phase %s: no keys: %s", lacking.phase.Name, lacking.give)
	}
	if err := o.check(s, x); err != nil {
		return nil, err
	}
	agents, err := agentsOf(o.Agents, s).runAgents(st, s.Agents)
	if err != nil {
		return nil, err
	}
	undo, err := makeSuiteDir(defaulted, x)
	if err != nil {
		return nil, err
	}
	agents.AllowEvents = o.AllowEvents
	root := s.Results
	if o.Results != "" {
		root = o.Results
	}
	res, err := runPlan(ctx, st, o.Watch, run.Plan{
		Name: s.Name, Phases: x.Phases, Labels: x.Labels, Dirs: x.Dirs, ResultsRoot: root, Agents: agents, MaxErrorShare: o.Agents.MaxErrorShare,
		Secrets: secrets, Keep: o.Keep || s.Keep, RemoveStale: o.RemoveStale, AllowExec: o.AllowExec, Tools: o.Tools, Notes: x.Skipped,
		CoVWarn: o.CoVWarn / 100, Confidence: o.Confidence / 100, Score: s.Score, Settings: map[string]any{"suite": s.Source},
		RunLabels: s.Labels,
	})
	undo(res)
	if o.GitCommit != "" && res != nil {
		err = commitSummaries(st, o.GitCommit, res, err)
	}
	return res, err
}

// dryRunSuite prints the plan of a suite, refusing what the run would
// refuse before anything is created: a symbolic link in this machine's
// DIR/storbench, a job file fio rejects. lacking notes that a phase has
// no keys yet.
func dryRunSuite(ctx context.Context, st *State, o RunOptions, s *suite.Suite, x *suite.Expanded, lacking *keyless) error {
	if err := o.Watch.limits(st, &run.Plan{Phases: x.Phases, Labels: x.Labels}); err != nil {
		return err
	}
	if !o.Agents.remote() && len(s.Agents) == 0 {
		// This machine's directories: a refusal the run would meet
		// is known now.
		for _, d := range x.Dirs {
			if err := engine.CheckLevels(d); err != nil {
				return asUsage(err)
			}
		}
	}
	// Free space and memory, each host's answered on its machine.
	notes, err := dryRunResources(ctx, st, o, s, x)
	if err != nil {
		return err
	}
	// What engines check across the plan (fio's own parser on the job
	// files), as the run does before anything is created: a dry run
	// refuses what the run would; a tool missing here is only noted.
	env := engine.CheckEnv{Keep: o.Keep || s.Keep, AllowExec: o.AllowExec, Tools: o.Tools, Local: true}
	if err := st.Engines.CheckPlan(ctx, env, x.Phases); err != nil {
		var missing *engine.MissingTool
		switch {
		case ctx.Err() != nil:
			return interrupted()
		case errors.As(err, &missing) && missing.What == "":
			notes = append(notes, fmt.Sprintf("%v (a run here would stop there)", err))
		case errors.As(err, &missing):
			notes = append(notes, fmt.Sprintf("%s not checked by %s: %v", missing.What, missing.Tool, err))
		default:
			return asUsage(err)
		}
	}
	if lacking != nil {
		notes = append(notes, fmt.Sprintf("%s phases have no keys yet: %s, before running", lacking.phase.Engine, lacking.give))
	}
	return dryRun(st, s, x, notes)
}

// loadSuite reads the suite file, or the quick suite without one, with -d
// applied. A suite that names no directory, run on this machine, works in
// ./storbench-data as fio and md do, and so does the quick suite without
// -d: defaulted is then its path, which the run makes when a phase works
// there (makeSuiteDir), once the suite is checked.
func loadSuite(o RunOptions, file string) (s *suite.Suite, defaulted string, err error) {
	if file == "" {
		s, err = suite.Quick()
		if err == nil && o.Dir == "" {
			// The quick suite's own directory is made for it; a user's is not.
			if defaulted, err = filepath.Abs(s.Dir); err != nil {
				return nil, "", usageErr("%s: %v", s.Dir, err)
			}
		}
	} else {
		s, err = suite.Load(file)
	}
	if err != nil {
		return nil, "", asUsage(err)
	}
	if o.Dir != "" {
		// -d is the working directory's, as in every command-line tool;
		// the suite's own dir is its folder's (suite.Expand).
		abs, err := filepath.Abs(o.Dir)
		if err != nil {
			return nil, "", usageErr("-d %s: %v", o.Dir, err)
		}
		s.Dir = abs
		for i := range s.Phases {
			delete(s.Phases[i].Params, "dir")
		}
	}
	if s.Dir == "" && !o.Agents.remote() && len(s.Agents) == 0 {
		// As fio and md: a run on this machine works in ./storbench-data
		// (made when a phase uses it: runSuite).
		s.Dir, _ = filepath.Abs(defaultDir)
		defaulted = s.Dir
	}
	return s, defaulted, nil
}

// makeSuiteDir makes ./storbench-data when the suite works there for
// want of a directory of its own (loadSuite), and a phase uses it
// (makeDefaultDir: bad input the run finds removes it again).
func makeSuiteDir(defaulted string, x *suite.Expanded) (undo func(*run.Result), err error) {
	if defaulted == "" || !slices.Contains(x.Dirs, defaulted) {
		return func(*run.Result) {}, nil
	}
	return makeDefaultDir(defaulted, "./"+defaultDir+" (the suite's default directory; give -d DIR)")
}

// check refuses options that cannot work with the expanded suite: a suite
// longer than --max-duration, --cov-warn and --confidence out of range, a
// --git-commit that is not a repository.
func (o RunOptions) check(s *suite.Suite, x *suite.Expanded) error {
	if o.MaxDuration != "" {
		limit, err := units.ParseDuration(o.MaxDuration)
		if err != nil {
			return usageErr("--max-duration: %v", err)
		}
		if est := x.Estimate(); est > limit {
			return usageErr("suite %s is estimated to run %s, over --max-duration %s (see --dry-run)", s.Name, est, limit)
		}
	}
	if o.CoVWarn <= 0 {
		return usageErr("--cov-warn %v: want a percentage above 0", o.CoVWarn)
	}
	if err := checkConfidence(o.Confidence); err != nil {
		return err
	}
	if o.GitCommit != "" {
		if err := checkGitRepo(o.GitCommit); err != nil {
			return asUsage(err)
		}
	}
	return nil
}

// commitSummaries commits the run's summary files to repo (--git-commit)
// and returns the run's error, or the commit's when the run had none.
func commitSummaries(st *State, repo string, res *run.Result, runErr error) error {
	msg, err := gitCommit(repo, res)
	if err != nil {
		fmt.Fprintf(st.Stderr, "storbench: --git-commit: %v\n", err)
		if runErr == nil {
			return &ExitError{Code: ExitFailed, Err: fmt.Errorf("--git-commit: %w", err)}
		}
		return runErr
	}
	fmt.Fprintf(st.Stdout, "committed to %s: %s\n", repo, msg)
	return runErr
}

// dryRun prints the expanded plan: each phase with its planned or
// estimated duration, how estimates were made, and what is still missing
// to run it (notes).
func dryRun(st *State, s *suite.Suite, x *suite.Expanded, notes []string) error {
	fmt.Fprintf(st.Stdout, "suite %s (%s): %d phases\n", s.Name, s.Source, len(x.Phases))
	for i, p := range x.Phases {
		d, estimated := st.Engines.Planned(p)
		how := ""
		if estimated {
			how = " (estimated)"
		}
		fmt.Fprintf(st.Stdout, "%3d. %-4s %-28s ~%s%s\n", i+1, p.Engine, p.Name, d, how)
		if i < len(x.Labels) {
			for _, e := range x.Labels[i].Events {
				fmt.Fprintf(st.Stdout, "       %s\n", e.Describe())
			}
		}
		if st.Verbosity > 0 {
			fmt.Fprintln(st.Stdout, suite.Pretty(st.Engines.Redacted(p)))
		}
	}
	for _, n := range append(append(x.Skipped, notes...), x.EstimateModels()...) {
		fmt.Fprintf(st.Stdout, "note: %s\n", n)
	}
	fmt.Fprintf(st.Stdout, "estimated duration: %s (plus file layout and preparation)\n", x.Estimate())
	return nil
}

// agentsOf applies the suite's drop_caches to the agent settings. The
// suite's agents: list comes before --agents (run's argument is the
// suite, not a host).
func agentsOf(a AgentsOptions, s *suite.Suite) AgentsOptions {
	a.DropCaches = a.DropCaches || s.DropCaches
	a.agentsAt = nil
	return a
}
