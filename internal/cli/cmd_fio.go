package cli

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/run"
	"github.com/storbench/storbench/internal/suite"
	"github.com/storbench/storbench/internal/units"
)

// FioOptions are the flags of `storbench fio`.
type FioOptions struct {
	Dir      string `setting:"dir"`
	Workload string `setting:"workload"`
	// Tools are where the outside tools are (--tool, --fio-bin).
	Tools     engine.Tools
	Runtime   string `setting:"runtime"`
	Size      string `setting:"size"`
	Numjobs   int    `setting:"numjobs"`
	Stonewall string `setting:"stonewall"`
	// Scale steps the load up until the rate flattens (--scale).
	Scale string
	Keep  bool
	// RemoveStale removes what killed runs left (run.Plan.RemoveStale).
	RemoveStale bool
	AllowExec   bool
	Results     string
	// Job is fio's own options, for one job without a job file (--rw).
	Job    FioJobOptions
	Agents AgentsOptions
	// flags are the command's flags, to tell which were given (nil: none).
	flags *pflag.FlagSet
	// Watch says how the run is watched and what it prints.
	Watch WatchOptions
}

// AddFlags registers the options' flags, named as wekatester names them:
// the settings of a suite's fio entry as the fio engine declares them
// (flags: Info.Flags; settingFlags), -d among them, and the command's own.
func (o *FioOptions) AddFlags(f *pflag.FlagSet, flags []engine.Flag) {
	settingFlags(f, o, flags, "", nil)
	addToolFlags(f, &o.Tools, "")
	scaleFlag(f, &o.Scale, "jobs (numjobs), iodepth")
	f.BoolVar(&o.Keep, "keep", false, "keep the files fio created")
	f.BoolVar(&o.RemoveStale, "remove-stale", false, "remove what runs killed earlier (SIGKILL, a lost host) left under DIR/storbench; a run whose process still runs, here or on another host, is never touched (without it, such leftovers are only named)")
	f.BoolVar(&o.AllowExec, "allow-exec", false, "allow job files that run commands or reach past DIR (exec_prerun, exec_postrun, ioengine=exec, external, network and device engines)")
	f.StringVar(&o.Results, "results", "results", "folder that receives the results folder")
}

func newFioCommand(st *State) *cobra.Command {
	var o FioOptions
	cmd := &cobra.Command{
		Use:   "fio [-d DIR] [-w WORKLOAD|PATH] [--tool fio=PATH] [HOST ...]",
		Short: "Run fio job files: the four corners (bandwidth, IOPS, latency; read and write)",
		Long: `Runs fio job files one after another and prints each job's result: bandwidth
and IOPS together, and latency mean, p50, p99, p99.5 and p99.9. Job files are
the built-in workloads or a wekatester fio-jobfiles/<name> directory, used
unchanged (a "# report bandwidth|iops|latency" comment chooses the headline).
fio's raw json+ output of every job is kept in the results folder.`,
		Example: `  storbench fio                         # the four corners on ./storbench-data
  storbench fio -d /mnt/weka
  storbench fio -d /tmp/x --runtime 5s --size 256M
  storbench fio -d /mnt/weka -w mixed
  storbench fio -d /mnt/weka -w ./fio-jobfiles/myjobs`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.flags = cmd.Flags()
			_, err := runFio(cmd.Context(), st, o, args)
			return err
		},
	}
	o.AddFlags(cmd.Flags(), st.Engines.Info(model.EngineFio).Flags)
	o.Job.AddFlags(cmd.Flags())
	o.Agents.AddFlags(cmd.Flags())
	o.Watch.AddFlags(cmd.Flags())
	return cmd
}

