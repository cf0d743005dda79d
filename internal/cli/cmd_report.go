package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/storbench/storbench/internal/analyze"
	"github.com/storbench/storbench/internal/report"
	"github.com/storbench/storbench/internal/results"
)

// ReportOptions are the flags of `storbench report`.
type ReportOptions struct {
	Out     string
	MD      string
	Compare string
	Spec    string
}

// AddFlags registers report's flags.
func (o *ReportOptions) AddFlags(f *pflag.FlagSet) {
	f.StringVarP(&o.Out, "output", "o", "", "HTML file to write (default RESULT/report.html)")
	f.StringVar(&o.MD, "md", "", "Markdown summary to write (default RESULT/summary.md; - for stdout)")
	f.StringVar(&o.Compare, "compare", "", "another results folder to compare with (the 'before' run)")
	f.StringVar(&o.Spec, "spec", "", specFlagHelp)
}

func newReportCommand(st *State) *cobra.Command {
	var o ReportOptions
	cmd := &cobra.Command{
		Use:   "report RESULT [BEFORE]",
		Short: "Self-contained HTML report (works offline) and Markdown summary",
		Long: `Writes one HTML file that opens offline - no script, font, image or any other
request; charts are inline SVG - with the run's settings and environment, the
summary table, throughput over time per host (past 6 hosts: the total, and the
spread across hosts with the slowest named, every host in a table), latency
over time (p50, p99 and p99.9 per second, from each second's histograms
merged across hosts), latency by percentile (from merged histograms, log
scale), errors over time and, given a second results
folder (BEFORE, or --compare), the comparison. Also writes summary.md for
pasting. Every run writes report.html at its end.`,
		Example: `  storbench report results/20261121T051502Z-3fa9_quick
  storbench report results/after results/before -o cmp.html`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 2 {
				if o.Compare != "" {
					return usageErr("give BEFORE or --compare, not both")
				}
				o.Compare = args[1]
			}
			return runReport(cmd.Context(), st, o, args[0])
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

func runReport(_ context.Context, st *State, o ReportOptions, dir string) error {
	sum, err := results.ReadSummary(dir)
	if err != nil {
		return asUsage(err)
	}
	sp, err := readSpec(o.Spec)
	if err != nil {
		return err
	}
	folderNotes(st, dir, o.Compare)
	if o.Compare != "" {
		// As compare does: a comparison with nothing in it is refused, not
		// written as an empty section.
		c, err := analyze.CompareFolders(o.Compare, dir, analyze.CompareOptions{ThresholdPct: 5})
		if err != nil {
			return asUsage(err)
		}
		if len(c.Phases) == 0 {
			return usageErr("%s and %s have no phase in common: nothing to compare (phases are matched by name)", o.Compare, dir)
		}
	}
	var share report.ShareFunc
	if sp != nil {
		share = sp.ShareText
	}
	b, err := report.HTMLFolderShares(dir, o.Compare, share)
	if err != nil {
		return asUsage(err)
	}
	out := o.Out
	if out == "" {
		out = filepath.Join(dir, "report.html")
	}
	if err := results.WriteFile(out, b); err != nil {
		return writeErr(fmt.Errorf("%s not saved: %w", out, err))
	}
	md := report.Markdown(sum)
	switch o.MD {
	case "-":
		_, _ = st.Stdout.Write(md)
	default:
		path := o.MD
		if path == "" {
			path = filepath.Join(dir, "summary.md")
		}
		if err := results.WriteFile(path, md); err != nil {
			return writeErr(fmt.Errorf("wrote %s; %s not saved: %w", out, path, err))
		}
		fmt.Fprintf(st.Stdout, "wrote %s and %s\n", out, path)
		return nil
	}
	fmt.Fprintf(st.Stderr, "wrote %s\n", out)
	return nil
}

// writeErr is a file that could not be written: bad input (exit code 2)
// when the place does not exist or is not writable, a failure (exit code
// 1) when the disk is full or failing.
func writeErr(err error) error {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return asUsage(err)
	}
	return err
}
