package cli

import (
	"context"
	"encoding/json"
	"reflect"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/run"
	"github.com/storbench/storbench/internal/suite"
	"github.com/storbench/storbench/internal/units"
)

// MdOptions are the flags of `storbench md`, with mdtest's letters.
type MdOptions struct {
	Dir        string
	Items      int64
	Iterations int
	Depth      int
	Branch     int
	FilesOnly  bool
	DirsOnly   bool
	UniqueDir  bool
	Workers    int
	Stonewall  string
	WearOut    bool
	Random     bool
	Sync       bool
	SyncFile   bool
	WriteBytes string
	ReadBytes  string
	Verify     bool
	Rename     bool
	Stride     int
	RankStride int
	Only       []string
	Tree       string
	Find       bool
	FindName   string
	FindSize   string
	FindIn     string
	Force      bool
	Seed       int64
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

// AddFlags registers the options' flags: mdtest's letters where they do not
// clash with storbench's own, and long names for all.
// d holds the md engine's defaults by setting (Registry.Defaults).
func (o *MdOptions) AddFlags(f *pflag.FlagSet, d map[string]any) {
	num := func(key string) int64 { n, _ := d[key].(float64); return int64(n) }
	findName, _ := d["find_name"].(string)
	f.StringVarP(&o.Dir, "directory", "d", defaultDir, "target directory; everything goes under DIR/storbench/<run id>/ and is removed afterwards")
	f.Int64VarP(&o.Items, "items", "n", num("items"), "files and directories each worker creates per iteration")
	f.IntVarP(&o.Iterations, "iterations", "i", int(num("iterations")), "times to repeat the whole sequence; the summary gives max, min, mean and std dev across them")
	f.IntVarP(&o.Depth, "depth", "z", int(num("depth")), "depth of each directory tree (0: one directory)")
	f.IntVarP(&o.Branch, "branch", "b", int(num("branch")), "subdirectories per tree directory")
	f.BoolVarP(&o.FilesOnly, "files-only", "F", false, "only file operations")
	f.BoolVarP(&o.DirsOnly, "dirs-only", "D", false, "only directory operations")
	f.BoolVarP(&o.UniqueDir, "unique-dir", "u", false, "a tree per worker (default: all workers share one tree)")
	mdWorkersFlag(f, &o.Workers)
	f.StringVarP(&o.Stonewall, "stonewall", "W", "", "end the create operations after this time (e.g. 30s); then every worker of every host creates up to the largest count any reached (--wear-out), as mdtest -W and IO500")
	f.BoolVar(&o.WearOut, "wear-out", true, "with -W: every worker creates up to the largest count any worker reached by the stonewall, inside the create's time (false: each stops at the stonewall with its own count)")
	f.BoolVarP(&o.Random, "random", "R", false, "stat and read items in a random order")
	f.BoolVarP(&o.Sync, "sync", "Y", false, "flush every file system (sync) at the end of each operation, inside its time, as mdtest -Y")
	f.BoolVarP(&o.SyncFile, "sync-file", "y", false, "flush each file (fsync) after writing it, inside the create's time, as mdtest -y")
	f.StringVarP(&o.WriteBytes, "write-bytes", "w", "0", "bytes to write to each file on creation (e.g. 4k)")
	f.StringVarP(&o.ReadBytes, "read-bytes", "e", "0", "bytes to read from each file in file-read (e.g. 4k)")
	f.BoolVarP(&o.Verify, "verify", "X", false, "check in file-read that every byte read is what file-create wrote, as mdtest -X (needs --read-bytes)")
	f.BoolVar(&o.Rename, "rename", false, "also rename every file (file-rename)")
	f.IntVarP(&o.Stride, "stride", "N", 0, "as mdtest 3.3+'s -N, in hosts: stat the items of the worker N hosts further on, read those 2N hosts on and remove those 3N hosts on (one host: N ranks); -N 1 makes no client read from its own cache (hosts must share DIR)")
	f.IntVar(&o.RankStride, "rank-stride", 0, "the rank stride of mdtest before 3.3: stat, read, rename and remove the items of the worker this many ranks further on (excludes -N)")
	f.StringSliceVar(&o.Only, "only", nil, "run only these operations: create, stat, find, read, rename, remove (as mdtest -C, -T, -E, -r; comma list)")
	f.StringVar(&o.Tree, "tree", "", "name of a tree that phases of a run share (suites: one phase creates, later ones stat, read, remove)")
	f.BoolVar(&o.Find, "find", false, "add the find operation after the file creates: walk the trees and match names and sizes, as IO500's find")
	f.StringVar(&o.FindName, "find-name", findName, "find's name pattern (* and ? match)")
	f.StringVar(&o.FindSize, "find-size", "", "the file size find matches (default: --write-bytes)")
	f.StringVar(&o.FindIn, "find-in", "", "where find walks: tree (the phase's trees, default) or data (the run's whole data directory, every phase's files, as IO500's find)")
	f.BoolVar(&o.Force, "force", false, "allow a tree of more than 100,000 directories")
	f.Int64Var(&o.Seed, "seed", 0, "seed of the random order (default: from the clock)")
	f.BoolVar(&o.Keep, "keep", false, "keep the trees and files created")
	f.BoolVar(&o.RemoveStale, "remove-stale", false, "remove what runs killed earlier (SIGKILL, a lost host) left under DIR/storbench; a run whose process still runs, here or on another host, is never touched (without it, such leftovers are only named)")
	f.StringVar(&o.Results, "results", "results", "folder that receives the results folder")
	scaleFlag(f, &o.Scale, "workers (per host)")
	nonZero(f, "items", "")
	nonZero(f, "iterations", "")
	nonZero(f, "branch", "")
	nonZero(f, "workers", "one worker per CPU")
	nonZero(f, "stonewall", "no stonewall")
	nonZero(f, "seed", "a seed from the clock")
	zeroMeans(f, "depth", "one directory per tree")
	zeroMeans(f, "stride", "every worker works on its own items (mdtest's local)")
	zeroMeans(f, "rank-stride", "every worker works on its own items")
	zeroMeans(f, "find-size", "empty files")
	zeroMeans(f, "write-bytes", "empty files")
	zeroMeans(f, "read-bytes", "no data read")
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
	o.AddFlags(cmd.Flags(), st.Engines.Defaults(model.EngineMD))
	o.Agents.AddFlags(cmd.Flags())
	o.Watch.AddFlags(cmd.Flags())
	return cmd
}

// params turns the options into the md engine's settings, by the keys a
// suite gives them; settings left at their zero value are left out, so the
// engine's defaults apply.
func (o MdOptions) params(dir string) (map[string]any, error) {
	p := map[string]any{
		"dir": dir, "items": o.Items, "iterations": o.Iterations, "depth": o.Depth, "branch": o.Branch,
		"files_only": o.FilesOnly, "dirs_only": o.DirsOnly, "unique_dir": o.UniqueDir, "random": o.Random,
		"sync": o.Sync, "sync_file": o.SyncFile, "rename": o.Rename, "force": o.Force, "find": o.Find,
	}
	if o.Verify {
		p["verify"] = true
	}
	for k, v := range map[string]any{"workers": o.Workers, "seed": o.Seed, "stride": o.Stride, "rank_stride": o.RankStride,
		"tree": o.Tree, "find_name": o.FindName, "find_in": o.FindIn} {
		if !reflect.ValueOf(v).IsZero() {
			p[k] = v
		}
	}
	if len(o.Only) > 0 {
		p["only"] = o.Only
	}
	if o.Stonewall != "" {
		d, err := units.ParseDuration(o.Stonewall)
		if err != nil {
			return p, usageErr("--stonewall %s: %v", o.Stonewall, err)
		}
		p["stonewall"], p["wear_out"] = units.Duration(d), o.WearOut
	}
	for _, s := range []struct{ key, flag, val string }{
		{"find_size", "--find-size", o.FindSize}, {"write_bytes", "--write-bytes", o.WriteBytes}, {"read_bytes", "--read-bytes", o.ReadBytes},
	} {
		if s.val == "" && s.key == "find_size" {
			continue
		}
		n, err := units.ParseSize(s.val)
		if err != nil {
			return p, usageErr("%s %s: %v", s.flag, s.val, err)
		}
		p[s.key] = units.Size(n)
	}
	return p, nil
}

// runMd runs `storbench md`.
func runMd(ctx context.Context, st *State, o MdOptions, hosts []string) (*run.Result, error) {
	dir, err := targetDir(o.Dir, hosts, o.Agents)
	if err != nil {
		return nil, err
	}
	p, err := o.params(dir)
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
	return runPlan(ctx, st, o.Watch, run.Plan{
		Name: "md", Phases: phases, Labels: labels, Dirs: []string{dir},
		Agents: agents, MaxErrorShare: o.Agents.MaxErrorShare, ResultsRoot: o.Results, Keep: o.Keep, RemoveStale: o.RemoveStale,
		Settings: map[string]any{"dir": dir, "items": o.Items, "iterations": o.Iterations, "depth": o.Depth,
			"branch": o.Branch, "files_only": o.FilesOnly, "dirs_only": o.DirsOnly, "unique_dir": o.UniqueDir,
			"workers": o.Workers, "stonewall": o.Stonewall, "wear_out": o.WearOut, "random": o.Random, "sync": o.Sync, "sync_file": o.SyncFile,
			"write_bytes": o.WriteBytes, "read_bytes": o.ReadBytes, "verify": o.Verify, "rename": o.Rename, "force": o.Force,
			"stride": o.Stride, "rank_stride": o.RankStride, "only": o.Only, "tree": o.Tree, "find": o.Find, "find_name": o.FindName, "find_size": o.FindSize, "find_in": o.FindIn},
	})
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