// runFio runs `storbench fio`. Every check of the options comes before
// the default target directory is made (makeTargetDir), which bad input
// the run finds removes again.
func runFio(ctx context.Context, st *State, o FioOptions, hosts []string) (*run.Result, error) {
	if err := st.Engines.CheckTools(o.Tools); err != nil {
		return nil, asUsage(err)
	}
	job, name, err := o.job()
	if err != nil {
		return nil, err
	}
	given := o.Dir
	dir, err := targetDir(o.Dir, hosts, o.Agents)
	if err != nil {
		return nil, err
	}
	o.Dir = dir
	info := st.Engines.Info(model.EngineFio)
	settings, err := o.settings(job, info)
	if err != nil {
		return nil, err
	}
	phases, labels, err := o.phases(st, settings, name)
	if err != nil {
		return nil, err
	}
	agents, err := o.Agents.runAgents(st, hosts)
	if err != nil {
		return nil, err
	}
	if o.Job.RW != "" && o.Job.IODepth > 1 && o.Job.IOEngine == "" {
		fmt.Fprintf(st.Stderr, "storbench: note: fio's default ioengine (psync) is synchronous, so --iodepth %d runs as 1: add --ioengine libaio or io_uring\n", o.Job.IODepth)
	}
	undo, err := makeTargetDir(given, dir)
	if err != nil {
		return nil, err
	}
	res, err := runPlan(ctx, st, o.Watch, run.Plan{
		Name: name, Phases: phases, Labels: labels, Dirs: []string{dir}, Agents: agents, MaxErrorShare: o.Agents.MaxErrorShare,
		ResultsRoot: o.Results, Keep: o.Keep, RemoveStale: o.RemoveStale, AllowExec: o.AllowExec, Tools: o.Tools,
		Settings: o.recorded(info.Flags),
	})
	undo(res)
	return res, err
}

// phases are the run's phases: one per job file, or with --scale one
// per step of the one job.
func (o FioOptions) phases(st *State, settings engine.Entry, name string) ([]engine.Phase, []suite.Labels, error) {
	if o.Scale == "" {
		phases, err := fioPhases(st, settings)
		return phases, nil, asUsage(err)
	}
	return scalePhases(st, model.EngineFio, o.Scale, name, settings.Params, func(p map[string]any) ([]engine.Phase, error) {
		e := settings
		e.Params = p
		return fioPhases(st, e)
	})
}

// job says what the run does, refusing flags that do not go together:
// job files (-w, with --runtime, --size and --numjobs replacing theirs),
// or one job built from fio's options (--rw), where those three mean
// what fio means and go into the job (the entry returned). It returns
// the run's name.
func (o FioOptions) job() (engine.Entry, string, error) {
	if o.Stonewall != "" {
		if _, err := units.ParseDuration(o.Stonewall); err != nil {
			return engine.Entry{}, "", usageErr("--stonewall: %v", err)
		}
	}
	if o.Job.RW == "" {
		if err := refuseJobFlags(o.changed); err != nil {
			return engine.Entry{}, "", err
		}
		return engine.Entry{}, "fio-" + filepath.Base(o.Workload), nil
	}
	if o.changed("workload") {
		return engine.Entry{}, "", usageErr("--rw and -w both say what to run: give --rw with fio's options, or -w with job files")
	}
	s, err := o.Job.settings(o.changed, o.Runtime, o.Size, o.Numjobs)
	return s, "fio-" + s.Name, err
}

// settings are the run as a suite's fio entry: job (what job returned)
// with the settings the options give (settingParams: what is left out
// leaves the job files' own). For job files a --runtime that is a bare
// number is seconds, as fio reads it; one job holds the runtime, size
// and numjobs given itself, and no workload runs beside it.
func (o FioOptions) settings(job engine.Entry, info engine.Info) (engine.Entry, error) {
	if o.Job.RW == "" {
		o.Runtime = fioSeconds(o.Runtime)
	} else {
		o.Workload, o.Runtime, o.Size, o.Numjobs = "", "", "", 0
	}
	p, err := settingParams(&o, info.Flags, info.Defaults)
	if err != nil {
		return engine.Entry{}, err
	}
	maps.Copy(p, job.Params)
	job.Params = p
	return job, nil
}

// recorded is what run.json keeps of the options: the settings given
// (settingsGiven, as typed; the workload only for job files), --scale,
// and fio's options of one job (--rw).
func (o FioOptions) recorded(flags []engine.Flag) map[string]any {
	if o.Job.RW != "" {
		o.Workload = "" // one job, no job files: -w's default ran nothing
	}
	m := settingsGiven(&o, flags)
	if o.Scale != "" {
		m["scale"] = o.Scale
	}
	if o.Job.RW != "" {
		m["rw"], m["bs"], m["iodepth"], m["direct"], m["ioengine"] = o.Job.RW, o.Job.BS, o.Job.IODepth, o.Job.Direct, o.Job.IOEngine
	}
	return m
}

// fioPhases builds a command line's fio phases as a suite entry's, through
// the fio engine's expansion (one phase per job file).
func fioPhases(st *State, e engine.Entry) ([]engine.Phase, error) {
	x, ok := st.Engines.Expander(model.EngineFio)
	if !ok {
		return nil, fmt.Errorf("this storbench has no fio engine")
	}
	return x.Expand(e)
}

// changed reports that flag name was given.
func (o FioOptions) changed(name string) bool { return o.flags != nil && o.flags.Changed(name) }
