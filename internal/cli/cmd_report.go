package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

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
pasting and the folder's other rendered files (sweep.tsv, IO500's result
files) as a run and merge write them; given both -o and --md, nothing is
written into RESULT. Every run writes report.html at its end.`,
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
	if err := checkOutput("-o/--output", o.Out); err != nil {
		return err
	}
	if err := checkOutput("--md", o.MD); err != nil {
		return err
	}
	sum, err := results.ReadSummary(dir)
	if err != nil {
		return asUsage(err)
	}
	if o.Out == "" || o.MD == "" {
		// The rest is written into the results folder.
		if err := checkWritableDir("report", dir, dir); err != nil {
			return err
		}
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
	in := &results.RenderInput{Dir: dir, Summary: sum, Before: o.Compare}
	if sp != nil {
		in.Share = sp.ShareText
	}
	files, err := renderFolder(st.renderers(), in, o)
	if err != nil {
		return err
	}
	var wrote []string
	var stdout []byte // summary.md with --md -, once every file is written
	for _, f := range files {
		if f.path == "-" {
			stdout = f.b
			continue
		}
		if err := results.WriteFile(f.path, f.b); err != nil {
			err = fmt.Errorf("%s not saved: %w", f.path, err)
			if len(wrote) > 0 {
				err = fmt.Errorf("wrote %s; %w", joinAnd(wrote), err)
			}
			return writeErr(err)
		}
		wrote = append(wrote, f.path)
	}
	if o.MD == "-" {
		_, _ = st.Stdout.Write(stdout)
		fmt.Fprintf(st.Stderr, "wrote %s\n", joinAnd(wrote)) // stdout holds summary.md
		return nil
	}
	fmt.Fprintf(st.Stdout, "wrote %s\n", joinAnd(wrote))
	return nil
}

// renderedFile is a rendered file of report and where it goes ("-":
// stdout).
type renderedFile struct {
	path string
	b    []byte
}

// renderFolder renders every file of the list from the folder, before
// anything is written: a folder that cannot be rendered is bad input and
// leaves nothing half-written. report.html goes to -o and summary.md to
// --md when given; the rest into the folder, as a run writes them, except
// when -o and --md both send report's output elsewhere: the folder may
// then be one report must not write into.
func renderFolder(list []results.Renderer, in *results.RenderInput, o ReportOptions) ([]renderedFile, error) {
	var out []renderedFile
	for _, r := range list {
		path := filepath.Join(in.Dir, r.File)
		switch {
		case r.File == report.HTMLFile && o.Out != "":
			path = o.Out
		case r.File == report.MarkdownFile && o.MD != "":
			path = o.MD
		case r.File != report.HTMLFile && r.File != report.MarkdownFile && o.Out != "" && o.MD != "":
			continue
		}
		b, err := r.Render(in)
		if err != nil {
			return nil, asUsage(err)
		}
		if len(b) > 0 {
			out = append(out, renderedFile{path, b})
		}
	}
	return out, nil
}

// joinAnd lists names as "a, b and c".
func joinAnd(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
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
