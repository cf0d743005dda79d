package cli

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/suite"
)

// RunOptions are the flags of `storbench run`.
type RunOptions struct {
	Dir       string
	Results   string
	FioBin    string
	Keep      bool
	AllowExec bool
	DryRun    bool
}

// AddFlags registers the options' flags.
func (o *RunOptions) AddFlags(f *pflag.FlagSet) {
	f.StringVarP(&o.Dir, "directory", "d", "", "target directory for file phases, replacing the suite's dir")
	f.StringVar(&o.Results, "results", "", "folder that receives the results folder (default: the suite's, else ./results)")
	f.StringVar(&o.FioBin, "fio-bin", "fio", "fio binary")
	f.BoolVar(&o.Keep, "keep", false, "keep created files and objects")
	f.BoolVar(&o.AllowExec, "allow-exec", false, "allow fio job files that run commands")
	f.BoolVar(&o.DryRun, "dry-run", false, "print the expanded plan and its estimated duration, run nothing")
}

func newRunCommand(st *State) *cobra.Command {
	var o RunOptions
	cmd := &cobra.Command{
		Use:   "run [SUITE.yaml]",
		Short: "Run a suite of phases (fio, md, s3) as one run with one results folder",
		Long: `Runs every phase of a suite file in order, as one run with one results folder.
With no file, runs the built-in quick suite: the four corners scaled to finish
in about two minutes on a small machine, on ./storbench-data (created if
missing), plus the metadata phase and, when an S3 endpoint is set
(STORBENCH_HOST and keys), an S3 phase.`,
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
func runSuite(ctx context.Context, st *State, o RunOptions, file string) (*Result, error) {
	var s *suite.Suite
	var err error
	if file == "" {
		s, err = suite.Quick()
		if err == nil && o.Dir == "" {
			// The quick suite's own directory is made for it; a user's is not.
			if err := os.MkdirAll(s.Dir, 0o755); err != nil {
				return nil, usageErr("create %s: %v", s.Dir, err)
			}
		}
	} else {
		s, err = suite.Load(file)
	}
	if err != nil {
		return nil, asUsage(err)
	}
	if o.Dir != "" {
		s.Dir = o.Dir
		for i := range s.Phases {
			delete(s.Phases[i].Params, "dir")
		}
	}
	x, err := s.Expand(st.Getenv("STORBENCH_HOST") != "")
	if err != nil {
		return nil, asUsage(err)
	}
	if o.DryRun {
		return nil, dryRun(st, s, x)
	}
	results := s.Results
	if o.Results != "" {
		results = o.Results
	}
	return runPlan(ctx, st, Plan{
		Name: s.Name, Phases: x.Phases, Dirs: x.Dirs, ResultsRoot: results,
		Keep: o.Keep || s.Keep, AllowExec: o.AllowExec, FioBin: o.FioBin, Notes: x.Skipped,
		Settings: map[string]any{"suite": s.Source},
	})
}

func dryRun(st *State, s *suite.Suite, x *suite.Expanded) error {
	fmt.Fprintf(st.Stdout, "suite %s (%s): %d phases\n", s.Name, s.Source, len(x.Phases))
	var total time.Duration
	for i, p := range x.Phases {
		d := time.Duration(0)
		if e, err := engine.Lookup(p.Engine); err == nil {
			if pl, ok := e.(engine.Planner); ok {
				d, _ = pl.Planned(p)
			}
		}
		total += d
		fmt.Fprintf(st.Stdout, "%3d. %-4s %-28s ~%s\n", i+1, p.Engine, p.Name, d)
		if st.Verbosity > 0 {
			fmt.Fprintln(st.Stdout, suite.Pretty(p))
		}
	}
	for _, n := range x.Skipped {
		fmt.Fprintf(st.Stdout, "note: %s\n", n)
	}
	fmt.Fprintf(st.Stdout, "estimated duration: %s (plus file layout and preparation)\n", total)
	return nil
}
