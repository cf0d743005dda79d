package cli

import (
	"context"
	"encoding/json"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/run"
	"github.com/storbench/storbench/internal/suite"
)

// MdOptions are the flags of `storbench md`, with mdtest's letters.
type MdOptions struct {
	Dir        string   `setting:"dir"`
	Items      int64    `setting:"items"`
	Iterations int      `setting:"iterations"`
	Depth      int      `setting:"depth"`
	Branch     int      `setting:"branch"`
	FilesOnly  bool     `setting:"files_only"`
	DirsOnly   bool     `setting:"dirs_only"`
	UniqueDir  bool     `setting:"unique_dir"`
	Workers    int      `setting:"workers"`
	Stonewall  string   `setting:"stonewall"`
	WearOut    bool     `setting:"wear_out"`
	Random     bool     `setting:"random"`
	Sync       bool     `setting:"sync"`
	SyncFile   bool     `setting:"sync_file"`
	WriteBytes string   `setting:"write_bytes"`
	ReadBytes  string   `setting:"read_bytes"`
	Verify     bool     `setting:"verify"`
	Rename     bool     `setting:"rename"`
	Stride     int      `setting:"stride"`
	RankStride int      `setting:"rank_stride"`
	Only       []string `setting:"only"`
	Tree       string   `setting:"tree"`
	Find       bool     `setting:"find"`
	FindName   string   `setting:"find_name"`
	FindSize   string   `setting:"find_size"`
	FindIn     string   `setting:"find_in"`
	Force      bool     `setting:"force"`
	Seed       int64    `setting:"seed"`
	Keep       bool
	// RemoveStale removes what killed runs left (run.Plan.RemoveStale).
	RemoveStale bool
	Results     string
	// Scale steps a load up until the rate flattens (--scale).
	Scale  string
	Agents AgentsOptions
	// Watch says how the run is watched and what it prints.
	Watch WatchOptions
	// Mdtest are mdtest's other letters (fieldflags.go).
	Mdtest MdtestFlags
}

// AddFlags registers the options' flags: the md engine's settings as it
// declares them (flags: Info.Flags; settingFlags), -d and -t among them,
// mdtest's letters where they do not clash with storbench's own, and long
// names for all. d holds the md engine's defaults by setting
// (Registry.Defaults).
func (o *MdOptions) AddFlags(f *pflag.FlagSet, flags []engine.Flag, d map[string]any) {
	settingFlags(f, o, flags, "", d)
	mdtestWorkers(f, &o.Workers)
	f.BoolVar(&o.Keep, "keep", false, "keep the trees and files created")
	f.BoolVar(&o.RemoveStale, "remove-stale", false, "remove what runs killed earlier (SIGKILL, a lost host) left under DIR/storbench; a run whose process still runs, here or on another host, is never touched (without it, such leftovers are only named)")
	f.StringVar(&o.Results, "results", "results", "folder that receives the results folder")
	scaleFlag(f, &o.Scale, "workers (per host)")
	o.Mdtest.AddFlags(f)
}

func newMdCommand(st *State) *cobra.Command {
	var o MdOptions
	cmd := &cobra.Command{
		Use:   "md [flags] [HOST ...]",
		Short: "Metadata rates, mdtest-style: tree, directory and file create, stat, read, rename, remove",
		Long: `Runs mdtest 4.x's sequence natively, with no MPI: tree creation; every
directory operation (create, stat, rename, remove); every file operation
(create, writing --write-bytes; stat; read, --read-bytes; rename with
--rename; remove); tree removal.
Workers meet at a barrier before and after each operation; an iteration's rate
is the items of all workers over the time of the slowest, as mdtest computes
it. Workers are numbered across hosts (the hosts in the order given x
workers per host, as MPI ranks). With -N N, as mdtest 3.3+, worker r stats
(and renames) the items rank r+S created, reads those of r+2S and removes
those of r+3S, where S is N hosts' worth of workers (N ranks on one host):
with -N 1 no client reads from its own cache. --rank-stride keeps the older
rank stride. On several hosts, workers without -u share one tree, and trees
with -N sit in one directory for all hosts: DIR must be shared. The summary gives each operation's max, min, mean and std dev across
iterations, and latency percentiles from merged histograms.`,
		Example: `  storbench md -d /mnt/weka -n 10000 -i 3 -F -u
  storbench md -d /mnt/weka -t 16 -n 1000 -z 2 -b 4 --write-bytes 4k --read-bytes 4k
  storbench md -d /tmp/x -n 20000 -t 2 -u -F -W 30s
  storbench md -d /mnt/weka -t 136 -n 18382 -F -u -N 1 client{1...8}`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Mdtest.apply(&o, cmd.Flags().Changed); err != nil {
				return err
			}
			_, err := runMd(cmd.Context(), st, o, args)
			return err
		},
	}
	o.AddFlags(cmd.Flags(), st.Engines.Info(model.EngineMD).Flags, st.Engines.Defaults(model.EngineMD))
	o.Agents.AddFlags(cmd.Flags())
	o.Watch.AddFlags(cmd.Flags())
	return cmd
}

// params turns the options into the md engine's settings, by the keys its
// flags declare (settingParams: sizes and durations read as the engine
// types them); text and lists left empty, a 0 that stands for "not
// given" (workers: one per CPU) and wear_out without a stonewall are left
// out, so the engine's defaults apply.
func (o MdOptions) params(info engine.Info) (map[string]any, error) {
	return settingParams(&o, info.Flags, info.Defaults)
}

// runMd runs `storbench md`. Every check of the options comes before
// the default target directory is made (makeDefaultDir), which bad input
// the run finds removes again.
func runMd(ctx context.Context, st *State, o MdOptions, hosts []string) (*run.Result, error) {
	given := o.Dir
	dir, err := targetDir(o.Dir, hosts, o.Agents)
	if err != nil {
		return nil, err
	}
	o.Dir = dir
	info := st.Engines.Info(model.EngineMD)
	p, err := o.params(info)
	if err != nil {
		return nil, err
	}
	phases, labels, err := o.phases(st, p)
	if err != nil {
		return nil, err
	}
	agents, err := o.Agents.runAgents(st, hosts)
	if err != nil {
		return nil, err
	}
	undo, err := makeTargetDir(given, dir)
	if err != nil {
		return nil, err
	}
	res, err := runPlan(ctx, st, o.Watch, run.Plan{
		Name: "md", Phases: phases, Labels: labels, Dirs: []string{dir},
		Agents: agents, MaxErrorShare: o.Agents.MaxErrorShare, ResultsRoot: o.Results, Keep: o.Keep, RemoveStale: o.RemoveStale,
		Settings: settingsGiven(&o, info.Flags),
	})
	undo(res)
	return res, err
}

// phases are the run's phase, or with --scale one per step.
func (o MdOptions) phases(st *State, p map[string]any) ([]engine.Phase, []suite.Labels, error) {
	build := func(p map[string]any) ([]engine.Phase, error) {
		raw, err := json.Marshal(p)
		return []engine.Phase{{Name: "md", Engine: model.EngineMD, Params: raw}}, err
	}
	if o.Scale == "" {
		phases, err := build(p)
		return phases, nil, err
	}
	return scalePhases(st, model.EngineMD, o.Scale, "md", p, build)
}
