package cli

import (
	"context"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/storbench/storbench/internal/run"
	"github.com/storbench/storbench/internal/suite"
)

// FioOptions are the flags of `storbench fio`.
type FioOptions struct {
	Dir       string
	Workload  string
	FioBin    string
	Runtime   string
	Size      string
	Numjobs   int
	Keep      bool
	AllowExec bool
	Results   string
	Agents    AgentsOptions
	// Watch says how the run is watched and what it prints.
	Watch WatchOptions
}

// AddFlags registers the options' flags, named as wekatester names them.
func (o *FioOptions) AddFlags(f *pflag.FlagSet) {
	f.StringVarP(&o.Dir, "directory", "d", defaultDir, "target directory; files go under DIR/storbench/<run id>/ and are removed afterwards")
	f.StringVarP(&o.Workload, "workload", "w", "default", "built-in workload (default: the four corners; mixed: 70/30 read/write), a directory of *.job files, or one job file")
	f.StringVar(&o.FioBin, "fio-bin", "fio", "fio binary")
	f.StringVar(&o.Runtime, "runtime", "", "run each job this long (e.g. 30s), replacing the job files' runtime")
	f.StringVar(&o.Size, "size", "", "file size per job (e.g. 256M, 2G), replacing the job files' filesize")
	f.IntVar(&o.Numjobs, "numjobs", 0, "jobs per multi-job section, replacing numjobs (single-job latency sections keep 1)")
	f.BoolVar(&o.Keep, "keep", false, "keep the files fio created")
	f.BoolVar(&o.AllowExec, "allow-exec", false, "allow job files that run commands or reach past DIR (exec_prerun, exec_postrun, ioengine=exec, external, network and device engines)")
	f.StringVar(&o.Results, "results", "results", "folder that receives the results folder")
	nonZero(f, "runtime", "the job files' own runtime")
	nonZero(f, "size", "the job files' own size")
	nonZero(f, "numjobs", "the job files' own numjobs")
}

func newFioCommand(st *State) *cobra.Command {
	var o FioOptions
	cmd := &cobra.Command{
		Use:   "fio [-d DIR] [-w WORKLOAD|PATH] [--fio-bin P] [HOST ...]",
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
			_, err := runFio(cmd.Context(), st, o, args)
			return err
		},
	}
	o.AddFlags(cmd.Flags())
	o.Agents.AddFlags(cmd.Flags())
	o.Watch.AddFlags(cmd.Flags())
	return cmd
}

// runFio runs `storbench fio`.
func runFio(ctx context.Context, st *State, o FioOptions, hosts []string) (*run.Result, error) {
	dir, err := targetDir(o.Dir, hosts, o.Agents)
	if err != nil {
		return nil, err
	}
	phases, err := suite.FioPhases(suite.FioSettings{Dir: dir, Workload: o.Workload, Runtime: o.Runtime, Size: o.Size, Numjobs: o.Numjobs})
	if err != nil {
		return nil, asUsage(err)
	}
	agents, err := o.Agents.runAgents(st, hosts)
	if err != nil {
		return nil, err
	}
	return runPlan(ctx, st, o.Watch, run.Plan{
		Name: "fio-" + filepath.Base(o.Workload), Phases: phases, Dirs: []string{dir}, Agents: agents, MaxErrorShare: o.Agents.MaxErrorShare,
		ResultsRoot: o.Results, Keep: o.Keep, AllowExec: o.AllowExec, FioBin: o.FioBin,
		Settings: map[string]any{"workload": o.Workload, "runtime": o.Runtime, "size": o.Size, "numjobs": o.Numjobs, "dir": dir},
	})
}
