package cli

import (
	"context"
	"encoding/json"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/engine/md"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/run"
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
	Random     bool
	Sync       bool
	WriteBytes string
	ReadBytes  string
	Rename     bool
	Force      bool
	Seed       int64
	Keep       bool
	Results    string
	Agents     AgentsOptions
}

// AddFlags registers the options' flags: mdtest's letters where they do not
// clash with storbench's own, and long names for all.
func (o *MdOptions) AddFlags(f *pflag.FlagSet) {
	d := md.DefaultParams()
	f.StringVarP(&o.Dir, "directory", "d", "/mnt/weka", "target directory; everything goes under DIR/storbench/<run id>/ and is removed afterwards")
	f.Int64VarP(&o.Items, "items", "n", d.Items, "files and directories each worker creates per iteration")
	f.IntVarP(&o.Iterations, "iterations", "i", d.Iterations, "times to repeat the whole sequence; the summary gives max, min, mean and std dev across them")
	f.IntVarP(&o.Depth, "depth", "z", d.Depth, "depth of each directory tree (0: one directory)")
	f.IntVarP(&o.Branch, "branch", "b", d.Branch, "subdirectories per tree directory")
	f.BoolVarP(&o.FilesOnly, "files-only", "F", false, "only file operations")
	f.BoolVarP(&o.DirsOnly, "dirs-only", "D", false, "only directory operations")
	f.BoolVarP(&o.UniqueDir, "unique-dir", "u", false, "a tree per worker (default: all workers share one tree)")
	f.IntVarP(&o.Workers, "workers", "t", 0, "workers on each host (default: one per CPU)")
	f.StringVarP(&o.Stonewall, "stonewall", "W", "", "end the create operations after this time (e.g. 30s); later operations work on what was created")
	f.BoolVarP(&o.Random, "random", "R", false, "stat and read items in a random order")
	f.BoolVarP(&o.Sync, "sync", "y", false, "flush the file system (syncfs) at the end of each operation, inside its time")
	f.StringVarP(&o.WriteBytes, "write-bytes", "w", "0", "bytes to write to each file on creation (e.g. 4k)")
	f.StringVarP(&o.ReadBytes, "read-bytes", "e", "0", "bytes to read from each file in file-read (e.g. 4k)")
	f.BoolVar(&o.Rename, "rename", false, "also rename every file (file-rename)")
	f.BoolVar(&o.Force, "force", false, "allow a tree of more than 100,000 directories")
	f.Int64Var(&o.Seed, "seed", 0, "seed of the random order (default: from the clock)")
	f.BoolVar(&o.Keep, "keep", false, "keep the trees and files created")
	f.StringVar(&o.Results, "results", "results", "folder that receives the results folder")
	nonZero(f, "items", "")
	nonZero(f, "iterations", "")
	nonZero(f, "branch", "")
	nonZero(f, "workers", "one worker per CPU")
	nonZero(f, "stonewall", "no stonewall")
	nonZero(f, "seed", "a seed from the clock")
	zeroMeans(f, "depth", "one directory per tree")
	zeroMeans(f, "write-bytes", "empty files")
	zeroMeans(f, "read-bytes", "no data read")
}

func newMdCommand(st *State) *cobra.Command {
	var o MdOptions
	cmd := &cobra.Command{
		Use:   "md [flags] [HOST ...]",
		Short: "Metadata rates, mdtest-style: tree, directory and file create, stat, read, rename, remove",
		Long: `Runs mdtest's sequence natively, with no MPI: tree creation, directory
creation and stat, file creation (writing --write-bytes), stat and read
(--read-bytes), rename (--rename), file and directory removal, tree removal.
Workers meet at a barrier before and after each operation; an iteration's rate
is the items of all workers over the time of the slowest, as mdtest computes
it. The summary gives each operation's max, min, mean and std dev across
iterations, and latency percentiles from merged histograms.`,
		Example: `  storbench md -d /mnt/weka -n 10000 -i 3 -F -u
  storbench md -d /mnt/weka -t 16 -n 1000 -z 2 -b 4 --write-bytes 4k --read-bytes 4k
  storbench md -d /tmp/x -n 20000 -t 2 -u -F -W 30s`,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := runMd(cmd.Context(), st, o, args)
			return err
		},
	}
	o.AddFlags(cmd.Flags())
	o.Agents.AddFlags(cmd.Flags())
	return cmd
}

// params turns the options into the md engine's parameters.
func (o MdOptions) params(dir string) (md.Params, error) {
	p := md.Params{
		Dir: dir, Items: o.Items, Iterations: o.Iterations, Depth: o.Depth, Branch: o.Branch,
		FilesOnly: o.FilesOnly, DirsOnly: o.DirsOnly, UniqueDir: o.UniqueDir, Workers: o.Workers,
		Random: o.Random, Sync: o.Sync, Rename: o.Rename, Force: o.Force, Seed: o.Seed,
	}
	if o.Stonewall != "" {
		d, err := units.ParseDuration(o.Stonewall)
		if err != nil {
			return p, usageErr("--stonewall %s: %v", o.Stonewall, err)
		}
		p.Stonewall = md.Duration(d)
	}
	for _, s := range []struct {
		flag, val string
		dst       *md.Size
	}{{"--write-bytes", o.WriteBytes, &p.WriteBytes}, {"--read-bytes", o.ReadBytes, &p.ReadBytes}} {
		n, err := units.ParseSize(s.val)
		if err != nil {
			return p, usageErr("%s %s: %v", s.flag, s.val, err)
		}
		*s.dst = md.Size(n)
	}
	return p, nil
}

// runMd runs `storbench md`.
func runMd(ctx context.Context, st *State, o MdOptions, hosts []string) (*run.Result, error) {
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, usageErr("-d %s: %v", o.Dir, err)
	}
	p, err := o.params(dir)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	agents, err := o.Agents.runAgents(st, hosts)
	if err != nil {
		return nil, err
	}
	return runPlan(ctx, st, run.Plan{
		Name: "md", Phases: []engine.Phase{{Name: "md", Engine: model.EngineMD, Params: raw}}, Dirs: []string{dir},
		Agents: agents, MaxErrorShare: o.Agents.MaxErrorShare, ResultsRoot: o.Results, Keep: o.Keep,
		Settings: map[string]any{"dir": dir, "items": o.Items, "iterations": o.Iterations, "depth": o.Depth,
			"branch": o.Branch, "files_only": o.FilesOnly, "dirs_only": o.DirsOnly, "unique_dir": o.UniqueDir,
			"workers": o.Workers, "stonewall": o.Stonewall, "random": o.Random, "sync": o.Sync,
			"write_bytes": o.WriteBytes, "read_bytes": o.ReadBytes, "rename": o.Rename, "force": o.Force},
	})
}
